"""Plotly figure builders for the dashboard and the HTML report.

Pure functions: results in, ``go.Figure`` out; nothing here computes a
statistic (those come from ``ragunc.stats``).  Rates are drawn in percent and widths in percentage
points.  Colours are Okabe–Ito (colour-blind safe) and no template or
background is fixed, so the host's light or dark theme applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..stats.coverage import CoverageResult
from ..stats.design import ChunkSizeDiagnostics
from ..stats.diagnostics import deff_equal_size, k_over_rho
from ..stats.intervals import IntervalReport
from ..stats.methods import interval_method, interval_methods
from ..stats.multiple import COMPARISON_INTERVALS, MultipleComparison, adjustment
from ..stats.paired import ComparisonResult
from ..stats.planning import DifferencePlan, PlanResult
from . import numbers

# Okabe & Ito (2008); black is replaced by a mid grey so it reads on dark themes too.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#999999",
}
# Okabe-Ito has no ninth hue that reads on light and dark themes: Paul Tol's muted scheme (also
# colour-blind safe) completes it.  Indigo, the darkest, is the recommended interval's.
PAUL_TOL = {
    "wine": "#882255",
    "tol_indigo": "#332288",
    "tol_teal": "#44AA99",
    "tol_olive": "#999933",
    "tol_rose": "#CC6677",
    "tol_green": "#117733",
    "tol_purple": "#AA4499",
    "tol_cyan": "#88CCEE",
}
PALETTE = {**OKABE_ITO, **PAUL_TOL}

# Series colours when several scenarios share one figure.
SERIES_COLORS = (
    OKABE_ITO["blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["bluish_green"],
    OKABE_ITO["orange"],
    OKABE_ITO["reddish_purple"],
    OKABE_ITO["sky_blue"],
)

# The legend below the plot (long titles and legends never overlap in a narrow column), anchored to the
# figure's bottom edge: plotly makes room for it under the x-axis title, where a place at a share of the
# plot's height would meet that title in a short figure. A transparent border keeps the entries clear of the
# x-axis title whatever the browser's font metrics.
LEGEND_BELOW = {
    "orientation": "h",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
    "x": 0,
    "xanchor": "left",
    "borderwidth": 8,
    "bordercolor": "rgba(0,0,0,0)",
}

COVER_COLOR = OKABE_ITO["blue"]
MISS_COLOR = OKABE_ITO["vermillion"]
REFERENCE_COLOR = OKABE_ITO["grey"]


def method_label(method: str) -> str:
    """What tables and figures call a registered interval method (:data:`ragunc.stats.methods.METHODS`)."""
    return interval_method(method).label


def method_color(method: str) -> str:
    """The colour of a registered interval method: its registry entry names a key of :data:`PALETTE`."""
    return PALETTE[interval_method(method).color]


def _layout(*, title: str, x: str, y: str, height: int = 380, **extra) -> dict:
    return {
        "title": {"text": title, "x": 0, "xanchor": "left"},
        "xaxis": {"title": {"text": x}},
        "yaxis": {"title": {"text": y}},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "hovermode": "closest",
        "legend": LEGEND_BELOW,
        **extra,
    }


def _style(fig: go.Figure, *, title: str, x: str, y: str, height: int = 380) -> go.Figure:
    fig.update_layout(_layout(title=title, x=x, y=y, height=height))
    return fig


def reference_line(x: float, text: str) -> tuple[dict, dict]:
    """A dashed reference line at ``x`` across the plot, and its label, as layout dicts.

    Cheaper than ``fig.add_vline``, which matters on every rerun of the explorer.
    """
    shape = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5},
    }
    label = {
        "text": text,
        "x": x,
        "xref": "x",
        "y": 1,
        "yref": "paper",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"color": REFERENCE_COLOR},
    }
    return shape, label


def _level_line(x: np.ndarray, y: float, name: str) -> go.Scatter:
    """A dashed horizontal line at ``y`` across ``x``, named in the legend: a label on the line would sit
    where the curves approach or cross it (and plotly places a line's label wrongly on a log axis)."""
    return go.Scatter(
        x=[x[0], x[-1]],
        y=[y, y],
        mode="lines",
        name=name,
        hovertemplate=f"{name}<extra></extra>",
        line={"color": REFERENCE_COLOR, "dash": "dash"},
    )


def _interval_traces(rows, estimate: float, level: float, unit: str, signed: bool = False) -> list[dict]:
    """One diamond at the estimate with an asymmetric bar to each interval's bounds (percent).

    ``rows`` are ``(label, colour, se or None, (low, high))``.
    """
    traces = []
    sign = "+" if signed else ""
    for label, color, se, (low, high) in rows:
        est = 100 * estimate
        se_text = "" if se is None else f" · SE {100 * se:.2f} pp"
        traces.append(
            {
                "type": "scatter",
                "x": [est],
                "y": [label],
                "mode": "markers",
                "name": label,
                "showlegend": False,
                "marker": {"color": color, "size": 11, "symbol": "diamond"},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [100 * high - est],
                    "arrayminus": [est - 100 * low],
                    "color": color,
                    "thickness": 4,
                    "width": 8,
                },
                "hovertemplate": (
                    f"<b>{label}</b><br>estimate {est:{sign}.2f}{unit}<br>{level:.0%} CI "
                    f"{100 * low:{sign}.2f} to {100 * high:{sign}.2f}{unit}<br>"
                    f"width {100 * (high - low):.2f} pp{se_text}<extra></extra>"
                ),
            }
        )
    return traces


def interval_label(method: str, *, plain: bool = False) -> str:
    """A method's row label: its plain name in the short list (``plain``) when it has one, else its label."""
    m = interval_method(method)
    return m.plain if plain and m.plain else m.label


def interval_figure(
    report: IntervalReport,
    coverage: CoverageResult | None = None,
    *,
    population_value: float | None = None,
    metric: str = "hit@1",
    methods: Sequence[str] | None = None,
    plain: bool = False,
) -> go.Figure:
    """Each interval of one sample as a horizontal bar around the estimate (percent), in display order.

    ``methods`` names the rows (default: every interval of the report); ``plain`` labels the
    short list by its plain names.  The recommended interval (``report.recommendation``) is
    drawn heavier and starred; with a ``coverage`` result of the same settings each row's label
    carries that method's coverage on these data.
    """
    shown = interval_methods(report.intervals if methods is None else [m for m in methods if m in report.intervals])
    labels = [interval_label(m.name, plain=plain) for m in shown]
    rows = [
        (label, method_color(m.name), report.interval(m.name).se, report.interval(m.name).ci)
        for label, m in zip(labels, shown)
    ]
    recommended = None if report.recommendation is None else report.recommendation.method
    extra = {}
    if population_value is not None:
        shape, label = reference_line(100 * population_value, f"population {100 * population_value:.2f}%")
        extra = {"shapes": [shape], "annotations": [label]}
    layout = _layout(
        title=(
            f"{report.level:.0%} intervals for {metric}: {report.n_docs:,} documents, "
            f"{report.n_chunks:,} chunks ({report.estimator})"
        ),
        x=f"{metric} rate (%)",
        y="",
        height=max(230, 130 + 32 * len(rows)),
        **extra,
    )
    layout["yaxis"].update(
        autorange="reversed",
        tickmode="array",
        tickvals=labels,
        ticktext=[_row_label(m, label, m.name == recommended, coverage) for m, label in zip(shown, labels)],
    )
    traces = _interval_traces(rows, report.estimate, report.level, "%")
    for trace, m in zip(traces, shown):
        if m.name == recommended:
            trace["marker"]["size"] = 15
            trace["error_x"].update(thickness=7, width=12)
    return go.Figure(data=traces, layout=layout)


def _row_label(method, label: str, recommended: bool, coverage: CoverageResult | None) -> str:
    text = f"<b>★ {label}</b>" if recommended and "recommended" in label else label
    if recommended and "recommended" not in label:
        text = f"<b>★ {label} (recommended)</b>"
    if coverage is None or method.name not in coverage.methods:
        return text
    held = coverage.methods[method.name].coverage
    return f"{text} · {'undefined' if held != held else f'{100 * held:.1f}% coverage here'}"


def coverage_figure(
    results: CoverageResult | Mapping[str, CoverageResult],
    *,
    methods: Sequence[str] | None = None,
    plain: bool = False,
) -> go.Figure:
    """Coverage per interval method with ±1.96 Monte Carlo SE bars and the nominal line.

    Several results (e.g. real structure vs the iid control) are drawn side by side.  Coverage
    is over the repetitions where an interval is defined; a method undefined in every
    repetition (e.g. the studentized bootstrap at K = 2) is written "undefined" on its row,
    never drawn as 0%.  ``plain`` labels the short list by its plain names.
    """
    series = {"": results} if isinstance(results, CoverageResult) else dict(results)
    first = next(iter(series.values()))
    shown = [m for m in (methods or first.methods) if m in first.methods]
    labels = [interval_label(m, plain=plain) for m in shown]
    low = np.nanmin(
        [100 * r.methods[m].coverage - 196 * r.methods[m].mcse for r in series.values() for m in shown] + [101]
    )
    left = max(0.0, min(low, 100 * first.level) - 5)
    traces = []
    for i, (name, res) in enumerate(series.items()):
        cov = np.array([100 * res.methods[m].coverage for m in shown])
        err = np.array([196 * res.methods[m].mcse for m in shown])
        defined = np.array([res.reps - res.methods[m].undefined for m in shown])
        colors = [method_color(m) for m in shown] if len(series) == 1 else SERIES_COLORS[i % len(SERIES_COLORS)]
        traces.append(
            {
                "type": "scatter",
                "x": cov,
                "y": labels,
                "orientation": "h",
                "mode": "markers",
                "name": name or "coverage",
                "showlegend": len(series) > 1,
                "marker": {"color": colors, "size": 12},
                # one error-bar colour per trace: grey reads on light and dark backgrounds
                "error_x": {
                    "type": "data",
                    "array": err,
                    "thickness": 2,
                    "width": 6,
                    "color": REFERENCE_COLOR if len(series) == 1 else colors,
                },
                "customdata": np.column_stack([err, np.rint(cov / 100 * defined), defined]),
                "hovertemplate": (
                    (f"<b>{name}</b><br>" if name else "")
                    + "%{y}<br>coverage %{x:.1f}% ± %{customdata[0]:.1f} pp<br>"
                    + "%{customdata[1]:.0f} of %{customdata[2]:,.0f} defined intervals held the population value"
                    + f" ({res.reps:,} repetitions)<extra></extra>"
                ),
            }
        )
        never = [label for label, c in zip(labels, cov) if np.isnan(c)]
        if never:
            traces.append(
                {
                    "type": "scatter",
                    "x": [left] * len(never),
                    "y": never,
                    "mode": "text",
                    "text": ["undefined"] * len(never),
                    "name": f"{name}: undefined" if name else "undefined",
                    "showlegend": False,
                    "textfont": {"color": REFERENCE_COLOR},
                    "textposition": "middle right",
                    "hovertemplate": (f"<b>{name}</b><br>" if name else "")
                    + f"%{{y}}<br>undefined in all {res.reps:,} repetitions<extra></extra>",
                }
            )
    shape, label = reference_line(100 * first.level, f"nominal {first.level:.0%}")
    layout = _layout(
        title=f"Coverage over {first.reps:,} samples of K = {first.k} documents (±1.96 Monte Carlo SE)",
        x="coverage (%)",
        y="",
        height=max(230, 130 + 28 * len(shown) * (1 + (len(series) - 1) // 2)),
        shapes=[shape],
        annotations=[label],
        scattermode="group" if len(series) > 1 else None,
    )
    layout["xaxis"]["range"] = [left, 101]
    layout["yaxis"]["autorange"] = "reversed"
    return go.Figure(data=traces, layout=layout)


def _segments(low: np.ndarray, high: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x/y arrays drawing one horizontal segment per row, separated by gaps (one trace for many)."""
    x = np.column_stack([low, high, np.full(len(rows), np.nan)]).ravel()
    y = np.column_stack([rows, rows, np.full(len(rows), np.nan)]).ravel()
    return x, y


def stacked_intervals_figure(
    result: CoverageResult,
    *,
    n: int = 100,
    methods: Sequence[str] = ("naive", "cluster"),
    metric: str = "hit@1",
    plain: bool = False,
) -> go.Figure:
    """The first ``n`` repetitions' intervals stacked against the population value; misses coloured.

    One panel per method, side by side on one shared x range that holds every drawn bound; per
    panel one trace of held intervals, one of misses and one of estimates (``None``-separated
    segments), whatever ``n`` is.
    """
    n = int(min(n, result.reps))
    truth = 100 * result.population_value
    rows = np.arange(1, n + 1)
    bounds = np.concatenate(
        [100 * result.methods[m].lower[:n] for m in methods]
        + [100 * result.methods[m].upper[:n] for m in methods]
        + [100 * result.estimates[:n], [truth]]
    )
    lo, hi = float(np.nanmin(bounds)), float(np.nanmax(bounds))
    pad = 0.04 * max(hi - lo, 1e-9)
    x_range = [lo - pad, hi + pad]
    gap = 0.05
    width = (1 - gap * (len(methods) - 1)) / len(methods)
    traces, shapes, titles = [], [], []
    layout = _layout(
        title=f"First {n} repetitions, K = {result.k} (dashed: population {truth:.2f}%)",
        x=f"{metric} rate (%, {result.estimator})",
        y="repetition",
        height=max(420, 4 * n + 200),
    )
    layout["yaxis"].update(autorange="reversed")
    for col, method in enumerate(methods):
        axis = "x" if col == 0 else f"x{col + 1}"
        domain = [col * (width + gap), col * (width + gap) + width]
        layout["xaxis" if col == 0 else f"xaxis{col + 1}"] = {
            "domain": domain,
            "range": x_range,
            "anchor": "y",
            "title": {"text": f"{metric} rate (%, {result.estimator})"},
        }
        low, high = 100 * result.methods[method].lower[:n], 100 * result.methods[method].upper[:n]
        undefined = np.isnan(low) | np.isnan(high)  # drawn as nothing, and neither held nor missed
        miss = ~undefined & ((low > truth) | (high < truth))
        held = ~undefined & ~miss
        for mask, color, name in ((held, COVER_COLOR, "holds the population value"), (miss, MISS_COLOR, "misses it")):
            x, y = _segments(low[mask], high[mask], rows[mask])
            traces.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": y,
                    "xaxis": axis,
                    "yaxis": "y",
                    "mode": "lines",
                    "line": {"color": color, "width": 2},
                    "name": name,
                    "legendgroup": name,
                    "showlegend": col == 0,
                    "hovertemplate": "repetition %{y}<br>bound %{x:.2f}%<extra>" + name + "</extra>",
                }
            )
        traces.append(
            {
                "type": "scatter",
                "x": 100 * result.estimates[:n],
                "y": rows,
                "xaxis": axis,
                "yaxis": "y",
                "mode": "markers",
                "marker": {"color": REFERENCE_COLOR, "size": 3},
                "name": "estimate",
                "legendgroup": "estimate",
                "showlegend": col == 0,
                "hovertemplate": "repetition %{y}<br>estimate %{x:.2f}%<extra></extra>",
            }
        )
        shapes.append(
            {
                "type": "line",
                "xref": axis,
                "yref": "paper",
                "x0": truth,
                "x1": truth,
                "y0": 0,
                "y1": 1,
                "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5},
            }
        )
        titles.append(
            {
                "text": (
                    f"{interval_label(method, plain=plain)}<br>{int(miss.sum())} of {n} miss"
                    + (f", {int(undefined.sum())} undefined" if undefined.any() else "")
                ),
                "x": (domain[0] + domain[1]) / 2,
                "xref": "paper",
                "xanchor": "center",
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
    layout.update(shapes=shapes, annotations=titles)
    return go.Figure(data=traces, layout=layout)


def _normal_pdf(x: np.ndarray, mean: float, sd: float) -> np.ndarray:
    return np.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))


def sampling_distribution_figure(result: CoverageResult, *, bins: int = 40, metric: str = "hit@1") -> go.Figure:
    """Histogram of the estimator over repetitions with the normal curves each mean SE implies.

    Binned here, so the figure carries ``bins`` bars rather than every repetition's estimate.
    """
    est = 100 * result.estimates
    centre = float(est.mean())
    density, edges = np.histogram(est, bins=bins, density=True)
    traces = [
        {
            "type": "bar",
            "x": (edges[:-1] + edges[1:]) / 2,
            "y": density,
            "width": np.diff(edges),
            "name": "estimates across repetitions",
            "marker": {"color": OKABE_ITO["grey"], "opacity": 0.55},
            "customdata": np.column_stack([edges[:-1], edges[1:]]),
            "hovertemplate": "%{customdata[0]:.2f}–%{customdata[1]:.2f}%<br>density %{y:.3f} per pp<extra></extra>",
        }
    ]
    curves = [("naive", "naive SE"), ("cluster", "cluster SE")]
    se_mean = {m: result.methods[m].se_mean if m in result.methods else None for m, _ in curves}
    spread = max(100 * (se or 0.0) for se in se_mean.values())
    grid = np.linspace(min(est.min(), centre - 4 * spread), max(est.max(), centre + 4 * spread), 120)
    for method, what in curves:
        if se_mean.get(method) is None:
            continue
        sd = 100 * se_mean[method]
        traces.append(
            {
                "type": "scatter",
                "x": grid,
                "y": _normal_pdf(grid, centre, sd),
                "mode": "lines",
                "line": {"color": method_color(method), "width": 3},
                "name": f"normal, mean {what} = {sd:.2f} pp",
                "hovertemplate": f"{what} {sd:.2f} pp<br>%{{x:.2f}}%: %{{y:.3f}}<extra></extra>",
            }
        )
    shape, label = reference_line(100 * result.population_value, "population")
    layout = _layout(
        title=f"Estimates over {result.reps:,} samples (SD {100 * result.sd_empirical:.2f} pp)",
        x=f"{metric} rate (%, {result.estimator})",
        y="density (per percentage point)",
        shapes=[shape],
        annotations=[label],
        bargap=0,
    )
    return go.Figure(data=traces, layout=layout)


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
        fig.add_trace(_level_line(m, ceiling, f"ceiling K/ρ = {numbers.effective_n(ceiling)}"), row=1, col=2)
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
    return _style(
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
        _layout(title="Finer chunks: more chunks per sample, not more information", x="", y="", height=640)
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
    return _style(fig, title="Per-document rates", x="document rate (%)", y="documents (%)")


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


def plan_figure(plan: PlanResult) -> go.Figure:
    """Cluster and naive half-width against K, the target and the documents needed."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=plan.k,
            y=100 * plan.curve_half_width,
            mode="lines",
            name="cluster half-width",
            line={"color": method_color("cluster"), "width": 3},
            hovertemplate="K = %{x:,}<br>± %{y:.2f} pp<extra>cluster</extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=plan.k,
            y=100 * plan.curve_naive_half_width,
            mode="lines",
            name="naive binomial half-width",
            line={"color": method_color("naive"), "width": 2, "dash": "dot"},
            hovertemplate="K = %{x:,}<br>± %{y:.2f} pp<extra>naive</extra>",
        )
    )
    fig.add_trace(_level_line(plan.k, 100 * plan.half_width, f"target ± {100 * plan.half_width:.2f} pp"))
    fig.add_trace(
        go.Scatter(
            x=[plan.docs_needed],
            y=[100 * plan.half_width],
            mode="markers",
            marker={"color": method_color("cluster"), "size": 14, "symbol": "star"},
            name=f"{plan.docs_needed:,} documents needed",
            hovertemplate=f"{plan.docs_needed:,} documents ≈ {plan.chunks_expected:,.0f} chunks<extra></extra>",
        )
    )
    # log-log: half-widths fall as 1/sqrt(K), straight lines that stay readable near the target
    fig.update_xaxes(type="log", **_log_ticks(np.concatenate([plan.k, [plan.docs_needed]])))
    fig.update_yaxes(
        type="log",
        **_log_ticks(100 * np.concatenate([plan.curve_half_width, plan.curve_naive_half_width, [plan.half_width]])),
    )
    return _style(
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
    layout = _layout(
        title=(f"{result.config_b} − {result.config_a} on {result.n_docs:,} shared documents ({result.estimator})"),
        x="difference (percentage points)",
        y="",
        height=300,
        shapes=[shape],
        annotations=[label],
    )
    layout["yaxis"]["autorange"] = "reversed"
    return go.Figure(data=_interval_traces(rows, result.difference, result.level, " pp", signed=True), layout=layout)


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
        _layout(
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
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=plan.k,
            y=100 * plan.curve_power,
            mode="lines",
            name="paired, documents as clusters",
            line={"color": method_color("cluster"), "width": 3},
            hovertemplate="K = %{x:,}<br>power %{y:.0f}%<extra>paired</extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=plan.k,
            y=100 * plan.curve_power_naive,
            mode="lines",
            name="naive binomial (unpaired chunks)",
            line={"color": method_color("naive"), "width": 2, "dash": "dot"},
            hovertemplate="K = %{x:,}<br>power %{y:.0f}%<extra>naive</extra>",
        )
    )
    fig.add_trace(_level_line(plan.k, 100 * plan.power, f"target power {plan.power:.0%}"))
    fig.add_trace(
        go.Scatter(
            x=[plan.n_docs],
            y=[100 * plan.power],
            mode="markers",
            name=f"{plan.n_docs:,} documents needed",
            marker={"color": method_color("cluster"), "size": 14, "symbol": "star"},
            hovertemplate=f"{plan.n_docs:,} documents<extra></extra>",
        )
    )
    return _style(
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
