"""Planning: how many documents a target half-width needs.

SKELETON — being implemented; signatures and dataclass fields are the contract.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .design import ClusterSample


@dataclass(frozen=True)
class PlanResult:
    estimator: str
    level: float
    half_width: float  # target
    docs_needed: int  # smallest K that reaches the target (FPC when population_docs is known)
    chunks_expected: float  # docs_needed * mean chunks per document
    naive_chunks_needed: int  # what the binomial formula would ask for (in chunks)
    k: np.ndarray  # curve: K values
    curve_half_width: np.ndarray  # cluster half-width at each K
    curve_naive_half_width: np.ndarray  # binomial half-width with K * m_bar chunks

    def to_dict(self) -> dict: ...


def plan_documents(
    sample: ClusterSample,
    *,
    half_width: float,
    estimator: str = "micro",
    level: float = 0.95,
    k_max: int | None = None,
) -> PlanResult: ...
