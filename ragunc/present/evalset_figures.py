"""Plotly builders for the page "Evaluation set": pure functions returning ``go.Figure``.

The funnel of a build (questions left after each filter), its question-type mix, and the
metrics measured on the set with the recommended interval beside the naive and cluster ones. Colours are Okabe–Ito;
each series also has its own pattern or marker, so the figures read without colour.
"""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from ..evalset.build import FUNNEL
from ..evalset.evaluate import EvalsetReport
from ..ranking.metrics import ranking_metric
from ..stats.recommend import RECOMMENDED_METHOD
from .style import LEGEND_BELOW, OKABE_ITO, method_color, method_label


def _with_layout(fig: go.Figure, *, title: str, x: str, y: str, height: int = 360) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        xaxis_title=x,
        yaxis_title=y,
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend=LEGEND_BELOW,
    )
    return fig


def funnel_figure(funnel: Mapping[str, int]) -> go.Figure:
    """Pairs left after each stage of a build (``BuildResult.funnel`` or the manifest's ``funnel``)."""
    labels = [label for _, label in FUNNEL]
    values = [int(funnel[stage]) for stage, _ in FUNNEL]
    fig = go.Figure(
        go.Funnel(
            y=labels,
            x=values,
            textinfo="value+percent initial",
            marker={"color": [OKABE_ITO["blue"]] * (len(values) - 1) + [OKABE_ITO["bluish_green"]]},
            connector={"line": {"color": OKABE_ITO["grey"], "width": 1}},
            hovertemplate="<b>%{y}</b><br>%{x} pairs (%{percentInitial:.0%} of those sampled)<extra></extra>",
        )
    )
    return _with_layout(
        fig,
        title=f"{values[-1]:,} of {values[0]:,} sampled pairs kept after the filters",
        x="question–chunk pairs",
        y="",
    )


def type_mix_figure(by_type: Mapping[str, Mapping[str, int]]) -> go.Figure:
    """Sampled and kept pairs per question type (``BuildResult.by_type`` or the manifest's ``by_type``)."""
    types = list(by_type)
    fig = go.Figure()
    for stage, label, colour, pattern in (
        ("sampled", "sampled", OKABE_ITO["grey"], "/"),
        ("kept", "kept", OKABE_ITO["blue"], ""),
    ):
        values = [int(by_type[t][stage]) for t in types]
        fig.add_trace(
            go.Bar(
                y=types,
                x=values,
                name=label,
                orientation="h",
                text=values,
                textposition="outside",
                marker={"color": colour, "pattern": {"shape": pattern}},
                hovertemplate=f"<b>%{{y}}</b><br>{label} %{{x}}<extra></extra>",
            )
        )
    fig.update_layout(barmode="group")
    fig.update_yaxes(autorange="reversed")
    # Room beyond the longest bar for the number written after it, which the plot's edge would cut.
    longest = max((int(counts[stage]) for counts in by_type.values() for stage in ("sampled", "kept")), default=0)
    fig.update_xaxes(range=[0, 1.2 * max(longest, 1)])
    return _with_layout(fig, title="Question types: sampled and kept", x="pairs", y="", height=300)


def metric_intervals_figure(report: EvalsetReport) -> go.Figure:
    """Each metric's mean with the recommended interval beside the naive one (questions independent), as the
    explorer shows them; a metric without an interval (fewer than 2 source documents) shows its mean only."""
    rows = [("recall", report.recall.recall, report.recall), *((m.name, m.mean, m) for m in report.metrics)]
    level = f"{report.level:.0%}"
    fig = go.Figure()
    for method, symbol, name in (
        (RECOMMENDED_METHOD, "square", f"recommended: {method_label(RECOMMENDED_METHOD)}"),
        ("naive", "circle", "naive: questions independent"),
    ):
        labels, means, plus, minus, texts = [], [], [], [], []
        for metric, mean, result in rows:
            low, high = result.interval(method).ci
            labels.append(ranking_metric(metric).at(report.k))
            means.append(mean)
            plus.append(high - mean)
            minus.append(mean - low)
            texts.append(f"{low:.3f} – {high:.3f}")
        fig.add_trace(
            go.Scatter(
                x=means,
                y=labels,
                mode="markers",
                name=name,
                customdata=texts,
                orientation="h",
                marker={"color": method_color(method), "size": 10, "symbol": symbol},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": plus,
                    "arrayminus": minus,
                    "color": method_color(method),
                    "thickness": 3,
                    "width": 6,
                },
                hovertemplate=f"<b>%{{y}}</b> {name}<br>mean %{{x:.3f}}<br>{level} CI %{{customdata}}<extra></extra>",
            )
        )
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(scattermode="group")
    return _with_layout(
        fig,
        title=f"{level} intervals on {report.recall.n_queries:,} answerable questions ({report.retriever})",
        x="mean over questions",
        y="",
        height=380,
    )
