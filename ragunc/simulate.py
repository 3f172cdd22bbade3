"""Coverage by repeated resampling: the loaded data are the population of D documents.

SKELETON — being implemented; signatures and dataclass fields are the contract.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .design import ClusterSample

# Interval methods reported by a coverage experiment, in display order.
METHODS = ("naive", "wilson", "cluster", "cluster_t", "bootstrap", "bootstrap_bca")


@dataclass(frozen=True)
class CoverageResult:
    estimator: str
    level: float
    k: int
    reps: int
    boot: int
    population_docs: int
    population_chunks: int
    population_value: float
    control: str | None  # None or "iid"
    two_stage_fraction: float | None
    coverage: dict[str, float]  # method -> share of repetitions whose interval holds the population value
    coverage_mcse: dict[str, float]  # method -> Monte Carlo SE of that share
    sd_empirical: float  # SD of the estimator across repetitions
    se_mean: dict[str, float]  # method -> mean estimated SE (naive, cluster, cluster_t, bootstrap)
    variance_ratio: float  # empirical variance / mean binomial variance
    estimates: np.ndarray  # (R,) estimator in each repetition
    lower: dict[str, np.ndarray]  # method -> (R,) lower bounds
    upper: dict[str, np.ndarray]  # method -> (R,) upper bounds
    n_chunks: np.ndarray  # (R,) chunks in each repetition's sample

    def to_dict(self) -> dict:
        """JSON contract of ``ragunc simulate`` (no per-repetition arrays)."""


def coverage_experiment(
    population: ClusterSample,
    *,
    k: int,
    reps: int,
    boot: int = 1000,
    estimator: str = "micro",
    level: float = 0.95,
    control: str | None = None,
    two_stage_fraction: float | None = None,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CoverageResult:
    """Draw K documents without replacement R times and compute every interval each time.

    ``progress(done, total)`` is called after each batch of repetitions.
    """
