"""The cluster-sampling design and its estimators, intervals and diagnostics.

Documents are the sampling units (clusters); every chunk of a sampled document
is observed (a census inside the document).  Everything here works on
per-document sufficient statistics held by :class:`ClusterSample`, never on
chunk rows.

Interval kernels are written batch-wise: they take arrays whose last axis runs
over documents and any leading axes run over repetitions, so
``ragunc.simulate`` reuses the very same formulas on (R, K) arrays.

SKELETON — being implemented; signatures and dataclass fields are the contract.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ESTIMATORS = ("micro", "macro")


@dataclass(frozen=True)
class ClusterSample:
    """Per-document sufficient statistics of one config (the design object).

    All arrays have one entry per document, in the same order.
    """

    doc_id: np.ndarray  # (K,) str
    total: np.ndarray  # (K,) float64: sum of y over the document's chunks (hits for 0/1 y)
    size: np.ndarray  # (K,) int64: m_d, number of chunks
    sumsq: np.ndarray  # (K,) float64: sum of y**2 (== total for 0/1 y)
    lag_cross: np.ndarray | None = None  # (K,) sum of y_i*y_{i+1} over neighbouring chunk_index; None without chunk_index
    first: np.ndarray | None = None  # (K,) y of the document's first chunk (by chunk_index)
    last: np.ndarray | None = None  # (K,) y of the document's last chunk
    doc_type: np.ndarray | None = None  # (K,) str stratum, or None
    population_docs: int | None = None  # D, when the population's document count is known (FPC)
    binary: bool = True  # every y is 0 or 1
    config: str = "default"

    @property
    def n_docs(self) -> int: ...

    @property
    def n_chunks(self) -> int: ...

    def with_population(self, population_docs: int | None) -> "ClusterSample": ...

    def subset(self, index: np.ndarray) -> "ClusterSample": ...


@dataclass(frozen=True)
class IntervalEstimate:
    """One interval method's output. ``ci`` is (low, high)."""

    method: str
    se: float | None
    ci: tuple[float, float]


@dataclass(frozen=True)
class BootstrapResult:
    """Cluster bootstrap (documents resampled with replacement)."""

    se: float
    ci: tuple[float, float]  # percentile
    ci_bca: tuple[float, float]
    reps: int


@dataclass(frozen=True)
class Diagnostics:
    deff: float  # cluster variance / binomial variance
    icc: float  # ANOVA estimator for unequal cluster sizes
    deff_kish: float  # 1 + ((1 + CV^2) * m_bar - 1) * rho
    deff_equal: float  # 1 + (m_bar - 1) * rho
    n_eff: float  # n_chunks / deff
    bernoulli_n: float  # p(1-p) / cluster variance
    k_over_rho: float  # limit of n_eff as chunks per document grow (inf when rho <= 0)
    mean_size: float  # m_bar
    cv_size: float  # sd(m) / m_bar
    lag1_autocorr: float | None  # residuals (y - document mean) of neighbouring chunks; None without chunk_index
    doc_type_share: float | None  # share of the variance of document rates explained by doc_type; None without it


@dataclass(frozen=True)
class IntervalReport:
    """Everything ``ragunc interval`` prints."""

    estimator: str
    estimate: float
    n_docs: int
    n_chunks: int
    level: float
    naive: IntervalEstimate  # Wald binomial over chunks
    wilson: IntervalEstimate  # Wilson over chunks (se None)
    cluster: IntervalEstimate  # linearization, normal, FPC if population_docs is known
    cluster_t: IntervalEstimate  # linearization with t(K-1)
    bootstrap: BootstrapResult
    diagnostics: Diagnostics

    def to_dict(self) -> dict: ...


def estimate(sample: ClusterSample, estimator: str = "micro") -> float:
    """micro: sum(total)/sum(size) (ratio estimator); macro: mean of total/size."""


def interval_report(
    sample: ClusterSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> IntervalReport:
    """All intervals and diagnostics for one sample (what ``ragunc interval`` prints)."""


def diagnostics(sample: ClusterSample, *, estimator: str = "micro") -> Diagnostics:
    """DEFF, ICC, Kish, effective n, Bernoulli-equivalent n, K/rho, lag-1 autocorrelation, doc_type share."""
