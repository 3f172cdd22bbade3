"""Plotly builders for the page "Ranking metrics": pure functions returning ``go.Figure``.

Colours are Okabe–Ito (shared with :mod:`ragunc.present.style`); every series also has its
own dash or marker so the figures read without colour.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..ranking.comparison import RunComparison
from ..ranking.metrics import DEDUP_TRUNCATE, TRUNCATE_DEDUP, ranking_metric
from ..ranking.uncertainty import RecallReport
from .planning_figures import forest_figure
from .style import LEGEND_BELOW, OKABE_ITO, method_color, method_label

SERIES = (  # column of recall_curve, label, colour, dash, marker
    ("truncate_dedup", f"{TRUNCATE_DEDUP}: documents in the top-k chunks", OKABE_ITO["blue"], "solid", "circle"),
    ("dedup_truncate", f"{DEDUP_TRUNCATE}: first k distinct documents", OKABE_ITO["orange"], "dash", "square"),
    ("naive_sum", "naive per-chunk sum (can pass 1)", OKABE_ITO["vermillion"], "dot", "x"),
)


def _with_layout(fig: go.Figure, *, title: str, x: str, y: str, height: int = 380) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        xaxis_title=x,
        yaxis_title=y,
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend=LEGEND_BELOW,
    )
    return fig


def order_curve_figure(curve: pd.DataFrame, *, k: int | None = None) -> go.Figure:
    """Mean Recall@k against k for the two orders and the naive sum (``curve`` from ``ranking.recall_curve``)."""
    fig = go.Figure()
    for column, label, colour, dash, marker in SERIES:
        fig.add_trace(
            go.Scatter(
                x=curve["k"],
                y=curve[column],
                name=label,
                mode="lines+markers",
                line={"color": colour, "dash": dash, "width": 2.5},
                marker={"symbol": marker, "size": 7},
                hovertemplate=f"<b>{label}</b><br>k %{{x}}<br>mean %{{y:.3f}}<extra></extra>",
            )
        )
    fig.add_hline(
        y=1,
        line={"color": OKABE_ITO["grey"], "dash": "dash", "width": 1},
        annotation_text="a recall cannot pass 1",
        annotation_position="bottom right",
    )
    if k is not None:
        fig.add_vline(
            x=k,
            line={"color": OKABE_ITO["grey"], "width": 1},
            annotation_text=f"k = {k}",
            annotation_position="top left",
        )
    return _with_layout(
        fig, title="Mean document-level Recall@k by order", x="k (chunks retrieved)", y="mean over queries"
    )


def recall_interval_figure(report: RecallReport) -> go.Figure:
    """The mean Recall@k with the recommended interval first, then the naive, cluster and bootstrap ones."""
    recommended = report.recommendation.method if report.recommendation else None
    shown = [m for m in (recommended, "naive", "cluster", "bootstrap") if m is not None]
    level = f"{report.level:.0%}"
    fig = go.Figure()
    for method in shown:
        est = report.interval(method)
        low, high = est.ci
        label = method_label(method).replace("binomial (Wald)", "(queries independent)")
        label = f"recommended: {label}" if method == recommended else label
        se = "" if est.se is None else f"<br>SE {est.se:.4f}"
        fig.add_trace(
            go.Scatter(
                x=[report.recall],
                y=[label],
                mode="markers",
                showlegend=False,
                marker={"color": method_color(method), "size": 11, "symbol": "diamond"},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [high - report.recall],
                    "arrayminus": [report.recall - low],
                    "color": method_color(method),
                    "thickness": 4,
                    "width": 8,
                },
                hovertemplate=(
                    f"<b>{label}</b><br>Recall@{report.k} {report.recall:.3f}<br>{level} CI "
                    f"{low:.3f} – {high:.3f}{se}<extra></extra>"
                ),
            )
        )
    fig.update_yaxes(autorange="reversed")
    groups = f"{report.n_groups:,} groups" + (f" by {report.group_col}" if report.group_col else " (one per query)")
    return _with_layout(
        fig,
        title=f"{level} intervals for Recall@{report.k} ({report.order}): {report.n_queries:,} queries, {groups}",
        x=f"mean Recall@{report.k}",
        y="",
        height=300 + 40 * (len(shown) - 3),
    )


def per_query_difference_figure(table: pd.DataFrame) -> go.Figure:
    """Queries that each alternative scores above truncate-dedup, by how much (histogram; ``order_differences`` table).

    Both alternatives only ever add to truncate-dedup, so queries with no excess are counted in the legend, not drawn.
    """
    defined = table.dropna(subset=["truncate_dedup"])
    fig = go.Figure()
    for column, label, colour, _, _ in SERIES[1:]:
        excess = defined[column] - defined["truncate_dedup"]
        higher = excess[excess > 0]
        fig.add_trace(
            go.Histogram(
                x=higher,
                name=f"{label}: {higher.size:,} of {excess.size:,} queries higher",
                marker={"color": colour, "pattern": {"shape": "" if column == "dedup_truncate" else "/"}},
                opacity=0.8,
                xbins={"start": 0, "size": 0.1},
                hovertemplate=f"<b>{label}</b><br>excess %{{x}}<br>%{{y}} queries<extra></extra>",
            )
        )
    fig.update_layout(barmode="group")
    return _with_layout(
        fig,
        title="Per query: how far each alternative lands above truncate-dedup",
        x="score − truncate-dedup recall",
        y="queries",
    )


def runs_forest_figure(result: RunComparison) -> go.Figure:
    """Several runs' differences against the baseline: the config comparison's forest plot, on shared queries."""
    return forest_figure(
        result.comparison,
        x=f"{ranking_metric(result.metric).at(result.k)}, points",
        units=f"{result.n_queries:,} shared queries in {result.n_clusters:,} groups",
        naive="naive (queries independent, unpaired)",
    )
