"""The resampling engine (compiled with numba): documents drawn with replacement, their columns summed.

Every resampling in ragunc runs here: the cluster bootstrap's replicates of a ratio
(:func:`ratio_replicates`: intervals, coverage) and sums of any columns over resampled
documents (:func:`resampled_sums`: paired and many-config comparisons, ranking runs,
positional settings).  Both draw through one loop (:func:`_draw_row`), one table per row
(:func:`_fill_table`: pairs of documents while it fits in cache, :data:`MAX_PAIR_WORDS`),
one packing of integer columns into words (:func:`_packing`) and one random stream per row
(SplitMix64, seeded from the caller's Generator), so results do not depend on how rows are
split across threads, nor on what is computed from the draws.
:mod:`ragunc.stats.bootstrap` keeps every formula above the replicate (quantiles, BCa,
bounds); here are only the loops numpy cannot fuse: drawing documents, summing their
statistics, each replicate's estimate and SE, and its studentized pivot; and, for the table of
every K (:mod:`ragunc.stats.all_k`), the one scan along nested samples that has no cumulative
form (:func:`prefix_scan`).  The kernels release the GIL
and run on row blocks in a small thread pool (numba's own parallel layer is not safe
when a dashboard calls it from several threads at once).  ``cache=True``: compiled once
per installation, later processes load them from ``__pycache__``.

numba itself is imported on the first call (:func:`compile_kernels`), not with ragunc: loading
results or ``ragunc aggregate`` never bootstraps, and importing numba costs memory and time that
those commands would pay for nothing (bench/RESULTS.md).  Until then each kernel is its plain Python function, marked by
:func:`_kernel`; compiling replaces them all in this module's namespace at once, so a kernel
calling another finds the compiled one.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

# Words of one row's pair table (K * K entries of W words, padded to a group): 384 kB, within the L2
# cache.  The ratio with its SE fits two packed words (K <= 156) or six float words (K <= 90); a larger
# sample, or more columns, draws documents one at a time.
MAX_PAIR_WORDS = 6 << 13
# Replicates a thread is given at least: below that a thread costs more than it saves.
MIN_THREAD_REPLICATES = 1 << 15
# Bits of one packed word: its fields' sums never overflow a signed int64.
WORD_BITS = 62
# Words summed together per pass over a resample's draws: 2, or 6 when there are more (float
# additions take several cycles; six independent chains keep the adder busy).  Tables are padded to
# a multiple of the group.
GROUPS = (2, 6)

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


@_kernel(inline="always", error_model="numpy")
def _fill_table(values, r, pairs, table):
    """Row ``r``'s draw table: its documents' words ``values[r]`` (K, W), or with ``pairs`` their K*K pairwise sums
    followed by the K documents themselves (for the last draw when K is odd).

    Entry ``i K + j`` of the pair table is ``values[r, i] + values[r, j]``: a pair of independent
    uniform indices is exactly a uniform index into it, so one draw there is two documents.
    """
    k, nw = values.shape[1], values.shape[2]
    width = k * k if pairs else 0
    for i in range(k):
        for w in range(nw):
            table[width + i, w] = values[r, i, w]
    if pairs:
        for i in range(k):
            for j in range(k):
                for w in range(nw):
                    table[i * k + j, w] = values[r, i, w] + values[r, j, w]


@_kernel(inline="always", error_model="numpy")
def _add_entry(table, e, w, wide, a0, a1, a2, a3, a4, a5):
    """The accumulators plus words ``w`` .. ``w + 1`` (``wide``: ``w + 5``) of table entry ``e``."""
    a0 += table[e, w]
    a1 += table[e, w + 1]
    if wide:
        a2 += table[e, w + 2]
        a3 += table[e, w + 3]
        a4 += table[e, w + 4]
        a5 += table[e, w + 5]
    return a0, a1, a2, a3, a4, a5


@_kernel(nogil=True, cache=True, error_model="numpy")
def _draw_row(state, table, k, pairs, zero, words):
    """Fill ``words[b]`` (W) with the sums of the words of K documents drawn with replacement, for every
    resample ``b``; returns the stream's next state.  Every kernel draws through here.

    Draws K documents through ``table`` (:func:`_fill_table`): with ``pairs``, K // 2 uniform
    indices into its K*K pairs and, when K is odd, one document; else K documents; two
    indices per 64-bit word of the stream (SplitMix64), low half first.  Words are summed a
    group at a time (``zero``: a tuple of the group's size, 2 or 6 (:data:`GROUPS`), and the
    words' type, so the compiled loop holds exactly the accumulators it needs, in registers),
    each in the order of the draws; every group redraws the same indices from the same
    state (cheaper than storing them).
    """
    reps, nw = words.shape
    group = len(zero)
    wide = group > 2
    width = k * k if pairs else k
    draws = k // 2 if pairs else k
    odd = pairs and k % 2 == 1
    for b in range(reps):
        start = state
        for w in range(0, nw, group):
            state = start
            a0 = a1 = a2 = a3 = a4 = a5 = zero[0]
            for p in range(0, draws, 2):
                state, word = _splitmix64(state)
                a0, a1, a2, a3, a4, a5 = _add_entry(
                    table, _index(word & _LOW32, width), w, wide, a0, a1, a2, a3, a4, a5
                )
                if p + 1 < draws:
                    a0, a1, a2, a3, a4, a5 = _add_entry(
                        table, _index(word >> _SHIFT32, width), w, wide, a0, a1, a2, a3, a4, a5
                    )
            if odd:
                state, word = _splitmix64(state)
                a0, a1, a2, a3, a4, a5 = _add_entry(
                    table, width + _index(word & _LOW32, k), w, wide, a0, a1, a2, a3, a4, a5
                )
            words[b, w], words[b, w + 1] = a0, a1
            if wide:
                words[b, w + 2], words[b, w + 3], words[b, w + 4], words[b, w + 5] = a2, a3, a4, a5
    return state


@_kernel(inline="always", error_model="numpy")
def _field(words, b, field):
    """A column's sum in resample ``b`` read off its words' sums; ``field`` is ``(word, shift, mask)``
    (:meth:`Layout.fields`)."""
    word, shift, mask = field
    v = words[b, word]
    if mask < 0:
        return float(v)
    return float((np.int64(v) >> shift) & mask)


@_kernel(nogil=True, cache=True, error_model="numpy")
def _column_sums(values, zero, reps, seeds, pairs, out):
    """Fill ``out[r, b]`` (W words) with the sums of K documents of row ``r`` drawn with replacement."""
    rows, k, nw = values.shape
    table = np.empty((k * k + k if pairs else k, nw), dtype=values.dtype)
    for r in range(rows):
        _fill_table(values, r, pairs, table)
        _draw_row(seeds[r], table, k, pairs, zero, out[r])


@_kernel(nogil=True, cache=True, error_model="numpy")
def _ratio_replicates(
    values, zero, fields, theta, tol, reps, seeds, with_se, pairs, theta_out, se_out, linear_out, logit_out, below, sd
):
    """Fill ``theta_out[r, b]`` = sum y* / sum m* over K documents drawn with replacement, and its SE.

    The draws and sums are :func:`_draw_row`'s, of the columns y, m and, with ``with_se``,
    y^2, y m, m^2 (``values``, :func:`_layout`; ``fields`` says where, a tuple: constants of
    the compiled loop).  With ``with_se``, the replicate's SE and studentized pivots (into
    the arrays that are not empty: ``se_out``, ``linear_out``, ``logit_out``).  Also
    ``below[r]``: replicates below the estimate ``theta``, ties counted half (times 2, an
    integer), and ``sd[r]``, their SD (moments about the estimate, near which they lie: no
    cancellation).  A replicate that redraws the sample's own documents equals theta in
    exact arithmetic but, summed in another order from float rates (macro, or scores), can
    land an ulp either side; at small K such replicates are several per cent of B, so they
    are matched within ``tol``, a rounding tolerance of K-term sums.
    """
    rows, k, nw = values.shape
    table = np.empty((k * k + k if pairs else k, nw), dtype=values.dtype)
    words = np.empty((reps, nw), dtype=values.dtype)
    norm = k / (k - 1.0) if k > 1 else np.nan
    for r in range(rows):
        _fill_table(values, r, pairs, table)
        _draw_row(seeds[r], table, k, pairs, zero, words)
        th, eps = theta[r], tol[r]
        lt = np.log(th / (1 - th))
        count, s1, s2 = 0, 0.0, 0.0
        for b in range(reps):
            sy, sm = _field(words, b, fields[0]), _field(words, b, fields[1])
            syy = sym = smm = 0.0
            if with_se:
                syy, sym, smm = _field(words, b, fields[2]), _field(words, b, fields[3]), _field(words, b, fields[4])
            t, se = _replicate(sy, sm, syy, sym, smm, with_se, norm)
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


def _packing(columns: list[np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(word, shift, mask)`` of each column packed into int64 words, or None: every column stays a float.

    Non-negative integer columns (hits, sizes, their squares and products) are packed side
    by side into as few words as hold their sums exactly, so one addition sums several
    columns.  A column's field is as wide as the sum of any K of its values needs (``bits``
    = bit length of K times its maximum; a pair-table entry is two of them), so sums never
    carry into the next field; a word holds at most :data:`WORD_BITS`.  Any negative,
    non-integer or too large column returns None.
    """
    word, shift, mask, n, used = [], [], [], 0, 0
    for c in columns:
        if c.size == 0 or c.min() < 0 or not np.array_equal(c, np.floor(c)):
            return None
        bits = int(k * c.max()).bit_length()
        if bits > WORD_BITS:
            return None
        if used + bits > WORD_BITS:
            n, used = n + 1, 0
        word.append(n)
        shift.append(used)
        mask.append((1 << bits) - 1)
        used += bits
    return np.array(word), np.array(shift), np.array(mask)


class Layout(NamedTuple):
    """The documents' columns as the kernels read them (:func:`_layout`)."""

    values: np.ndarray  # (rows, K, W): packed int64 words, or the columns as floats, padded with zeros
    group: int  # words summed together (one of GROUPS); W is a multiple of it
    word: np.ndarray  # (C,) each column's word
    shift: np.ndarray  # (C,) its field's offset in the word
    mask: np.ndarray  # (C,) its field's mask; -1: a float column, its word is its value

    @property
    def n_words(self) -> int:
        return self.values.shape[-1]

    @property
    def zero(self) -> tuple:
        """A group's worth of zeros of the words' type: tells a compiled loop the group's size and type."""
        return (self.values.dtype.type(0),) * self.group

    def fields(self, n: int) -> tuple[tuple[int, int, int], ...]:
        """``(word, shift, mask)`` of each column, padded to ``n`` with empty fields (they read 0)."""
        own = tuple((int(w), int(s), int(m)) for w, s, m in zip(self.word, self.shift, self.mask))
        return own + ((0, 0, 0),) * (n - len(own))

    def sums(self, words: np.ndarray) -> list[np.ndarray]:
        """Each column's sums (float) from sums of the words (..., W)."""
        if self.mask[0] < 0:
            return [words[..., i].astype(float) for i in range(self.word.size)]
        return [((words[..., w] >> s) & m).astype(float) for w, s, m in zip(self.word, self.shift, self.mask)]


def _layout(columns: list[np.ndarray], k: int) -> Layout:
    """The documents' columns (each (rows, K)) as the kernels read them.

    Packed into int64 words (:func:`_packing`) when they are small non-negative integers,
    else as floats; padded to a group of words (:data:`GROUPS`).  Packed or not, the
    draws and the sums are the same (sums of integers below 2**53 are exact in floats too).
    """
    packing = _packing(columns, k)
    if packing is None:
        n = len(columns)
        word, shift, mask = np.arange(n), np.zeros(n, dtype=np.int64), np.full(n, -1)
        dtype = np.float64
    else:
        word, shift, mask = packing
        n, dtype = int(word[-1]) + 1, np.int64
    group = GROUPS[0] if n <= GROUPS[0] else GROUPS[1]
    values = np.zeros(columns[0].shape + (-(-n // group) * group,), dtype=dtype)
    if packing is None:
        values[..., :n] = np.stack(columns, -1)
    else:
        for c, w, s in zip(columns, word, shift):
            values[..., w] += c.astype(np.int64) << s
    return Layout(values, group, word, shift, mask)


def _use_pairs(k: int, reps: int, n_words: int) -> bool:
    """Whether to draw from the pair table: it saves K/2 draws per replicate for K*K entries to build,
    hence only when ``2 K <= reps``, and only while it stays in cache (:data:`MAX_PAIR_WORDS`)."""
    return k >= 2 and 2 * k <= reps and k * k * n_words <= MAX_PAIR_WORDS


def row_seeds(rng: np.random.Generator, rows: int) -> np.ndarray:
    """One 64-bit seed per row: each row's stream, whatever is computed from it and however rows are split."""
    return rng.bit_generator.random_raw(rows)


def resampled_sums(columns, reps: int, rng: np.random.Generator | int | None = None) -> list[np.ndarray]:
    """Sums of each column over K documents drawn with replacement, ``reps`` times per leading row.

    Every column has shape (..., K) and all use the same draws (documents are resampled
    whole, so paired columns stay paired).  Returns arrays (..., reps), in the columns'
    order.  The same engine as :func:`ratio_replicates`: one stream per row, the pair
    table, integer columns packed.
    """
    compile_kernels()
    rng = np.random.default_rng(rng)
    cols = [np.asarray(c, dtype=float) for c in columns]
    lead, k = cols[0].shape[:-1], cols[0].shape[-1]
    flat = [np.ascontiguousarray(c.reshape(-1, k)) for c in cols]
    rows = flat[0].shape[0]
    seeds = row_seeds(rng, rows)
    lay = _layout(flat, k)
    pairs = _use_pairs(k, reps, lay.n_words)
    out = np.empty((rows, reps, lay.n_words), dtype=lay.values.dtype)
    _on_row_blocks(
        lambda v, s, o: _column_sums(v, lay.zero, reps, s, pairs, o), rows, rows * reps, (lay.values, seeds, out)
    )
    return [c.reshape(lead + (reps,)) for c in lay.sums(out)]


def ratio_replicates(
    y, m, theta, reps: int, rng: np.random.Generator, *, keep_se: bool = False, scales: tuple[str, ...] = ()
):
    """Replicates (rows, reps) of sum y / sum m over documents resampled with replacement, and what is read off them.

    ``y``, ``m``: (rows, K); ``theta`` (rows,): each row's estimate.  Returns
    ``(replicates, SEs or None, {scale: pivots}, below, sd)``: the replicates' SEs
    with ``keep_se``, their studentized pivots on each of ``scales`` ("linear",
    "logit"), and ``below``, how many lie below the estimate, ties half (see
    :func:`_ratio_replicates`).  The draws are those of :func:`resampled_sums` on the
    same rows and seed, whatever is asked for, so the replicates do not depend on it.
    """
    compile_kernels()
    rows, k = y.shape
    seeds = row_seeds(rng, rows)
    y, m = np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(m, dtype=np.float64)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    # Replicates lie within the range of the documents' rates (a ratio of sums, or a mean).
    with np.errstate(divide="ignore", invalid="ignore"):
        largest = np.nan_to_num(np.abs(y / m).max(-1, initial=0.0))
    tol = 8 * np.finfo(float).eps * k * largest
    with_se = keep_se or bool(scales)
    lay = _layout([y, m, y * y, y * m, m * m] if with_se else [y, m], k)
    replicates = np.empty((rows, reps))
    se, linear, logit = (
        np.empty((rows, reps if wanted else 0)) for wanted in (keep_se, "linear" in scales, "logit" in scales)
    )
    below, sd = np.empty(rows, dtype=np.int64), np.empty(rows)
    pairs = _use_pairs(k, reps, lay.n_words)

    def kernel(values, theta, tol, seeds, *out):
        _ratio_replicates(values, lay.zero, lay.fields(5), theta, tol, reps, seeds, with_se, pairs, *out)

    _on_row_blocks(kernel, rows, rows * reps, (lay.values, theta, tol, seeds, replicates, se, linear, logit, below, sd))
    chosen = {"linear": linear, "logit": logit}
    return replicates, (se if keep_se else None), {s: chosen[s] for s in scales}, below / 2, sd


def pivots(
    theta_star: np.ndarray, se_star: np.ndarray, theta: np.ndarray, *, linear: bool = True, logit: bool = True
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Studentized pivots (rows, reps) of replicates and their SEs against each row's ``theta``, on either scale."""
    compile_kernels()
    rows, reps = theta_star.shape
    lin, log = np.empty((rows, reps if linear else 0)), np.empty((rows, reps if logit else 0))
    _on_row_blocks(_pivots, rows, theta_star.size, (theta_star, se_star, theta, lin, log))
    return (lin if linear else None), (log if logit else None)


def sort_rows(x: np.ndarray) -> None:
    """Sort each row of the 2-D ``x`` in place, row blocks on the thread pool (numpy's sort releases the GIL)."""
    _on_row_blocks(lambda block: block.sort(-1), x.shape[0], x.size, (x,))


# Powers of m / N summed in the Bell–McCaffrey sums of documents holding at most a quarter of the
# chunks: the most the series needs (its next term is below 1e-18 of its first).
SERIES_TERMS = 36


@_kernel(inline="always", error_model="numpy")
def _add_powers(powers, x):
    """Add x**i to powers[i] for i = 2..SERIES_TERMS, while it is not negligible beside x**2 (x <= 1/2)."""
    x2 = x * x
    xi = x2
    for i in range(2, powers.size):
        powers[i] += xi
        xi *= x
        if xi < 1e-19 * x2:
            break


@_kernel(nogil=True, cache=True, error_model="numpy")
def _prefix_scan(y, m, micro, ss_out, df_out):
    """Each row's residual sum of squares and (micro) Bell–McCaffrey df after each of its first K documents.

    micro: ``sum_d (y_d - p m_d)^2`` with ``p`` the prefix's ratio, updated as Welford updates a
    variance (the old documents' residuals shift by the change of ``p``: ``SS - 2 dp A + dp^2 Q``,
    with ``A = sum m_d (y_d - p m_d)`` and ``Q = sum m_d^2``), so it never subtracts raw sums;
    macro: Welford's sum of squares of the rates ``y / m``.  The df is ``1 / (T1 + T2^2)`` with
    ``T1 = sum pi^2 (1 - 2 pi) / (1 - pi)^2`` and ``T2 = sum pi^2 / (1 - pi)``, ``pi = m_d / N``:
    the (at most three) documents above N / 4 directly, the others by their power sums
    ``T1 = sum_i (3 - i) S_i``, ``T2 = sum_i S_i`` (``S_i = sum pi^i``, i >= 2), kept relative
    to a reference ``N0`` with ``N0 <= N <= 2 N0``.  NaN at K = 1.
    """
    rows, d = y.shape
    terms = SERIES_TERMS + 1
    for r in range(rows):
        sy, n, q, a, ss, p = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        powers = np.zeros(terms)
        large = np.zeros(4)
        n_large, n_ref = 0, 0.0
        for k in range(d):
            yk, mk = y[r, k], m[r, k]
            if micro:
                sy += yk
                n += mk
                p_new = sy / n
                dp = p_new - p
                ss = ss - 2.0 * dp * a + dp * dp * q
                a = a - dp * q
                e = yk - p_new * mk
                ss += e * e
                a += mk * e
                q += mk * mk
                p = p_new
            else:
                rate = yk / mk
                dp = rate - p
                p += dp / (k + 1)
                ss += dp * (rate - p)
            ss_out[r, k] = max(ss, 0.0)
            if not micro:
                continue
            if n > 2.0 * n_ref:  # a new reference: rescale the power sums
                f = n_ref / n
                fi = f * f
                for i in range(2, terms):
                    powers[i] *= fi
                    fi *= f
                n_ref = n
            if 4.0 * mk > n:
                large[n_large] = mk
                n_large += 1
            else:
                _add_powers(powers, mk / n_ref)
            j = 0
            while j < n_large:  # N grew: documents below N / 4 join the series
                if 4.0 * large[j] <= n:
                    _add_powers(powers, large[j] / n_ref)
                    n_large -= 1
                    large[j] = large[n_large]
                else:
                    j += 1
            if k == 0:
                df_out[r, k] = np.nan
                continue
            t1, t2 = 0.0, 0.0
            f = n_ref / n
            fi = f * f
            for i in range(2, terms):
                term = powers[i] * fi
                t1 += (3 - i) * term
                t2 += term
                if term < 1e-19 * t2:  # each term is below a quarter of the last: the rest is negligible
                    break
                fi *= f
            for j in range(n_large):
                share = large[j] / n
                scaled = share / (1.0 - share)
                t1 += scaled * scaled * (1.0 - 2.0 * share)
                t2 += scaled * share
            df_out[r, k] = 1.0 / (t1 + t2 * t2)


def prefix_scan(y: np.ndarray, m: np.ndarray, *, micro: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """``(residual sum of squares, Bell–McCaffrey df or None)`` of each row's first K documents, (rows, D) each.

    ``y``, ``m``: (rows, D), a row's documents in sampling order; entry ``[r, K - 1]`` describes the
    first K of row r.  See :func:`_prefix_scan`.
    """
    compile_kernels()
    y, m = np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(m, dtype=np.float64)
    ss, df = np.empty(y.shape), np.empty(y.shape if micro else (y.shape[0], 0))
    _on_row_blocks(lambda *block: _prefix_scan(*block[:2], micro, *block[2:]), y.shape[0], y.size, (y, m, ss, df))
    return ss, (df if micro else None)


@_kernel(inline="always", error_model="numpy")
def _webb_weight(half):
    """One of Webb's six weights -sqrt(3/2), -1, -sqrt(1/2), sqrt(1/2), 1, sqrt(3/2), equally likely, from 32 bits."""
    i = _index(half, 6)
    magnitude = np.sqrt((float(i % 3) + 1.0) / 2.0)
    return magnitude if i >= 3 else -magnitude


@_kernel(inline="always", error_model="numpy")
def _wild_row(first, second, state, webb, table, out_first, out_second):
    """Fill ``out_first[b]`` with sum_d v_d x_d of the four columns of ``first`` (K, 4) and, with ``webb``,
    ``out_second[b]`` with sum_d v_d^2 x_d of the three columns of ``second`` (K, 3), for ``B`` draws of one
    weight v_d per document from the stream ``state``; returns the stream's next state.

    Rademacher weights (+-1): bit d of the stream (64 per word) is document d's sign, and the
    signed sums of each byte's eight documents are read off a table of the 256 sign patterns (one
    lookup for eight documents, as :func:`_fill_table`'s pairs are one draw for two), each pattern
    built from the one without its lowest set bit.  Webb's six-point weights: 32 bits each, low
    half first, as :func:`_draw_row` reads its stream.  The sums stay in registers.
    """
    k = first.shape[0]
    reps = out_first.shape[0]
    groups = (k + 7) // 8
    if not webb:
        for g in range(groups):
            for c in range(4):
                base = 0.0
                for j in range(min(8, k - 8 * g)):
                    base -= first[8 * g + j, c]
                table[g, 0, c] = base
            for byte in range(1, 256):
                low = byte & -byte
                j = 0
                while (1 << j) != low:
                    j += 1
                for c in range(4):
                    x = first[8 * g + j, c] if 8 * g + j < k else 0.0
                    table[g, byte, c] = table[g, byte ^ low, c] + 2.0 * x
    for b in range(reps):
        a0 = a1 = a2 = a3 = c0 = c1 = c2 = 0.0
        word = np.uint64(0)
        if webb:
            for d in range(k):
                if d % 2 == 0:
                    state, word = _splitmix64(state)
                    v = _webb_weight(word & _LOW32)
                else:
                    v = _webb_weight(word >> _SHIFT32)
                vv = v * v
                c0 += vv * second[d, 0]
                c1 += vv * second[d, 1]
                c2 += vv * second[d, 2]
                a0 += v * first[d, 0]
                a1 += v * first[d, 1]
                a2 += v * first[d, 2]
                a3 += v * first[d, 3]
            out_second[b, 0], out_second[b, 1], out_second[b, 2] = c0, c1, c2
        else:
            for g in range(groups):
                if g % 8 == 0:
                    state, word = _splitmix64(state)
                e = (word >> np.uint64(8 * (g % 8))) & np.uint64(255)
                a0 += table[g, e, 0]
                a1 += table[g, e, 1]
                a2 += table[g, e, 2]
                a3 += table[g, e, 3]
        out_first[b, 0], out_first[b, 1], out_first[b, 2], out_first[b, 3] = a0, a1, a2, a3
    return state


@_kernel(nogil=True, cache=True, error_model="numpy")
def _wild_sums(first, second, seeds, webb, out_first, out_second):
    """:func:`_wild_row` of every row: ``out_first[r]`` (B, 4) and, with ``webb``, ``out_second[r]`` (B, 3)."""
    table = np.empty(((first.shape[1] + 7) // 8, 256, 4))
    for r in range(first.shape[0]):
        _wild_row(first[r], second[r], seeds[r], webb, table, out_first[r], out_second[r])


@_kernel(inline="always", error_model="numpy")
def _wild_t2(first, second, b, beta, sum_m2, sum_m):
    """The square of the restricted wild bootstrap's t* of replicate ``b`` under the null ``beta``.

    With ``a_d = Y_d - beta m_d``: ``s = sum v a``, the replicate's cluster scores ``v_d a_d - (s / N) m_d``
    and ``t* = s / sqrt(sum_d (v_d a_d - (s / N) m_d)^2)`` (the small-sample factor cancels against the
    sample's own t).  ``first[b]``: sums of v (Y, m, Y m, m^2); ``second[b]``: of v^2 (Y^2, Y m, m^2).
    A replicate without spread has an infinite t* (0 when s = 0 too).
    """
    s = first[b, 0] - beta * first[b, 1]
    vam = first[b, 2] - beta * first[b, 3]
    vaa = second[b, 0] - 2 * beta * second[b, 1] + beta * beta * second[b, 2]
    share = s / sum_m
    q = vaa - 2 * share * vam + share * share * sum_m2
    if not q > 1e-12 * (vaa + share * share * sum_m2):
        return 0.0 if s == 0 else np.inf
    return s * s / q


@_kernel(inline="always", error_model="numpy")
def _kth_smallest(values, kth):
    """The ``kth`` smallest of ``values`` (0-based), reordering them in place (Hoare's quickselect)."""
    lo, hi = 0, values.size - 1
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            break
    return values[kth]


@_kernel(inline="always", error_model="numpy")
def _wild_excess(first, second, beta, theta, se, sum_m2, sum_m, kth, buffer):
    """|t(beta)| minus the ``kth`` smallest |t*(beta)|: negative where the test does not reject ``beta``."""
    for b in range(buffer.size):
        buffer[b] = _wild_t2(first, second, b, beta, sum_m2, sum_m)
    return abs(theta - beta) / se - np.sqrt(_kth_smallest(buffer, kth))


@_kernel(inline="always", error_model="numpy")
def _wild_bracketed(sums, squares, th, s, sum_m2, sum_m, start, side, kth, iters, buffer):
    """One bound of the inverted test, found the safe way: a bracket, then regula falsi.

    The first trial is ``start`` SEs out, the second the bound its critical value gives
    (``theta -+ q se``, exact when q does not change with beta); a bracket is found by doubling the
    step from there (the edge of [0, 1] when the test rejects nothing up to it), then narrowed by
    the Illinois variant of regula falsi (at most ``iters`` steps, to 1e-3 SE).
    """
    edge = 0.0 if side < 0 else 1.0
    inner, h_in = th, -1.0
    outer = min(max(th + side * start * s, 0.0), 1.0)
    h_out = _wild_excess(sums, squares, outer, th, s, sum_m2, sum_m, kth, buffer)
    step = abs(outer - th) - h_out * s  # q s at the first trial: where its critical value puts the bound
    while h_out < 0 and outer != edge:
        inner, h_in = outer, h_out
        outer = min(max(th + side * step, 0.0), 1.0)
        h_out = _wild_excess(sums, squares, outer, th, s, sum_m2, sum_m, kth, buffer)
        step *= 2
    if h_out < 0:
        return edge
    last = 0
    for _ in range(iters):
        if abs(outer - inner) < 1e-3 * s:
            break
        x = (inner * h_out - outer * h_in) / (h_out - h_in)
        hx = _wild_excess(sums, squares, x, th, s, sum_m2, sum_m, kth, buffer)
        if hx >= 0:
            outer, h_out = x, hx
            if last == 1:
                h_in /= 2
            last = 1
        else:
            inner, h_in = x, hx
            if last == -1:
                h_out /= 2
            last = -1
    return 0.5 * (inner + outer)


@_kernel(inline="always", error_model="numpy")
def _wild_rejects(sums, squares, beta, th, s, sum_m2, sum_m, kth):
    """Whether the test rejects ``beta``: more than ``kth`` of the t*(beta)^2 at or below t(beta)^2."""
    t2 = (th - beta) * (th - beta) / (s * s)
    below = 0
    for b in range(sums.shape[0]):  # _wild_t2(...) <= t2 without its division
        a = sums[b, 0] - beta * sums[b, 1]
        vam = sums[b, 2] - beta * sums[b, 3]
        vaa = squares[b, 0] - 2 * beta * squares[b, 1] + beta * beta * squares[b, 2]
        share = a / sum_m
        q = vaa - 2 * share * vam + share * share * sum_m2
        spread = q > 1e-12 * (vaa + share * share * sum_m2)
        below += (a * a <= t2 * q) if spread else (a == 0)
    return below > kth


@_kernel(inline="always", error_model="numpy")
def _wild_bound(sums, squares, th, s, sum_m2, sum_m, start, side, kth, iters, buffer, work, webb):
    """One bound of the inverted test: where |t(beta)| meets the ``kth`` smallest |t*(beta)|.

    That order statistic is, near the bound, one replicate's |t*_b(beta)|, a closed form in beta
    (:func:`_wild_t2`).  So: find which replicate it is at the first trial (``start`` SEs out),
    solve ``t(beta)^2 = t*_b(beta)^2`` for that one replicate by the secant method (O(1) a step),
    and check the answer with two counts over the B replicates, 2.5e-4 SE either side: the test
    accepts inside and rejects outside.  When another replicate took over, again from there (four
    rounds at most); when that fails too, or the answer leaves [0, 1], :func:`_wild_bracketed` decides.
    It decides at once with Webb's weights: with so few documents the p-value may cross alpha
    several times on a side, and the bracket, searched outwards, takes the first crossing.
    """
    beta = min(max(th + side * start * s, 0.0), 1.0)
    delta = 2.5e-4 * s
    for _ in range(0 if webb else 4):
        for b in range(buffer.size):
            buffer[b] = _wild_t2(sums, squares, b, beta, sum_m2, sum_m)
        work[:] = buffer
        kth_value = _kth_smallest(work, kth)
        if not np.isfinite(kth_value):
            break
        b = 0
        while buffer[b] != kth_value:
            b += 1
        x0, x1 = beta, th + side * np.sqrt(kth_value) * s
        g0 = (th - x0) * (th - x0) / (s * s) - kth_value
        for _ in range(30):
            g1 = (th - x1) * (th - x1) / (s * s) - _wild_t2(sums, squares, b, x1, sum_m2, sum_m)
            if g1 == g0 or not np.isfinite(g1):
                break
            x0, x1, g0 = x1, x1 - g1 * (x1 - x0) / (g1 - g0), g1
            if abs(x1 - x0) < 1e-9 * s:
                break
        if not 0.0 < x1 < 1.0:  # the test rejects nothing up to the edge, or the bracket decides
            edge = 0.0 if side < 0 else 1.0
            if not _wild_rejects(sums, squares, edge, th, s, sum_m2, sum_m, kth):
                return edge
            break
        if side * (x1 - th) <= delta:
            break
        if not _wild_rejects(sums, squares, x1 - side * delta, th, s, sum_m2, sum_m, kth) and _wild_rejects(
            sums, squares, x1 + side * delta, th, s, sum_m2, sum_m, kth
        ):
            return x1
        beta = x1
    return _wild_bracketed(sums, squares, th, s, sum_m2, sum_m, start, side, kth, iters, buffer)


@_kernel(nogil=True, cache=True, error_model="numpy")
def _wild_bounds(first, second, seeds, webb, theta, se, start, kth, iters, reps, lower, upper):
    """The bounds of ``{beta: p(beta) > alpha}``, the restricted wild bootstrap's test inverted, per row.

    Each row draws its ``reps`` replicates' sums (:func:`_wild_row`) into buffers that stay in cache,
    then finds each bound (:func:`_wild_bound`).  ``p(beta)`` is the share of |t*(beta)| at or above
    |t(beta)| = |theta - beta| / se: the test rejects where |t(beta)| passes the ``kth`` smallest
    |t*(beta)| (:func:`_wild_excess`).
    """
    rows, k = first.shape[0], first.shape[1]
    table = np.empty(((k + 7) // 8, 256, 4))
    sums, squares = np.empty((reps, 4)), np.empty((reps, 3))
    buffer, work = np.empty(reps), np.empty(reps)
    for r in range(rows):
        th, s = theta[r], se[r]
        if not s > 0:
            lower[r] = upper[r] = np.nan
            continue
        _wild_row(first[r], second[r], seeds[r], webb, table, sums, squares)
        if not webb:  # v^2 = 1: the sums of squares are the sample's own in every replicate
            for c in range(3):
                squares[:, c] = second[r, :, c].sum()
        sum_m2, sum_m = first[r, :, 3].sum(), first[r, :, 1].sum()
        lower[r] = _wild_bound(sums, squares, th, s, sum_m2, sum_m, start[r], -1.0, kth, iters, buffer, work, webb)
        upper[r] = _wild_bound(sums, squares, th, s, sum_m2, sum_m, start[r], 1.0, kth, iters, buffer, work, webb)


@_kernel(nogil=True, cache=True, error_model="numpy")
def _wild_tstats(first, second, sum_m2, sum_m, beta, out):
    """|t*| of every replicate of every row under that row's null ``beta[r]``."""
    rows, reps = first.shape[0], first.shape[1]
    for r in range(rows):
        for b in range(reps):
            out[r, b] = np.sqrt(_wild_t2(first[r], second[r], b, beta[r], sum_m2[r], sum_m[r]))


class WildSums(NamedTuple):
    """The restricted wild bootstrap's replicates of rows of documents, as sums the null enters linearly."""

    first: np.ndarray  # (rows, B, 4): sums of v (Y, m, Y m, m^2)
    second: np.ndarray  # (rows, B, 3): sums of v^2 (Y^2, Y m, m^2); v^2 = 1 for Rademacher weights
    sum_m2: np.ndarray  # (rows,) sum m^2
    sum_m: np.ndarray  # (rows,) sum m


def _wild_columns(y, m):
    """The per-document columns the wild sums weigh: (Y, m, Y m, m^2) by v and (Y^2, Y m, m^2) by v^2."""
    y, m = np.asarray(y, dtype=np.float64), np.asarray(m, dtype=np.float64)
    return np.ascontiguousarray(np.stack([y, m, y * m, m * m], -1)), np.ascontiguousarray(
        np.stack([y * y, y * m, m * m], -1)
    )


def wild_sums(y, m, reps: int, seeds: np.ndarray, *, webb: bool) -> WildSums:
    """Wild bootstrap sums of rows ``y``, ``m`` (rows, K): one weight per document and replicate, one stream per row.

    ``seeds`` (:func:`row_seeds`, as :func:`ratio_replicates`' streams): results do not depend on
    how rows are split across threads, and :func:`wild_bounds` reads the same replicates.
    """
    compile_kernels()
    rows, k = np.shape(y)
    first, squares = _wild_columns(y, m)
    out_first = np.empty((rows, reps, 4))
    if webb:
        second, out_second = squares, np.empty((rows, reps, 3))
    else:  # v^2 = 1: the second sums are the sample's own, the same in every replicate
        second, out_second = np.empty((rows, k, 0)), np.empty((rows, reps, 0))
    _on_row_blocks(
        lambda f, s, sd, o1, o2: _wild_sums(f, s, sd, webb, o1, o2),
        rows,
        rows * reps,
        (first, second, np.asarray(seeds, dtype=np.uint64), out_first, out_second),
    )
    if not webb:
        out_second = np.ascontiguousarray(np.broadcast_to(squares.sum(1)[:, None, :], (rows, reps, 3)))
    return WildSums(out_first, out_second, first[..., 3].sum(-1), first[..., 1].sum(-1))


def wild_bounds(
    y, m, seeds, theta, se, start, *, reps: int, webb: bool, kth: int, iters: int
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds (rows,) of the inverted restricted wild bootstrap test (:func:`_wild_bounds`).

    ``seeds`` (:func:`row_seeds`): the rows' streams, so that a row's bounds use the replicates
    :func:`wild_sums` draws from the same seed.
    """
    compile_kernels()
    rows = np.shape(y)[0]
    lower, upper = np.empty(rows), np.empty(rows)
    arrays = (*_wild_columns(y, m), seeds, *(np.ascontiguousarray(a, dtype=float) for a in (theta, se, start)))
    _on_row_blocks(
        lambda f, s, sd, th, se_, st, lo, hi: _wild_bounds(f, s, sd, webb, th, se_, st, kth, iters, reps, lo, hi),
        rows,
        rows * reps * 8,
        (*arrays, lower, upper),
    )
    return lower, upper


def wild_tstats(sums: WildSums, beta) -> np.ndarray:
    """|t*| (rows, B) of every replicate under each row's null ``beta`` (rows,)."""
    compile_kernels()
    out = np.empty(sums.first.shape[:2])
    _wild_tstats(sums.first, sums.second, sums.sum_m2, sums.sum_m, np.ascontiguousarray(beta, dtype=float), out)
    return out
