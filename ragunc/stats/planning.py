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
from .multiple import align_shared
from .sample import ClusterStats


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
    sample: ClusterStats,
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
    est, resid = linearized_residuals(sample.sum_y, sample.n, estimator)
    s2 = float((resid**2).sum() / (sample.n_docs - 1))
    z = float(special.ndtri(0.5 + level / 2))
    # Solve z^2 (1/K - 1/D) s^2 <= h^2 for the smallest integer K.
    inv_k = half_width**2 / (z**2 * s2) if s2 > 0 else math.inf
    if d is not None:
        inv_k += 1.0 / d
    needed = max(2, math.ceil(1.0 / inv_k - 1e-9)) if inv_k > 0 else 2
    if d is not None:
        needed = min(needed, d)
    m_bar = float(sample.n.mean())
    pq = float(chunk_variance(sample.sum_y, sample.n, sample.sum_y2, est))
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
    pilot: ClusterStats,
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


@dataclass(frozen=True)
class DifferencePlan:
    """Documents needed to detect a difference b - a with a two-sided paired z test."""

    config_a: str
    config_b: str
    estimator: str
    level: float  # 1 - alpha of the test
    difference: float  # the difference to detect
    power: float  # target 1 - beta
    docs_needed: int  # smallest K reaching the power (paired document-level variance)
    naive_docs_needed: int  # what the unpaired binomial formula asks for, in documents of m_bar chunks
    pilot_difference: float  # b - a in the pilot
    paired_variance: float  # s^2 of the per-document paired residual differences
    naive_variance: float  # p_a q_a + p_b q_b, per chunk
    mean_size: float
    k: np.ndarray  # curve: K values
    curve_power: np.ndarray  # power at each K
    curve_power_naive: np.ndarray  # what the binomial formula claims at each K
    population_docs: int | None = None

    def to_dict(self) -> dict:
        return {
            "config_a": self.config_a,
            "config_b": self.config_b,
            "estimator": self.estimator,
            "difference": self.difference,
            "power": self.power,
            "level": self.level,
            "n_docs": self.docs_needed,  # the JSON keys of the published contract
            "n_docs_naive": self.naive_docs_needed,
            "pilot_difference": self.pilot_difference,
            "paired_variance": self.paired_variance,
            "naive_variance": self.naive_variance,
            "mean_size": self.mean_size,
            "population_docs": self.population_docs,
            "curve": [
                {"k": int(k), "power": float(p), "power_naive": float(q)}
                for k, p, q in zip(self.k, self.curve_power, self.curve_power_naive)
            ],
        }


def power_at(k, difference: float, variance: float, level: float, population_docs: int | None = None):
    """Power of the two-sided z test of level 1 - ``level`` against ``difference`` with SE sqrt((1 - K/D) s^2 / K).

    Both rejection tails count: Phi(|delta|/SE - z) + Phi(-|delta|/SE - z).
    """
    k = np.asarray(k, dtype=float)
    fpc = 1.0 if population_docs is None else 1.0 - k / population_docs
    z = special.ndtri(0.5 + level / 2)
    with np.errstate(divide="ignore"):
        shift = abs(difference) / np.sqrt(fpc * variance / k)
    return special.ndtr(shift - z) + special.ndtr(-shift - z)


def plan_difference(
    a: ClusterStats,
    b: ClusterStats,
    *,
    difference: float,
    power: float = 0.8,
    estimator: str = "micro",
    level: float = 0.95,
    k_max: int | None = None,
) -> DifferencePlan:
    """Documents needed to detect ``difference`` between two configs, from their paired pilot on shared documents.

    The variance per document is that of the paired residual differences
    ``s^2 = sum((e_b - e_a)^2) / (K - 1)`` (as in the paired SE); the naive count uses the
    unpaired binomial ``p_a q_a + p_b q_b`` per chunk and divides the chunks by m_bar.  The
    FPC applies when the pilot carries population_docs (and K is then at most D).
    """
    check_options(estimator, level)
    if not difference != 0 or not math.isfinite(difference):
        raise ValueError(f"difference must be a finite non-zero number, got {difference!r}")
    if not 0 < power < 1:
        raise ValueError(f"power must be strictly between 0 and 1, got {power!r}")
    shared, (a, b) = align_shared([a, b])
    if shared.size < 2:
        raise ValueError(f"configs {a.config!r} and {b.config!r} share {shared.size} document(s); planning needs 2")
    d = a.population_docs if a.population_docs is not None else b.population_docs
    est_a, res_a = linearized_residuals(a.sum_y, a.n, estimator)
    est_b, res_b = linearized_residuals(b.sum_y, b.n, estimator)
    s2 = float(((res_b - res_a) ** 2).sum() / (a.n_docs - 1))
    m_bar = float(np.concatenate([a.n, b.n]).mean())
    pq = float(chunk_variance(a.sum_y, a.n, a.sum_y2, est_a) + chunk_variance(b.sum_y, b.n, b.sum_y2, est_b))
    z_sum = special.ndtri(0.5 + level / 2) + special.ndtri(power)
    # Start from the one-tail closed form (z_a/2 + z_b)^2 s^2 / delta^2 and step up while the
    # two-tail power (with the FPC) falls short; the other tail only adds power.
    approx = max(2, math.ceil(z_sum**2 * s2 / difference**2 - 1e-9))
    needed = _first_reaching(approx, difference, s2, level, power, d)
    needed_naive = max(2, math.ceil(z_sum**2 * pq / (m_bar * difference**2) - 1e-9))
    top = k_max if k_max is not None else 2 * max(needed, needed_naive, a.n_docs)
    if d is not None:
        top = min(top, d)
    k = np.unique(np.linspace(2, max(top, 3), 200).round().astype(int))
    return DifferencePlan(
        config_a=a.config,
        config_b=b.config,
        estimator=estimator,
        level=level,
        difference=float(difference),
        power=power,
        docs_needed=needed,
        naive_docs_needed=needed_naive,
        pilot_difference=float(est_b - est_a),
        paired_variance=s2,
        naive_variance=pq,
        mean_size=m_bar,
        k=k,
        curve_power=power_at(k, difference, s2, level, d),
        curve_power_naive=power_at(k * m_bar, difference, pq, level),
        population_docs=d,
    )


def _first_reaching(start: int, difference, s2, level, power, population_docs) -> int:
    if s2 == 0:
        return 2
    top = population_docs if population_docs is not None else max(4 * start, 16)
    k = np.arange(max(2, start - 2), max(top, start) + 1)
    reach = np.flatnonzero(power_at(k, difference, s2, level, population_docs) >= power)
    return int(k[reach[0]]) if reach.size else int(k[-1])
