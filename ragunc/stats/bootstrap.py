"""Cluster bootstrap: resample documents with replacement (percentile, BCa, studentized), vectorised.

Batch-wise like :mod:`ragunc.stats.linearization`: documents on the last axis, repetitions
(e.g. simulated samples) on leading axes, each leading row resampled independently.  No
Python loop runs over replicates; rows are processed in batches only to cap memory.
:func:`resample` draws a batch's replicates once; every bootstrap kernel reads that
:class:`Replicates` and returns ``(se, lower, upper)``, so the methods share their draws.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from .bootstrap_kernels import pivots, ratio_replicates, sort_rows
from .linearization import cluster_variance, point_estimate


# Index draws per batch of repetitions held in memory at once (~8 bytes each).
MAX_DRAWS = 1 << 22
# Index draws per inner step of the resampling: small enough to stay in cache.
CACHE_DRAWS = 1 << 16
# Entries of one row's pair table (K * K, so K <= 362) above which documents are drawn one
# at a time.  A larger table leaves the cache, and its random gathers then cost more than
# the halved draws save (single draws measured as fast at K = 400 and 3x faster at
# K = 700, B = 4,000); its memory would also grow as K**2 (347 MB at K = 4,000).
MAX_PAIR_TABLE = 1 << 17


def _uniform_indices(rng: np.random.Generator, n_values: int, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform integers in [0, n_values) as int64, by multiply-shift of raw 32-bit words.

    Lemire's method without the rejection step: the bias is below n_values / 2**32
    (1e-7 for a 400-entry pair table, 3e-5 for the largest one allowed,
    :data:`MAX_PAIR_TABLE`), far under any Monte Carlo error here, and it is
    several times faster than ``Generator.integers`` for this volume.
    """
    count = int(np.prod(shape))
    words = rng.bit_generator.random_raw((count + 1) // 2).view(np.uint32)[:count]
    idx = np.multiply(words, np.uint64(n_values), dtype=np.uint64)
    idx >>= np.uint64(32)
    return idx.view(np.int64).reshape(shape)


def _packing(flat: list[np.ndarray], k: int) -> list[list[tuple[int, int, int]]] | None:
    """Words of ``(column, shift, bits)`` whose K-draw sums fit one int64 each (None: gather floats).

    Non-negative integer columns (hits, sizes, their squares and products) are
    packed side by side into as few integers as hold their sums exactly, so one
    gather serves several columns (int32 when a word's widths allow: half the
    memory traffic).  A column gets ``bits`` = bit length of K * its maximum, so
    the sum of any K draws of it (a pair-table entry is two of them) stays below
    2**bits and never carries into the next column's field; a word holds at most
    62 bits, so its sums never overflow a signed int64.  Any negative,
    non-integer or too large column returns None: every column is then
    gathered as float64 (same draws, same sums).
    """
    words, word, used = [], [], 0
    for i, c in enumerate(flat):
        if c.size == 0 or c.min() < 0 or not np.array_equal(c, np.floor(c)):
            return None
        bits = int(k * c.max()).bit_length()
        if bits > 62:
            return None
        if used + bits > 62:
            words.append(word)
            word, used = [], 0
        word.append((i, used, bits))
        used += bits
    words.append(word)
    return words


def resampled_sums(
    columns: Sequence[np.ndarray],
    reps: int,
    rng: np.random.Generator | int | None = None,
) -> list[np.ndarray]:
    """Sums of each column over K documents drawn with replacement, ``reps`` times per leading row.

    Every column has shape (..., K) and all use the same draws (documents are
    resampled whole, so paired columns stay paired).  Returns arrays (..., reps).

    Two speed-ups, neither of which changes the distribution of the sums:

    * integer columns are packed into int64/int32 words (see :func:`_packing`),
      gathered and summed as words, and unpacked at the end;
    * two documents are drawn at once as one uniform index ``i K + j`` into the
      K*K table of pairwise sums ``x_i + x_j`` (a pair of independent uniform
      indices is exactly a uniform index into that table), plus one single draw
      when K is odd.  Building the table costs K*K per row and saves K/2 draws
      per replicate, hence only when ``2 K <= reps``; it helps only while it
      stays in cache, and its memory grows as K*K, hence only up to
      :data:`MAX_PAIR_TABLE` entries (K <= 362): larger samples draw documents
      one at a time.  A batch's tables then hold at most
      max(CACHE_DRAWS, MAX_PAIR_TABLE) entries per word (several rows' tables
      are batched only when they are small).

    Rows are processed a few at a time so the index arrays stay in cache; the
    rows' tables are laid end to end, row ``r``'s starting at ``r * width``.
    """
    rng = np.random.default_rng(rng)
    cols = [np.asarray(c, dtype=float) for c in columns]
    lead, k = cols[0].shape[:-1], cols[0].shape[-1]
    flat = [c.reshape(-1, k) for c in cols]
    rows = flat[0].shape[0]
    words = _packing(flat, k)
    if words is not None:
        gathered = [
            sum(flat[i].astype(np.int64) << shift for i, shift, _ in word).astype(
                np.int32 if sum(b for *_, b in word) <= 31 else np.int64
            )
            for word in words
        ]
    else:
        gathered = flat
    use_pairs = k >= 2 and 2 * k <= reps and k * k <= MAX_PAIR_TABLE
    width = k * k if use_pairs else k
    draws = k // 2 if use_pairs else k
    odd = use_pairs and k % 2 == 1
    sums = [np.empty((rows, reps), dtype=g.dtype) for g in gathered]
    row_batch = max(1, CACHE_DRAWS // (reps * (draws + odd)))
    for start in range(0, rows, row_batch):
        stop = min(rows, start + row_batch)
        nb = stop - start
        offsets = (np.arange(nb, dtype=np.int64) * width)[:, None]
        blocks = [g[start:stop] for g in gathered]
        tables = [
            ((b[:, :, None] + b[:, None, :]).reshape(nb, width) if use_pairs else b).ravel() for b in blocks
        ]
        accs = [np.zeros((nb, reps), dtype=g.dtype) for g in gathered]
        # Many documents in few rows (one large sample): split the draws instead.
        draw_batch = max(1, CACHE_DRAWS // (nb * reps))
        for first in range(0, draws, draw_batch):
            idx = _uniform_indices(rng, width, (min(draws - first, draw_batch), nb, reps))
            idx += offsets
            for table, acc in zip(tables, accs):
                acc += table[idx].sum(0)
        if odd:
            single = _uniform_indices(rng, k, (nb, reps))
            single += offsets // width * k
            for block, acc in zip(blocks, accs):
                acc += block.ravel()[single]
        for acc, out in zip(accs, sums):
            out[start:stop] = acc
    if words is not None:
        unpacked = [None] * len(flat)
        for word, packed in zip(words, sums):
            for i, shift, bits in word:
                unpacked[i] = ((packed >> shift) & ((1 << bits) - 1)).astype(float)
        sums = unpacked
    return [o.reshape(lead + (reps,)) for o in sums]


def replicates(
    total, size, *, estimator: str = "micro", reps: int, rng=None, with_se: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """Bootstrap replicates (..., reps) of the estimator and (``with_se``) of its linearization SE, in resampling order.

    Documents are resampled with replacement, compiled (:func:`ratio_replicates`), one
    stream per row from ``rng``.  Micro is the ratio sum y* / sum m*; macro the same
    with ``y`` the rate and ``m`` = 1 (the mean of K rates).  The SE of each replicate
    (for the studentized interval) comes from resampled sums of the second moments, so
    it costs sums, not a loop: ``sum (y - t m)^2 = Syy - 2 t Sym + t^2 Smm``.  The draws
    do not depend on ``with_se``.
    """
    boot, boot_se, _, _, _ = _ratio_replicates(total, size, estimator, reps, rng, keep_se=with_se)
    return boot, boot_se


def _ratio_replicates(total, size, estimator, reps, rng, *, keep_se=False, scales=()):
    """:func:`ratio_replicates` on a batch's leading shape: ``(replicates, SEs or None, {scale: pivots}, below, sd)``."""
    rng = np.random.default_rng(rng)
    total = np.asarray(total, dtype=float)
    size = np.broadcast_to(np.asarray(size, dtype=float), total.shape)
    lead, k = total.shape[:-1], total.shape[-1]
    y, m = (total, size) if estimator == "micro" else (total / size, np.ones(total.shape))
    theta = np.broadcast_to(point_estimate(total, size, estimator), lead).reshape(-1)
    boot, boot_se, t, below, sd = ratio_replicates(y.reshape(-1, k), m.reshape(-1, k), theta, reps, rng,
                                                   keep_se=keep_se, scales=scales)
    return (boot.reshape(lead + (reps,)), None if boot_se is None else boot_se.reshape(lead + (reps,)),
            {scale: v.reshape(lead + (reps,)) for scale, v in t.items()}, below.reshape(lead), sd.reshape(lead))


def _rows(theta_star, se_star, theta_hat):
    """Replicates and their SEs as (rows, reps) and the estimate as (rows,), for the compiled pivots."""
    theta_star, se_star = np.asarray(theta_star, dtype=float), np.asarray(se_star, dtype=float)
    reps = theta_star.shape[-1]
    theta = np.broadcast_to(np.asarray(theta_hat, dtype=float), theta_star.shape[:-1])
    return (np.ascontiguousarray(theta_star.reshape(-1, reps)), np.ascontiguousarray(se_star.reshape(-1, reps)),
            np.ascontiguousarray(theta.reshape(-1)))


def studentized_pivots(theta_star, se_star, theta_hat, scale: str = "linear") -> np.ndarray:
    """t* = (theta* - theta) / se* per replicate (``scale="logit"``: on the logit scale), batch-wise.

    A replicate whose drawn documents are all alike (all without hits, say) has
    se* = 0: its t* is +inf or -inf by the sign of theta* - theta (0 when equal).
    Dropping those replicates, as the studentized bootstrap conditioned on se* > 0
    used to, removes one tail: with one document with hits among K = 10, about
    0.9^10 = 35% of resamples leave it out, all of them below the estimate, and
    the upper bound then sat just above the estimate (coverage 72% on rare hits).
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


def jackknife(total, size, estimator: str = "micro") -> np.ndarray:
    """Leave-one-document-out estimates (..., K), in closed form."""
    total = np.asarray(total, dtype=float)
    size = np.asarray(size, dtype=float)
    if estimator == "micro":
        return (total.sum(-1, keepdims=True) - total) / (size.sum(-1, keepdims=True) - size)
    rate = total / size
    return (rate.sum(-1, keepdims=True) - rate) / (rate.shape[-1] - 1)


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

    total: np.ndarray  # (..., K) the sample's documents
    size: np.ndarray
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
        return self.total.shape[-1]

    @property
    def reps(self) -> int:
        return self.sorted.shape[-1]


def resample(total, size, *, estimator: str = "micro", level: float = 0.95, reps: int = 1000,
             rng: np.random.Generator | int | None = None, with_se: bool = True) -> Replicates:
    """Resample the documents of each row ``reps`` times (with replacement), for the bootstrap kernels.

    See :func:`replicates`.  ``with_se`` also resamples the second moments for each
    replicate's SE and keeps its studentized pivots on both scales (what the
    studentized kernels need), computed in the same pass.  The draws do not depend on it.
    """
    if reps < 2:
        raise ValueError(f"bootstrap needs at least 2 replicates, got reps={reps}")
    total, size = np.asarray(total, dtype=float), np.asarray(size)
    boot, _, t, below, sd = _ratio_replicates(total, size, estimator, reps, rng,
                                              scales=PIVOT_SCALES if with_se else ())
    for values in (boot, *t.values()):
        sort_rows(values.reshape(-1, reps))  # in place: nothing needs the resampling order
    return Replicates(
        total=total, size=size, estimator=estimator, level=level, theta=point_estimate(total, size, estimator),
        sorted=boot, sd=sd, below=below, sorted_pivots=t if with_se else None,
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
    lo_q, hi_q = bca_levels(boot.below, boot.reps, jackknife(boot.total, boot.size, boot.estimator), boot.level)
    return None, sorted_quantile(boot.sorted, lo_q), sorted_quantile(boot.sorted, hi_q)


def _studentized(boot: Replicates, scale: str):
    theta = boot.theta
    if boot.n_docs < 3:
        return None, np.full(theta.shape, np.nan), np.full(theta.shape, np.nan)
    se_hat = np.sqrt(cluster_variance(boot.total, boot.size, boot.estimator))
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
