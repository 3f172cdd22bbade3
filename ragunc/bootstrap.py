"""Cluster bootstrap: resample documents with replacement (percentile and BCa), vectorised.

The kernels are batch-wise like those of :mod:`ragunc.design`: documents on the
last axis, repetitions (e.g. simulated samples) on leading axes, each leading row
resampled independently.  No Python loop runs over replicates; rows are processed
in batches only to cap memory.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from .design import BootstrapResult, ClusterSample, check_options, point_estimate

# Index draws per batch of repetitions held in memory at once (~8 bytes each).
MAX_DRAWS = 1 << 22
# Index draws per inner step of the resampling: small enough to stay in cache.
CACHE_DRAWS = 1 << 16


def _uniform_indices(rng: np.random.Generator, n_values: int, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform integers in [0, n_values) as int64, by multiply-shift of raw 32-bit words.

    Lemire's method without the rejection step: the bias is below n_values / 2**32
    (1e-7 for a 400-entry pair table), far under any Monte Carlo error here, and it
    is several times faster than ``Generator.integers`` for this volume.
    """
    count = int(np.prod(shape))
    words = rng.bit_generator.random_raw((count + 1) // 2).view(np.uint32)[:count]
    idx = np.multiply(words, np.uint64(n_values), dtype=np.uint64)
    idx >>= np.uint64(32)
    return idx.view(np.int64).reshape(shape)


def _packing(flat: list[np.ndarray], k: int) -> list[int] | None:
    """Bit widths that hold each column's K-draw sum, when all fit one int64 (else None).

    Non-negative integer columns (hits, sizes) are packed side by side into one
    integer so a single gather and sum serve them all, exactly (int32 when the
    widths allow: half the memory traffic).
    """
    bits = []
    for c in flat:
        if c.size == 0 or c.min() < 0 or not np.array_equal(c, np.floor(c)):
            return None
        bits.append(int(k * c.max()).bit_length())
    return bits if sum(bits) <= 62 else None


def resampled_sums(
    columns: Sequence[np.ndarray],
    reps: int,
    rng: np.random.Generator | int | None = None,
) -> list[np.ndarray]:
    """Sums of each column over K documents drawn with replacement, ``reps`` times per leading row.

    Every column has shape (..., K) and all use the same draws (documents are
    resampled whole, so paired columns stay paired).  Returns arrays (..., reps).

    Two documents are drawn at once as one index into the K*K table of pairwise
    sums when that table is small next to the draws it saves; a pair of
    independent uniform indices is exactly a uniform index into the pair table.
    Rows are processed a few at a time so the index arrays stay in cache.
    """
    rng = np.random.default_rng(rng)
    cols = [np.asarray(c, dtype=float) for c in columns]
    lead, k = cols[0].shape[:-1], cols[0].shape[-1]
    flat = [c.reshape(-1, k) for c in cols]
    rows = flat[0].shape[0]
    bits = _packing(flat, k)
    if bits is not None:
        shifts = np.cumsum([0] + bits[:0:-1])[::-1].tolist()  # first column in the highest bits
        dtype = np.int32 if sum(bits) <= 31 else np.int64
        gathered = [sum(c.astype(np.int64) << s for c, s in zip(flat, shifts)).astype(dtype)]
    else:
        gathered = flat
    use_pairs = k >= 2 and 2 * k <= reps
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
    if bits is not None:
        (packed,) = sums
        sums = [((packed >> s) & ((1 << b) - 1)).astype(float) for s, b in zip(shifts, bits)]
    return [o.reshape(lead + (reps,)) for o in sums]


def replicates(total, size, *, estimator: str = "micro", reps: int, rng=None) -> np.ndarray:
    """Bootstrap replicates (..., reps) of the estimator, documents resampled with replacement."""
    if estimator == "micro":
        y, m = resampled_sums([total, size], reps, rng)
        return y / m
    k = np.shape(total)[-1]
    (r,) = resampled_sums([np.asarray(total, dtype=float) / size], reps, rng)
    return r / k


def jackknife(total, size, estimator: str = "micro") -> np.ndarray:
    """Leave-one-document-out estimates (..., K), in closed form."""
    total = np.asarray(total, dtype=float)
    size = np.asarray(size, dtype=float)
    if estimator == "micro":
        return (total.sum(-1, keepdims=True) - total) / (size.sum(-1, keepdims=True) - size)
    rate = total / size
    return (rate.sum(-1, keepdims=True) - rate) / (rate.shape[-1] - 1)


def sorted_quantile(sorted_reps: np.ndarray, q) -> np.ndarray:
    """Quantile ``q`` (broadcast over leading axes) of replicates sorted on the last axis.

    Linear interpolation, as ``np.percentile``'s default (and scipy.stats.bootstrap).
    """
    b = sorted_reps.shape[-1]
    q = np.asarray(q, dtype=float)
    # BCa levels are NaN when every replicate lies on one side of the estimate and
    # the acceleration is non-zero: the bound is undefined, not an extreme replicate.
    defined = np.isfinite(q)
    pos = np.clip(np.where(defined, q, 0.0), 0.0, 1.0) * (b - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, b - 1)
    frac = pos - lo
    x_lo = np.take_along_axis(sorted_reps, lo[..., None], -1)[..., 0]
    x_hi = np.take_along_axis(sorted_reps, hi[..., None], -1)[..., 0]
    return np.where(defined, x_lo + frac * (x_hi - x_lo), np.nan)


def bca_levels(sorted_reps: np.ndarray, theta_hat, jack: np.ndarray, level: float):
    """BCa-adjusted lower/upper quantile levels (Efron), bias from replicates, acceleration from the jackknife."""
    theta = np.asarray(theta_hat)[..., None]
    b = sorted_reps.shape[-1]
    # Ties count half, as scipy's percentile-of-score does.
    below = (sorted_reps < theta).sum(-1) + (sorted_reps <= theta).sum(-1)
    z0 = special.ndtri(below / (2 * b))
    dev = jack.mean(-1, keepdims=True) - jack
    num = (dev**3).sum(-1)
    den = 6 * ((dev**2).sum(-1)) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = np.where(den > 0, num / den, 0.0)
    z = special.ndtri((1 - level) / 2)
    lo_z, hi_z = z0 + z, z0 - z
    return (
        special.ndtr(z0 + lo_z / (1 - accel * lo_z)),
        special.ndtr(z0 + hi_z / (1 - accel * hi_z)),
    )


@dataclass(frozen=True)
class BootstrapArrays:
    """Batch output of :func:`bootstrap_arrays` (leading shape of the input)."""

    se: np.ndarray
    lower: np.ndarray  # percentile
    upper: np.ndarray
    lower_bca: np.ndarray
    upper_bca: np.ndarray


def bootstrap_arrays(
    total,
    size,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    reps: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> BootstrapArrays:
    """Cluster bootstrap SE, percentile and BCa intervals, batch-wise (documents on the last axis)."""
    if reps < 2:
        raise ValueError(f"bootstrap needs at least 2 replicates, got reps={reps}")
    boot = replicates(total, size, estimator=estimator, reps=reps, rng=rng)
    boot.sort(-1)
    alpha = (1 - level) / 2
    theta = point_estimate(total, size, estimator)
    lo_q, hi_q = bca_levels(boot, theta, jackknife(total, size, estimator), level)
    return BootstrapArrays(
        se=boot.std(-1, ddof=1),
        lower=sorted_quantile(boot, np.full(boot.shape[:-1], alpha)),
        upper=sorted_quantile(boot, np.full(boot.shape[:-1], 1 - alpha)),
        lower_bca=sorted_quantile(boot, lo_q),
        upper_bca=sorted_quantile(boot, hi_q),
    )


def cluster_bootstrap(
    sample: ClusterSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    reps: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> BootstrapResult:
    """Resample whole documents B times; percentile and BCa intervals, bootstrap SE.

    Resampling with replacement knows no FPC: with a known population_docs the
    linearization intervals shrink by 1 - K/D, the bootstrap's do not.
    """
    check_options(estimator, level)
    if sample.n_docs < 2:
        raise ValueError(f"the cluster bootstrap needs at least 2 documents, got {sample.n_docs}")
    arr = bootstrap_arrays(sample.total, sample.size, estimator=estimator, level=level, reps=reps, rng=rng)
    return BootstrapResult(
        se=float(arr.se),
        ci=(float(arr.lower), float(arr.upper)),
        ci_bca=(float(arr.lower_bca), float(arr.upper_bca)),
        reps=reps,
    )
