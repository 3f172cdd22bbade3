"""The summary table, the plain-language reading and a self-contained one-page HTML report.

Pure: results and figures in, a DataFrame / strings / HTML out.  The report
embeds plotly.js once (inline), so it opens offline and can be mailed as a
single file.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from ..data.serialize import json_text
from ..stats.coverage import CoverageResult
from ..stats.design import Design
from ..stats.design import ChunkSizeDiagnostics
from ..stats.intervals import IntervalReport
from ..stats.leverage import Leverage
from ..stats.methods import WILD_BOOTSTRAP, interval_method, interval_methods
from ..stats.judged.report import JudgedReport
from ..stats.judged.sample import LABELS
from ..stats.multiple import MultipleComparison, RankResult, adjustment
from . import numbers
from .design_effects import DEFF_TILE, N_EFF_TILE


def recommendation_line(report: IntervalReport) -> str:
    """ "ragunc recommends <method>: [low, high] — <reason>" (percent): the technical statement, for "why this interval"."""
    rec = report.recommendation
    low, high = report.recommended().ci
    return f"ragunc recommends {interval_method(rec.method).label}: {numbers.interval(low, high)} — {rec.reason}"


def estimate_line(report: IntervalReport, *, metric: str = "hit@1") -> str:
    """This sample's estimate and its recommended interval, in plain words (what a page leads with)."""
    low, high = report.recommended().ci
    return (
        f"This sample: {metric} {100 * report.estimate:.1f}% from {report.n_chunks:,} chunks of "
        f"{report.n_docs:,} documents. With documents as the sampling units, the recommended "
        f"{report.level:.0%} interval is {100 * low:.1f}% to {100 * high:.1f}%."
    )


def alike_phrase(deff: float) -> str:
    """How alike chunks of one document are, in words, from the design effect."""
    if deff >= 3:
        return "Chunks of one document are strongly alike here"
    if deff >= 1.3:
        return "Chunks of one document are mildly alike here"
    return "Chunks of one document behave almost like independent cases here"


def design_sentence(k: int, deff: float, chunks: float, n_eff: float) -> str:
    """The headline's first sentence: what K documents are worth at the design's DEFF (the explorer's and the
    report's words; ``chunks`` is the mean a sample of K holds, hence "on average")."""
    if not math.isfinite(deff) or deff <= 0:
        return (
            f"Samples of {k} documents from these data show no spread to measure (every document has the same "
            "rate, or every document is drawn), so there is no design effect to report."
        )
    return (
        f"{alike_phrase(deff)}: a sample of {k} documents holds {numbers.about(chunks)} chunks on "
        f"average, but they tell you as much as {numbers.effective_n(n_eff)} independent ones "
        f"would: each chunk tells you {numbers.deff(deff)} times less."
    )


def coverage_held_sentence(reps: int, k: int, naive: float, honest: float, level: float, metric: str) -> str:
    """The headline's second sentence: how often the naive and the recommended interval held the truth."""
    short = level - naive
    how = ("only " if short > 0.15 else "") + f"{numbers.percent(naive)} of the time"
    how += ", a little short" if 0.03 < short <= 0.15 else ""
    return (
        f"Over {reps:,} fresh samples of {k} documents, the usual binomial {numbers.level(level)} interval held "
        f"the true {metric} {how}; the recommended interval held it {numbers.percent(honest)}."
    )


def headline(
    design: Design, coverage: CoverageResult | None = None, *, level: float = 0.95, metric: str = "hit@1"
) -> list[str]:
    """Two plain sentences on what the document sampling does to the naive interval on these data.

    The first from the design's values at K (:func:`ragunc.stats.design.design`), the second
    from the coverage experiment when it ran (else what the design effect implies for a
    normal-theory interval, said as such).
    """
    first = design_sentence(design.k, design.deff, design.expected_chunks, design.n_eff)
    if coverage is not None and {"naive", coverage.recommended} <= set(coverage.methods):
        naive, honest = coverage.methods["naive"].coverage, coverage.methods[coverage.recommended].coverage
        second = coverage_held_sentence(coverage.reps, coverage.k, naive, honest, level, metric)
    elif math.isfinite(design.naive_coverage):
        second = (
            f"At this design effect a binomial {numbers.level(level)} interval over chunks would hold the true "
            f"{metric} about {numbers.percent(design.naive_coverage)} of the time (normal approximation; the "
            "coverage experiment measures it)."
        )
    else:
        second = ""
    return [line for line in (first, second) if line]


def design_tiles(design: Design) -> list[tuple[str, str, str]]:
    """(label, value, help) of the design's values at K: what repeated samples of K documents give."""
    mc = f" ± {numbers.deff(design.deff_mcse)} (Monte Carlo SE, {design.draws:,} samples)" if design.draws else ""
    return [
        (
            DEFF_TILE,
            numbers.deff(design.deff),
            f"The design effect: the estimate's variance over repeated samples of K = {design.k} documents, "
            f"over the binomial variance p(1 − p)/n of the chunks they hold{mc or ' (exact)'}.",
        ),
        (
            N_EFF_TILE,
            numbers.effective_n(design.n_eff),
            f"Effective n: the {numbers.count(design.expected_chunks)} chunks a sample holds on average, divided "
            "by the design effect.",
        ),
        (
            "How far the estimate moves between samples",
            numbers.points(design.sd),
            f"Its SD over repeated samples of {design.k} documents; the binomial formula assumes "
            f"{numbers.points(design.binomial_sd)}.",
        ),
        (
            "How alike two chunks of one document are",
            numbers.icc(design.icc),
            f"The ICC (ρ, from 0 to 1) of chunks within a document, over all {design.n_docs:,} documents (ANOVA).",
        ),
    ]


def sample_tiles(report: IntervalReport) -> list[tuple[str, str, str]]:
    """(label, value, help) of this sample's own estimates of the same quantities (same definitions)."""
    d = report.diagnostics
    return [
        (
            DEFF_TILE,
            numbers.deff(d.deff),
            "This sample's cluster variance (the one its intervals use) over its binomial variance: an estimate "
            f"of the design effect from {report.n_docs:,} documents.",
        ),
        (N_EFF_TILE, numbers.effective_n(d.n_eff), f"This sample's {report.n_chunks:,} chunks / its design effect."),
        ("Its chunks", numbers.count(report.n_chunks), f"In the {report.n_docs:,} sampled documents."),
        (
            "How alike two chunks of one document are",
            numbers.icc(d.icc),
            f"The ICC within this sample's {report.n_docs:,} documents.",
        ),
    ] + ([] if report.leverage is None else [worth_tile(report.leverage)])


WORTH_TILE = "Worth this many documents (G*)"


def worth_tile(lev: Leverage) -> tuple[str, str, str]:
    """(label, value, help) of "worth G* documents": the effective number of documents beside K."""
    return (
        WORTH_TILE,
        numbers.about(lev.g_star),
        f"The {lev.n_docs:,} documents weigh as {lev.g_star:.1f} equal ones (G*, Carter, Schnepel & Steigerwald "
        f"2017): the longest carries {100 * lev.max_leverage:.0f}% of the estimate's leverage.",
    )


def dominant_documents_table(lev: Leverage, n: int = 5) -> pd.DataFrame:
    """The ``n`` documents with the largest leverage: their share of the chunks and leverage, in percent."""
    rows = lev.dominant(n)
    return pd.DataFrame(
        {
            "document": [str(lev.doc_id[i]) for i in rows],
            "share of the chunks": [f"{100 * lev.chunk_share[i]:.1f}%" for i in rows],
            "leverage": [f"{100 * lev.leverage[i]:.1f}%" for i in rows],
        }
    )


def deff_note(design: Design, report: IntervalReport) -> str | None:
    """Why this sample's DEFF is below 1 (or far from the design's), when it is; None otherwise."""
    sample = report.diagnostics.deff
    if not (math.isfinite(sample) and math.isfinite(design.deff)) or design.deff <= 0:
        return None
    if round(sample, 1) < 1:  # below 1 as shown: 0.96 reads "1.0", and "1.0, below 1" would puzzle
        return (
            f"This sample's design effect is {numbers.deff(sample)}, below 1: its {report.n_docs} documents happen to "
            f"have alike rates, so between them the rate varies less than independent chunks would make it. That "
            f"is the chance of one draw: over repeated samples of {design.k} documents the design's is "
            f"{numbers.deff(design.deff)}. A design effect estimated from {report.n_docs} documents is noisy."
        )
    if not 0.5 <= sample / design.deff <= 2:
        return (
            f"This sample's design effect ({numbers.deff(sample)}) is far from the design's "
            f"({numbers.deff(design.deff)}): estimated from {report.n_docs} documents it is noisy; the design's "
            "value is what repeated samples give."
        )
    return None


def why_this_interval(report: IntervalReport) -> str:
    """The technical account of the recommended interval: its name, degrees of freedom, reason and the study behind it."""
    rec = report.recommendation
    method = interval_method(rec.method)
    low, high = report.recommended().ci
    how = "" if method.family == WILD_BOOTSTRAP else f" with {rec.df:.1f} degrees of freedom"
    return (
        f"**{method.label}** (`{method.name}`): {numbers.interval(low, high)}{how}. {rec.reason}\n\n"
        "Why this one: it was chosen on ragunc's study of small samples (`bench/study_small_k.py`, with R "
        "survey's own intervals recorded beside; figures in `bench/RESULTS.md`): of the intervals tried it kept "
        "closest to its nominal coverage at K = 10 to 50 documents, at a width close to R survey's Korn–Graubard "
        "interval (Korn & Graubard 1998; degrees of freedom after Bell & McCaffrey 2002), which falls short "
        "where a few long documents hold most chunks."
    )


def summary_table(report: IntervalReport, coverage: CoverageResult | None = None) -> pd.DataFrame:
    """One row per interval method (display order): estimate, SE, bounds, half-width, and coverage when simulated."""
    rows = []
    for method in interval_methods(report.intervals):
        interval = report.interval(method.name)
        low, high = interval.ci
        row = {
            "method": method.name,
            "label": method.label,
            "estimate": report.estimate,
            "se": interval.se,
            "low": low,
            "high": high,
            "half_width_pp": 50 * (high - low),
            "level": report.level,
            "n_docs": report.n_docs,
            "n_chunks": report.n_chunks,
        }
        if coverage is not None:  # None: not simulated; NaN: undefined in every repetition
            m = coverage.methods.get(method.name)
            row["coverage"] = None if m is None else m.coverage
            row["coverage_mcse"] = None if m is None else m.mcse
            row["coverage_undefined"] = None if m is None else m.undefined
        rows.append(row)
    return pd.DataFrame(rows)


def summary_json(
    report: IntervalReport, coverage: CoverageResult | None = None, *, design: Design | None = None, **context
) -> str:
    """The interval report (the design's values, the coverage result) as JSON, with any context (source, K, seed...)."""
    payload = {"context": context, "interval": report.to_dict()}
    if design is not None:
        payload["design"] = design.to_dict()
    if coverage is not None:
        payload["coverage"] = coverage.to_dict()
    return json_text(payload)


def plain_reading(
    report: IntervalReport,
    coverage: CoverageResult | None = None,
    *,
    design: Design | None = None,
    metric: str = "hit@1",
) -> list[str]:
    """Sentences a stakeholder can read, built from the numbers on screen.

    Each figure says whose it is: this sample's estimate, or the design's value over repeated
    samples of K documents (``design``); the coverage sentence names the recommended interval.
    """
    d = report.diagnostics
    pct = f"{report.level:.0%}"
    naive = report.interval("naive").ci
    recommended = report.recommended().ci if report.recommendation is not None else report.interval("cluster").ci
    naive_hw = (naive.high - naive.low) / 2
    honest_hw = (recommended.high - recommended.low) / 2
    lines = [
        f"The estimated {metric} is {numbers.percent(report.estimate)} from {numbers.count(report.n_chunks)} chunks "
        f"of {numbers.count(report.n_docs)} documents."
    ]
    if design is not None and math.isfinite(design.deff) and design.deff > 0:
        lines.append(
            f"The design: over repeated samples of {design.k} documents from these data, the estimate's SD is "
            f"{numbers.points(design.sd)}, against {numbers.points(design.binomial_sd)} if chunks were "
            f"independent: design effect {numbers.deff(design.deff)}, so a sample's chunks, "
            f"{numbers.about(design.expected_chunks)} on average, carry about as much information as "
            f"{numbers.effective_n(design.n_eff)} independent ones."
        )
    if not math.isfinite(d.deff):
        lines.append(
            "Every sampled chunk has the same outcome, so this sample's design effect, ICC and effective n "
            "are undefined: draw more documents."
        )
    else:
        alike = (
            "chunks of one document resemble each other" if d.icc > 0.01 else "chunks behave almost independently here"
        )
        lines.append(
            f"This sample's own estimates: its {numbers.count(report.n_chunks)} chunks carry about as much "
            f"information as {numbers.effective_n(d.n_eff)} independent ones (design effect {numbers.deff(d.deff)}): "
            f"{alike} (ICC {numbers.icc(d.icc)})."
        )
    if report.population_docs is not None and report.n_docs >= report.population_docs:
        lines.append(
            f"All {report.n_docs:,} documents of the population are in the sample: the cluster interval has "
            f"no sampling error left, while the naive one still claims {numbers.plus_minus(naive_hw)}."
        )
    elif naive_hw > 0 and math.isfinite(honest_hw):
        lines.append(
            f"The naive binomial {pct} interval claims {numbers.plus_minus(naive_hw)}; "
            f"the recommended interval, honouring the documents, is {numbers.plus_minus(honest_hw)}, "
            f"{numbers.times(honest_hw / naive_hw)} as wide."
        )
    rho = design.icc if design is not None else d.icc
    if math.isfinite(rho) and rho > 0:
        lines.append(
            f"However many chunks each document is cut into, {report.n_docs:,} documents can never "
            f"be worth more than {numbers.effective_n(report.n_docs / rho)} independent chunks (K/ρ, "
            f"ρ = {numbers.icc(rho)}{' in the population' if design is not None else ''})."
        )
    if coverage is not None:
        line = coverage_sentence(coverage)
        if line:
            lines.append(line)
    return lines


def distribution_reading(coverage: CoverageResult) -> str:
    """What the sampling-distribution figure shows: the estimates' real spread against what each SE assumes."""
    naive, cluster = (coverage.methods[m].se_mean if m in coverage.methods else None for m in ("naive", "cluster"))
    text = (
        f"The grey bars are the estimate in each of the {coverage.reps:,} samples of {coverage.k} documents: "
        f"their SD is {100 * coverage.sd_empirical:.2f} percentage points."
    )
    if naive is not None:
        text += f" The naive binomial interval acts as if it were {100 * naive:.2f} (the narrow curve)" + (
            ", so it misses the truth often." if naive < 0.8 * coverage.sd_empirical else "."
        )
    if cluster is not None:
        text += f" Documents as clusters, the SE averages {100 * cluster:.2f}: close to the real spread."
    return text


def coverage_sentence(coverage: CoverageResult) -> str | None:
    """How often the naive and the recommended interval held the population value in the coverage experiment."""
    rec = coverage.recommended
    if rec is None or "naive" not in coverage.methods:
        return None
    naive, honest = coverage.methods["naive"].coverage, coverage.methods[rec].coverage
    return (
        f"Across {coverage.reps:,} repeated samples of {coverage.k} documents, the naive "
        f"{numbers.level(coverage.level)} interval held the population value {numbers.percent(naive)} of the time; "
        f"the recommended interval ({interval_method(rec).label}) {numbers.percent(honest)}. The estimates varied "
        f"{numbers.deff(coverage.variance_ratio)} times as much as the binomial variance says (the design effect, "
        "measured on these repetitions)."
    )


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1000px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}.meta{color:#666;font-size:.9em}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}
th,td{border-bottom:1px solid #ddd;padding:.35em .7em;text-align:right}
th:first-child,td:first-child{text-align:left}
.tiles{display:flex;gap:1em;flex-wrap:wrap;margin:1em 0}
.tile{border:1px solid #ddd;border-radius:6px;padding:.6em 1em;min-width:8em}
.tile b{display:block;font-size:1.4em}
.lead{font-size:1.15em;font-weight:600}.note{color:#555;font-style:italic}
"""


def _tiles(title: str, items: Sequence[tuple[str, str, str]]) -> str:
    return (
        f"<h3>{html.escape(title)}</h3>"
        + '<div class="tiles">'
        + "".join(
            f'<div class="tile" title="{html.escape(tip)}">{html.escape(k)}<b>{html.escape(v)}</b></div>'
            for k, v, tip in items
        )
        + "</div>"
    )


def _table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _readable(report: IntervalReport, coverage: CoverageResult | None, *, shown_first: bool = False) -> pd.DataFrame:
    table = summary_table(report, coverage)
    if shown_first:
        table = table[[interval_method(m).shown_first for m in table["method"]]]
        table = table.assign(label=[interval_method(m).plain for m in table["method"]])
    out = pd.DataFrame(
        {
            "interval": table["label"],
            "low (%)": (100 * table["low"]).map("{:.1f}".format),  # as numbers.percent says a bound
            "high (%)": (100 * table["high"]).map("{:.1f}".format),
            "half-width (± pp)": table["half_width_pp"].map("{:.2f}".format),
        }
    )
    if coverage is not None:
        out["coverage (% ± 1.96 Monte Carlo SE)"] = [
            _coverage_text(c, s, u, coverage.reps)
            for c, s, u in zip(table["coverage"], table["coverage_mcse"], table["coverage_undefined"])
        ]
    return out


def _coverage_text(coverage, mcse, undefined, reps: int) -> str:
    """A coverage cell: "—" when not simulated, "undefined" when no repetition defined the interval."""
    if coverage is None or undefined is None or pd.isna(undefined):
        return "—"
    if pd.isna(coverage):
        return f"undefined in all {reps:,} repetitions"
    text = f"{100 * coverage:.1f} ± {196 * mcse:.1f}"
    return text + (f" (undefined in {int(undefined):,} of {reps:,})" if undefined else "")


def p_value_text(p: float) -> str:
    """A p-value as tables, pages and the report print it: three decimals, "< 0.001" below, "—" when undefined."""
    if math.isnan(p):
        return "—"
    return "< 0.001" if p < 0.0005 else f"{p:.3f}"


def comparison_table(result: MultipleComparison) -> pd.DataFrame:
    """One row per comparison: the difference, its paired and simultaneous intervals (pp) with the adjusted
    p-value beside them, then the naive interval and its p-value (``"<interval> interval"`` columns, named
    as :data:`~ragunc.stats.multiple.COMPARISON_INTERVALS` keys them)."""

    def ci(c, name: str) -> str:
        return numbers.signed_interval(*c.interval(name).ci, unit="")

    return pd.DataFrame(
        [
            {
                "comparison": f"{c.b} − {c.a}",
                "difference (pp)": round(100 * c.difference, 2),
                "paired interval": ci(c, "paired"),
                "simultaneous interval": ci(c, "simultaneous"),
                "p adjusted": p_value_text(c.p_adjusted),
                "naive interval": ci(c, "naive"),
                "p": p_value_text(c.p_value),
            }
            for c in result.comparisons
        ]
    )


def comparison_reading(result: MultipleComparison, *, metric: str = "hit@1") -> list[str]:
    """Which configuration, and how sure: sentences from a many-config comparison."""
    pct = f"{result.level:.0%}"
    best = max(result.configs, key=lambda c: c.estimate)
    adjust = adjustment(result.adjust).label
    dropped = sum(c.dropped for c in result.configs)
    lines = [
        f"{len(result.configs)} configurations compared on the {result.n_docs:,} documents they all evaluated"
        + (f" ({dropped:,} document entries dropped for not being in every configuration)." if dropped else ".")
        + f" The highest {metric} is {best.config} at {100 * best.estimate:.1f}%."
    ]
    for c in result.comparisons:
        lo, hi = c.interval("simultaneous").ci
        if lo > 0 or hi < 0:
            verdict = f"{'better' if lo > 0 else 'worse'} than {c.a}, even allowing for every comparison made"
        else:
            verdict = f"not distinguishable from {c.a} with these documents"
        naive = c.interval("naive").ci
        naive_sure = naive.low > 0 or naive.high < 0
        p = p_value_text(c.p_adjusted)
        lines.append(
            f"{c.b} − {c.a}: {numbers.signed_points(c.difference)}, simultaneous {pct} interval "
            f"{numbers.signed_interval(lo, hi)} (adjusted p {p if p.startswith('<') else f'= {p}'}, {adjust}): "
            f"{c.b} is {verdict}"
            + ("; the naive binomial reading would call it settled." if naive_sure and not (lo > 0 or hi < 0) else ".")
        )
    return lines


def chunk_size_table(rows: Sequence[ChunkSizeDiagnostics], *, unit: str = "words") -> pd.DataFrame:
    """The per-size diagnostics as a readable table (rates and SDs in percent / percentage points); sizes
    count ``unit`` (words, morphemes)."""
    # Each number as the page's tiles and sentences say it (ragunc.present.numbers), trailing zeros kept.
    return pd.DataFrame(
        {
            f"{unit} per chunk": [r.words for r in rows],
            "chunks per document": [numbers.number(r.mean_size, ".1f") for r in rows],
            f"chunks in K = {rows[0].k if rows else ''} documents, on average": [
                numbers.count(r.chunks_per_sample) for r in rows
            ],
            "hit@1": [numbers.percent(r.estimate) for r in rows],
            "ICC": [numbers.icc(r.icc) for r in rows],
            "DEFF": [numbers.deff(r.deff) for r in rows],
            "effective n": [numbers.effective_n(r.n_eff) for r in rows],
            "micro SD": [numbers.points(r.micro_sd) for r in rows],
            "binomial SD": [numbers.points(r.binomial_sd) for r in rows],
        }
    )


def chunk_size_reading(rows: Sequence[ChunkSizeDiagnostics], *, unit: str = "words") -> str:
    """What the per-size diagnostics say, in plain language (the smallest size against the largest)."""
    if len(rows) < 2:
        return (
            "Only one chunk size is at hand: move the chunk-size slider (on a source with its corpus: the "
            "stdlib or Japanese sample, your corpus) to add sizes and see how they compare."
        )
    fine, coarse = rows[0], rows[-1]
    return (
        f"From {coarse.words} to {fine.words} {unit} per chunk, a sample of K = {fine.k} documents holds on average "
        f"{numbers.count(coarse.chunks_per_sample)} → {numbers.count(fine.chunks_per_sample)} chunks "
        f"({fine.chunks_per_sample / coarse.chunks_per_sample:.1f}×), yet the SD of its micro estimate goes "
        f"from {numbers.points(coarse.micro_sd)} to {numbers.points(fine.micro_sd)}, while the binomial "
        f"SD, which counts chunks as independent trials, shrinks from {numbers.points(coarse.binomial_sd)} to "
        f"{numbers.points(fine.binomial_sd)}. Effective n stays between "
        f"{numbers.effective_n(min(r.n_eff for r in rows))} and {numbers.effective_n(max(r.n_eff for r in rows))}: "
        "cutting the same documents finer adds chunks to every sample, not documents, and documents are what is "
        f"sampled (the design effect grows from {numbers.deff(coarse.deff)} to {numbers.deff(fine.deff)})."
    )


def summary_page(
    report: IntervalReport,
    figures: Sequence[go.Figure] | Mapping[str, go.Figure] = (),
    *,
    coverage: CoverageResult | None = None,
    design: Design | None = None,
    comparison: MultipleComparison | None = None,
    title: str = "How sure is this retrieval evaluation?",
    context: Mapping[str, object] | None = None,
    metric: str = "hit@1",
) -> str:
    """A self-contained one-page HTML report, in the explorer's order: the point in plain words, the
    design's values beside this sample's, the three intervals, why the recommended one, the reading,
    every method, the figures.

    plotly.js is inlined once; each figure is a ``<div>`` drawn by it.
    """
    figs = list(figures.values()) if isinstance(figures, Mapping) else list(figures)
    meta = " · ".join(f"{html.escape(str(k))}: {html.escape(str(v))}" for k, v in (context or {}).items())
    reading = "".join(
        f"<li>{html.escape(s)}</li>" for s in plain_reading(report, coverage, design=design, metric=metric)
    )
    top = (
        "".join(
            f"<p class='lead'>{html.escape(s)}</p>"
            for s in headline(design, coverage, level=report.level, metric=metric)
        )
        if design
        else ""
    )
    tiles = (
        _tiles(f"The design: repeated samples of K = {design.k} documents", design_tiles(design)) if design else ""
    ) + _tiles(f"This sample: {report.n_docs:,} documents", sample_tiles(report))
    note = deff_note(design, report) if design else None
    body = (
        f"<h1>{html.escape(title)}</h1><p class='meta'>{meta}</p>{top}{tiles}"
        + (f"<p class='note'>{html.escape(note)}</p>" if note else "")
        + f"<p>{html.escape(estimate_line(report, metric=metric))}</p>"
        f"<h2>Intervals ({report.level:.0%})</h2>{_table(_readable(report, coverage, shown_first=True))}"
        f"<h3>Why this interval</h3><p>{_inline_markdown(why_this_interval(report))}</p>"
        + _dominant_section(report)
        + f"<h2>Reading</h2><ul>{reading}</ul>"
        f"{_comparison_section(comparison, metric)}"
        f"<h2>Every interval method</h2>{_table(_readable(report, coverage))}{_plots(figs)}"
    )
    return _page(title, body)


def _dominant_section(report: IntervalReport) -> str:
    """Which documents dominate: G* beside K and the documents with the largest leverage."""
    lev = report.leverage
    if lev is None:
        return ""
    return (
        f"<h3>Which documents dominate</h3><p>{html.escape(worth_tile(lev)[2])}</p>"
        f"{_table(dominant_documents_table(lev))}"
    )


def _inline_markdown(text: str) -> str:
    """``**bold**``, ```code``` and blank-line paragraphs of the page's Markdown as HTML (escaped first)."""
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text))
    out = re.sub(r"`(.+?)`", r"<code>\1</code>", out)
    return out.replace("\n\n", "</p><p>")


def _comparison_section(result: MultipleComparison | None, metric: str) -> str:
    if result is None:
        return ""
    reading = "".join(f"<li>{html.escape(s)}</li>" for s in comparison_reading(result, metric=metric))
    return f"<h2>Which configuration, and how sure</h2><ul>{reading}</ul>{_table(comparison_table(result))}"


def figures_html(figures: Sequence[go.Figure] | Mapping[str, go.Figure], *, title: str = "ragunc figures") -> str:
    """Figures alone as one self-contained, interactive HTML file (plotly.js inlined once)."""
    figs = list(figures.values()) if isinstance(figures, Mapping) else list(figures)
    return _page(title, f"<h1>{html.escape(title)}</h1>{_plots(figs)}")


# plotly.js turns these tags of a figure's text into a live link or styling; the builders write neither, so one
# in a figure came from a name in the data (a config, a document id) and is shown as typed.
_ACTIVE_TAG = re.compile(r"<(/?)(a|span)\b", re.IGNORECASE)


def _inert_text(value):
    if isinstance(value, str):
        return _ACTIVE_TAG.sub(r"&lt;\1\2", value)
    if isinstance(value, dict):
        return {k: _inert_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_inert_text(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype == object:
        return [_inert_text(v) for v in value.tolist()]
    return value


def _plots(figs: Sequence[go.Figure]) -> str:
    # A light template on a copy: the file is read outside Streamlit, whose theme no longer applies.
    return "".join(
        go.Figure(_inert_text(fig.to_plotly_json()))
        .update_layout(template="plotly_white")
        .to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False})
        for fig in figs
    )


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>{body}</body></html>"
    )


def rank_reading(result: RankResult) -> str:
    """Which configuration is best, and how sure, in a sentence or two (the ranks' plain reading)."""
    order = sorted(result.configs, key=lambda c: (-c.p_best, c.rank))
    best, runner = order[0], order[1]
    low, high = best.rank_ci
    if best.p_best >= 0.95:
        verdict = (
            f"**{best.config}** is the best with P(best) {best.p_best:.0%}: with these "
            f"{result.n_docs:,} documents the lead holds in nearly every resample."
        )
    else:
        verdict = (
            f"**{best.config}** leads (P(best) {best.p_best:.0%}, rank interval [{low}, {high}]) but "
            f"{runner.config} is best in {runner.p_best:.0%} of the resamples: not settled with these "
            f"{result.n_docs:,} documents."
        )
    return (
        verdict + f" Documents are resampled whole and shared by all {len(result.configs)} configs, so a "
        "document's difficulty moves them together and only their differences decide the ranks."
    )


def judged_reading(report: JudgedReport, *, rows: str = "rows") -> list[str]:
    """The three estimates of a judged sample, and what the judge's bias does to the judge-only interval.

    ``rows``: what a row is (chunks, questions).
    """
    pct = f"{report.level:.0%}"

    def est(name: str) -> str:
        e = report[name]
        low, high = e.interval.ci
        ci = "no interval" if math.isnan(low) else f"{pct} interval [{100 * low:.1f}%, {100 * high:.1f}%]"
        return f"{100 * e.estimate:.1f}% ({ci})"

    a = report.audit
    bias = report["judge_bias"]
    lines = [
        f"{LABELS['judge_only']}: {est('judge_only')}, what is reported without an audit.",
        f"A person audited {a.n_audited:,} of the {a.n_rows:,} {rows} in {a.n_audited_docs:,} of the {a.n_docs:,} "
        f"documents ({a.design}). {LABELS['gold_only']}: {est('gold_only')}.",
        f"{LABELS['prediction_powered']}: {est('prediction_powered')}, λ = {report.lam:.2f}: the judge's "
        "labels on every row, corrected by the audit; the interval counts documents as clusters in both phases.",
    ]
    low, high = bias.interval.ci
    if not math.isnan(low):
        settled = low > 0 or high < 0
        lines.append(
            f"{LABELS['judge_bias']}: {100 * bias.estimate:+.1f} pp ([{100 * low:+.1f}, {100 * high:+.1f}] pp): "
            + (
                "the judge-only interval is centred in the wrong place, and more documents only narrow it there."
                if settled
                else "no bias is settled at this audit size."
            )
        )
    if report.note:
        lines.append(f"Note: {report.note}.")
    return lines
