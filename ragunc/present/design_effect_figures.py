"""The design-effect page's figures: DEFF against chunks per document, against chunk size, per-document rates.

Pure functions: results in, ``go.Figure`` out; nothing here computes a statistic (those come from
``ragunc.stats``).  Shared colours and layout: :mod:`ragunc.present.style`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..stats.design import ChunkSizeDiagnostics
from ..stats.diagnostics import deff_equal_size, k_over_rho
from . import numbers
from .style import OKABE_ITO, REFERENCE_COLOR, SERIES_COLORS, level_line, styled, base_layout


def deff_curve_figure(
    *,
    rho: float,
    k: int,
    m_max: float = 100.0,
    observed: Mapping[str, tuple[float, float]] | None = None,
) -> go.Figure:
    """DEFF and effective n of K documents against chunks per document m, with the K/ρ ceiling.

    The curves are the equal-size design effect 1 + (m − 1)ρ and K·m / DEFF;
    ``observed`` maps a config to its measured (mean chunks per document, DEFF).
    """
    m = np.linspace(1.0, float(m_max), 200)
    deff = deff_equal_size(m, rho)
    ceiling = float(k_over_rho(k, rho))
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.1,
        subplot_titles=("Design effect", f"Effective n with K = {k} documents"),
    )
    fig.add_trace(
        go.Scatter(
            x=m,
            y=deff,
            mode="lines",
            line={"color": OKABE_ITO["blue"], "width": 3},
            name=f"DEFF = 1 + (m − 1)·{rho:.3f}",
            hovertemplate="m = %{x:.1f}<br>DEFF %{y:.2f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=m,
            y=k * m,
            mode="lines",
            line={"color": OKABE_ITO["vermillion"], "dash": "dot", "width": 2},
            name="chunks (what the binomial counts)",
            hovertemplate="m = %{x:.1f}<br>%{y:,.0f} chunks<extra></extra>",
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Scatter(
            x=m,
            y=k * m / deff,
            mode="lines",
            line={"color": OKABE_ITO["blue"], "width": 3},
            name="effective n = K·m / DEFF",
            hovertemplate="m = %{x:.1f}<br>effective n %{y:,.1f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    if np.isfinite(ceiling):
        fig.add_trace(level_line(m, ceiling, f"ceiling K/ρ = {numbers.effective_n(ceiling)}"), row=1, col=2)
        fig.update_yaxes(range=[0, 1.6 * ceiling], row=1, col=2)
    for i, (name, (m_bar, d)) in enumerate((observed or {}).items()):
        fig.add_trace(
            go.Scatter(
                x=[m_bar],
                y=[d],
                mode="markers+text",
                text=[name],
                textposition="middle left",  # above the point, the largest DEFF's label met the plot's top
                cliponaxis=False,
                marker={
                    "color": SERIES_COLORS[(i + 2) % len(SERIES_COLORS)],
                    "size": 12,
                    "symbol": "circle-open",
                    "line": {"width": 3},
                },
                name=f"measured: {name}",
                hovertemplate=f"{name}<br>mean chunks/doc %{{x:.1f}}<br>DEFF %{{y:.2f}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    fig.update_xaxes(title_text="chunks per document (m)")
    fig.update_yaxes(title_text="DEFF (variance ratio)", row=1, col=1)
    fig.update_yaxes(title_text="independent-chunk equivalents", row=1, col=2)
    return styled(
        fig,
        title="More chunks per document buy less and less information",
        x="chunks per document (m)",
        y="DEFF (variance ratio)",
        height=420,
    )


def chunk_size_figure(
    rows: Sequence[ChunkSizeDiagnostics], *, current: int | None = None, unit: str = "words"
) -> go.Figure:
    """DEFF, ICC, effective n and the SD of the micro estimate against ``unit`` (words, morphemes) per chunk
    (one point per size).

    Effective n is drawn beside the chunks a sample holds, the micro SD beside the binomial SD
    (chunks counted as independent trials); ``current`` (a size) is ringed in every panel.
    """
    if not rows:
        raise ValueError("chunk_size_figure needs at least one chunk size")
    k = rows[0].k
    words = np.array([r.words for r in rows], dtype=float)
    fig = make_subplots(
        rows=2,
        cols=2,
        horizontal_spacing=0.12,
        vertical_spacing=0.2,
        subplot_titles=(
            "Design effect (DEFF)",
            "Intraclass correlation (ICC)",
            f"Chunks and effective n in K = {k} documents",
            f"SD of the micro estimate, K = {k}",
        ),
    )
    panels = [
        (1, 1, "deff", "DEFF", OKABE_ITO["blue"], "solid", "%{y:.2f}", 1.0),
        (1, 2, "icc", "ICC", OKABE_ITO["bluish_green"], "solid", "%{y:.3f}", 1.0),
        (
            2,
            1,
            "chunks_per_sample",
            "chunks per sample (what the binomial counts)",
            OKABE_ITO["vermillion"],
            "dot",
            "%{y:,.0f}",
            1.0,
        ),
        (2, 1, "n_eff", "effective n = chunks / DEFF", OKABE_ITO["blue"], "solid", "%{y:,.1f}", 1.0),
        (
            2,
            2,
            "binomial_sd",
            "binomial SD (chunks as independent trials)",
            OKABE_ITO["vermillion"],
            "dot",
            "%{y:.2f} pp",
            100.0,
        ),
        (
            2,
            2,
            "micro_sd",
            "micro SD (over repeated samples of documents)",
            OKABE_ITO["blue"],
            "solid",
            "%{y:.2f} pp",
            100.0,
        ),
    ]
    for row, col, field, name, color, dash, fmt, scale in panels:
        values = scale * np.array([getattr(r, field) for r in rows], dtype=float)
        fig.add_trace(
            go.Scatter(
                x=words,
                y=values,
                mode="lines+markers",
                name=name,
                showlegend=row == 2,
                line={"color": color, "dash": dash, "width": 3},
                marker={"color": color, "size": 9},
                hovertemplate=f"%{{x:.0f}} {unit} per chunk<br>{name}: {fmt}<extra></extra>",
            ),
            row=row,
            col=col,
        )
        if current is not None and current in words:
            at = int(np.flatnonzero(words == current)[0])
            fig.add_trace(
                go.Scatter(
                    x=[current],
                    y=[values[at]],
                    mode="markers",
                    showlegend=False,
                    hoverinfo="skip",
                    marker={"color": "rgba(0,0,0,0)", "size": 18, "line": {"color": REFERENCE_COLOR, "width": 2}},
                ),
                row=row,
                col=col,
            )
    fig.update_layout(
        base_layout(title="Finer chunks: more chunks per sample, not more information", x="", y="", height=640)
    )
    fig.update_xaxes(type="log", tickvals=words, ticktext=[f"{w:.0f}" for w in words], title_text=f"{unit} per chunk")
    fig.update_yaxes(title_text="variance ratio", row=1, col=1)
    fig.update_yaxes(title_text="ρ", row=1, col=2)
    fig.update_yaxes(title_text="chunks", rangemode="tozero", row=2, col=1)
    fig.update_yaxes(title_text="percentage points", rangemode="tozero", row=2, col=2)
    return fig


def document_rates_figure(rates: Mapping[str, np.ndarray], *, bins: int = 30) -> go.Figure:
    """Overlaid histograms of per-document rates (e.g. the data vs its iid control).

    Binned here rather than in the browser, so D = 100,000 documents send 30 bars, not 100,000 values.
    """
    edges = np.linspace(0.0, 100.0, bins + 1)
    centres, width = (edges[:-1] + edges[1:]) / 2, edges[1] - edges[0]
    fig = go.Figure()
    for i, (name, values) in enumerate(rates.items()):
        counts, _ = np.histogram(100 * np.asarray(values, float), bins=edges)
        share = 100 * counts / max(counts.sum(), 1)
        fig.add_trace(
            go.Bar(
                x=centres,
                y=share,
                width=width,
                name=name,
                opacity=0.6,
                marker={"color": SERIES_COLORS[i % len(SERIES_COLORS)]},
                customdata=np.column_stack([edges[:-1], edges[1:], counts]),
                hovertemplate=(
                    f"{name}<br>rate %{{customdata[0]:.0f}}–%{{customdata[1]:.0f}}%<br>"
                    "%{y:.1f}% of documents (%{customdata[2]:,})<extra></extra>"
                ),
            )
        )
    fig.update_layout(barmode="overlay")
    return styled(fig, title="Per-document rates", x="document rate (%)", y="documents (%)")
