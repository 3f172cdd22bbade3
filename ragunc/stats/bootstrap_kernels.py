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


@njit(inline="always", error_model="numpy")
def _sift_down(heap, sign, v):
    """Replace the root of the heap ``sign * heap`` (a max-heap of ``sign * value``) by ``v`` and restore it."""
    n = heap.size
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and sign * heap[child + 1] > sign * heap[child]:
            child += 1
        if not sign * heap[child] > sign * v:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = v


@njit(inline="always", error_model="numpy")
def _push(heap, sign, n, v):
    """Add ``v`` to the heap ``heap[:n]`` (max-heap of ``sign * value``), filling slot ``n``."""
    i = n
    while i > 0:
        parent = (i - 1) // 2
        if not sign * v > sign * heap[parent]:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = v


@njit(inline="always", error_model="numpy")
def _offer(low, high, seen, v):
    """Keep ``v`` among the smallest (``low``) and largest (``high``) of the ``seen`` values so far.

    Two heaps, the largest of the smallest at ``low``'s root and the smallest of the
    largest at ``high``'s: after the first few hundred values a new one rarely enters a
    tail, so this costs about two comparisons per value instead of a sort.  The heaps
    are sorted at the end.
    """
    if seen < low.size:
        _push(low, 1.0, seen, v)
    elif v < low[0]:
        _sift_down(low, 1.0, v)
    if seen < high.size:
        _push(high, -1.0, seen, v)
    elif v > high[0]:
        _sift_down(high, -1.0, v)


@njit(nogil=True, cache=True, error_model="numpy")
def _ratio_replicates(y, m, theta, tol, reps, seeds, with_se, pairs, theta_out, se_out, low, high, below, sd):
    """Fill ``theta_out[r, b]`` = sum y* / sum m* over K documents drawn with replacement (and its SE).

    The uniform index of a draw is the high half of ``u * width`` for a 32-bit word
    ``u`` (multiply-shift without rejection, bias below width / 2**32).  With ``pairs``
    one index into the K*K table of pairwise sums draws two documents (a pair of
    independent uniform indices is exactly a uniform index into that table), plus one
    single draw when K is odd.  The SE is the linearization SE of the resample,
    ``sqrt(K/(K-1) * sum (y - t m)^2) / sum m`` from sums of y^2, y m and m^2; when every
    drawn document is alike its terms cancel to rounding noise (~1e-16 of their scale),
    which is no SE: 0.

    Besides the replicates it keeps, per row, their smallest and largest (``low``,
    ``high``, ascending: what the percentile and BCa quantiles read), their SD and
    ``below``: how many lie below the estimate ``theta``, ties counted half (times 2,
    an integer).  A replicate that redraws the sample's own documents equals theta in
    exact arithmetic but, summed in another order from float rates (macro, or
    scores), can land an ulp either side; at small K such replicates are several per
    cent of B, so they are matched within ``tol``, a rounding tolerance of K-term sums.
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
        th, eps = theta[r], tol[r]
        count = 0
        s1 = s2 = 0.0
        lo, hi = low[r], high[r]
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
            count += 2 if t < th - eps else (1 if t <= th + eps else 0)
            dev = t - th  # moments about the estimate: no cancellation, replicates lie near it
            s1 += dev
            s2 += dev * dev
            _offer(lo, hi, b, t)
            if with_se:
                scale = syy + t * t * smm
                ss = syy - 2 * t * sym + t * t * smm
                if not ss > 1e-12 * scale:
                    ss = 0.0
                se_out[r, b] = np.sqrt(ss * (norm / (sm * sm)))
        lo.sort()
        hi.sort()
        below[r] = count
        sd[r] = np.sqrt(max(s2 - s1 * s1 / reps, 0.0) / (reps - 1))


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


@njit(nogil=True, cache=True, error_model="numpy")
def _pivot_tails(theta_star, se_star, theta, low, high, logit_low, logit_high):
    """The smallest and largest pivots of each row, ascending, on the linear and logit scales (one pass).

    The logit pivot is the linear one times ``g = (logit theta* - logit theta)
    theta*(1 - theta*) / (theta* - theta)``, and ``g`` lies between the smallest and
    the largest of 1, ``c = theta*(1-theta*) / (theta(1-theta))`` (the mean of
    1/(x(1-x)) over [theta, theta*] is between its values at the ends, or down to 4 when
    the interval holds 1/2, giving ``4 theta*(1-theta*)``).  A replicate whose bracket
    cannot enter either logit tail skips its logarithm; the others get the exact pivot,
    so the tails are those of :func:`_pivots` (the bracket is widened by 1e-9 against rounding).
    """
    rows, reps = theta_star.shape
    with_logit = logit_low.shape[1] > 0
    for r in range(rows):
        th = theta[r]
        lt = np.log(th / (1 - th))
        var_th = th * (1 - th)
        lo, hi, llo, lhi = low[r], high[r], logit_low[r], logit_high[r]
        n_low, n_high = llo.size, lhi.size
        for b in range(reps):
            ts, ss = theta_star[r, b], se_star[r, b]
            v = _pivot(ts, ss, th, lt, False)
            _offer(lo, hi, b, v)
            if not with_logit:
                continue
            if ss == 0 or b < n_low or b < n_high or not var_th > 0 or not 0 < ts < 1:
                w = _pivot(ts, ss, th, lt, True)
            else:
                var_ts = ts * (1 - ts)
                c = var_ts / var_th
                g_lo = 4 * var_ts if (ts - 0.5) * (th - 0.5) < 0 else min(1.0, c)
                g_hi = max(1.0, c)
                a1, a2 = v * g_lo, v * g_hi
                near, far = (a1, a2) if a1 <= a2 else (a2, a1)
                slack = 1e-9 * abs(far)
                if near - slack >= llo[0] and far + slack <= lhi[0]:
                    continue  # in neither tail
                w = _pivot(ts, ss, th, lt, True)
            if w != w:  # a NaN pivot (none arises from finite data) counts as +inf
                w = np.inf
            _offer(llo, lhi, b, w)
        lo.sort()
        hi.sort()
        llo.sort()
        lhi.sort()


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


def ratio_replicates(y, m, theta, reps: int, rng: np.random.Generator, with_se: bool, n_tail: int):
    """Replicates (rows, reps) of sum y / sum m over documents resampled with replacement, and what is read off them.

    ``y``, ``m``: (rows, K) float64; ``theta`` (rows,): each row's estimate.  Returns
    ``(replicates, their SEs or None, n_tail smallest, n_tail largest, below, sd)``
    (see :func:`_ratio_replicates`; ``below`` as a count, ties half).  Each row gets its
    own 64-bit seed from ``rng``, whether or not the SEs are asked for, so the
    replicates do not depend on ``with_se``.
    """
    rows, k = y.shape
    seeds = rng.bit_generator.random_raw(rows)
    y, m = np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(m, dtype=np.float64)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    # Replicates lie within the range of the documents' rates (a ratio of sums, or a mean).
    with np.errstate(divide="ignore", invalid="ignore"):
        largest = np.nan_to_num(np.abs(y / m).max(-1, initial=0.0))
    tol = 8 * np.finfo(float).eps * k * largest
    replicates = np.empty((rows, reps))
    se = np.empty((rows, reps)) if with_se else np.empty((rows, 0))
    n_tail = min(n_tail, reps)
    low, high = np.empty((rows, n_tail)), np.empty((rows, n_tail))
    below, sd = np.empty(rows, dtype=np.int64), np.empty(rows)
    pairs = k >= 2 and 2 * k <= reps and k * k <= MAX_PAIR_TABLE
    _on_row_blocks(
        lambda *blocks: _ratio_replicates(*blocks[:4], reps, blocks[4], with_se, pairs, *blocks[5:]),
        rows, rows * reps, (y, m, theta, tol, seeds, replicates, se, low, high, below, sd),
    )
    return replicates, (se if with_se else None), low, high, below / 2, sd


def pivots(theta_star: np.ndarray, se_star: np.ndarray, theta: np.ndarray, logit: bool) -> np.ndarray:
    """Studentized pivots (rows, reps) of replicates and their SEs against each row's ``theta``."""
    out = np.empty(theta_star.shape)
    _on_row_blocks(
        lambda ts, ss, th, o: _pivots(ts, ss, th, logit, o),
        theta_star.shape[0], theta_star.size, (theta_star, se_star, theta, out),
    )
    return out


def pivot_tails(theta_star: np.ndarray, se_star: np.ndarray, theta: np.ndarray, n_tail: int, logit: bool):
    """The ``n_tail`` smallest and largest pivots of each row (rows, n_tail), ascending: linear, then logit scale.

    The logit tails are (rows, 0) unless ``logit``.
    """
    rows, reps = theta_star.shape
    n = min(n_tail, reps)
    nl = n if logit else 0
    out = np.empty((rows, n)), np.empty((rows, n)), np.empty((rows, nl)), np.empty((rows, nl))
    _on_row_blocks(_pivot_tails, rows, theta_star.size, (theta_star, se_star, theta, *out))
    return out
