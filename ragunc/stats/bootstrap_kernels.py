"""Compiled inner loops of the cluster bootstrap (numba): replicates of a ratio, and studentized pivots.

:mod:`ragunc.stats.bootstrap` keeps every formula above the replicate (quantiles, BCa,
bounds); here are only the loops numpy cannot fuse: drawing documents, summing their
statistics, each replicate's estimate and SE, and its studentized pivot.  Rows are
independent and each has its own random stream, seeded from the caller's Generator, so
results do not depend on how rows are split across threads.  The kernels release the GIL
and run on row blocks in a small thread pool (numba's own parallel layer is not safe
when a dashboard calls it from several threads at once).  ``cache=True``: compiled once
per installation, later processes load them from ``__pycache__``.

numba itself is imported on the first call (:func:`compile_kernels`), not with ragunc: loading
results or ``ragunc aggregate`` never bootstraps, and numba costs about 54 MB of memory and
a quarter of a second to import.  Until then each kernel is its plain Python function, marked by
:func:`_kernel`; compiling replaces them all in this module's namespace at once, so a kernel
calling another finds the compiled one.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# Entries of one row's pair table (K * K, so K <= 90): two int64 words (packed) or 5 float64 sums each,
# 128 or 320 kB, within the L2 cache; a larger sample draws documents one at a time.
MAX_PAIR_TABLE = 1 << 13
# Replicates a thread is given at least: below that a thread costs more than it saves.
MIN_THREAD_REPLICATES = 1 << 15
# Bits of one packed word: its fields' sums never overflow a signed int64.
WORD_BITS = 62

_KERNELS: dict[str, dict] = {}  # kernel name -> its numba.njit options, in definition order
_COMPILED = threading.Event()
_COMPILING = threading.Lock()


def _kernel(**options):
    """Mark a function as a numba kernel with these ``njit`` options (compiled by :func:`compile_kernels`)."""
    def mark(function):
        _KERNELS[function.__name__] = options
        return function
    return mark


def compile_kernels() -> None:
    """Import numba and replace every kernel by its compiled version (once; later calls return at once)."""
    if _COMPILED.is_set():
        return
    with _COMPILING:
        if _COMPILED.is_set():
            return
        import numba  # third-party, imported where first needed (see the module docstring)

        namespace = globals()
        for name, options in _KERNELS.items():
            namespace[name] = numba.njit(**options)(namespace[name])
        _COMPILED.set()


_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


@_kernel(inline="always", error_model="numpy")
def _splitmix64(state):
    """``(next state, 64 random bits)``: SplitMix64 (Steele, Lea & Flood 2014; passes BigCrush)."""
    state = state + _GAMMA
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@_kernel(inline="always", error_model="numpy")
def _index(half, n):
    """A uniform index in [0, n) from 32 random bits (multiply-shift, no rejection: bias below n / 2**32)."""
    return (half * np.uint64(n)) >> _SHIFT32


@_kernel(inline="always", error_model="numpy")
def _replicate(sy, sm, syy, sym, smm, with_se, norm):
    """``(sum y / sum m, its linearization SE)`` from a resample's sums.

    SE: ``sqrt(K/(K-1) * sum (y - t m)^2) / sum m`` with ``sum (y - t m)^2 = Syy - 2 t
    Sym + t^2 Smm``.  When every drawn document is alike the terms cancel to rounding
    noise (~1e-16 of their scale), which is no SE: 0.
    """
    t = sy / sm
    if not with_se:
        return t, 0.0
    scale = syy + t * t * smm
    ss = syy - 2 * t * sym + t * t * smm
    if not ss > 1e-12 * scale:
        ss = 0.0
    return t, np.sqrt(ss * (norm / (sm * sm)))


@_kernel(inline="always", error_model="numpy")
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


@_kernel(inline="always", error_model="numpy")
def _record(r, b, t, se, theta, logit_theta, tol, theta_out, se_out, linear_out, logit_out):
    """Store replicate ``b`` of row ``r`` (its SE and pivots where asked: a non-empty array).

    Returns what the BCa bias and the SD accumulate: 2 below ``theta``, 1 a tie
    within ``tol``, else 0; and ``t - theta``.
    """
    theta_out[r, b] = t
    if se_out.shape[1] > 0:
        se_out[r, b] = se
    if linear_out.shape[1] > 0:
        linear_out[r, b] = _pivot(t, se, theta, logit_theta, False)
    if logit_out.shape[1] > 0:
        logit_out[r, b] = _pivot(t, se, theta, logit_theta, True)
    return (2 if t < theta - tol else (1 if t <= theta + tol else 0)), t - theta


@_kernel(nogil=True, cache=True, error_model="numpy")
def _ratio_replicates_float(y, m, theta, tol, reps, seeds, with_se, pairs, theta_out, se_out, linear_out,
                            logit_out, below, sd):
    """Fill ``theta_out[r, b]`` = sum y* / sum m* over K documents drawn with replacement, and its SE.

    With ``pairs`` one index into the K*K table of pairwise sums draws two documents
    (a pair of independent uniform indices is exactly a uniform index into that
    table), plus one single draw when K is odd; two indices per 64-bit word.  With
    ``with_se``, the replicate's SE and studentized pivots (into the arrays that are
    not empty: ``se_out``, ``linear_out``, ``logit_out``).  Also
    ``below[r]``: replicates below the estimate ``theta``, ties counted half (times 2,
    an integer), and ``sd[r]``, their SD (moments about the estimate, near which they
    lie: no cancellation).  A replicate that redraws the sample's own documents equals
    theta in exact arithmetic but, summed in another order from float rates (macro, or
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
        lt = np.log(th / (1 - th))
        word = np.uint64(0)
        count, s1, s2 = 0, 0.0, 0.0
        for b in range(reps):
            sy = sm = syy = sym = smm = 0.0
            for p in range(draws):
                if p % 2 == 0:
                    state, word = _splitmix64(state)
                    e = _index(word & _LOW32, width)
                else:
                    e = _index(word >> _SHIFT32, width)
                sy += table[e, 0]
                sm += table[e, 1]
                if with_se:
                    syy += table[e, 2]
                    sym += table[e, 3]
                    smm += table[e, 4]
            if odd:
                state, word = _splitmix64(state)
                j = _index(word & _LOW32, k)
                yj, mj = y[r, j], m[r, j]
                sy += yj
                sm += mj
                syy += yj * yj
                sym += yj * mj
                smm += mj * mj
            t, se = _replicate(sy, sm, syy, sym, smm, with_se, norm)
            c, dev = _record(r, b, t, se, th, lt, eps, theta_out, se_out, linear_out, logit_out)
            count += c
            s1 += dev
            s2 += dev * dev
        below[r] = count
        sd[r] = np.sqrt(max(s2 - s1 * s1 / reps, 0.0) / (reps - 1))


@_kernel(nogil=True, cache=True, error_model="numpy")
def _ratio_replicates_packed(y, m, theta, tol, reps, seeds, with_se, pairs, shifts, theta_out, se_out, linear_out,
                             logit_out, below, sd):
    """:func:`_ratio_replicates_float` for non-negative integer y and m, packed: the same draws, the same sums.

    The five columns go into two int64 words, ``y | m`` and ``y^2 | y m | m^2``, at
    bit offsets ``shifts`` = (m, y m, m^2); each field is as wide as the sum of K of its
    values needs, so sums never carry into the next field, and one addition sums
    several columns (half the loads and additions of the float path, about 2x faster).
    """
    rows, k = y.shape
    width = k * k if pairs else k
    draws = k // 2 if pairs else k
    odd = pairs and k % 2 == 1
    norm = k / (k - 1.0) if k > 1 else np.nan
    s_m, s_ym, s_mm = shifts[0], shifts[1], shifts[2]
    mask_y, mask_yy, mask_ym = (np.int64(1) << s_m) - 1, (np.int64(1) << s_ym) - 1, (np.int64(1) << (s_mm - s_ym)) - 1
    single0, single1 = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
    table0, table1 = np.empty(width, dtype=np.int64), np.empty(width, dtype=np.int64)
    for r in range(rows):
        for i in range(k):
            yi, mi = np.int64(y[r, i]), np.int64(m[r, i])
            single0[i] = yi + (mi << s_m)
            single1[i] = yi * yi + ((yi * mi) << s_ym) + ((mi * mi) << s_mm) if with_se else 0
        if pairs:
            for i in range(k):
                for j in range(k):
                    table0[i * k + j] = single0[i] + single0[j]
                    table1[i * k + j] = single1[i] + single1[j]
        else:
            table0[:], table1[:] = single0, single1
        state = seeds[r]
        th, eps = theta[r], tol[r]
        lt = np.log(th / (1 - th))
        count, s1, s2 = 0, 0.0, 0.0
        for b in range(reps):
            # two accumulators per word: independent chains of additions
            a0 = c0 = a1 = c1 = np.int64(0)
            for p in range(0, draws, 2):
                state, word = _splitmix64(state)
                e = _index(word & _LOW32, width)
                a0 += table0[e]
                a1 += table1[e]
                if p + 1 < draws:
                    e = _index(word >> _SHIFT32, width)
                    c0 += table0[e]
                    c1 += table1[e]
            if odd:
                state, word = _splitmix64(state)
                j = _index(word & _LOW32, k)
                a0 += single0[j]
                a1 += single1[j]
            a0 += c0
            a1 += c1
            t, se = _replicate(float(a0 & mask_y), float(a0 >> s_m), float(a1 & mask_yy),
                               float((a1 >> s_ym) & mask_ym), float(a1 >> s_mm), with_se, norm)
            c, dev = _record(r, b, t, se, th, lt, eps, theta_out, se_out, linear_out, logit_out)
            count += c
            s1 += dev
            s2 += dev * dev
        below[r] = count
        sd[r] = np.sqrt(max(s2 - s1 * s1 / reps, 0.0) / (reps - 1))


@_kernel(nogil=True, cache=True, error_model="numpy")
def _pivots(theta_star, se_star, theta, linear_out, logit_out):
    """Pivots of each replicate on the linear scale and (``logit_out`` not empty) the logit scale."""
    rows, reps = theta_star.shape
    logit = logit_out.shape[1] > 0
    for r in range(rows):
        th = theta[r]
        lt = np.log(th / (1 - th))
        for b in range(reps):
            if linear_out.shape[1] > 0:
                linear_out[r, b] = _pivot(theta_star[r, b], se_star[r, b], th, lt, False)
            if logit:
                logit_out[r, b] = _pivot(theta_star[r, b], se_star[r, b], th, lt, True)


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


def _packed_shifts(y: np.ndarray, m: np.ndarray, k: int, with_se: bool) -> np.ndarray | None:
    """Bit offsets (m, y m, m^2) of the packed words, or None when y, m are not small non-negative integers."""
    for c in (y, m):
        if c.size == 0 or c.min() < 0 or not np.array_equal(c, np.floor(c)):
            return None
    bits = [int(k * c.max()).bit_length() for c in ((y, m, y * y, y * m, m * m) if with_se else (y, m))]
    if bits[0] + bits[1] > WORD_BITS or (with_se and sum(bits[2:]) > WORD_BITS):
        return None
    s_ym = bits[2] if with_se else 0
    s_mm = s_ym + bits[3] if with_se else 0
    return np.array([bits[0], s_ym, s_mm], dtype=np.int64)


def ratio_replicates(y, m, theta, reps: int, rng: np.random.Generator, *, keep_se: bool = False,
                     scales: tuple[str, ...] = ()):
    """Replicates (rows, reps) of sum y / sum m over documents resampled with replacement, and what is read off them.

    ``y``, ``m``: (rows, K); ``theta`` (rows,): each row's estimate.  Returns
    ``(replicates, SEs or None, {scale: pivots}, below, sd)``: the replicates' SEs
    with ``keep_se``, their studentized pivots on each of ``scales`` ("linear",
    "logit"), and ``below``, how many lie below the estimate, ties half (see
    :func:`_ratio_replicates_float`).  Each row gets its own 64-bit seed from
    ``rng``, whatever is asked for, so the replicates do not depend on it.
    """
    compile_kernels()
    rows, k = y.shape
    seeds = rng.bit_generator.random_raw(rows)
    y, m = np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(m, dtype=np.float64)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    # Replicates lie within the range of the documents' rates (a ratio of sums, or a mean).
    with np.errstate(divide="ignore", invalid="ignore"):
        largest = np.nan_to_num(np.abs(y / m).max(-1, initial=0.0))
    tol = 8 * np.finfo(float).eps * k * largest
    with_se = keep_se or bool(scales)
    replicates = np.empty((rows, reps))
    se, linear, logit = (np.empty((rows, reps if wanted else 0)) for wanted in
                         (keep_se, "linear" in scales, "logit" in scales))
    below, sd = np.empty(rows, dtype=np.int64), np.empty(rows)
    pairs = k >= 2 and 2 * k <= reps and k * k <= MAX_PAIR_TABLE
    shifts = _packed_shifts(y, m, k, with_se)

    def kernel(y, m, theta, tol, seeds, *out):
        if shifts is None:
            _ratio_replicates_float(y, m, theta, tol, reps, seeds, with_se, pairs, *out)
        else:
            _ratio_replicates_packed(y, m, theta, tol, reps, seeds, with_se, pairs, shifts, *out)

    _on_row_blocks(kernel, rows, rows * reps, (y, m, theta, tol, seeds, replicates, se, linear, logit, below, sd))
    chosen = {"linear": linear, "logit": logit}
    return replicates, (se if keep_se else None), {s: chosen[s] for s in scales}, below / 2, sd


def pivots(theta_star: np.ndarray, se_star: np.ndarray, theta: np.ndarray, *, linear: bool = True,
           logit: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Studentized pivots (rows, reps) of replicates and their SEs against each row's ``theta``, on either scale."""
    compile_kernels()
    rows, reps = theta_star.shape
    lin, log = np.empty((rows, reps if linear else 0)), np.empty((rows, reps if logit else 0))
    _on_row_blocks(_pivots, rows, theta_star.size, (theta_star, se_star, theta, lin, log))
    return (lin if linear else None), (log if logit else None)


def sort_rows(x: np.ndarray) -> None:
    """Sort each row of the 2-D ``x`` in place, row blocks on the thread pool (numpy's sort releases the GIL)."""
    _on_row_blocks(lambda block: block.sort(-1), x.shape[0], x.size, (x,))
