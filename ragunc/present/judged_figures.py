"""Figures of judged labels (the three estimates, their coverage) and of which configuration is best.

Pure functions: results in, ``go.Figure`` out (rates in percent); the statistics come from
:mod:`ragunc.stats.judged` and :func:`ragunc.stats.multiple.rank_configs`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..stats.judged.coverage import JudgedCoverage

from ..stats.judged.report import JudgedReport

from ..stats.judged.sample import ESTIMATES, LABELS
from ..stats.multiple import RankResult
from .style import OKABE_ITO, REFERENCE_COLOR, reference_line

# One colour per estimate, the same in every figure: the judge alone warns (vermillion), the
# audited rows alone are the plain reference (grey), the corrected estimate the one to read (blue).
ESTIMATE_COLORS = {
    "judge_only": OKABE_ITO["vermillion"],
    "gold_only": OKABE_ITO["grey"],
    "prediction_powered": OKABE_ITO["blue"],
}


def _layout(title: str, x: str, height: int, **extra) -> dict:
    return {
        "title": {"text": title, "x": 0, "xanchor": "left"},
        "xaxis": {"title": {"text": x}},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "hovermode": "closest",
        "showlegend": False,
        **extra,
    }


def judged_figure(report: JudgedReport, *, truth: float | None = None, metric: str | None = None) -> go.Figure:
    """The judge-only, gold-only and prediction-powered estimates side by side, each with its interval.

    ``truth``: the population's gold mean, when known (a simulation), drawn as a dashed line;
    ``metric``: what the labels measure (default: the gold micro or macro mean).
    """
    labels = [LABELS[n] for n in ESTIMATES]
    fig = go.Figure()
    for name, label in zip(ESTIMATES, labels):
        est = report[name]
        low, high = est.interval.ci
        x = 100 * est.estimate
        defined = np.isfinite([low, high]).all()
        bar = (
            {
                "type": "data",
                "symmetric": False,
                "array": [100 * high - x],
                "arrayminus": [x - 100 * low],
                "color": ESTIMATE_COLORS[name],
                "thickness": 4,
                "width": 8,
            }
            if defined
            else None
        )
        ci = f"{100 * low:.2f} to {100 * high:.2f}%" if defined else "undefined (fewer than 2 audited documents)"
        extra = f"<br>lambda {report.lam:.2f}" if name == "prediction_powered" else ""
        fig.add_trace(
            go.Scatter(
                x=[x],
                y=[label],
                mode="markers",
                marker={"color": ESTIMATE_COLORS[name], "size": 12, "symbol": "diamond"},
                error_x=bar,
                hovertemplate=f"<b>{label}</b><br>estimate {x:.2f}%<br>{report.level:.0%} CI {ci}{extra}"
                "<extra></extra>",
            )
        )
    shapes, annotations = [], []
    if truth is not None:
        shape, text = reference_line(100 * truth, f"population {100 * truth:.1f}%")
        shapes.append(shape)
        annotations.append(text)
    bias = report["judge_bias"]
    fig.update_layout(
        _layout(
            f"Three estimates of {metric or f'the gold {report.estimator} mean'} ({report.level:.0%} intervals); "
            f"the judge's bias {100 * bias.estimate:+.1f} pp",
            "estimate (%)",
            300,
            shapes=shapes,
            annotations=annotations,
        )
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def judged_coverage_figure(result: JudgedCoverage) -> go.Figure:
    """Each estimate's coverage over the repeated draws and audits, with ± 2 Monte Carlo SEs and the nominal level."""
    labels = [LABELS[n] for n in ESTIMATES]
    cover = np.array([100 * result.coverage[n] for n in ESTIMATES])
    mcse = np.array([100 * result.coverage_mcse[n] for n in ESTIMATES])
    fig = go.Figure(
        go.Bar(
            x=cover.tolist(),
            y=labels,
            orientation="h",
            marker={"color": [ESTIMATE_COLORS[n] for n in ESTIMATES]},
            error_x={"type": "data", "array": (2 * mcse).tolist(), "color": REFERENCE_COLOR},
            text=[f"{c:.1f}%" for c in cover],
            textposition="inside",
            insidetextanchor="start",
            customdata=np.column_stack([mcse, [100 * result.width[n] for n in ESTIMATES]]),
            hovertemplate="<b>%{y}</b><br>coverage %{x:.1f}% ± %{customdata[0]:.1f} (MC SE)<br>mean width "
            "%{customdata[1]:.2f} pp<extra></extra>",
        )
    )
    shape, text = reference_line(100 * result.level, f"nominal {result.level:.0%}")
    audit = (
        f"{result.audit_share:.0%} of the rows"
        if result.audit == "rows"
        else f"{result.audit_share:.0%} of the documents"
    )
    fig.update_layout(
        _layout(
            f"Coverage of the gold mean: {result.reps:,} samples of K = {result.k} documents, an audit of {audit} in each",
            "share of intervals holding the population's gold mean (%)",
            300,
            shapes=[shape],
            annotations=[text],
        )
    )
    fig.update_xaxes(range=[0, 105])
    fig.update_yaxes(autorange="reversed")
    return fig


def rank_figure(result: RankResult) -> go.Figure:
    """Each config's rank with its interval (left) and its probability of being the best (right), best first."""
    order = sorted(result.configs, key=lambda c: (c.rank, -c.p_best))
    names = [c.config for c in order]
    rank = np.array([c.rank for c in order], dtype=float)
    low = np.array([c.rank_ci[0] for c in order], dtype=float)
    high = np.array([c.rank_ci[1] for c in order], dtype=float)
    p_best = np.array([100 * c.p_best for c in order])
    estimate = [f"{100 * c.estimate:.2f}%" for c in order]
    color = OKABE_ITO["blue"]
    fig = go.Figure(
        [
            go.Scatter(
                x=rank.tolist(),
                y=names,
                mode="markers",
                marker={"color": color, "size": 11},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": (high - rank).tolist(),
                    "arrayminus": (rank - low).tolist(),
                    "color": color,
                    "thickness": 3,
                    "width": 6,
                },
                customdata=np.column_stack([low, high, estimate]),
                xaxis="x",
                yaxis="y",
                hovertemplate="<b>%{y}</b> (estimate %{customdata[2]})<br>rank %{x} · "
                f"{result.level:.0%} interval %{{customdata[0]}} to %{{customdata[1]}}<extra></extra>",
            ),
            go.Bar(
                x=p_best.tolist(),
                y=names,
                orientation="h",
                marker={"color": OKABE_ITO["bluish_green"]},
                xaxis="x2",
                yaxis="y",
                text=[f"{p:.0f}%" for p in p_best],
                textposition="outside",
                hovertemplate="<b>%{y}</b><br>P(best) %{x:.1f}%<extra></extra>",
            ),
        ]
    )
    n = len(names)
    fig.update_layout(
        _layout(
            f"Which configuration is best ({result.estimator}; {result.boot:,} joint cluster-bootstrap replicates "
            f"over {result.n_docs:,} shared documents)",
            "",
            170 + 45 * n,
            xaxis={
                "domain": [0, 0.55],
                "title": {"text": f"rank (1 = best) with its {result.level:.0%} interval"},
                "range": [0.5, n + 0.5],
                "dtick": 1,
            },
            xaxis2={"domain": [0.65, 1], "title": {"text": "P(best) (%)"}, "range": [0, 115]},
            yaxis={"autorange": "reversed"},
        )
    )
    return fig
