"""Cluster bootstrap: resample documents with replacement (percentile, BCa, studentized), vectorised.

Batch-wise like :mod:`ragunc.stats.linearization`: documents on the last axis, repetitions
(e.g. simulated samples) on leading axes, each leading row resampled independently by the
one resampling engine (:mod:`ragunc.stats.bootstrap_kernels`).  :func:`resample` draws a
batch's replicates once; every bootstrap kernel reads that :class:`Replicates` and returns
``(se, lower, upper)``, so the methods share their draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .bootstrap_kernels import pivots, ratio_replicates, sort_rows
from .linearization import cluster_variance, jackknife, point_estimate


def check_boot(boot, *, none: bool = False) -> None:
    """The one check of B, the bootstrap's replicates, for every public entry: a whole number >= 2
    (``none``: or 0, no bootstrap).  The resampling below trusts it."""
    if isinstance(boot, bool) or not isinstance(boot, (int, np.integer)) or not (boot >= 2 or (none and boot == 0)):
        raise ValueError(f"boot must be {'0 (no bootstrap) or ' if none else ''}a whole number >= 2, got {boot!r}")


def replicates(
    sum_y, n, *, estimator: str = "micro", reps: int, rng=None, with_se: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """Bootstrap replicates (..., reps) of the estimator and (``with_se``) of its linearization SE, in resampling order.

    Documents are resampled with replacement, compiled (:func:`ratio_replicates`), one
    stream per row from ``rng``.  Micro is the ratio sum y* / sum m*; macro the same
    with ``y`` the rate and ``m`` = 1 (the mean of K rates).  The SE of each replicate
    (for the studentized interval) comes from resampled sums of the second moments, so
    it costs sums, not a loop: ``sum (y - t m)^2 = Syy - 2 t Sym + t^2 Smm``.  The draws
    do not depend on ``with_se``.
    """
    boot, boot_se, _, _, _ = _ratio_replicates(sum_y, n, estimator, reps, rng, keep_se=with_se)
    return boot, boot_se


def _ratio_replicates(sum_y, n, estimator, reps, rng, *, keep_se=False, scales=()):
    """:func:`ratio_replicates` on a batch's leading shape: ``(replicates, SEs or None, {scale: pivots}, below, sd)``."""
    rng = np.random.default_rng(rng)
    sum_y = np.asarray(sum_y, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), sum_y.shape)
    lead, k = sum_y.shape[:-1], sum_y.shape[-1]
    y, m = (sum_y, n) if estimator == "micro" else (sum_y / n, np.ones(sum_y.shape))
    theta = np.broadcast_to(point_estimate(sum_y, n, estimator), lead).reshape(-1)
    boot, boot_se, t, below, sd = ratio_replicates(
        y.reshape(-1, k), m.reshape(-1, k), theta, reps, rng, keep_se=keep_se, scales=scales
    )
    return (
        boot.reshape(lead + (reps,)),
        None if boot_se is None else boot_se.reshape(lead + (reps,)),
        {scale: v.reshape(lead + (reps,)) for scale, v in t.items()},
        below.reshape(lead),
        sd.reshape(lead),
    )


def _rows(theta_star, se_star, theta_hat):
    """Replicates and their SEs as (rows, reps) and the estimate as (rows,), for the compiled pivots."""
    theta_star, se_star = np.asarray(theta_star, dtype=float), np.asarray(se_star, dtype=float)
    reps = theta_star.shape[-1]
    theta = np.broadcast_to(np.asarray(theta_hat, dtype=float), theta_star.shape[:-1])
    return (
        np.ascontiguousarray(theta_star.reshape(-1, reps)),
        np.ascontiguousarray(se_star.reshape(-1, reps)),
        np.ascontiguousarray(theta.reshape(-1)),
    )


def studentized_pivots(theta_star, se_star, theta_hat, scale: str = "linear") -> np.ndarray:
    """t* = (theta* - theta) / se* per replicate (``scale="logit"``: on the logit scale), batch-wise.

    A replicate whose drawn documents are all alike (all without hits, say) has
    se* = 0: its t* is +inf or -inf by the sign of theta* - theta (0 when equal),
    and it is kept.  Dropping it would remove one tail: with one document with hits
    among K = 10, about 0.9^10 = 35% of resamples leave it out, all of them below
    the estimate, and the upper bound would sit just above the estimate.
    On the logit scale ``(logit theta* - logit theta) theta* (1 - theta*) / se*``;
    a replicate at 0 or 1 has se* = 0 and is infinite in the same way.
    Compiled (:func:`ragunc.stats.bootstrap_kernels.pivots`).
    """
    ts, ss, theta = _rows(theta_star, se_star, theta_hat)
    linear, logit = pivots(ts, ss, theta, linear=scale == "linear", logit=scale == "logit")
    return (linear if scale == "linear" else logit).reshape(np.shape(theta_star))


def studentized_bounds(t_lo, t_hi, theta_hat, se_hat, scale: str = "linear"):
    """Studentized (bootstrap-t) bounds from the pivots' quantiles, clipped to [0, 1]; NaN where ``se_hat`` is 0.

    linear: ``[theta - q_hi se, theta - q_lo se]``; logit: the same on the logit
    scale with ``se / (theta (1 - theta))``, mapped back (inside (0, 1) by
    construction; NaN at theta = 0 or 1).  When fewer than about four documents
    have hits (or misses), more than alpha/2 = 2.5% of resamples hold none of
    them (``(1 - h/K)^K > 0.025`` for h <= 3): the bound on that side is the edge
    of [0, 1], honest and uninformative (the recommended interval does not use it).
    Without a spread in the sample (``se_hat`` = 0) nothing can be studentized.
    """
    theta = np.asarray(theta_hat, dtype=float)
    se_hat = np.asarray(se_hat, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if scale == "linear":
            lower, upper = np.clip(theta - t_hi * se_hat, 0, 1), np.clip(theta - t_lo * se_hat, 0, 1)
            defined = se_hat > 0
        else:
            centre, spread = special.logit(theta), se_hat / (theta * (1 - theta))
            lower, upper = special.expit(centre - t_hi * spread), special.expit(centre - t_lo * spread)
            defined = (se_hat > 0) & (theta > 0) & (theta < 1)
    return np.where(defined, lower, np.nan), np.where(defined, upper, np.nan)


def sorted_quantile(sorted_reps: np.ndarray, q, count=None) -> np.ndarray:
    """Quantile ``q`` (broadcast over leading axes) of replicates sorted on the last axis.

    Linear interpolation, as ``np.percentile``'s default (and scipy.stats.bootstrap).
    Interpolating towards an infinite replicate gives that infinity (between
    -inf and +inf, the nearer one).  ``count`` (per leading row) limits it to the first
    ``count`` sorted entries, e.g. the finite ones when NaNs were sorted last; fewer than one gives NaN.
    """
    b = np.asarray(sorted_reps.shape[-1] if count is None else count)
    q = np.asarray(q, dtype=float)
    # BCa levels are NaN when every replicate lies on one side of the estimate and
    # the acceleration is non-zero: the bound is undefined, not an extreme replicate.
    defined = np.isfinite(q) & (b >= 1)
    pos = np.clip(np.where(defined, q, 0.0), 0.0, 1.0) * np.maximum(b - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(b - 1, 0))
    frac = pos - lo
    x_lo = np.take_along_axis(sorted_reps, lo[..., None], -1)[..., 0]
    x_hi = np.take_along_axis(sorted_reps, hi[..., None], -1)[..., 0]
    with np.errstate(invalid="ignore"):
        between = x_lo + frac * (x_hi - x_lo)
        # Towards an infinity (studentized pivots of resamples without spread): that infinity;
        # from -inf to +inf, the nearer one.
        towards = np.where(frac == 0, x_lo, (1 - frac) * x_lo + frac * x_hi)
        towards = np.where(np.isnan(towards), np.where(frac < 0.5, x_lo, x_hi), towards)
        infinite = np.isinf(x_lo) | np.isinf(x_hi)
        return np.where(defined, np.where(infinite, towards, between), np.nan)


def bca_levels(below, reps: int, jack: np.ndarray, level: float):
    """BCa-adjusted lower/upper quantile levels (Efron): bias from the replicates, acceleration from the jackknife.

    ``below``: replicates below the estimate, ties counted half (as scipy's
    percentile-of-score does; :func:`resample` matches them within a rounding tolerance).
    """
    z0 = special.ndtri(np.asarray(below) / reps)
    dev = jack.mean(-1, keepdims=True) - jack
    num = (dev**3).sum(-1)
    den = 6 * ((dev**2).sum(-1)) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = np.where(den > 0, num / den, 0.0)
    z = special.ndtri((1 - level) / 2)
    lo_z, hi_z = z0 + z, z0 - z
    # Every replicate on one side of the estimate: z0 is infinite and, with a non-zero
    # acceleration, the level is inf/inf, NaN: the interval is undefined, which is said by the NaN.
    with np.errstate(invalid="ignore"):
        return (
            special.ndtr(z0 + lo_z / (1 - accel * lo_z)),
            special.ndtr(z0 + hi_z / (1 - accel * hi_z)),
        )


# The scales of the studentized pivots, one per studentized method.
PIVOT_SCALES = ("linear", "logit")


@dataclass(frozen=True)
class Replicates:
    """What every bootstrap kernel reads: one batch's replicates, what is read off them, and the sample's figures.

    Arrays have the batch's leading shape, replicates on the last axis.
    """

    sum_y: np.ndarray  # (..., K) the sample's sum of y per document
    n: np.ndarray  # (..., K) its chunks per document
    estimator: str
    level: float
    theta: np.ndarray  # (...,) the sample's estimate
    sorted: np.ndarray  # (..., B) the replicates, sorted
    sd: np.ndarray  # (...,) their SD
    below: np.ndarray  # (...,) how many lie below the estimate, ties counted half
    # Only with_se (the studentized kernels): scale -> the pivots (studentized_pivots), sorted
    sorted_pivots: dict[str, np.ndarray] | None

    @property
    def n_docs(self) -> int:
        return self.sum_y.shape[-1]

    @property
    def reps(self) -> int:
        return self.sorted.shape[-1]


def resample(
    sum_y,
    n,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    reps: int = 1000,
    rng: np.random.Generator | int | None = None,
    with_se: bool = True,
) -> Replicates:
    """Resample the documents of each row ``reps`` times (with replacement), for the bootstrap kernels.

    See :func:`replicates`.  ``with_se`` also resamples the second moments for each
    replicate's SE and keeps its studentized pivots on both scales (what the
    studentized kernels need), computed in the same pass.  The draws do not depend on it.
    """
    sum_y, n = np.asarray(sum_y, dtype=float), np.asarray(n)
    boot, _, t, below, sd = _ratio_replicates(sum_y, n, estimator, reps, rng, scales=PIVOT_SCALES if with_se else ())
    for values in (boot, *t.values()):
        sort_rows(values.reshape(-1, reps))  # in place: nothing needs the resampling order
    return Replicates(
        sum_y=sum_y,
        n=n,
        estimator=estimator,
        level=level,
        theta=point_estimate(sum_y, n, estimator),
        sorted=boot,
        sd=sd,
        below=below,
        sorted_pivots=t if with_se else None,
    )


def percentile(boot: Replicates):
    """Percentile interval; the SE is the SD of the replicates."""
    alpha = (1 - boot.level) / 2
    lead = boot.theta.shape
    return (
        boot.sd,
        sorted_quantile(boot.sorted, np.full(lead, alpha)),
        sorted_quantile(boot.sorted, np.full(lead, 1 - alpha)),
    )


def bca(boot: Replicates):
    """Bias-corrected and accelerated percentile interval (Efron), acceleration from the jackknife."""
    lo_q, hi_q = bca_levels(boot.below, boot.reps, jackknife(boot.sum_y, boot.n, boot.estimator), boot.level)
    return None, sorted_quantile(boot.sorted, lo_q), sorted_quantile(boot.sorted, hi_q)


def _studentized(boot: Replicates, scale: str):
    theta = boot.theta
    if boot.n_docs < 3:
        return None, np.full(theta.shape, np.nan), np.full(theta.shape, np.nan)
    se_hat = np.sqrt(cluster_variance(boot.sum_y, boot.n, boot.estimator))
    t = boot.sorted_pivots[scale]
    alpha = (1 - boot.level) / 2
    t_lo, t_hi = sorted_quantile(t, np.full(theta.shape, alpha)), sorted_quantile(t, np.full(theta.shape, 1 - alpha))
    return (None, *studentized_bounds(t_lo, t_hi, theta, se_hat, scale))


def studentized(boot: Replicates):
    """Studentized (bootstrap-t) interval ``[theta - q_hi se, theta - q_lo se]``, clipped to [0, 1].

    It uses the linearization SE without FPC (the bootstrap knows none) and is the one
    built for few, unequal documents: it corrects the skew and the downward bias of the
    SE that leave the normal interval short of its level at K = 20.  Resamples without a
    spread count as infinite pivots (:func:`studentized_pivots`); without a spread in the
    sample it is undefined (NaN).  With K = 2 documents it is undefined too: every
    resample with a spread is the sample itself, so the interval would be an edge of
    [0, 1] or collapse onto the estimate.
    """
    return _studentized(boot, "linear")


def studentized_logit(boot: Replicates):
    """The studentized interval on the logit scale, mapped back: inside (0, 1) by construction.

    NaN at an estimate of 0 or 1 (the logit is infinite) and where :func:`studentized` is.
    """
    return _studentized(boot, "logit")
