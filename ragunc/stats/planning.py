"""Planning: how many documents a target half-width needs.

The sample's per-document linearized residuals give the between-document
variance s^2; the cluster half-width at K documents is
``z * sqrt((1 - K/D) * s^2 / K)`` (FPC only when D is known).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .linearization import check_options, chunk_variance, linearized_residuals
from .sample import ClusterSample


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
    estimate: float = float("nan")  # the sample's estimate the plan is built on
    doc_variance: float = float("nan")  # s^2 of the linearized residuals (per document)
    mean_size: float = float("nan")  # m_bar
    population_docs: int | None = None

    def to_dict(self) -> dict:
        return {
            "estimator": self.estimator,
            "level": self.level,
            "half_width": self.half_width,
            "docs_needed": self.docs_needed,
            "chunks_expected": self.chunks_expected,
            "naive_chunks_needed": self.naive_chunks_needed,
            "estimate": self.estimate,
            "doc_variance": self.doc_variance,
            "mean_size": self.mean_size,
            "population_docs": self.population_docs,
            "curve": {
                "k": self.k.tolist(),
                "half_width": self.curve_half_width.tolist(),
                "naive_half_width": self.curve_naive_half_width.tolist(),
            },
        }


def cluster_half_width(k, doc_variance: float, crit: float, population_docs: int | None = None):
    """z * sqrt((1 - K/D) s^2 / K) at each K (no FPC without D)."""
    k = np.asarray(k, dtype=float)
    fpc = 1.0 if population_docs is None else 1.0 - k / population_docs
    return crit * np.sqrt(fpc * doc_variance / k)


def plan_documents(
    sample: ClusterSample,
    *,
    half_width: float,
    estimator: str = "micro",
    level: float = 0.95,
    k_max: int | None = None,
) -> PlanResult:
    """Documents (and the chunks they bring) needed for a target half-width, with the curve over K.

    ``k_max`` bounds the curve (default: twice the larger of docs_needed and the
    sample's K, capped at the population's D when known).
    """
    check_options(estimator, level)
    if not half_width > 0:
        raise ValueError(f"half_width must be > 0, got {half_width}")
    if sample.n_docs < 2:
        raise ValueError(f"planning needs at least 2 documents to estimate their variance, got {sample.n_docs}")
    d = sample.population_docs
    est, resid = linearized_residuals(sample.total, sample.size, estimator)
    s2 = float((resid**2).sum() / (sample.n_docs - 1))
    z = float(special.ndtri(0.5 + level / 2))
    # Solve z^2 (1/K - 1/D) s^2 <= h^2 for the smallest integer K.
    inv_k = half_width**2 / (z**2 * s2) if s2 > 0 else math.inf
    if d is not None:
        inv_k += 1.0 / d
    needed = max(2, math.ceil(1.0 / inv_k - 1e-9)) if inv_k > 0 else 2
    if d is not None:
        needed = min(needed, d)
    m_bar = float(sample.size.mean())
    pq = float(chunk_variance(sample.total, sample.size, sample.sumsq, est))
    top = k_max if k_max is not None else 2 * max(needed, sample.n_docs)
    if d is not None:
        top = min(top, d)
    k = np.arange(1, max(top, 2) + 1)
    return PlanResult(
        estimator=estimator,
        level=level,
        half_width=half_width,
        docs_needed=needed,
        chunks_expected=needed * m_bar,
        naive_chunks_needed=math.ceil(z**2 * pq / half_width**2 - 1e-9),
        k=k,
        curve_half_width=cluster_half_width(k, s2, z, d),
        curve_naive_half_width=z * np.sqrt(pq / (k * m_bar)),
        estimate=float(est),
        doc_variance=s2,
        mean_size=m_bar,
        population_docs=d,
    )


def plan_from_pilot(
    pilot: ClusterSample,
    *,
    half_width: float,
    whole_corpus: bool = False,
    estimator: str = "micro",
    level: float = 0.95,
    k_max: int | None = None,
) -> PlanResult:
    """:func:`plan_documents` with ``pilot`` as the pilot, for one of the two corpora a pilot can stand for.

    ``whole_corpus=False``: a larger corpus like the pilot, whose size is not known, so no
    finite-population correction (a ``population_docs`` the pilot carries is set aside).
    ``whole_corpus=True``: the pilot's D documents are the whole corpus, so the plan
    applies the correction 1 - K/D and never asks for more than D documents.
    """
    population_docs = pilot.n_docs if whole_corpus else None
    return plan_documents(
        pilot.with_population(population_docs), half_width=half_width, estimator=estimator, level=level, k_max=k_max
    )
