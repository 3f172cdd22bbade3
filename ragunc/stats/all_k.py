"""Every K of the explorer at once: one table of what a sample of K documents shows, for K = 2..D.

The samples are nested: one seeded permutation of the D documents
(:func:`~ragunc.stats.sample.nested_orders`), the sample at K being its first K documents, so
that moving K adds or removes one document.  Coverage comes from R more permutations, nested
too: repetition r at K is the first K documents of permutation r, and a smaller R is the
first R repetitions.  Each row holds what the single-K functions give on that sample
(:func:`~ragunc.stats.intervals.interval_estimates`, :func:`~ragunc.stats.diagnostics.diagnostics`,
:func:`~ragunc.stats.design.design` and :func:`~ragunc.stats.coverage.coverage_experiment` on the
same nested repetitions) for every analytic interval method; the bootstrap, which has no
closed form, is :func:`nested_bootstrap` at one K.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .coverage import CoverageResult, coverage_experiment, predicted_variance
from .design import design
from .diagnostics import diagnostics
from .intervals import IntervalReport, interval_estimates, interval_report
from .linearization import check_options, estimate
from .methods import CLUSTER_BOOTSTRAP, interval_methods
from .recommend import RECOMMENDED_METHOD, recommend
from .sample import ClusterStats, nested_orders, nested_sample

__all__ = ["KTable", "k_table", "nested_bootstrap", "nested_sample"]

# Significant digits of the table's numbers in the payload the browser receives.
PAYLOAD_DIGITS = 6


@dataclass(frozen=True)
class KTable:
    """What the explorer shows at every K = 2..D, one row per K (columns: see :func:`k_table`)."""

    k: np.ndarray  # (D - 1,) int: 2..D
    columns: dict[str, np.ndarray]  # name -> float array aligned with k (NaN where undefined)
    methods: tuple[str, ...]  # the analytic interval methods covered, in METHODS order
    recommended: str  # the recommended method (stats.recommend)
    population_value: float
    population_icc: float
    n_docs: int  # D
    reps: int  # R: coverage repetitions (and the micro design's draws)
    estimator: str
    level: float
    seed: int
    order: np.ndarray  # (D,) the seeded permutation: the sample at K is the documents order[:K]

    def row(self, k: int) -> dict[str, float]:
        """Every column at ``k``."""
        i = int(k) - 2
        if not 0 <= i < self.k.size:
            raise ValueError(f"k must be from 2 to {self.n_docs}, got {k!r}")
        return {name: float(values[i]) for name, values in self.columns.items()}

    def to_payload(self) -> dict:
        """JSON-ready: the columns as lists of numbers rounded to 6 significant digits (null for NaN)."""
        return {
            "k": self.k.tolist(),
            "columns": {name: _rounded(values) for name, values in self.columns.items()},
            "methods": list(self.methods),
            "recommended": self.recommended,
            "population_value": self.population_value,
            "population_icc": self.population_icc,
            "n_docs": self.n_docs,
            "reps": self.reps,
            "estimator": self.estimator,
            "level": self.level,
            "seed": self.seed,
        }


def _rounded(values: np.ndarray) -> list:
    return [None if not math.isfinite(v) else float(f"{v:.{PAYLOAD_DIGITS}g}") for v in values.tolist()]


def analytic_methods() -> tuple[str, ...]:
    """The registered methods with a closed form (every family but the cluster bootstrap), in display order."""
    return tuple(m.name for m in interval_methods() if m.family != CLUSTER_BOOTSTRAP)


def _k_table_iv(population: ClusterStats, estimator: str, level: float, seed, reps) -> None:
    check_options(estimator, level)
    if population.n_docs < 3:
        raise ValueError(f"the population needs at least 3 documents for a table of K = 2..D, got {population.n_docs}")
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise ValueError(f"reps must be a whole number >= 1, got {reps!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a whole number, got {seed!r}")


def k_table(
    population: ClusterStats, *, estimator: str = "micro", level: float = 0.95, seed: int = 0, reps: int = 1000
) -> KTable:
    """The explorer's table of every K = 2..D for nested samples of the population (seeded by ``seed``).

    Columns, each aligned with ``k`` (NaN where undefined):

    * this sample: ``n_chunks``, ``estimate``; for every analytic method m ``{m}_low``, ``{m}_high``
      and ``{m}_se`` (when it has an SE); ``recommended_low``, ``recommended_high``, ``recommended_df``;
      ``deff``, ``icc``, ``n_eff``, ``bernoulli_n``, ``k_over_rho``, ``cluster_variance``,
      ``binomial_variance``, ``documents_with_hits``, ``documents_with_misses``;
    * the design at K: ``design_sd``, ``design_binomial_sd``, ``design_deff``, ``design_deff_mcse``,
      ``design_n_eff``, ``design_chunks`` (expected chunks), ``design_naive_coverage``, ``design_draws``,
      ``design_linearization_sd`` (what the linearization predicts); the micro design's SD is measured on
      the R nested repetitions;
    * over the R nested repetitions (NaN at K = D): ``coverage_{m}``, ``coverage_{m}_mcse``,
      ``coverage_{m}_undefined`` for every analytic method and the same under ``recommended``,
      ``coverage_{m}_se_mean`` for a method with an SE, ``coverage_variance_ratio`` (the repetitions'
      variance over the binomial one) and ``coverage_mean_chunks``.
    """
    _k_table_iv(population, estimator, level, seed, reps)
    d = population.n_docs
    orders = nested_orders(d, 1 + reps, seed)
    methods = analytic_methods()
    rows = [_row(population, k, orders, methods, estimator, level) for k in range(2, d + 1)]
    columns = {name: np.array([row.get(name, np.nan) for row in rows], dtype=float) for name in rows[0]}
    values = design(population, 2, estimator=estimator, samples=orders[1:, :2])
    return KTable(
        k=np.arange(2, d + 1),
        columns=columns,
        methods=methods,
        recommended=RECOMMENDED_METHOD,
        population_value=values.population_value,
        population_icc=values.icc,
        n_docs=d,
        reps=int(reps),
        estimator=estimator,
        level=float(level),
        seed=int(seed),
        order=orders[0],
    )


def _row(population, k, orders, methods, estimator, level) -> dict[str, float]:
    d = population.n_docs
    sample = population.subset(np.sort(orders[0, :k])).with_population(d)
    intervals = interval_estimates(sample, methods, estimator=estimator, level=level)
    diag = diagnostics(sample, estimator=estimator)
    rec = recommend(sample.sum_y, sample.n, estimator=estimator, binary=sample.binary)
    row = {"n_chunks": sample.n_chunks, "estimate": estimate(sample, estimator)}
    for name, est in intervals.items():
        row[f"{name}_low"], row[f"{name}_high"] = est.ci
        if est.se is not None:
            row[f"{name}_se"] = est.se
    row["recommended_low"], row["recommended_high"] = intervals[rec.method].ci
    row["recommended_df"] = rec.df
    row |= {
        "deff": diag.deff,
        "icc": diag.icc,
        "n_eff": diag.n_eff,
        "bernoulli_n": diag.bernoulli_n,
        "k_over_rho": diag.k_over_rho,
        "cluster_variance": diag.cluster_variance,
        "binomial_variance": diag.binomial_variance,
        "documents_with_hits": rec.documents_with_hits,
        "documents_with_misses": rec.documents_with_misses,
    }
    values = design(population, k, estimator=estimator, samples=orders[1:, :k])
    row |= {
        "design_sd": values.sd,
        "design_binomial_sd": values.binomial_sd,
        "design_deff": values.deff,
        "design_deff_mcse": values.deff_mcse,
        "design_n_eff": values.n_eff,
        "design_chunks": values.expected_chunks,
        "design_naive_coverage": values.naive_coverage,
        "design_draws": values.draws,
        "design_linearization_sd": np.sqrt(predicted_variance(population.sum_y, population.n, k, estimator)),
    }
    reps = orders.shape[0] - 1
    coverage = None
    if k < d:
        coverage = coverage_experiment(
            population, k=k, reps=reps, boot=0, estimator=estimator, level=level, samples=orders[1:, :k]
        )
    for name in (*methods, "recommended"):
        m = None if coverage is None else coverage.methods[RECOMMENDED_METHOD if name == "recommended" else name]
        row[f"coverage_{name}"] = np.nan if m is None else m.coverage
        row[f"coverage_{name}_mcse"] = np.nan if m is None else m.mcse
        row[f"coverage_{name}_undefined"] = np.nan if m is None else m.undefined
        if name in intervals and intervals[name].se is not None:
            row[f"coverage_{name}_se_mean"] = np.nan if m is None else m.se_mean
    row["coverage_variance_ratio"] = np.nan if coverage is None else coverage.variance_ratio
    row["coverage_mean_chunks"] = np.nan if coverage is None else coverage.mean_chunks
    return row


def nested_bootstrap(
    population: ClusterStats,
    *,
    k: int,
    boot: int = 1000,
    reps: int | None = 1000,
    estimator: str = "micro",
    level: float = 0.95,
    seed: int = 0,
) -> tuple[IntervalReport, CoverageResult | None]:
    """Every interval of the nested sample at K (``boot`` replicates) and coverage over the R nested repetitions.

    The report is :func:`~ragunc.stats.intervals.interval_report` on :func:`nested_sample`; the
    coverage is :func:`~ragunc.stats.coverage.coverage_experiment` on the first K documents of each
    of the table's R repetitions, every method's (the analytic ones equal the table's); None
    when ``reps`` is None or K = D.  Both resample with the one engine, seeded by ``seed``.
    """
    check_options(estimator, level)
    sample = nested_sample(population, k, seed=seed)
    report = interval_report(sample, estimator=estimator, level=level, boot=boot, rng=seed)
    coverage = None
    if reps is not None and k < population.n_docs:
        coverage = coverage_experiment(
            population,
            k=k,
            reps=reps,
            boot=boot,
            estimator=estimator,
            level=level,
            rng=seed,
            samples=nested_orders(population.n_docs, 1 + reps, seed)[1:, :k],
        )
    return report, coverage
