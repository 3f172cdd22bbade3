"""The uncertainty explorer's figures: one sample's intervals, their coverage over repeated samples, the
sampling distribution.

Pure functions: results in, ``go.Figure`` out; nothing here computes a statistic (those come from
``ragunc.stats``).  Shared colours and layout: :mod:`ragunc.present.style`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ..stats.coverage import CoverageResult
from ..stats.intervals import IntervalReport
from ..stats.methods import interval_method, interval_methods
from .style import (
    COVER_COLOR,
    MISS_COLOR,
    OKABE_ITO,
    REFERENCE_COLOR,
    SERIES_COLORS,
    interval_traces,
    base_layout,
    method_color,
    reference_line,
)


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
    layout = base_layout(
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
    traces = interval_traces(rows, report.estimate, report.level, "%")
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
    layout = base_layout(
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
    layout = base_layout(
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
    layout = base_layout(
        title=f"Estimates over {result.reps:,} samples (SD {100 * result.sd_empirical:.2f} pp)",
        x=f"{metric} rate (%, {result.estimator})",
        y="density (per percentage point)",
        shapes=[shape],
        annotations=[label],
        bargap=0,
    )
    return go.Figure(data=traces, layout=layout)
