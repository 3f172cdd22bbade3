"""Linearization: point estimates, per-document residuals, the one residual-variance formula and the
analytic interval kernels, batch-wise (documents on the last axis, repetitions on leading axes)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .sample import ClusterSample

ESTIMATORS = ("micro", "macro")


# Interval methods computed by :func:`interval_arrays`, in display order.
ANALYTIC_METHODS = ("naive", "wilson", "cluster", "cluster_t", "cluster_wilson")



@dataclass(frozen=True)
class IntervalEstimate:
    """One interval method's output. ``ci`` is (low, high)."""

    method: str
    se: float | None
    ci: tuple[float, float]

    def to_dict(self) -> dict:
        return {"se": self.se, "ci": list(self.ci)}



def binomial_se(p, n):
    """Wald SE of a proportion over ``n`` independent Bernoulli trials: sqrt(p(1-p)/n)."""
    return np.sqrt(np.asarray(p) * (1 - np.asarray(p)) / np.asarray(n))



def check_options(estimator: str, level: float | None = None) -> None:
    """Raise ``ValueError`` for an unknown estimator or a level outside (0, 1)."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    if level is not None and not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")


def point_estimate(total, size, estimator: str = "micro"):
    """micro: sum(total)/sum(size) (ratio estimator); macro: mean of total/size. Batch-wise."""
    total = np.asarray(total, dtype=float)
    if estimator == "micro":
        return total.sum(-1) / np.sum(size, axis=-1)
    return (total / size).mean(-1)


def linearized_residuals(total, size, estimator: str = "micro"):
    """Estimate and per-document linearized residuals ``e_d`` (mean zero).

    The cluster variance is ``(1 - f) * sum(e_d**2) / (K (K - 1))``:
    micro (ratio) ``e_d = (Y_d - p m_d) K / sum(m)``; macro ``e_d = r_d - mean(r)``.
    """
    total = np.asarray(total, dtype=float)
    size = np.asarray(size, dtype=float)
    k = total.shape[-1]
    if estimator == "micro":
        n = size.sum(-1, keepdims=True)
        p = total.sum(-1, keepdims=True) / n
        resid = (total - p * size) * (k / n)
    else:
        rate = total / size
        p = rate.mean(-1, keepdims=True)
        resid = rate - p
    return p[..., 0], resid


def residual_variance(resid, fpc=1.0):
    """Variance of a mean from its per-document linearized residuals: (1 - f) sum(e_d**2) / (K (K - 1)).

    ``resid`` has documents on the last axis; ``fpc`` is 1 - K/D (1: no FPC).
    """
    resid = np.asarray(resid, dtype=float)
    k = resid.shape[-1]
    return np.asarray(fpc) * (resid**2).sum(-1) / (k * (k - 1))


def cluster_variance(total, size, estimator: str = "micro", fpc=1.0):
    """Linearization variance of the estimator; ``fpc`` is 1 - K/D (1: no FPC)."""
    _, resid = linearized_residuals(total, size, estimator)
    return residual_variance(resid, fpc)


def wilson_interval(p, n, crit):
    """Wilson score interval for proportion ``p`` over ``n`` trials (NaN where p is outside [0, 1])."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z2n = crit**2 / n
        centre = (p + z2n / 2) / (1 + z2n)
        half = crit * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    inside = (p >= 0) & (p <= 1)
    return np.where(inside, centre - half, np.nan), np.where(inside, centre + half, np.nan)


def chunk_variance(total, size, sumsq, estimate, binary: bool):
    """Per-chunk variance the binomial reference uses: p(1-p) for 0/1 y, else the chunk variance about the mean."""
    if binary:
        return estimate * (1 - estimate)
    n = np.sum(size, axis=-1)
    mean = np.sum(total, axis=-1) / n
    return np.maximum(np.sum(sumsq, axis=-1) / n - mean**2, 0.0)


@dataclass(frozen=True)
class IntervalArrays:
    """Batch output of :func:`interval_arrays`; every array has the leading (repetition) shape."""

    estimate: np.ndarray
    n_chunks: np.ndarray
    binomial_variance: np.ndarray  # chunk variance / N
    cluster_variance: np.ndarray  # linearization variance, FPC applied
    se: dict[str, np.ndarray | None]  # method -> SE (None for Wilson-type)
    lower: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]


def interval_arrays(
    total,
    size,
    sumsq=None,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    binary: bool = True,
    fpc=1.0,
) -> IntervalArrays:
    """Every analytic interval (naive, wilson, cluster, cluster_t, cluster_wilson), batch-wise.

    ``total``, ``size`` (and ``sumsq`` for non-binary y) have documents on the
    last axis; ``fpc`` is 1 - K/D (1 without a known population).  For scores
    in [0, 1] the Wilson-type intervals treat the mean as a proportion (NaN
    outside [0, 1]); the naive SE uses the chunk variance of the scores.
    """
    total = np.asarray(total, dtype=float)
    size = np.asarray(size)
    k = total.shape[-1]
    if sumsq is None:
        sumsq = total
    est, resid = linearized_residuals(total, size, estimator)
    n = size.sum(-1)
    bvar = chunk_variance(total, size, sumsq, est, binary) / n
    cvar = residual_variance(resid, fpc)
    z = special.ndtri(0.5 + level / 2)
    t = stats.t.ppf(0.5 + level / 2, k - 1)
    se_naive, se_cluster = np.sqrt(bvar), np.sqrt(cvar)
    lower, upper = {}, {}
    lower["naive"], upper["naive"] = est - z * se_naive, est + z * se_naive
    lower["wilson"], upper["wilson"] = wilson_interval(est, n, z)
    lower["cluster"], upper["cluster"] = est - z * se_cluster, est + z * se_cluster
    lower["cluster_t"], upper["cluster_t"] = est - t * se_cluster, est + t * se_cluster
    # Korn–Graubard-style: Wilson on the effective n = p(1-p)/v with a t(K-1)
    # critical value.  Without information on the design (p at 0 or 1, so v = 0
    # too) fall back to one trial per document, the worst case (ICC = 1).
    pq = est * (1 - est)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(pq > 0, pq / cvar, k)
    lower["cluster_wilson"], upper["cluster_wilson"] = wilson_interval(est, n_eff, t)
    se = {"naive": se_naive, "wilson": None, "cluster": se_cluster, "cluster_t": se_cluster, "cluster_wilson": None}
    return IntervalArrays(est, n, bvar, cvar, se, lower, upper)



def estimate(sample: ClusterSample, estimator: str = "micro") -> float:
    """micro: sum(total)/sum(size) (ratio estimator); macro: mean of total/size."""
    check_options(estimator)
    return float(point_estimate(sample.total, sample.size, estimator))


