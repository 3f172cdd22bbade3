"""Coverage by repeated resampling: the loaded data are the population of D documents.

Each repetition draws K of the D documents without replacement (the design
being evaluated) and computes every interval with the same batch kernels
``interval_report`` uses; coverage is the share of repetitions whose interval
holds the population value, among those where the interval is defined.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import batches
from .bootstrap import check_boot
from .intervals import interval_arrays
from .linearization import check_options, chunk_variance, point_estimate
from .methods import interval_methods
from .recommend import RECOMMENDED_METHOD, SPAN_METHOD, WILD_METHOD, recommended_methods
from .sample import ClusterStats, check_k
from .wild import span

CONTROLS = (None, "iid")


@dataclass(frozen=True)
class MethodCoverage:
    """How one interval method did over the repetitions.

    Coverage is over the repetitions where its interval is defined (no NaN bound): an
    undefined interval (studentized at K = 2, a BCa level that does not exist) is not a miss.
    NaN for a method undefined in every repetition.
    """

    coverage: float  # share of its defined intervals that hold the population value
    mcse: float  # Monte Carlo SE of that share
    undefined: int  # repetitions where its interval is undefined
    width: float  # mean width (upper - lower) of its defined intervals
    se_mean: float | None  # mean estimated SE (None: the method has no SE of its own)
    lower: np.ndarray  # (R,) lower bounds
    upper: np.ndarray  # (R,) upper bounds


@dataclass(frozen=True)
class CoverageResult:
    estimator: str
    level: float
    k: int
    reps: int
    boot: int
    population_docs: int
    population_chunks: int
    population_value: float
    control: str | None  # None or "iid"
    two_stage_fraction: float | None
    methods: dict[str, MethodCoverage]  # method -> how it did, in display order
    sd_empirical: float  # SD of the estimator across repetitions
    variance_ratio: float  # empirical variance / binomial reference variance (binomial_sd**2)
    estimates: np.ndarray  # (R,) estimator in each repetition
    n_chunks: np.ndarray  # (R,) chunks in each repetition's sample
    # Pairs read straight off the result, population quantities: the binomial reference is p(1-p) over
    # a sample's expected chunks K N / D, and "Bernoulli-equivalent n" is expected chunks / variance ratio.
    variance_ratio_linearization: float  # predicted (linearization) variance / binomial reference variance
    binomial_sd: float  # sqrt(p(1-p) / expected chunks), p(1-p) of the population: the binomial reference SD
    linearization_sd: float  # sqrt(predicted_variance(...)): what the linearization predicts for this design
    bernoulli_n_empirical: float  # p(1-p) of the population / empirical variance
    bernoulli_n_linearization: float  # p(1-p) of the population / predicted variance
    mean_chunks: float  # mean chunks per repetition's sample (expected: K N / D, kept chunks for two stages)
    # The default recommended method (stats.recommend.RECOMMENDED_METHOD); None when it did not run.
    recommended: str | None = None
    # The interval stats.recommend chose for each repetition's sample (the default, or its span with the
    # wild bootstrap on the samples recommended_methods picks), when both ran; the JSON gives its coverage,
    # MC SE, undefined count and width under "recommended" (else the default's).
    recommended_choice: MethodCoverage | None = None

    def _by_method(self, field: str) -> dict:
        """``field`` of every method and, under "recommended", the recommended interval's."""
        by_method = {name: getattr(m, field) for name, m in self.methods.items()}
        if self.recommended is None:
            return by_method
        chosen = (
            by_method[self.recommended] if self.recommended_choice is None else getattr(self.recommended_choice, field)
        )
        return {**by_method, "recommended": chosen}

    def to_dict(self) -> dict:
        """JSON contract of ``ragunc simulate`` (no per-repetition arrays)."""
        return {
            "estimator": self.estimator,
            "level": self.level,
            "population": {
                "n_docs": self.population_docs,
                "n_chunks": self.population_chunks,
                "value": self.population_value,
            },
            "k": self.k,
            "reps": self.reps,
            "boot": self.boot,
            "control": self.control,
            "two_stage_fraction": self.two_stage_fraction,
            "coverage": self._by_method("coverage"),
            "coverage_mcse": self._by_method("mcse"),
            "undefined": self._by_method("undefined"),
            "width": self._by_method("width"),
            "sd_empirical": self.sd_empirical,
            "se_mean": {name: m.se_mean for name, m in self.methods.items() if m.se_mean is not None},
            "variance_ratio": self.variance_ratio,
            "variance_ratio_linearization": self.variance_ratio_linearization,
            "binomial_sd": self.binomial_sd,
            "linearization_sd": self.linearization_sd,
            "bernoulli_n_empirical": self.bernoulli_n_empirical,
            "bernoulli_n_linearization": self.bernoulli_n_linearization,
            "mean_chunks": self.mean_chunks,
        }


def _check(population: ClusterStats, k: int, reps: int, boot: int, control, two_stage_fraction) -> None:
    check_k(k, population.n_docs, most=population.n_docs - 1)  # all D would repeat one sample
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    check_boot(boot, none=True)
    if control not in CONTROLS:
        raise ValueError(f"control must be None or 'iid', got {control!r}")
    if two_stage_fraction is not None and not 0 < two_stage_fraction <= 1:
        raise ValueError(f"two_stage_fraction must be in (0, 1], got {two_stage_fraction}")
    if not population.binary and (control is not None or two_stage_fraction is not None):
        # Both need individual chunk values; sufficient statistics of scores
        # (sum, sum of squares) do not determine a permutation or a subsample.
        raise ValueError("control='iid' and two_stage_fraction need 0/1 y; this population has non-binary scores")


def check_samples(samples, d: int, k: int, draws: int | None = None) -> None:
    """Raise ``ValueError`` unless ``samples`` is None or ``(draws, k)`` document positions in range(d)."""
    if samples is None:
        return
    shape = np.shape(samples)
    if len(shape) != 2 or shape[1] != k or (shape[0] != draws if draws is not None else shape[0] < 2):
        want = f"({draws}, {k})" if draws is not None else f"(draws >= 2, {k})"
        raise ValueError(f"samples must hold the documents of each draw, shape {want}, got {shape}")
    if np.min(samples) < 0 or np.max(samples) >= d:
        raise ValueError(f"samples must be document positions from 0 to {d - 1}")


def interval_coverage(lower: np.ndarray, upper: np.ndarray, value: float) -> tuple[float, float, int, float]:
    """``(coverage, Monte Carlo SE, undefined, mean width)`` of per-repetition bounds against ``value``.

    A repetition whose interval has a NaN bound is undefined: it is left out of the
    coverage, its SE and the width rather than counted as a miss.
    """
    defined = ~(np.isnan(lower) | np.isnan(upper))
    n = int(defined.sum())
    if n == 0:
        return float("nan"), float("nan"), int(lower.size), float("nan")
    low, high = lower[defined], upper[defined]
    held = float(np.mean((low <= value) & (value <= high)))
    return held, float(np.sqrt(held * (1 - held) / n)), int(lower.size - n), float((high - low).mean())


def random_subsets(rng: np.random.Generator, d: int, k: int, n: int) -> np.ndarray:
    """``n`` independent uniform k-subsets of range(d), as an (n, k) index array.

    When k^2 <= d most k-tuples of independent uniform draws have no repeat
    (probability about exp(-k^2 / 2d) >= 0.6): rejecting the rows with a repeat
    leaves uniform subsets cheaply.  For larger k, Floyd's algorithm (Bentley &
    Floyd 1987) runs on every row at once: k steps of n draws, whatever d is,
    where ranking d random keys per row would cost n * d.
    """
    if k * k > d:
        return _floyd_subsets(rng, d, k, n)
    out = rng.integers(0, d, (n, k))
    redo = np.arange(n)
    while redo.size:
        ordered = np.sort(out[redo], axis=1)
        redo = redo[(ordered[:, 1:] == ordered[:, :-1]).any(axis=1)]
        out[redo] = rng.integers(0, d, (redo.size, k))
    return out


def _floyd_subsets(rng: np.random.Generator, d: int, k: int, n: int) -> np.ndarray:
    """Floyd's k-subset of range(d) for each of ``n`` rows: step j draws t in [0, j] and takes j if t is taken."""
    out = np.empty((k, n), dtype=np.int64)
    batch = batches.batch_rows(d, n)  # a row of the membership table: d booleans
    for start in range(0, n, batch):
        rows = min(batch, n - start)
        base = np.arange(rows, dtype=np.int64) * d  # row r's cells in the flat membership table
        taken = np.zeros(rows * d, dtype=bool)
        uniform = rng.random((k, rows))
        for i, j in enumerate(range(d - k, d)):
            t = (uniform[i] * (j + 1)).astype(np.int64)
            t = np.where(taken[base + t], j, t)
            taken[base + t] = True
            out[i, start : start + rows] = t
    return out.T


def predicted_variance(sum_y, n, k: int, estimator: str = "micro", kept=None) -> float:
    """Variance of the estimator over draws of ``k`` of these D documents, predicted by linearization.

    A property of the population and the design (what the linearization
    predicts), not the mean of the per-sample estimates, which
    runs low at small K.  Micro (ratio, first order): ``(1 - K/D) S_u^2 / (K c^2)``
    with ``u_d = c_d (r_d - R)``, ``R = sum(c r) / sum(c)``, ``c`` the chunks
    observed per document (``kept``, default all of them) and ``c^2`` the square
    of their mean; macro: ``(1 - K/D) S_r^2 / K``.  With ``kept`` < ``n``
    (two stages) each drawn document adds the hypergeometric variance of its
    kept hits, ``c_d r_d (1 - r_d) (m_d - c_d) / (m_d - 1)``, averaged over the
    D documents (divided by ``c_d^2`` for macro).
    """
    sum_y, n = np.asarray(sum_y, dtype=float), np.asarray(n, dtype=float)
    kept = n if kept is None else np.asarray(kept, dtype=float)
    d = n.size
    rate = sum_y / n
    within = kept * rate * (1 - rate) * (n - kept) / np.maximum(n - 1, 1)  # 0 when every chunk is kept
    if estimator == "micro":
        u = kept * (rate - (kept * rate).sum() / kept.sum())
        return float(((1 - k / d) * (u**2).sum() / (d - 1) + within.mean()) / (k * kept.mean() ** 2))
    return float(((1 - k / d) * rate.var(ddof=1) + (within / kept**2).mean()) / k)


def iid_control(population: ClusterStats, rng: np.random.Generator) -> ClusterStats:
    """The population with y permuted across all chunks (document structure destroyed).

    For 0/1 y a uniform permutation only matters through how many hits land in
    each document: one multivariate hypergeometric draw of the total hits into
    documents of sizes m_d.
    """
    hits = rng.multivariate_hypergeometric(population.n, int(round(population.sum_y.sum())))
    hits = hits.astype(np.float64)
    return ClusterStats(
        cluster_id=population.cluster_id,
        sum_y=hits,
        n=population.n,
        sum_y2=hits,
        label=population.label,
        config=population.config,
    )


def coverage_experiment(
    population: ClusterStats,
    *,
    k: int,
    reps: int,
    boot: int = 1000,
    estimator: str = "micro",
    level: float = 0.95,
    control: str | None = None,
    two_stage_fraction: float | None = None,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int, int], None] | None = None,
    studentized: bool = True,
    samples: np.ndarray | None = None,
    methods: Sequence[str] | None = None,
) -> CoverageResult:
    """Draw K documents without replacement R times and compute every interval each time.

    ``progress(done, total)`` is called after each batch of repetitions.

    The linearization intervals use the FPC 1 - K/D of this single-stage
    design.  With ``two_stage_fraction=f`` each drawn document keeps
    max(1, round(f m_d)) of its chunks at random (hits kept are hypergeometric)
    and no FPC is applied: the with-replacement (ultimate cluster) variance is
    the usual conservative estimator for two stages.  The kept counts are only
    roughly proportional to m_d (rounded, at least one), so the micro estimator
    weighs short documents a little more than the single-stage one does: when
    hit rates depend on document length this shows as bias against the
    population value, on top of the ratio estimator's own small-K bias.  ``control="iid"`` first
    permutes y across all chunks once (see :func:`iid_control`).  Both need 0/1 y.
    ``boot=0`` skips the bootstrap methods; ``studentized=False`` skips only the
    studentized bootstrap (the costliest: percentile and BCa are kept); ``methods`` names
    the methods to run (default: every registered one).  ``samples``
    (reps, K), the documents of each repetition, replaces the random draws (e.g. nested
    samples, :func:`~ragunc.stats.sample.nested_orders`); ``rng`` then seeds the bootstrap only.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> n = rng.integers(1, 60, 400)
    >>> hits = rng.binomial(n, rng.beta(0.5, 2.0, 400)).astype(float)
    >>> population = ClusterStats(np.arange(400).astype(str), hits, n, hits)
    >>> result = coverage_experiment(population, k=20, reps=500, boot=200, rng=1)
    >>> result.methods["naive"].coverage < 0.8 < result.methods["cluster_t"].coverage
    True
    """
    check_options(estimator, level)
    _check(population, k, reps, boot, control, two_stage_fraction)
    check_samples(samples, population.n_docs, k, reps)
    rng = np.random.default_rng(rng)
    if control == "iid":
        population = iid_control(population, rng)
    d = population.n_docs
    sum_y, n, sum_y2 = population.sum_y, population.n, population.sum_y2
    value = float(point_estimate(sum_y, n, estimator))
    fpc = 1.0 if two_stage_fraction is not None else 1.0 - k / d
    methods = [m for m in interval_methods(methods, resampling=bool(boot)) if studentized or not m.needs_replicate_se]
    names = [m.name for m in methods]

    estimates = np.empty(reps)
    n_chunks = np.empty(reps, dtype=np.int64)
    lower = {m: np.empty(reps) for m in names}
    upper = {m: np.empty(reps) for m in names}
    se = {m.name: np.empty(reps) for m in methods if m.has_se}
    # A repetition holds boot * K/2 pair draws, and random_subsets' Floyd path (k^2 > d) a cell per
    # population document: 8 bytes each.
    batch = batches.batch_rows(8 * max(boot * k // 2, d if k * k > d else k, 1), reps)
    choosing = {RECOMMENDED_METHOD, WILD_METHOD} <= set(names)
    chosen = {b: np.empty(reps) for b in ("lower", "upper")}
    for start in range(0, reps, batch):
        stop = min(reps, start + batch)
        sl = slice(start, stop)
        idx = random_subsets(rng, d, k, stop - start) if samples is None else samples[sl]
        y, m, s = sum_y[idx], n[idx], sum_y2[idx]
        if two_stage_fraction is not None:
            keep = np.maximum(1, np.rint(two_stage_fraction * m)).astype(np.int64)
            y = rng.hypergeometric(y.astype(np.int64), m - y.astype(np.int64), keep).astype(np.float64)
            m, s = keep, y
        arr = interval_arrays(y, m, s, estimator=estimator, level=level, fpc=fpc, methods=names, reps=boot, rng=rng)
        estimates[sl], n_chunks[sl] = arr.estimate, arr.n_chunks
        for name in names:
            lower[name][sl], upper[name][sl] = arr.lower[name], arr.upper[name]
        for name, values in se.items():
            values[sl] = arr.se[name]
        if choosing:
            both = recommended_methods(y, m, estimator=estimator) == SPAN_METHOD
            lo, hi = arr.lower, arr.upper
            spans = span(lo[RECOMMENDED_METHOD], hi[RECOMMENDED_METHOD], lo[WILD_METHOD], hi[WILD_METHOD])
            for bound, default, spanned in zip(
                ("lower", "upper"), (lo[RECOMMENDED_METHOD], hi[RECOMMENDED_METHOD]), spans
            ):
                chosen[bound][sl] = np.where(both, spanned, default)
        if progress is not None:
            progress(stop, reps)

    by_method = {
        name: MethodCoverage(
            *interval_coverage(lower[name], upper[name], value),
            se_mean=float(se[name].mean()) if name in se else None,
            lower=lower[name],
            upper=upper[name],
        )
        for name in names
    }
    var_emp = float(estimates.var(ddof=1)) if reps > 1 else float("nan")
    pq = float(chunk_variance(sum_y, n, sum_y2, value))
    kept = n if two_stage_fraction is None else np.maximum(1, np.rint(two_stage_fraction * n))
    binomial_ref = pq / (k * kept.mean())  # p(1-p) over the expected chunks of one sample
    predicted = predicted_variance(sum_y, n, k, estimator, kept)
    with np.errstate(divide="ignore", invalid="ignore"):
        return CoverageResult(
            estimator=estimator,
            level=level,
            k=k,
            reps=reps,
            boot=boot,
            population_docs=d,
            population_chunks=population.n_chunks,
            population_value=value,
            control=control,
            two_stage_fraction=two_stage_fraction,
            methods=by_method,
            sd_empirical=float(np.sqrt(var_emp)),
            variance_ratio=float(np.divide(var_emp, binomial_ref)),
            estimates=estimates,
            n_chunks=n_chunks,
            variance_ratio_linearization=float(np.divide(predicted, binomial_ref)),
            binomial_sd=float(np.sqrt(binomial_ref)),
            linearization_sd=float(np.sqrt(predicted)),
            bernoulli_n_empirical=float(np.divide(pq, var_emp)),
            bernoulli_n_linearization=float(np.divide(pq, predicted)),
            mean_chunks=float(n_chunks.mean()),
            recommended=RECOMMENDED_METHOD if RECOMMENDED_METHOD in names else None,
            recommended_choice=MethodCoverage(
                *interval_coverage(chosen["lower"], chosen["upper"], value),
                se_mean=None,
                lower=chosen["lower"],
                upper=chosen["upper"],
            )
            if choosing
            else None,
        )
