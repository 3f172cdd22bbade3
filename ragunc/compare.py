"""Paired comparison of two configs on the same documents.

SKELETON — being implemented; signatures and dataclass fields are the contract.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .design import ClusterSample, IntervalEstimate


@dataclass(frozen=True)
class ComparisonResult:
    config_a: str
    config_b: str
    estimator: str
    level: float
    estimate_a: float
    estimate_b: float
    difference: float  # b - a
    n_docs: int  # documents present in both configs
    dropped_a: int  # documents only in a (excluded)
    dropped_b: int
    paired: IntervalEstimate  # document-level paired linearization
    bootstrap: IntervalEstimate  # paired cluster bootstrap (percentile)
    naive: IntervalEstimate  # unpaired binomial over chunks

    def to_dict(self) -> dict: ...


def paired_comparison(
    a: ClusterSample,
    b: ClusterSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> ComparisonResult: ...
