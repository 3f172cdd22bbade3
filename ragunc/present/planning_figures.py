"""The planning and comparison page's figures: documents needed, power, paired differences and their forest.

Pure functions: results in, ``go.Figure`` out; nothing here computes a statistic (those come from
``ragunc.stats``).  Shared colours and layout: :mod:`ragunc.present.style`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..stats.multiple import COMPARISON_INTERVALS, MultipleComparison, adjustment
from ..stats.paired import ComparisonResult
from ..stats.planning import DifferencePlan, PlanResult
from .style import OKABE_ITO, interval_traces, base_layout, level_line, method_color, reference_line, styled


def _log_ticks(values: np.ndarray, most: int = 10) -> dict:
    """Ticks of a log axis over ``values``, each written in full: 1, 2, 5 per decade, or only the powers
    of ten when those would be more than ``most``. (Plotly writes a log axis's minor ticks as their
    leading digit alone: an axis would read "100 5 2 10 5 2 1".)"""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    low, high = np.floor(np.log10(values.min())), np.ceil(np.log10(values.max()))
    decades = 10.0 ** np.arange(low, high + 1)
    ticks = (decades[:, None] * np.array([1.0, 2.0, 5.0])).ravel()
    ticks = ticks[(ticks >= values.min() / 1.5) & (ticks <= values.max() * 1.5)]
    if len(ticks) > most:
        ticks = decades
    return {"tickvals": ticks, "ticktext": [f"{t:,g}" for t in ticks]}


def _needed_figure(
    k, cluster, naive, *, target: float, target_name: str, names, hover: str, needed: int, needed_hover: str
):
    """The cluster curve and the naive one against K (``names``: theirs; ``hover``: the y part of their hover),
    the target as a level line, and a star where K reaches it: the plan's and the power's one shape."""
    fig = go.Figure()
    for y, name, method, width, dash in ((cluster, names[0], "cluster", 3, None), (naive, names[1], "naive", 2, "dot")):
        fig.add_trace(
            go.Scatter(
                x=k,
                y=y,
                mode="lines",
                name=name,
                line={"color": method_color(method), "width": width, "dash": dash},
                hovertemplate=f"K = %{{x:,}}<br>{hover}<extra>{name}</extra>",
            )
        )
    fig.add_trace(level_line(k, target, target_name))
    fig.add_trace(
        go.Scatter(
            x=[needed],
            y=[target],
            mode="markers",
            marker={"color": method_color("cluster"), "size": 14, "symbol": "star"},
            name=f"{needed:,} documents needed",
            hovertemplate=f"{needed_hover}<extra></extra>",
        )
    )
    return fig


def plan_figure(plan: PlanResult) -> go.Figure:
    """Cluster and naive half-width against K, the target and the documents needed."""
    fig = _needed_figure(
        plan.k,
        100 * plan.curve_half_width,
        100 * plan.curve_naive_half_width,
        target=100 * plan.half_width,
        target_name=f"target ± {100 * plan.half_width:.2f} pp",
        names=("cluster half-width", "naive binomial half-width"),
        hover="± %{y:.2f} pp",
        needed=plan.docs_needed,
        needed_hover=f"{plan.docs_needed:,} documents ≈ {plan.chunks_expected:,.0f} chunks",
    )
    # log-log: half-widths fall as 1/sqrt(K), straight lines that stay readable near the target
    fig.update_xaxes(type="log", **_log_ticks(np.concatenate([plan.k, [plan.docs_needed]])))
    fig.update_yaxes(
        type="log",
        **_log_ticks(100 * np.concatenate([plan.curve_half_width, plan.curve_naive_half_width, [plan.half_width]])),
    )
    return styled(
        fig,
        title=f"Documents needed for ± {100 * plan.half_width:.2f} pp at {plan.level:.0%}",
        x="documents sampled (K, log scale)",
        y="half-width (percentage points, log scale)",
    )


def comparison_figure(result: ComparisonResult) -> go.Figure:
    """The difference b − a with naive, paired-linearization and paired-bootstrap intervals."""
    rows = [
        (label, method_color(color), result.interval(name).se, result.interval(name).ci)
        for label, color, name in (
            ("Naive binomial (unpaired)", "naive", "naive"),
            ("Paired cluster (linearization)", "cluster", "paired"),
            ("Paired cluster bootstrap", "bootstrap", "bootstrap"),
        )
    ]
    shape, label = reference_line(0.0, "no difference")
    layout = base_layout(
        title=(f"{result.config_b} − {result.config_a} on {result.n_docs:,} shared documents ({result.estimator})"),
        x="difference (percentage points)",
        y="",
        height=300,
        shapes=[shape],
        annotations=[label],
    )
    layout["yaxis"]["autorange"] = "reversed"
    return go.Figure(data=interval_traces(rows, result.difference, result.level, " pp", signed=True), layout=layout)


def forest_figure(
    result: MultipleComparison,
    *,
    units: str | None = None,
    x: str = "percentage points",
    naive: str = COMPARISON_INTERVALS["naive"],
) -> go.Figure:
    """Every difference b − a with its naive, paired and simultaneous intervals, one row per comparison.

    ``units`` says what the differences were measured on (default: the shared documents),
    ``x`` the unit of the differences (shown ×100), ``naive`` the naive interval's legend.
    """
    labels = [f"{c.b} − {c.a}" for c in result.comparisons]
    rows = np.arange(len(labels), dtype=float)
    series = (
        (naive, method_color("naive"), "naive", -0.22),
        (COMPARISON_INTERVALS["paired"], method_color("cluster"), "paired", 0.0),
        (
            f"{COMPARISON_INTERVALS['simultaneous']} ({adjustment(result.adjust).label})",
            OKABE_ITO["reddish_purple"],
            "simultaneous",
            0.22,
        ),
    )
    fig = go.Figure()
    for name, color, attr, offset in series:
        diff = np.array([100 * c.difference for c in result.comparisons])
        low = np.array([100 * c.interval(attr).ci.low for c in result.comparisons])
        high = np.array([100 * c.interval(attr).ci.high for c in result.comparisons])
        fig.add_trace(
            go.Scatter(
                x=diff.tolist(),
                y=(rows + offset).tolist(),
                mode="markers",
                name=name,
                marker={"color": color, "size": 9},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": high - diff,
                    "arrayminus": diff - low,
                    "color": color,
                    "thickness": 2.5,
                    "width": 6,
                },
                customdata=np.column_stack([low, high]),
                text=labels,
                hovertemplate="%{text}: %{x:+.2f} pp<br>[%{customdata[0]:+.2f}, %{customdata[1]:+.2f}]<extra>"
                + name
                + "</extra>",
            )
        )
    shape, label = reference_line(0.0, "no difference")
    fig.update_layout(
        base_layout(
            title=(
                f"{'Differences of every pair' if result.all_pairs else f'Differences against {result.baseline}'} "
                f"on {units or f'{result.n_docs:,} shared documents'} ({result.estimator}, {result.level:.0%})"
            ),
            x=f"difference ({x})",
            y="",
            height=180 + 70 * len(labels),
            shapes=[shape],
            annotations=[label],
        )
    )
    fig.update_yaxes(tickvals=rows, ticktext=labels, autorange="reversed")
    return fig


def power_figure(plan: DifferencePlan) -> go.Figure:
    """Power against K: paired documents as clusters and what the naive binomial formula claims."""
    fig = _needed_figure(
        plan.k,
        100 * plan.curve_power,
        100 * plan.curve_power_naive,
        target=100 * plan.power,
        target_name=f"target power {plan.power:.0%}",
        names=("paired, documents as clusters", "naive binomial (unpaired chunks)"),
        hover="power %{y:.0f}%",
        needed=plan.docs_needed,
        needed_hover=f"{plan.docs_needed:,} documents",
    )
    return styled(
        fig,
        # The test is two-sided: the planned difference either way, beside the pilot's own (b − a, as the page's tile).
        title=(
            f"Power to detect ± {100 * abs(plan.difference):.2f} pp between {plan.config_b} and {plan.config_a} "
            f"(pilot {plan.config_b} − {plan.config_a} {100 * plan.pilot_difference:+.2f} pp), "
            f"two-sided {1 - plan.level:.0%} test"
        ),
        x="documents sampled (K)",
        y="power (%)",
    )
