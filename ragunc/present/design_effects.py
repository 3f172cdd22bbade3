"""One design effect per page, and one disclosure that reconciles the others with it.

A data set has several numbers called "design effect": the design's (over repeated samples of K
documents), the equal-size formula 1 + (m̄ − 1)ρ, Kish's correction for unequal sizes, the variance
ratio measured on a coverage run's repetitions and one sample's own estimate.  A page shows the one its
question needs, under :data:`LABEL`; :func:`why_these_differ` says, with the numbers on the screen, how
the others relate to it.  Pure: results in, strings out.
"""

from __future__ import annotations

import math

from ..stats.coverage import CoverageResult
from ..stats.design import Design
from ..stats.diagnostics import Diagnostics
from ..stats.intervals import IntervalReport
from .numbers import count, deff, icc, number

LABEL = "how much less a chunk tells you here"
# The tiles of the design effect and of effective n, the same on every page that shows them.
DEFF_TILE = "How many times less a chunk tells you here"
N_EFF_TILE = "As informative as this many independent chunks"
DISCLOSURE = "Why these design effects differ"


def design_effect_line(design: Design) -> str:
    """The design's DEFF in one plain sentence: what the page's one design effect means."""
    return (
        f"Design effect {deff(design.deff)}, {LABEL}: over repeated samples of {design.k} documents the "
        f"estimate varies {deff(design.deff)} times as much as {count(design.expected_chunks)} independent "
        "chunks would make it vary."
    )


def _noise(reps: int) -> float:
    """Relative SE of a variance estimated from ``reps`` normal draws: sqrt(2 / (R − 1))."""
    return math.sqrt(2 / (reps - 1)) if reps > 1 else math.nan


def _source(design: Design) -> str:
    return f"the design's {count(design.draws)}" if design.draws else "the design's closed form"


def why_these_differ(
    design: Design,
    population: Diagnostics,
    *,
    report: IntervalReport | None = None,
    coverage: CoverageResult | None = None,
) -> list[str]:
    """Markdown bullets reconciling every design effect of the data with the design's.

    ``population``: the diagnostics of all D documents (the ICC, the mean size m̄ and its CV);
    ``report``: this sample's, when the page shows one; ``coverage``: a coverage run at the same K.
    """
    m, cv, rho = population.mean_size, population.cv_size, population.icc
    mc = f" (± {deff(design.deff_mcse)} Monte Carlo SE over {count(design.draws)} samples)" if design.draws else ""
    lines = [
        f"**{deff(design.deff)}: the design**, the one this page uses. Over repeated samples of K = {design.k} "
        f"documents the estimate's variance is {deff(design.deff)} times the binomial variance of the "
        f"{count(design.expected_chunks)} chunks a sample holds on average{mc}.",
        f"**{deff(population.deff_equal)}: if every document had the same size.** 1 + (m̄ − 1)·ρ = 1 + "
        f"({number(m, '.1f')} − 1) × {icc(rho)} = {deff(population.deff_equal)}, with m̄ = "
        f"{number(m, '.1f')} chunks per document on average and ρ = {icc(rho)}, the ICC of all "
        f"{count(design.n_docs)} documents.",
        f"**{deff(population.deff_kish)}: Kish's correction for unequal sizes.** 1 + ((1 + CV²)·m̄ − 1)·ρ "
        f"with the CV of document sizes {number(cv, '.2f')}: large documents hold more of the chunks and "
        f"their chunks are alike, so unequal sizes alone add {deff(population.deff_kish - population.deff_equal)}. "
        f"It is an approximation; the design's {deff(design.deff)} is measured, not approximated.",
    ]
    if coverage is not None and coverage.reps > 1:
        noise = _noise(coverage.reps)
        gap = coverage.variance_ratio / design.deff - 1 if design.deff > 0 else math.nan
        agree = (
            "within that noise of"
            if math.isfinite(gap) and abs(gap) <= 2 * noise
            else f"{abs(100 * gap):.0f}% away from"
        )
        lines.append(
            f"**{deff(coverage.variance_ratio)}: measured on these R = {count(coverage.reps)} repetitions.** "
            f"The same ratio, from R samples instead of {_source(design)}: a variance "
            f"from R samples is known to about ±{100 * noise:.0f}%, so it is {agree} the design's "
            f"{deff(design.deff)}."
        )
    if report is not None:
        d = report.diagnostics
        lines.append(
            f"**{deff(d.deff)}: this sample's own estimate**, from its {count(report.n_docs)} documents alone "
            f"(their ICC {icc(d.icc)}, {number(d.mean_size, '.1f')} chunks per document, CV "
            f"{number(d.cv_size, '.2f')}; Kish's formula on them gives {deff(d.deff_kish)}). A variance "
            f"estimated from {count(report.n_docs)} document rates scatters widely from sample to sample "
            "around the design's value: the recommended interval allows for that with its degrees of freedom."
        )
    return lines
