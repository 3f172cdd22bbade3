"""The teachers' lesson "why 10,000 chunks of 20 documents are not 10,000 cases": each step's figure and
its two sentences.

Pure: results of ``ragunc.stats`` in, a ``go.Figure`` or two sentences out.  A step's sentences and
its figure read the same result, and say each number through :mod:`ragunc.present.numbers`, so every
number the text gives is the one drawn.  Built for a projector: every text of a figure at least
:data:`FONT_SIZE` px, a height that leaves the heading and the figure on a 1280x720 screen together,
no figure titles (the step's heading is the title), one trace per colour and reference lines as
layout shapes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from scipy import stats

from ..stats.coverage import CoverageResult
from ..stats.design import Design
from ..stats.diagnostics import deff_equal_size, k_over_rho
from ..stats.intervals import IntervalReport
from ..stats.linearization import estimate
from ..stats.sample import ClusterStats, document_rates
from .numbers import count, deff, effective_n, icc, level, percent, plus_minus, points, times
from .style import (
    COVER_COLOR,
    MISS_COLOR,
    OKABE_ITO,
    REFERENCE_COLOR,
    method_color,
    method_label,
)

STEPS = (
    "Twenty documents and all their chunks",
    "Draw other documents, again and again",
    "Where the chance comes from",
    "Alike chunks: ICC, design effect, effective n",
    "The iid control: shuffle the hits",
    "Finer chunks add chunks, not information",
    "What the cluster interval does instead",
)
FONT_SIZE = 18  # the smallest text of a figure (ticks, legend, row labels): read from the back of a room
HEIGHT = 520  # with the page's title and step heading above it, inside a 720 px tall screen
NAIVE_COLOR = method_color("naive")
DOCUMENT_COLOR = OKABE_ITO["blue"]
STACKED = 50  # repetitions drawn in the stacked-interval figures
LEVEL = 0.95  # the level of the intervals the lesson speaks of
DRAW_BINS = 40  # step 2's bins across the range of all draws

Sentences = tuple[str, str]


def _axis(title: str) -> dict:
    # Sizes set on the axes themselves: the host's theme (Streamlit's) sets tick and title sizes of its own.
    # Margins grow to hold the tick labels and titles, whatever the host's template says.
    return {
        "title": {"text": title, "font": {"size": FONT_SIZE + 2}},
        "tickfont": {"size": FONT_SIZE},
        "automargin": True,
    }


def _layout(*, x: str, y: str, height: int = HEIGHT, shapes=(), annotations=(), **extra) -> dict:
    return {
        "font": {"size": FONT_SIZE + 2},
        "height": height,
        "margin": {"l": 10, "r": 20, "t": 40, "b": 10},
        "xaxis": _axis(x),
        "yaxis": _axis(y),
        "hovermode": "closest",
        "showlegend": True,  # also when a single trace has points yet (step 2's first draw)
        # at the figure's foot, below the x axis (the margin grows to hold it), so that the labels of
        # reference lines above the plot stay clear of it
        "legend": {
            "orientation": "h",
            "yref": "container",
            "yanchor": "bottom",
            "y": 0,
            "x": 0,
            "xanchor": "left",
            "font": {"size": FONT_SIZE},
        },
        "shapes": list(shapes),
        "annotations": list(annotations),
        **extra,
    }


def _line(x: float, text: str, *, color: str = REFERENCE_COLOR, axis: str = "x") -> tuple[dict, dict]:
    """A dashed line across the plot at ``x`` (``axis="y"``: a horizontal one at that height) and its label."""
    if axis == "x":
        shape = {"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1}
        label = {"x": x, "xref": "x", "y": 1, "yref": "paper", "yanchor": "bottom", "xanchor": "left"}
    else:
        shape = {"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": x, "y1": x}
        label = {"x": 0, "xref": "paper", "y": x, "yref": "y", "yanchor": "bottom", "xanchor": "left"}
    shape["line"] = {"color": color, "dash": "dash", "width": 2}
    label.update(text=text, showarrow=False, font={"color": color})
    return shape, label


def _band(low: float, high: float) -> dict:
    """A shaded vertical band from ``low`` to ``high`` across the plot (the binomial interval)."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": low,
        "x1": high,
        "y0": 0,
        "y1": 1,
        "fillcolor": NAIVE_COLOR,
        "opacity": 0.3,
        "line": {"width": 0},
        "layer": "below",
    }


def _z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + level / 2))


# ---------------------------------------------------------------- 1. the sample


def _half_width(report: IntervalReport, method: str) -> float:
    low, high = report.interval(method).ci
    return (high - low) / 2


def sample_sentences(report: IntervalReport, sample: ClusterStats) -> Sentences:
    """Step 1: the sample's documents, chunks, hits and rate; its binomial SE and interval."""
    se, half = report.interval("naive").se, _half_width(report, "naive")
    first = (
        f"Here are {report.n_docs} documents cut into {count(report.n_chunks)} chunks; "
        f"{count(float(sample.sum_y.sum()))} of the chunks are hits, a rate of {percent(report.estimate)}."
    )
    second = (
        f"Counted as {count(report.n_chunks)} independent trials, they give a binomial standard error of "
        f"{points(se)} and a {level(report.level)} interval of {plus_minus(half)}: this is how sure "
        f"{count(report.n_chunks)} chunks look."
    )
    return first, second


def sample_figure(report: IntervalReport, sample: ClusterStats, *, documents: bool) -> go.Figure:
    """The pooled estimate with its binomial interval (shaded across the plot) and, with ``documents``,
    each document's own rate, marker area by its chunks.  The x axis is the same either way."""
    rates = 100 * document_rates(sample)
    est, half = 100 * report.estimate, 100 * _half_width(report, "naive")
    said = f"{percent(report.estimate)} {plus_minus(_half_width(report, 'naive'))}"
    pooled = f"all {count(report.n_chunks)} chunks"
    traces = [
        {
            "type": "scatter",
            "x": [est],
            "y": [pooled],
            "mode": "markers+text",
            "name": f"all chunks pooled, binomial {level(report.level)} interval (band)",
            "marker": {"color": NAIVE_COLOR, "size": 16, "symbol": "diamond"},
            "text": [said],
            "textposition": "middle right",
            "hovertemplate": f"{pooled}<br>{said}<extra></extra>",
        }
    ]
    labels = [pooled]
    if documents:
        order = np.argsort(-rates, kind="stable")
        names = [f"{i + 1}. {str(sample.cluster_id[d])[:18]}" for i, d in enumerate(order)]
        n = sample.n[order]
        labels += names
        traces.append(
            {
                "type": "scatter",
                "x": rates[order],
                "y": names,
                "mode": "markers",
                "name": "each document's rate (area: its chunks)",
                "marker": {"color": DOCUMENT_COLOR, "size": 8 + 22 * np.sqrt(n / n.max()), "opacity": 0.85},
                "customdata": np.column_stack([n, sample.sum_y[order]]),
                "hovertemplate": "%{y}<br>%{customdata[1]:,.0f} hits in %{customdata[0]:,} chunks: %{x:.1f}%"
                "<extra></extra>",
            }
        )
    layout = _layout(x="hit rate (%)", y="", shapes=[_band(est - half, est + half)])
    layout["xaxis"]["range"] = [-2, min(100.0, max(rates.max(), est + half) + 5)]
    # every row labelled: 21 rows fit at this size
    layout["yaxis"].update(autorange="reversed", categoryorder="array", categoryarray=labels, dtick=1)
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- 2. other draws


def draws_sentences(result: CoverageResult, report: IntervalReport) -> Sentences:
    """Step 2: step 1's binomial band (``report``: step 1's sample), laid around the population value,
    against the spread of the estimate over the R draws."""
    se = report.interval("naive").se
    first = (
        f"Each dot is the rate of another {result.k} documents drawn from the {count(result.population_docs)} "
        f"(the star is step 1's sample); were the chunks independent, about {level(report.level)} of the dots "
        f"would land in the band, step 1's {plus_minus(_half_width(report, 'naive'))} around the population's "
        f"{percent(result.population_value)}."
    )
    second = (
        f"Over R = {count(result.reps)} draws their standard deviation is {points(result.sd_empirical)}, "
        f"{times(result.sd_empirical / se)} step 1's binomial standard error of {points(se)}: the estimate "
        "moves far more than the chunks suggest."
    )
    return first, second


def _stack(values: np.ndarray, low: float, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Bin centres and heights of a dot plot: each value drops onto the values before it in its bin."""
    bins = np.floor((values - low) / width).astype(np.int64)
    order = np.argsort(bins, kind="stable")  # stable: within a bin, earlier draws lie lower
    ordered = bins[order]
    first_of_bin = np.searchsorted(ordered, ordered, side="left")
    height = np.empty(values.size, dtype=np.int64)
    height[order] = np.arange(values.size) - first_of_bin + 1
    return low + (bins + 0.5) * width, height


def _draw_points(result: CoverageResult, report: IntervalReport, bins: int):
    """Step 2's dots, step 1's sample first, then the draws: their values (%), places (x, height) and bins."""
    values = 100 * np.concatenate(([report.estimate], result.estimates))
    truth, band = 100 * result.population_value, 100 * _half_width(report, "naive")
    low = min(values.min(), truth - band)
    width = (max(values.max(), truth + band) - low) / bins * (1 + 1e-9)
    x, height = _stack(values, low, width)
    return values, x, height, low, width


def _others_name(shown: int, reps: int) -> str:
    return f"other samples ({count(shown - 1)} of {count(reps)} drawn)"


def draws_figure(result: CoverageResult, report: IntervalReport, *, shown: int, bins: int = DRAW_BINS) -> go.Figure:
    """A dot plot of the first ``shown`` estimates: step 1's sample (``report``, a star), then the draws of
    ``result``; step 1's binomial band around the population value.  Axes fit all R draws, so they stay put
    while dots are added."""
    shown = int(min(max(shown, 1), result.reps + 1))
    values, x, height, low, width = _draw_points(result, report, bins)
    truth, band = 100 * result.population_value, 100 * _half_width(report, "naive")
    size = float(np.clip(0.8 * (HEIGHT - 150) / height.max(), 5, 16))
    latest = slice(shown - 1, shown) if shown > 1 else slice(0, 0)  # step 1's sample alone: no draw yet
    traces = [
        {
            "type": "scatter",
            "x": x[1 : shown - 1],
            "y": height[1 : shown - 1],
            "mode": "markers",
            "name": _others_name(shown, result.reps),
            "marker": {"color": REFERENCE_COLOR, "size": size},
            "customdata": values[1 : shown - 1],
            "hovertemplate": "%{customdata:.2f}%<extra></extra>",
        },
        {
            "type": "scatter",
            "x": x[latest],
            "y": height[latest],
            "mode": "markers",
            "name": "the latest draw",
            "marker": {"color": DOCUMENT_COLOR, "size": size + 6},
            "customdata": values[latest],
            "hovertemplate": "latest: %{customdata:.2f}%<extra></extra>",
        },
        {
            "type": "scatter",
            "x": x[:1],
            "y": height[:1],
            "mode": "markers",
            "name": "step 1's sample",
            "marker": {"color": NAIVE_COLOR, "size": size + 10, "symbol": "star"},
            "customdata": values[:1],
            "hovertemplate": "step 1's sample: %{customdata:.2f}%<extra></extra>",
        },
    ]
    line, label = _line(truth, f"population {percent(result.population_value)}")
    layout = _layout(
        x="hit rate of the sample (%)",
        y="samples",
        shapes=[_band(truth - band, truth + band), line],
        annotations=[label],
    )
    layout["xaxis"]["range"] = [low - width, low + (bins + 1) * width]
    layout["yaxis"].update(range=[0, height.max() + 1], rangemode="tozero")
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- 3. where the chance comes from


def census_sentences(population: ClusterStats, sample: ClusterStats, draw: int) -> Sentences:
    """Step 3: the draw of documents is the only random step; inside a document, a census."""
    rates = document_rates(population)
    est = percent(estimate(sample))
    first = (
        f"Chance enters at one step only, the draw of {sample.n_docs} documents out of "
        f"{count(population.n_docs)}: draw {draw} picked the {sample.n_docs} coloured ones, whose "
        f"{count(sample.n_chunks)} chunks give {est}."
    )
    second = (
        f"Inside a drawn document every chunk is judged, a census rather than a sample, so judging the same "
        f"documents again gives {est} again; what changes from draw to draw is which documents come in, "
        f"and their rates run from {percent(rates.min())} to {percent(rates.max())}."
    )
    return first, second


def census_figure(population: ClusterStats, sample: ClusterStats) -> go.Figure:
    """Every document of the population by its rate (sorted), the drawn ones coloured; the sample's
    estimate and the population value as lines."""
    rates = 100 * document_rates(population)
    order = np.argsort(rates, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(1, order.size + 1)
    drawn = np.isin(population.cluster_id, sample.cluster_id)
    custom = np.column_stack([population.cluster_id.astype(object), population.n, population.sum_y.astype(int)])
    hover = "%{customdata[0]}<br>%{customdata[2]:,} hits in %{customdata[1]:,} chunks: %{y:.1f}%<extra></extra>"
    traces = [
        {
            "type": "scatter",
            "x": rank[~drawn],
            "y": rates[~drawn],
            "mode": "markers",
            "name": f"the {count(population.n_docs - sample.n_docs)} not drawn",
            "marker": {"color": REFERENCE_COLOR, "size": 5, "opacity": 0.6},
            "customdata": custom[~drawn],
            "hovertemplate": hover,
        },
        {
            "type": "scatter",
            "x": rank[drawn],
            "y": rates[drawn],
            "mode": "markers",
            "name": f"the {sample.n_docs} drawn, every chunk judged",
            "marker": {"color": DOCUMENT_COLOR, "size": 15, "line": {"color": "white", "width": 1}},
            "customdata": custom[drawn],
            "hovertemplate": hover,
        },
    ]
    est, truth = 100 * estimate(sample), 100 * estimate(population)
    lines = [
        _line(est, f"this draw {percent(est / 100)}", color=DOCUMENT_COLOR, axis="y"),
        _line(truth, f"population {percent(truth / 100)}", axis="y"),
    ]
    if est < truth:  # the lower line's label below it, so the two never overlap
        lines[0][1]["yanchor"] = "top"
    else:
        lines[1][1]["yanchor"] = "top"
    lines[1][1].update(x=1, xanchor="right")
    layout = _layout(
        x="documents, sorted by hit rate",
        y="document's hit rate (%)",
        shapes=[s for s, _ in lines],
        annotations=[a for _, a in lines],
    )
    layout["yaxis"]["range"] = [-3, 103]
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- 4. ICC, DEFF, effective n


def _shown(rho: float) -> float:
    # The step's arithmetic uses ρ as printed (three decimals), so a reader can redo every product on screen.
    return round(float(rho), 3)


def deff_sentences(rho: float, k: int, m: int, *, where: str) -> Sentences:
    """Step 4: DEFF = 1 + (m - 1) rho at m chunks per document, and effective n against its limit K/rho."""
    rho = _shown(rho)
    factor = float(deff_equal_size(m, rho))
    chunks = k * m
    first = (
        f"Chunks of one document are alike, ρ = {icc(rho)} ({where}), so with m = {count(m)} chunks per "
        f"document of equal size the variance is DEFF = 1 + (m − 1)ρ = 1 + {count(m - 1)} × {icc(rho)} = "
        f"{deff(factor)} times the binomial one."
    )
    second = (
        f"{k} documents of {count(m)} chunks, {count(chunks)} chunks in all, are then worth {count(chunks)} / "
        f"{deff(factor)} = {effective_n(chunks / factor)} independent chunks, and no cut however fine takes them "
        f"past K/ρ = {k} / {icc(rho)} = {effective_n(float(k_over_rho(k, rho)))}."
    )
    return first, second


def _beside(m: float, m_max: float) -> list[str]:
    """Where the labels of step 4's two points go: away from the plot's edges (the axes are log)."""
    if m <= 5:
        return ["top right", "bottom right"]
    if m >= m_max / 4:
        return ["bottom left", "bottom left"]
    return ["top left", "bottom right"]


def deff_figure(rho: float, k: int, m: int, *, m_max: float = 2000.0) -> go.Figure:
    """Chunks (K m) and effective n (K m / DEFF) of K documents against chunks per document m, log-log,
    with the K/ρ ceiling and the point at ``m``."""
    rho = _shown(rho)
    grid = np.geomspace(1.0, m_max, 200)
    ceiling = float(k_over_rho(k, rho))
    at = k * m / float(deff_equal_size(m, rho))
    traces = [
        {
            "type": "scatter",
            "x": grid,
            "y": k * grid,
            "mode": "lines",
            "name": "chunks (the binomial's n)",
            "line": {"color": NAIVE_COLOR, "dash": "dot", "width": 3},
            "hovertemplate": "m = %{x:,.0f}: %{y:,.0f} chunks<extra></extra>",
        },
        {
            "type": "scatter",
            "x": grid,
            "y": k * grid / deff_equal_size(grid, rho),
            "mode": "lines",
            "name": "effective n = K·m / DEFF",
            "line": {"color": DOCUMENT_COLOR, "width": 4},
            "hovertemplate": "m = %{x:,.0f}: effective n %{y:,.1f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [m, m],
            "y": [k * m, at],
            "mode": "markers+text",
            "showlegend": False,
            "marker": {"color": [NAIVE_COLOR, DOCUMENT_COLOR], "size": 14},
            "text": [f"{count(k * m)} chunks", effective_n(at)],
            "textposition": _beside(m, m_max),
            "hoverinfo": "skip",
        },
    ]
    shapes, annotations = [], []
    if np.isfinite(ceiling):
        # Labelled at the right end, above the line: the curve nears the line from below there, and the
        # chunks' line is far above it.
        line, label = _line(ceiling, f"K/ρ = {effective_n(ceiling)}", axis="y")
        label.update(x=1, xanchor="right")
        shapes.append(line)
        annotations.append(label)
    layout = _layout(
        x="chunks per document, m (log scale)",
        y="chunks, or independent ones (log)",
        shapes=shapes,
        annotations=annotations,
    )
    ticks = [v for v in (1, 10, 100, 1_000, 10_000, 100_000) if v <= k * m_max]
    layout["xaxis"].update(type="log", tickvals=ticks, ticktext=[f"{v:,}" for v in ticks])
    layout["yaxis"].update(type="log", tickvals=ticks, ticktext=[f"{v:,}" for v in ticks])
    for annotation in annotations:  # a log axis places annotations at log10 of the value
        annotation["y"] = float(np.log10(annotation["y"]))
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- 5. the iid control


def iid_sentences(real: CoverageResult, iid: CoverageResult) -> Sentences:
    """Step 5: the binomial interval's coverage with the documents as they are and with the hits shuffled."""
    first = (
        f"With the documents as they are, the binomial {level(real.level)} interval held the population value "
        f"in {percent(real.methods['naive'].coverage)} of R = {count(real.reps)} samples of {real.k} documents."
    )
    second = (
        f"Shuffle the hits across all {count(iid.population_chunks)} chunks, which leaves no documents to be "
        f"alike (the iid control), and it holds in {percent(iid.methods['naive'].coverage)}: the formula is right "
        "for independent chunks, and the chunks of a document are not independent."
    )
    return first, second


def _rows(low: np.ndarray, high: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y of one segment per row (at height rows[i], from low[i] to high[i]), gaps between them:
    one trace for them all."""
    gap = np.full(low.size, np.nan)
    return np.column_stack([low, high, gap]).ravel(), np.column_stack([rows, rows, gap]).ravel()


def _held(result: CoverageResult, method: str, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    low, high = 100 * result.methods[method].lower[:n], 100 * result.methods[method].upper[:n]
    truth = 100 * result.population_value
    return low, high, (low <= truth) & (truth <= high)


def _interval_rows(low, high, held, *, what: str, width: float, n: int) -> list[dict]:
    """The intervals of samples 1..n, one trace for those that hold the population value, one for those that miss."""
    rows = np.arange(1, n + 1, dtype=float)
    traces = []
    for mask, color, verb in ((held, COVER_COLOR, "hold"), (~held, MISS_COLOR, "miss")):
        x, y = _rows(low[mask], high[mask], rows[mask])
        traces.append(
            {
                "type": "scatter",
                "x": x,
                "y": y,
                "mode": "lines",
                "name": f"{what}: {int(mask.sum())} of {n} {verb}",
                "line": {"color": color, "width": width},
                "hovertemplate": "sample %{y}: %{x:.2f}%<extra></extra>",
            }
        )
    return traces


def iid_figure(real: CoverageResult, iid: CoverageResult, *, shuffled: bool, n: int = STACKED) -> go.Figure:
    """The binomial intervals of the first ``n`` samples, documents as they are or hits shuffled
    (``shuffled``); the x axis fits both, so switching keeps the scale."""
    result = iid if shuffled else real
    n = int(min(n, result.reps))
    low, high, held = _held(result, "naive", n)
    truth = 100 * result.population_value
    traces = _interval_rows(low, high, held, what="binomial intervals", width=4, n=n)
    traces.append(
        {
            "type": "scatter",
            "x": 100 * result.estimates[:n],
            "y": np.arange(1, n + 1),
            "mode": "markers",
            "name": "estimate",
            "marker": {"color": REFERENCE_COLOR, "size": 5},
            "hoverinfo": "skip",
        }
    )
    line, label = _line(truth, f"population {percent(result.population_value)}")
    layout = _layout(x="hit rate (%)", y="sample", shapes=[line], annotations=[label])
    bounds = np.concatenate(
        [100 * b[:n] for r in (real, iid) for b in (r.methods["naive"].lower, r.methods["naive"].upper)]
    )
    layout["xaxis"]["range"] = [np.nanmin(bounds) - 1, np.nanmax(bounds) + 1]
    layout["yaxis"].update(autorange="reversed")
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- 6. finer chunks


def chunk_size_sentences(designs: Mapping[int, Design], words: int) -> Sentences:
    """Step 6: the binomial ± shrinks with finer chunks (``designs``: words per chunk -> the design at K);
    the estimate's spread over samples of documents, and its effective n, do not."""
    z, coarsest = _z(LEVEL), max(designs)
    now, coarse = designs[words], designs[coarsest]
    if words == coarsest:
        first = (
            f"Cut into {words}-word chunks, a sample of {now.k} documents holds {count(now.expected_chunks)} "
            f"chunks on average, and the binomial {level(LEVEL)} interval says {plus_minus(z * now.binomial_sd)}."
        )
        second = (
            f"Over repeated samples of {now.k} documents the estimate moves by {plus_minus(z * now.sd)}: its "
            f"chunks are worth {effective_n(now.n_eff)} independent ones. Cut them finer and see which number "
            "moves."
        )
        return first, second
    first = (
        f"Cut into {words}-word chunks instead of {coarsest}-word ones, a sample of {now.k} documents holds "
        f"{count(now.expected_chunks)} chunks on average instead of {count(coarse.expected_chunks)}, and the "
        f"binomial {level(LEVEL)} interval narrows from {plus_minus(z * coarse.binomial_sd)} to "
        f"{plus_minus(z * now.binomial_sd)}."
    )
    second = (
        f"Over repeated samples of {now.k} documents the estimate still moves by {plus_minus(z * now.sd)} "
        f"({plus_minus(z * coarse.sd)} at {coarsest} words): its {count(now.expected_chunks)} chunks are worth "
        f"{effective_n(now.n_eff)} independent ones, the {count(coarse.expected_chunks)} were worth "
        f"{effective_n(coarse.n_eff)}."
    )
    return first, second


def chunk_size_figure(designs: Mapping[int, Design], words: int) -> go.Figure:
    """The binomial ± and the estimate's ± over repeated samples of K documents against the chunks a
    sample holds, one point per chunk size (``designs``: words per chunk -> the design at K), ``words`` ringed."""
    z = _z(LEVEL)
    sizes = sorted(designs, reverse=True)  # coarsest first: fewest chunks on the left
    chunks = np.array([designs[w].expected_chunks for w in sizes])
    labels = [f"{w} words" for w in sizes]
    traces = []
    for field, name, color, dash in (
        ("sd", "over repeated samples of documents", DOCUMENT_COLOR, "solid"),
        ("binomial_sd", "binomial: chunks as independent", NAIVE_COLOR, "dot"),
    ):
        values = 100 * z * np.array([getattr(designs[w], field) for w in sizes])
        traces.append(
            {
                "type": "scatter",
                "x": chunks,
                "y": values,
                "mode": "lines+markers+text",
                "name": name,
                "line": {"color": color, "dash": dash, "width": 4},
                "marker": {"color": color, "size": 12},
                "text": labels if field == "binomial_sd" else None,
                # the first and last labels inward, clear of the plot's edges
                "textposition": ["top right"] + ["top center"] * (len(sizes) - 2) + ["top left"],
                "customdata": labels,
                "hovertemplate": "%{customdata}: %{x:,.0f} chunks, ± %{y:.2f} pt<extra></extra>",
            }
        )
    now = designs[words]
    traces.append(
        {
            "type": "scatter",
            "x": [now.expected_chunks] * 2,
            "y": [100 * z * now.sd, 100 * z * now.binomial_sd],
            "mode": "markers",
            "showlegend": False,
            "hoverinfo": "skip",
            "marker": {"color": "rgba(0,0,0,0)", "size": 26, "line": {"color": REFERENCE_COLOR, "width": 3}},
        }
    )
    layout = _layout(x=f"chunks in a sample of {now.k} documents (log)", y=f"± of a {level(LEVEL)} interval (pp)")
    layout["xaxis"].update(type="log", tickvals=chunks, ticktext=[f"{c:,.0f}" for c in chunks])
    layout["yaxis"]["rangemode"] = "tozero"
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- 7. the cluster interval


def cluster_sentences(result: CoverageResult) -> Sentences:
    """Step 7: the recommended interval's width and coverage beside the binomial one's."""
    rec = result.recommended
    ours, naive = result.methods[rec], result.methods["naive"]
    first = (
        f"The interval ragunc recommends ({method_label(rec)}) takes the {result.k} documents, not the chunks, "
        f"as the sample: {plus_minus(ours.width / 2)} on average at K = {result.k}, where the binomial "
        f"one says {plus_minus(naive.width / 2)}."
    )
    second = (
        f"It held the population value in {percent(ours.coverage)} of R = {count(result.reps)} samples, the "
        f"binomial in {percent(naive.coverage)}; only more documents narrow it, not more chunks."
    )
    return first, second


def cluster_figure(result: CoverageResult, *, n: int = STACKED) -> go.Figure:
    """The recommended intervals of the first ``n`` samples (wide bars, held or missed) with the binomial
    ones (thin, dark) on the same rows."""
    rec = result.recommended
    n = int(min(n, result.reps))
    low, high, held = _held(result, rec, n)
    traces = _interval_rows(low, high, held, what="recommended", width=9, n=n)
    for trace in traces:
        trace["opacity"] = 0.55
    naive_low, naive_high, naive_held = _held(result, "naive", n)
    x, y = _rows(naive_low, naive_high, np.arange(1, n + 1, dtype=float))
    traces.append(
        {
            "type": "scatter",
            "x": x,
            "y": y,
            "mode": "lines",
            "name": f"binomial: {int(naive_held.sum())} of {n} hold",
            "line": {"color": REFERENCE_COLOR, "width": 4},
            "hovertemplate": "binomial %{x:.2f}%<extra></extra>",
        }
    )
    truth = 100 * result.population_value
    line, label = _line(truth, f"population {percent(result.population_value)}")
    layout = _layout(x="hit rate (%)", y="sample", shapes=[line], annotations=[label])
    layout["yaxis"].update(autorange="reversed")
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------- the whole lesson, as the browser draws it

TITLE = "Lesson: why chunks are not cases"


def _figure_json(fig: go.Figure) -> dict:
    """``fig`` as Plotly JSON without its template: the browser applies the page's theme instead."""
    spec = json.loads(fig.to_json())
    spec["layout"].pop("template", None)
    return spec


def _shown_view(fig: go.Figure, sentences: Sentences) -> dict:
    return {"figure": _figure_json(fig), "sentences": list(sentences)}


def _control(kind: str, param: str, label: str, values, texts, default) -> dict:
    values = [_url_value(v) for v in values]
    return {
        "kind": kind,
        "param": param,
        "label": label,
        "values": values,
        "texts": list(texts),
        "default": values.index(_url_value(default)),
    }


def _url_value(value) -> str:
    # As the page's URL writes a control's value: a toggle as 1 / 0, a number as its digits.
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def lesson_view(
    population: ClusterStats,
    draws: Sequence[ClusterStats],
    report: IntervalReport,
    coverage: Mapping[int, CoverageResult],
    iid: CoverageResult,
    designs: Mapping[int, Design],
    *,
    k: int,
    icc: float,
    icc_source: str,
    ms: Sequence[int],
    about: str,
) -> dict:
    """Every step of the lesson at every value of its control, as the browser draws it (JSON-ready).

    ``draws`` are step 3's samples of ``k`` documents (``draws[0]`` is step 1's, whose intervals are
    ``report``); ``coverage`` maps K to R samples of K documents (the lesson's ``k`` among them), ``iid`` is
    the iid control at ``k``; ``designs`` maps words per chunk to the design at ``k``; ``icc`` (from
    ``icc_source``) and the choices ``ms`` of chunks per document are step 4's.

    A step is its heading, its control (``kind``: ``toggle``, ``choice`` among listed values, ``count``
    from 1 to ``max``, ``cycle`` through listed values on a button; ``param`` its name in the URL) and one
    view (figure and sentences) per value of the control.  Step 2's count is the one exception: one
    view, drawn with every sample, and ``points``, the dots of all R + 1 samples in order; the browser
    shows the first n of them (the ``others`` trace the samples before the last, the ``latest`` trace
    the last) and names the ``others`` trace ``names[n - 1]``.
    """
    result = coverage[k]
    sample = draws[0]
    sizes = sorted(designs, reverse=True)
    ks = [c for c in sorted(coverage) if c < population.n_docs]
    steps = []

    documents = (False, True)
    steps.append(
        (
            _control("toggle", "ls_docs", f"Show the {k} documents", documents, ("hidden", "shown"), False),
            [
                _shown_view(sample_figure(report, sample, documents=d), sample_sentences(report, sample))
                for d in documents
            ],
        )
    )

    every = draws_figure(result, report, shown=result.reps + 1)
    values, x, height, _, _ = _draw_points(result, report, DRAW_BINS)
    points = {"x": x.tolist(), "y": height.tolist(), "customdata": values.tolist()}
    names = [_others_name(n, result.reps) for n in range(1, result.reps + 2)]
    step_2 = _control("count", "ls_draws", f"Samples of {k} documents drawn", (1,), ("1",), 1)
    step_2.update(values=[], texts=[], default=1, min=1, max=result.reps + 1)
    steps.append(
        (
            step_2,
            [
                {
                    **_shown_view(every, draws_sentences(result, report)),
                    "points": points,
                    "names": names,
                    "traces": {"others": 0, "latest": 1},
                }
            ],
        )
    )

    numbers_of_draws = range(1, len(draws) + 1)
    steps.append(
        (
            _control(
                "cycle",
                "ls_draw",
                f"Draw {k} other documents",
                numbers_of_draws,
                [f"draw {d} of {len(draws)}" for d in numbers_of_draws],
                1,
            ),
            [
                _shown_view(census_figure(population, drawn), census_sentences(population, drawn, d))
                for d, drawn in zip(numbers_of_draws, draws)
            ],
        )
    )

    steps.append(
        (
            _control(
                "choice", "ls_m", "Chunks per document, m", ms, [count(m) for m in ms], 500 if 500 in ms else ms[-1]
            ),
            [_shown_view(deff_figure(icc, k, m), deff_sentences(icc, k, m, where=icc_source)) for m in ms],
        )
    )

    shuffled = (False, True)
    steps.append(
        (
            _control(
                "toggle",
                "ls_iid",
                "Shuffle the hits across all chunks (the iid control)",
                shuffled,
                ("documents as they are", "hits shuffled"),
                False,
            ),
            [_shown_view(iid_figure(result, iid, shuffled=s), iid_sentences(result, iid)) for s in shuffled],
        )
    )

    steps.append(
        (
            _control("choice", "ls_words", "Words per chunk", sizes, [f"{w} words" for w in sizes], sizes[-1]),
            [_shown_view(chunk_size_figure(designs, w), chunk_size_sentences(designs, w)) for w in sizes],
        )
    )

    steps.append(
        (
            _control("choice", "ls_k", "K: documents per sample", ks, [str(c) for c in ks], k if k in ks else ks[-1]),
            [_shown_view(cluster_figure(coverage[c]), cluster_sentences(coverage[c])) for c in ks],
        )
    )
    return {
        "title": TITLE,
        "about": about,
        "steps": [
            {"title": title, "heading": f"{i} of {len(STEPS)} · {title}", "control": control, "views": views}
            for i, (title, (control, views)) in enumerate(zip(STEPS, steps), start=1)
        ],
    }
