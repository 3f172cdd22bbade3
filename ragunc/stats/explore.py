"""One draw of K documents from a population, seen three ways: the sample's intervals, the design's values, coverage.

What the uncertainty explorer shows for one setting, as one call: :func:`explore` takes the nested
sample (:func:`~ragunc.stats.sample.nested_sample`: the first K documents of a seeded permutation,
so that K + 1 adds one document), reports its intervals
(:func:`~ragunc.stats.intervals.interval_report`), computes what repeated samples of K documents
give (:func:`~ragunc.stats.design.design`) and, when asked, repeats the evaluation R times
(:func:`~ragunc.stats.coverage.coverage_experiment`), on the R nested repetitions of the table of
every K (:func:`~ragunc.stats.all_k.k_table`), whose row at K it equals.  Every part is seeded by
the same ``seed``, so a setting always gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .coverage import CoverageResult, coverage_experiment
from .design import Design, design
from .intervals import IntervalReport, interval_report
from .sample import ClusterStats, nested_orders, nested_sample


@dataclass(frozen=True)
class Exploration:
    """A sample of K documents from a population, its intervals, the design's values and (optionally) coverage."""

    sample: ClusterStats  # the nested sample of K documents (population_docs = D, so intervals apply the FPC)
    report: IntervalReport  # this sample's intervals and its own estimates of DEFF, ICC, effective n
    design: Design  # what repeated samples of K documents give
    coverage: CoverageResult | None  # R repetitions of the whole evaluation; None when not asked or K = D


def explore(
    population: ClusterStats,
    *,
    k: int,
    boot: int = 1000,
    reps: int | None = 1000,
    estimator: str = "micro",
    level: float = 0.95,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Exploration:
    """The nested sample of K documents and what the explorer shows of it (``reps=None``: no coverage).

    With ``reps``, the micro design's SD and the coverage are measured on the R nested
    repetitions (the table's); without, the design draws its own samples.
    ``progress(done, total)`` follows the coverage experiment's repetitions.
    """
    sample = nested_sample(population, k, seed=seed)
    report = interval_report(sample, estimator=estimator, level=level, boot=boot, rng=seed)
    repetitions = None if reps is None else nested_orders(population.n_docs, 1 + reps, seed)[1:, :k]
    values = design(population, k, estimator=estimator, rng=seed, samples=repetitions)
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
            progress=progress,
            samples=repetitions,
        )
    return Exploration(sample, report, values, coverage)
