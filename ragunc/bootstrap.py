"""Cluster bootstrap: resample documents with replacement (percentile and BCa), vectorised.

SKELETON — being implemented; signatures are the contract.
"""
from __future__ import annotations

import numpy as np

from .design import BootstrapResult, ClusterSample


def cluster_bootstrap(
    sample: ClusterSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    reps: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> BootstrapResult:
    """Resample whole documents B times; percentile and BCa intervals, bootstrap SE."""
