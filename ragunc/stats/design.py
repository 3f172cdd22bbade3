"""The design's values: what repeated samples of K documents from a population give.

The loaded data are a population of D documents; an evaluation draws K of them without
replacement and judges all their chunks.  Over repeated draws the estimate varies: its SD,
the design effect at this K (its variance over the binomial variance of the chunks a sample
holds) and the effective n (chunks / DEFF) are properties of the population and K, not of one
sample.  :func:`design` computes them; :func:`ragunc.stats.diagnostics.diagnostics` gives one
sample's estimates of the same quantities, with the same definitions (:func:`design_effect`,
:func:`effective_n`, :func:`~ragunc.stats.diagnostics.icc_anova`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import special

from . import batches
from .coverage import check_samples, random_subsets
from .diagnostics import design_effect, effective_n, icc_anova
from .linearization import check_options, chunk_variance, point_estimate
from .sample import ClusterStats, check_k, nested_orders

# Draws of K documents behind a simulated design SD: the most, and the fewest when K is large.
DESIGN_DRAWS = 20_000
MIN_DESIGN_DRAWS = 2_000


@dataclass(frozen=True)
class Design:
    """What repeated samples of ``k`` of the population's ``n_docs`` documents give (one estimator)."""

    estimator: str
    k: int
    n_docs: int  # D, the population's documents
    population_value: float  # the estimator on the whole population (what an interval should hold)
    icc: float  # the population's intraclass correlation (ANOVA, all D documents)
    expected_chunks: float  # chunks a sample of k documents holds on average: k N / D
    sd: float  # SD of the estimate over repeated samples
    binomial_sd: float  # sqrt(p(1 - p) / expected_chunks): the SD the naive binomial interval assumes
    deff: float  # design effect at this k: sd**2 / binomial_sd**2
    n_eff: float  # effective n: expected_chunks / deff
    draws: int  # samples drawn to measure sd (0: exact, in closed form)
    deff_mcse: float  # Monte Carlo SE of deff (0 when exact)

    @property
    def naive_coverage(self) -> float:
        """Coverage a normal-theory naive 95% interval would have at this DEFF (:func:`naive_coverage`)."""
        return float(naive_coverage(self.deff))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def naive_coverage(deff):
    """Coverage a normal-theory naive 95% interval has at design effect ``deff``: 2 Phi(1.96 / sqrt(DEFF)) - 1.

    NaN where DEFF is not positive (no design variance to speak of).  Batch-wise.
    """
    deff = np.asarray(deff, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(deff > 0, special.erf(special.ndtri(0.975) / np.sqrt(2 * deff)), np.nan)[()]


def design(
    population: ClusterStats,
    k: int,
    *,
    estimator: str = "micro",
    draws: int | None = None,
    rng: np.random.Generator | int | None = None,
    samples: np.ndarray | None = None,
) -> Design:
    """The SD of the estimate, the design effect and the effective n over repeated samples of ``k`` documents.

    Macro (the mean of K document rates) has its variance in closed form,
    ``(1 - K/D) S_r^2 / K``: exact, ``draws = 0``.  Micro (hits / chunks, a ratio of
    random sums) has none: the linearization's first-order variance can be twice the
    real one at K = 20 when a few long documents hold most chunks, so the SD is measured
    on ``draws`` samples of K documents (default: 20,000, fewer for large K, never below
    2,000), with its Monte Carlo SE.  These are what the coverage experiment measures
    on its R repetitions, with more draws and no intervals.  ``samples`` (draws, K), the
    documents of each draw, replaces the random ones (e.g. nested samples,
    :func:`~ragunc.stats.sample.nested_orders`).

    DEFF is the variance of the estimate over the binomial variance p(1 - p)/n of the
    n = K N / D chunks a sample holds on average: how many times the naive interval
    understates the variance.  Effective n = n / DEFF.
    """
    _design_iv(population, k, estimator, draws)
    check_samples(samples, population.n_docs, k)
    sum_y, n, sum_y2 = population.sum_y, population.n, population.sum_y2
    d = population.n_docs
    value = float(point_estimate(sum_y, n, estimator))
    expected = k * population.n_chunks / d
    binomial_var = float(chunk_variance(sum_y, n, sum_y2, value)) / expected
    if estimator == "macro":
        variance = (1 - k / d) * float((sum_y / n).var(ddof=1)) / k
        n_draws, var_se = 0, 0.0
    elif k == d:
        variance, n_draws, var_se = 0.0, 0, 0.0
    else:
        if samples is None:
            # A draw holds K indices and the K documents' sums gathered by them: 32 bytes a document.
            n_draws = draws or max(batches.batch_rows(32 * k, DESIGN_DRAWS), MIN_DESIGN_DRAWS)
            idx = random_subsets(np.random.default_rng(rng), d, k, n_draws)
        else:
            idx, n_draws = samples, len(samples)
        estimates = sum_y[idx].sum(1) / n[idx].sum(1)
        variance = float(estimates.var(ddof=1))
        # SE of a sample variance: sqrt((m4 - variance^2) / draws), m4 the fourth central moment.
        m4 = float(((estimates - estimates.mean()) ** 4).mean())
        var_se = float(np.sqrt(max(m4 - variance**2, 0.0) / n_draws))
    deff = float(design_effect(variance, binomial_var))
    return Design(
        estimator=estimator,
        k=int(k),
        n_docs=d,
        population_value=value,
        icc=icc_anova(sum_y, n, sum_y2),
        expected_chunks=float(expected),
        sd=float(np.sqrt(variance)),
        binomial_sd=float(np.sqrt(binomial_var)),
        deff=deff,
        n_eff=float(effective_n(expected, deff)),
        draws=n_draws,
        deff_mcse=float(design_effect(var_se, binomial_var)),
    )


NESTED_REPS = 1000  # the explorer's R by default: the repetitions every page measures the design at K on


def nested_design(
    population: ClusterStats, k: int, *, estimator: str = "micro", seed: int = 0, reps: int = NESTED_REPS
) -> Design:
    """:func:`design` measured on the first K documents of ``reps`` seeded nested repetitions: the design at K as
    the explorer's table of every K (:func:`~ragunc.stats.all_k.k_table`, same seed and R) measures it, so every
    page that shows the design at K shows the same numbers."""
    return design(population, k, estimator=estimator, samples=nested_orders(population.n_docs, 1 + reps, seed)[1:, :k])


def _design_iv(population: ClusterStats, k, estimator: str, draws) -> None:
    check_options(estimator)
    check_k(k, population.n_docs)
    if draws is not None and (isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 2):
        raise ValueError(f"draws must be a whole number >= 2, got {draws!r}")


@dataclass(frozen=True)
class ChunkSizeDiagnostics:
    """One chunk size of a corpus taken as the population, for samples of ``k`` of its documents.

    The design's values (:func:`design`): what repeated samples of ``k`` documents give at this size.
    """

    words: int  # words per chunk
    k: int
    n_docs: int
    n_chunks: int
    estimate: float  # micro hit rate of the population
    mean_size: float  # chunks per document
    chunks_per_sample: float  # k * mean_size: the chunks a sample of k documents holds on average
    icc: float  # the population's ICC at this size
    deff: float  # the design's DEFF at k (variance over repeated samples / binomial variance)
    n_eff: float  # chunks_per_sample / deff
    micro_sd: float  # SD of the micro estimate over repeated samples of k of the n_docs documents
    binomial_sd: float  # sqrt(p (1 - p) / chunks_per_sample): the SD if chunks were independent trials

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def chunk_size_diagnostics(
    populations: Mapping[int, ClusterStats], *, k: int = 20, rng: np.random.Generator | int | None = 0
) -> tuple[ChunkSizeDiagnostics, ...]:
    """The design's DEFF, ICC, effective n and SD of the micro estimate at ``k`` documents, per chunk size.

    ``populations`` maps words per chunk to the per-document results of the whole corpus at
    that size; rows come smallest size first.  Each row is :func:`design` at that size (the
    same draws of documents for every size: ``rng`` seeds each), so the explorer, the Design
    effect page and this table give one number for one quantity.  Finer chunks add chunks to
    every sample, not documents: the SD barely moves while the binomial SD shrinks.
    """
    _chunk_size_diagnostics_iv(populations, k)
    rows = []
    for words in sorted(populations):
        population = populations[words]
        values = design(population, k, estimator="micro", rng=rng)
        rows.append(
            ChunkSizeDiagnostics(
                words=int(words),
                k=k,
                n_docs=population.n_docs,
                n_chunks=population.n_chunks,
                estimate=values.population_value,
                mean_size=float(population.n.mean()),
                chunks_per_sample=values.expected_chunks,
                icc=values.icc,
                deff=values.deff,
                n_eff=values.n_eff,
                micro_sd=values.sd,
                binomial_sd=values.binomial_sd,
            )
        )
    return tuple(rows)


def _chunk_size_diagnostics_iv(populations: Mapping[int, ClusterStats], k: int) -> None:
    if not populations:
        raise ValueError("chunk_size_diagnostics needs at least one chunk size")
    bad = [
        words
        for words in populations
        if isinstance(words, bool) or not isinstance(words, (int, np.integer)) or words < 1
    ]
    if bad:
        raise ValueError(f"chunk sizes must be positive word counts, got {bad}")
    check_k(k, max(p.n_docs for p in populations.values()))
    small = {words: p.n_docs for words, p in populations.items() if p.n_docs < k}
    if small:
        raise ValueError(
            f"k = {k} documents is more than some chunk sizes hold: "
            + ", ".join(f"{w} words: {n} documents" for w, n in sorted(small.items()))
        )
