"""Compiled inner loops of the cluster bootstrap (numba): replicates of a ratio and tails of pivots.

:mod:`ragunc.stats.bootstrap` keeps every formula above the replicate (quantiles, BCa,
bounds); here are only the loops numpy cannot fuse: drawing documents, summing their
statistics, the replicate's estimate and SE, and its studentized pivot.  Rows are
independent and each has its own random stream, seeded from the caller's Generator, so
results do not depend on how rows are split across threads.  The kernels release the GIL
and run on row blocks in a small thread pool (numba's own parallel layer is not safe
when a dashboard calls it from several threads at once).  ``cache=True``: compiled once
per machine, later processes load them from ``__pycache__``.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

# Entries of one row's pair table (K * K, so K <= 64): five float64 sums each, 160 kB,
# within the L2 cache; a larger sample draws documents one at a time.
MAX_PAIR_TABLE = 1 << 12
# Replicates a thread is given at least: below that a thread costs more than it saves.
MIN_THREAD_REPLICATES = 1 << 15

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(inline="always", error_model="numpy")
def _splitmix64(state):
    """``(next state, 64 random bits)``: SplitMix64 (Steele, Lea & Flood 2014), passes BigCrush."""
    state = state + _GAMMA
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(nogil=True, cache=True, error_model="numpy")
def _ratio_replicates(y, m, reps, seeds, with_se, pairs, theta_out, se_out):
    """Fill ``theta_out[r, b]`` = sum y* / sum m* over K documents drawn with replacement (and its SE).

    The uniform index of a draw is the high half of ``u * width`` for a 32-bit word
    ``u`` (multiply-shift without rejection, bias below width / 2**32).  With ``pairs``
    one index into the K*K table of pairwise sums draws two documents (a pair of
    independent uniform indices is exactly a uniform index into that table), plus one
    single draw when K is odd.  The SE is the linearization SE of the resample,
    ``sqrt(K/(K-1) * sum (y - t m)^2) / sum m`` from sums of y^2, y m and m^2; when every
    drawn document is alike its terms cancel to rounding noise (~1e-16 of their scale),
    which is no SE: 0.
    """
    rows, k = y.shape
    width = k * k if pairs else k
    draws = k // 2 if pairs else k
    odd = pairs and k % 2 == 1
    norm = k / (k - 1.0) if k > 1 else np.nan
    table = np.empty((width, 5))
    for r in range(rows):
        for i in range(k):
            for j in range(k if pairs else 1):
                e = i * k + j if pairs else i
                yi, mi = y[r, i], m[r, i]
                table[e, 0], table[e, 1] = yi, mi
                table[e, 2], table[e, 3], table[e, 4] = yi * yi, yi * mi, mi * mi
                if pairs:
                    yj, mj = y[r, j], m[r, j]
                    table[e, 0] += yj
                    table[e, 1] += mj
                    table[e, 2] += yj * yj
                    table[e, 3] += yj * mj
                    table[e, 4] += mj * mj
        state = seeds[r]
        for b in range(reps):
            sy = sm = syy = sym = smm = 0.0
            # Two 32-bit indices per 64-bit word; the odd one out of an odd count wastes a half.
            for p in range(0, draws, 2):
                state, word = _splitmix64(state)
                e = ((word & _LOW32) * np.uint64(width)) >> np.uint64(32)
                sy += table[e, 0]
                sm += table[e, 1]
                if with_se:
                    syy += table[e, 2]
                    sym += table[e, 3]
                    smm += table[e, 4]
                if p + 1 < draws:
                    e = ((word >> np.uint64(32)) * np.uint64(width)) >> np.uint64(32)
                    sy += table[e, 0]
                    sm += table[e, 1]
                    if with_se:
                        syy += table[e, 2]
                        sym += table[e, 3]
                        smm += table[e, 4]
            if odd:  # K odd: one single document besides the pairs
                state, word = _splitmix64(state)
                j = ((word & _LOW32) * np.uint64(k)) >> np.uint64(32)
                yj, mj = y[r, j], m[r, j]
                sy += yj
                sm += mj
                if with_se:
                    syy += yj * yj
                    sym += yj * mj
                    smm += mj * mj
            t = sy / sm
            theta_out[r, b] = t
            if with_se:
                scale = syy + t * t * smm
                ss = syy - 2 * t * sym + t * t * smm
                if not ss > 1e-12 * scale:
                    ss = 0.0
                se_out[r, b] = np.sqrt(ss * (norm / (sm * sm)))


@njit(inline="always", error_model="numpy")
def _pivot(theta_star, se_star, theta, logit_theta, logit):
    """t* = (theta* - theta) / se* (``logit``: on the logit scale); se* = 0 gives +-inf by the sign (0 when equal)."""
    dev = theta_star - theta
    if se_star == 0:
        if dev == 0:
            return 0.0
        return np.inf if dev > 0 else -np.inf
    if logit:
        return (np.log(theta_star / (1 - theta_star)) - logit_theta) * (theta_star * (1 - theta_star)) / se_star
    return dev / se_star


@njit(nogil=True, cache=True, error_model="numpy")
def _pivots(theta_star, se_star, theta, logit, out):
    rows, reps = theta_star.shape
    for r in range(rows):
        th = theta[r]
        lt = np.log(th / (1 - th)) if logit else 0.0
        for b in range(reps):
            out[r, b] = _pivot(theta_star[r, b], se_star[r, b], th, lt, logit)


@njit(inline="always", error_model="numpy")
def _insert_low(buf, n, v):
    """Insert ``v`` into the ascending ``buf[:n]`` (a slot free at ``buf[n]``)."""
    j = n - 1
    while j >= 0 and v < buf[j]:
        buf[j + 1] = buf[j]
        j -= 1
    buf[j + 1] = v


@njit(nogil=True, cache=True, error_model="numpy")
def _pivot_tails(theta_star, se_star, theta, logit, low, high):
    """The ``low.shape[1]`` smallest and ``high.shape[1]`` largest pivots of each row, ascending.

    One pass with two small sorted buffers: after the first few hundred replicates a
    new one rarely enters a tail, so this costs about two comparisons per replicate
    instead of a sort.  A NaN pivot (none arises from finite data) counts as +inf.
    """
    rows, reps = theta_star.shape
    n_low, n_high = low.shape[1], high.shape[1]
    for r in range(rows):
        th = theta[r]
        lt = np.log(th / (1 - th)) if logit else 0.0
        lo, hi = low[r], high[r]
        for b in range(reps):
            v = _pivot(theta_star[r, b], se_star[r, b], th, lt, logit)
            if v != v:
                v = np.inf
            if b < n_low:
                _insert_low(lo, b, v)
            elif v < lo[n_low - 1]:
                _insert_low(lo, n_low - 1, v)
            # the high tail, kept ascending: shift smaller entries left
            if b < n_high:
                _insert_low(hi, b, v)
            elif v > hi[0]:
                j = 1
                while j < n_high and hi[j] < v:
                    hi[j - 1] = hi[j]
                    j += 1
                hi[j - 1] = v


_POOL: ThreadPoolExecutor | None = None


def _threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _on_row_blocks(kernel, rows: int, work: int, row_arrays: tuple) -> None:
    """``kernel(*row_blocks)`` over contiguous blocks of rows, one per thread (``work``: replicates in all)."""
    global _POOL
    n = max(1, min(_threads(), rows, work // MIN_THREAD_REPLICATES))
    if n == 1:
        kernel(*row_arrays)
        return
    if _POOL is None:
        _POOL = ThreadPoolExecutor(_threads(), thread_name_prefix="ragunc-bootstrap")
    edges = np.linspace(0, rows, n + 1).astype(int)
    blocks = [tuple(a[lo:hi] for a in row_arrays) for lo, hi in zip(edges[:-1], edges[1:])]
    for future in [_POOL.submit(kernel, *block) for block in blocks]:
        future.result()


def ratio_replicates(y: np.ndarray, m: np.ndarray, reps: int, rng: np.random.Generator, with_se: bool):
    """Replicates (rows, reps) of sum y / sum m over documents resampled with replacement, and their SEs.

    ``y``, ``m``: (rows, K) float64.  Each row gets its own 64-bit seed from ``rng``,
    whether or not the SEs are asked for, so the replicates do not depend on ``with_se``.
    """
    rows, k = y.shape
    seeds = rng.bit_generator.random_raw(rows)
    theta = np.empty((rows, reps))
    se = np.empty((rows, reps)) if with_se else np.empty((rows, 0))
    pairs = k >= 2 and 2 * k <= reps and k * k <= MAX_PAIR_TABLE
    y, m = np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(m, dtype=np.float64)
    _on_row_blocks(
        lambda yb, mb, sb, tb, eb: _ratio_replicates(yb, mb, reps, sb, with_se, pairs, tb, eb),
        rows, rows * reps, (y, m, seeds, theta, se)
    )
    return theta, (se if with_se else None)


def pivots(theta_star: np.ndarray, se_star: np.ndarray, theta: np.ndarray, logit: bool) -> np.ndarray:
    """Studentized pivots (rows, reps) of replicates and their SEs against each row's ``theta``."""
    out = np.empty(theta_star.shape)
    _on_row_blocks(
        lambda ts, ss, th, o: _pivots(ts, ss, th, logit, o),
        theta_star.shape[0], theta_star.size, (theta_star, se_star, theta, out)
    )
    return out


def pivot_tails(theta_star: np.ndarray, se_star: np.ndarray, theta: np.ndarray, logit: bool,
                n_low: int, n_high: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_low`` smallest and ``n_high`` largest pivots of each row (rows, n), ascending."""
    rows = theta_star.shape[0]
    low, high = np.empty((rows, n_low)), np.empty((rows, n_high))
    _on_row_blocks(
        lambda ts, ss, th, lo, hi: _pivot_tails(ts, ss, th, logit, lo, hi),
        rows, theta_star.size, (theta_star, se_star, theta, low, high)
    )
    return low, high
