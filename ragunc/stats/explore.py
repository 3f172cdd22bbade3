"""One draw of K documents from a population, seen three ways: the sample's intervals, the design's values, coverage.

What the uncertainty explorer shows for one setting, as one call: :func:`explore` draws the sample
(:func:`~ragunc.stats.sample.draw_sample`), reports its intervals
(:func:`~ragunc.stats.intervals.interval_report`), computes what repeated samples of K documents
give (:func:`~ragunc.stats.design.design`) and, when asked, repeats the evaluation R times
(:func:`~ragunc.stats.coverage.coverage_experiment`).  Every part is seeded by the same ``seed``,
so a setting always gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .coverage import CoverageResult, coverage_experiment
from .design import Design, design
from .intervals import IntervalReport, interval_report
from .sample import ClusterStats, draw_sample


@dataclass(frozen=True)
class Exploration:
    """A sample of K documents from a population, its intervals, the design's values and (optionally) coverage."""

    sample: ClusterStats  # the K documents drawn (population_docs = D, so intervals apply the FPC)
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
    """Draw K of the population's documents and compute what the explorer shows (``reps=None``: no coverage).

    ``progress(done, total)`` follows the coverage experiment's repetitions.
    """
    sample = draw_sample(population, k, rng=seed)
    report = interval_report(sample, estimator=estimator, level=level, boot=boot, rng=seed)
    values = design(population, k, estimator=estimator, rng=seed)
    coverage = None
    if reps is not None and k < population.n_docs:
        coverage = coverage_experiment(
            population, k=k, reps=reps, boot=boot, estimator=estimator, level=level, rng=seed, progress=progress
        )
    return Exploration(sample, report, values, coverage)
