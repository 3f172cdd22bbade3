"""Every K of the explorer at once: one table of what a sample of K documents shows, for K = 2..D.

The samples are nested: one seeded permutation of the D documents
(:func:`~ragunc.stats.sample.nested_orders`), the sample at K being its first K documents, so
that moving K adds or removes one document.  Coverage comes from R more permutations, nested
too: repetition r at K is the first K documents of permutation r, and a smaller R is the
first R repetitions.  Each row holds what the single-K functions give on that sample
(:func:`~ragunc.stats.intervals.interval_estimates`, :func:`~ragunc.stats.diagnostics.diagnostics`,
:func:`~ragunc.stats.design.design` and :func:`~ragunc.stats.coverage.coverage_experiment` on the
same nested repetitions), computed for every K in one pass: cumulative sums along each
permutation, and a compiled scan for the residual sums of squares and the Bell–McCaffrey
degrees of freedom (:func:`~ragunc.stats.bootstrap_kernels.prefix_scan`), which have no
cumulative form.  The analytic interval kernels of the registry run on every (repetition, K)
at once; Korn–Graubard's coverage decides most repetitions from its thresholds on the
estimate (:func:`_korn_graubard_holds`) and computes the others' bounds.  The bootstrap,
which has no closed form, is :func:`nested_bootstrap` at one K.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .bootstrap_kernels import prefix_scan
from .coverage import CoverageResult, predicted_variance
from .design import naive_coverage
from .diagnostics import bernoulli_equivalent_n, design_effect, effective_n, icc_anova, k_over_rho
from .explore import explore
from .intervals import IntervalReport
from .linearization import Linearized, check_options, chunk_variance, point_estimate
from .methods import interval_methods
from .proportion import ROUNDING_VARIANCE, korn_graubard_interval
from .recommend import RECOMMENDED_METHOD, WILD_SHARE
from .sample import ClusterStats, nested_orders, nested_sample

__all__ = ["KTable", "k_table", "nested_bootstrap", "nested_sample"]

# Significant digits of the table's numbers in the payload the browser receives.
PAYLOAD_DIGITS = 6
# The analytic methods whose kernels read only a row's sums (and the Bell–McCaffrey df), so that
# every K is one row of a batch.
ROW_METHODS = (
    "naive",
    "wilson",
    "cluster",
    "cluster_t",
    "cluster_wilson",
    "korn_graubard",
    "logit",
    "korn_graubard_bm",
)
# The methods whose coverage is decided by thresholds (:func:`_korn_graubard_holds`).  The
# macro mean's Bell–McCaffrey df is K - 1, so its interval is R's.
KORN_GRAUBARD = ("korn_graubard", "korn_graubard_bm")
# Cells (repetitions x K) of one batch of repetitions: bounds the memory a table holds at once.
BATCH_CELLS = 1 << 21
# Korn–Graubard's coverage: the grid of effective n on which its thresholds are found (ratio of
# neighbours), the bisection's steps, and how far from a threshold an estimate is decided by it.
N_GRID_RATIO = 1.02
DF_GRID_RATIO = 1.002
BISECTION_STEPS = 36
# The largest effective n the grid reaches: beyond it (a sample of near-equal rates) the bounds are computed.
MAX_GRID_N = 1e7
DECIDED_MARGIN = 1e-8


@dataclass(frozen=True)
class KTable:
    """What the explorer shows at every K = 2..D, one row per K (columns: see :func:`k_table`)."""

    k: np.ndarray  # (D - 1,) int: 2..D
    columns: dict[str, np.ndarray]  # name -> float array aligned with k (NaN where undefined)
    methods: tuple[str, ...]  # the analytic interval methods covered, in METHODS order
    recommended: str  # the recommended method (stats.recommend)
    population_value: float
    population_icc: float
    population_docs: int  # D
    reps: int  # R: coverage repetitions (and the micro design's draws)
    estimator: str
    level: float
    seed: int
    order: np.ndarray  # (D,) the seeded permutation: the sample at K is the documents order[:K]

    def row(self, k: int) -> dict[str, float]:
        """Every column at ``k``."""
        i = int(k) - 2
        if not 0 <= i < self.k.size:
            raise ValueError(f"k must be from 2 to {self.population_docs}, got {k!r}")
        return {name: float(values[i]) for name, values in self.columns.items()}

    def to_payload(self) -> dict:
        """JSON-ready: the columns as lists of numbers rounded to 6 significant digits.

        JSON has no NaN or infinity: both are null (undefined, or unbounded as an effective n
        without a design effect, K/rho at rho <= 0).
        """
        return {
            "k": self.k.tolist(),
            "columns": {name: _rounded(values) for name, values in self.columns.items()},
            "methods": list(self.methods),
            "recommended": self.recommended,
            "population_value": self.population_value,
            "population_icc": self.population_icc,
            "n_docs": self.population_docs,
            "reps": self.reps,
            "estimator": self.estimator,
            "level": self.level,
            "seed": self.seed,
        }


def _rounded(values: np.ndarray) -> list:
    return [None if not math.isfinite(v) else float(f"{v:.{PAYLOAD_DIGITS}g}") for v in values.tolist()]


def table_methods() -> tuple[str, ...]:
    """The registered analytic methods the table covers, in display order."""
    return tuple(m.name for m in interval_methods(resampling=False) if m.name in ROW_METHODS)


@dataclass(frozen=True)
class _Prefixes:
    """Each row's first K documents for K = 2..D: arrays (rows, D - 1), what the analytic kernels read."""

    k: np.ndarray  # (D - 1,)
    n_chunks: np.ndarray
    estimate: np.ndarray
    binomial_variance: np.ndarray
    cluster_variance: np.ndarray  # FPC 1 - K/D applied
    df: np.ndarray | None  # micro: Bell–McCaffrey df

    def part(self, rows, ks: slice) -> "_Prefixes":
        """These ``rows`` at these K (``ks`` indexes ``k``)."""
        return _Prefixes(
            **{
                name: value[ks] if name == "k" else None if value is None else value[rows, ks]
                for name, value in vars(self).items()
            }
        )

    def linearized(self, level: float, estimator: str) -> Linearized:
        return Linearized(
            estimate=self.estimate,
            n_chunks=self.n_chunks,
            n_docs=self.k,
            binomial_variance=self.binomial_variance,
            cluster_variance=self.cluster_variance,
            level=level,
            estimator=estimator,
            df_bell_mccaffrey=self.df,
        )


def _cumulative(values: np.ndarray) -> np.ndarray:
    """Sums over each row's first K entries, K = 2..D."""
    return np.cumsum(values, axis=-1)[..., 1:]


def _prefixes(population: ClusterStats, orders: np.ndarray, estimator: str) -> _Prefixes:
    d = population.n_docs
    y, m = population.sum_y[orders], population.n[orders].astype(float)
    k = np.arange(2, d + 1)
    hits, chunks = _cumulative(y), _cumulative(m)
    micro = estimator == "micro"
    estimate = hits / chunks if micro else _cumulative(y / m) / k
    if population.binary:
        pq = estimate * (1 - estimate)
    else:  # chunk_variance: p(1 - p) while every y so far is 0 or 1, else the chunks' spread
        s = population.sum_y2[orders]
        binary = np.logical_and.accumulate(s == y, axis=-1)[..., 1:]
        spread = np.maximum(_cumulative(s) / chunks - (hits / chunks) ** 2, 0.0)
        pq = np.where(binary, estimate * (1 - estimate), spread)
    ss, df = prefix_scan(y, m, micro=micro)
    ss = ss[..., 1:]
    fpc = 1 - k / d
    # micro: residuals (y_d - p m_d) K / N, so sum e^2 = SS K^2 / N^2; macro: r_d - mean(r)
    cluster = fpc * (ss * k / (chunks**2 * (k - 1)) if micro else ss / (k * (k - 1)))
    return _Prefixes(
        k=k,
        n_chunks=chunks,
        estimate=estimate,
        binomial_variance=pq / chunks,
        cluster_variance=cluster,
        df=None if df is None else df[..., 1:],
    )


def _k_table_iv(population: ClusterStats, estimator: str, level: float, seed, reps) -> None:
    check_options(estimator, level)
    if population.n_docs < 3:
        raise ValueError(f"the population needs at least 3 documents for a table of K = 2..D, got {population.n_docs}")
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 2:
        raise ValueError(f"reps must be a whole number >= 2, got {reps!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")


def k_table(
    population: ClusterStats, *, estimator: str = "micro", level: float = 0.95, seed: int = 0, reps: int = 1000
) -> KTable:
    """The explorer's table of every K = 2..D for nested samples of the population (seeded by ``seed``).

    Columns, each aligned with ``k`` (NaN where undefined):

    * this sample: ``n_chunks``, ``estimate``; for every covered method m ``{m}_low``, ``{m}_high``
      and ``{m}_se`` (when it has an SE); ``recommended_low``, ``recommended_high``, ``recommended_df``;
      ``deff``, ``icc``, ``n_eff``, ``bernoulli_n``, ``k_over_rho``, ``cluster_variance``,
      ``binomial_variance``, ``documents_with_hits``, ``documents_with_misses``; ``g_star``, ``g_star_rho0``
      and ``max_leverage`` (:func:`~ragunc.stats.leverage.leverage`); the recommended columns hold the
      default method's interval, and ``recommended_wild`` is 1 where the recommendation is its span with the
      wild bootstrap instead (a resampling interval, computed for one K by :func:`nested_bootstrap`);
    * the design at K: ``design_sd``, ``design_binomial_sd``, ``design_deff``, ``design_deff_mcse``,
      ``design_n_eff``, ``design_chunks`` (expected chunks), ``design_naive_coverage``, ``design_draws``,
      ``design_linearization_sd`` (what the linearization predicts); the micro design's SD is measured on
      the R nested repetitions;
    * over the R nested repetitions (NaN at K = D): ``coverage_{m}``, ``coverage_{m}_mcse``,
      ``coverage_{m}_undefined`` for every covered method and the same under ``recommended``,
      ``coverage_{m}_se_mean`` for a method with an SE, ``coverage_sd`` (the estimate's SD over the
      repetitions), ``coverage_variance_ratio`` (their variance over the binomial one) and
      ``coverage_mean_chunks``.
    """
    _k_table_iv(population, estimator, level, seed, reps)
    d = population.n_docs
    orders = nested_orders(d, 1 + reps, seed)
    methods = table_methods()
    sum_y, n, sum_y2 = population.sum_y, population.n, population.sum_y2
    value = float(point_estimate(sum_y, n, estimator))
    pq = float(chunk_variance(sum_y, n, sum_y2, value))
    sample = _prefixes(population, orders[:1], estimator).part(0, slice(None))
    tally = _Tally(methods, sample.k[:-1], value, level, estimator)
    batch = max(1, BATCH_CELLS // d)
    for start in range(1, 1 + reps, batch):  # batches of repetitions: the memory held at once is bounded
        tally.add(_prefixes(population, orders[start : start + batch], estimator).part(slice(None), slice(None, -1)))
    columns = {
        **_sample_columns(population, orders[0], sample, methods, level, estimator),
        **_design_columns(population, sample.k, tally, pq, estimator),
        **tally.columns(pq / float(n.mean())),
    }
    return KTable(
        k=sample.k,
        columns=columns,
        methods=methods,
        recommended=RECOMMENDED_METHOD,
        population_value=value,
        population_icc=icc_anova(sum_y, n, sum_y2),
        population_docs=d,
        reps=int(reps),
        estimator=estimator,
        level=float(level),
        seed=int(seed),
        order=orders[0],
    )


def _sample_columns(population, order, p: _Prefixes, methods, level, estimator) -> dict[str, np.ndarray]:
    """The sample's intervals and diagnostics at every K (as interval_estimates and diagnostics); ``p``: its prefixes."""
    lin = p.linearized(level, estimator)
    columns = {"n_chunks": p.n_chunks, "estimate": p.estimate}
    for method in interval_methods(methods):
        se, low, high = method.kernel(lin)
        columns[f"{method.name}_low"], columns[f"{method.name}_high"] = low, high
        if method.has_se:
            columns[f"{method.name}_se"] = se
    columns["recommended_low"] = columns[f"{RECOMMENDED_METHOD}_low"]
    columns["recommended_high"] = columns[f"{RECOMMENDED_METHOD}_high"]
    columns["recommended_df"] = p.df if estimator == "micro" else (p.k - 1).astype(float)
    y, m, s = population.sum_y[order], population.n[order].astype(float), population.sum_y2[order]
    k, n_chunks = p.k, p.n_chunks
    deff = design_effect(p.cluster_variance, p.binomial_variance)
    icc = _icc(k, n_chunks, _cumulative(y), _cumulative(s), _cumulative(y * y / m), _cumulative(m * m))
    return columns | {
        "deff": deff,
        "icc": icc,
        "n_eff": effective_n(n_chunks, deff),
        "bernoulli_n": bernoulli_equivalent_n(p.binomial_variance * n_chunks, p.cluster_variance),
        "k_over_rho": k_over_rho(k, icc),
        "cluster_variance": p.cluster_variance,
        "binomial_variance": p.binomial_variance,
        "documents_with_hits": _cumulative(y > 0).astype(float),
        "documents_with_misses": _cumulative(y < m).astype(float),
        **_leverage_columns(k, m, icc, y, estimator),
    }


def _leverage_columns(k, m, icc, y, estimator) -> dict[str, np.ndarray]:
    """:func:`~ragunc.stats.leverage.leverage`'s G* and max leverage of each prefix, and where
    :func:`~ragunc.stats.recommend.recommended_methods` names the default's span with the wild bootstrap.

    With ``gamma_d = m_d (1 + rho (m_d - 1))``, G* = (sum gamma)^2 / sum gamma^2 expands in the
    prefix sums of m, m^2, m^3 and m^4, so every K costs one cumulative sum of each.
    """
    m1, m2, m3, m4 = (_cumulative(m**j) for j in (1, 2, 3, 4))
    rho = np.where(np.isfinite(icc), np.clip(icc, 0.0, 1.0), 0.0)
    if estimator == "macro":
        g_star = g_star_rho0 = k.astype(float)
        max_leverage = 1.0 / k
    else:
        gamma = (1 - rho) * m1 + rho * m2
        gamma_sq = (1 - rho) ** 2 * m2 + 2 * rho * (1 - rho) * m3 + rho**2 * m4
        g_star, g_star_rho0 = gamma**2 / gamma_sq, m1**2 / m2
        max_leverage = np.maximum.accumulate(m)[1:] / m1
    few = np.minimum(_cumulative(y > 0), _cumulative(y < m))
    wild = (few > 0) & (g_star_rho0 < WILD_SHARE * k) & (estimator == "micro")
    return {
        "g_star": g_star,
        "g_star_rho0": g_star_rho0,
        "max_leverage": max_leverage,
        "recommended_wild": wild.astype(float),
    }


def _icc(k, n_chunks, sum_y, sum_y2, sum_y_sq_over_n, sum_n2) -> np.ndarray:
    """:func:`~ragunc.stats.diagnostics.icc_anova` of each prefix, from its sums (of y, y^2, Y_d^2 / m_d, m_d^2)."""
    within = sum_y2 - sum_y_sq_over_n
    msb = (sum_y_sq_over_n - sum_y**2 / n_chunks) / (k - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        msw = np.where(n_chunks > k, within / np.where(n_chunks > k, n_chunks - k, 1), np.nan)
        m0 = (n_chunks - sum_n2 / n_chunks) / (k - 1)
        return (msb - msw) / (msb + (m0 - 1) * msw)


def _design_columns(population: ClusterStats, k: np.ndarray, tally: "_Tally", pq, estimator) -> dict[str, np.ndarray]:
    """:func:`~ragunc.stats.design.design` at every K, the micro SD measured on the R nested repetitions."""
    d = population.n_docs
    expected = k * population.n_chunks / d
    binomial_var = pq / expected
    if estimator == "macro":
        rates = population.sum_y / population.n
        variance = (1 - k / d) * float(rates.var(ddof=1)) / k
        draws, var_se = np.zeros(k.size), np.zeros(k.size)
    else:  # K = D: every sample is the population
        variance = np.append(tally.variance(), 0.0)
        var_se = np.append(np.sqrt(np.maximum(tally.fourth_moment() - tally.variance() ** 2, 0.0) / tally.count), 0.0)
        draws = np.append(np.full(k.size - 1, float(tally.count)), 0.0)
    deff = design_effect(variance, binomial_var)
    # predicted_variance is (1 - K/D) c / K for one constant c (all chunks kept)
    linearization = predicted_variance(population.sum_y, population.n, 1, estimator) / (1 - 1 / d) * (1 - k / d) / k
    return {
        "design_sd": np.sqrt(variance),
        "design_binomial_sd": np.sqrt(binomial_var),
        "design_deff": deff,
        "design_deff_mcse": design_effect(var_se, binomial_var),
        "design_n_eff": effective_n(expected, deff),
        "design_chunks": expected,
        "design_naive_coverage": naive_coverage(deff),
        "design_draws": draws,
        "design_linearization_sd": np.sqrt(linearization),
    }


class _Tally:
    """What the coverage columns and the micro design need of the repetitions, summed batch by batch, at K = 2..D - 1.

    Coverage as :func:`~ragunc.stats.coverage.coverage_experiment` counts it (a repetition whose
    interval has a NaN bound is undefined, not a miss); the estimates' moments as power sums of
    their deviations from the population value (close to their mean, so nothing cancels).
    """

    def __init__(self, methods, k: np.ndarray, value: float, level: float, estimator: str):
        self.methods, self.k, self.value = interval_methods(methods), k, value
        self.level, self.estimator = level, estimator
        self.held = {m.name: np.zeros(k.size) for m in self.methods}
        self.defined = {m.name: np.zeros(k.size) for m in self.methods}
        self.se = {m.name: np.zeros(k.size) for m in self.methods if m.has_se}
        self.powers = np.zeros((4, k.size))  # sums of (estimate - value)^j, j = 1..4
        self.chunks = np.zeros(k.size)
        self.count = 0

    def add(self, reps: _Prefixes) -> None:
        """Count these repetitions (their prefixes at K = 2..D - 1)."""
        lin = reps.linearized(self.level, self.estimator)
        dfs = {
            m.name: reps.df if m.name == "korn_graubard_bm" else None for m in self.methods if m.name in KORN_GRAUBARD
        }
        korn_graubard = _korn_graubard_holds(lin, dfs, self.value)
        for method in self.methods:
            if method.name in korn_graubard:
                held, defined = korn_graubard[method.name]
            else:
                se, low, high = method.kernel(lin)
                defined = ~(np.isnan(low) | np.isnan(high))
                held = defined & (low <= self.value) & (self.value <= high)
                if method.has_se:
                    self.se[method.name] += np.broadcast_to(se, defined.shape).sum(axis=0)
            self.held[method.name] += held.sum(axis=0)
            self.defined[method.name] += defined.sum(axis=0)
        deviation = reps.estimate - self.value
        squared = deviation * deviation
        for j, power in enumerate((deviation, squared, squared * deviation, squared * squared)):
            self.powers[j] += power.sum(axis=0)
        self.chunks += reps.n_chunks.sum(axis=0)
        self.count += reps.estimate.shape[0]

    def variance(self) -> np.ndarray:
        """The estimates' variance over the repetitions (ddof 1), at each K."""
        n, (s1, s2, _, _) = self.count, self.powers
        return (s2 - s1 * s1 / n) / (n - 1)

    def fourth_moment(self) -> np.ndarray:
        """The estimates' fourth central moment over the repetitions, at each K."""
        n, (s1, s2, s3, s4) = self.count, self.powers
        m = s1 / n
        return (s4 - 4 * m * s3 + 6 * m * m * s2 - 3 * n * m**4) / n

    def columns(self, pq_per_doc: float) -> dict[str, np.ndarray]:
        """The coverage columns (NaN at K = D); ``pq_per_doc``: the population's chunk variance over its mean chunks."""
        columns = {}
        for method in self.methods:
            name, n = method.name, self.defined[method.name]
            with np.errstate(divide="ignore", invalid="ignore"):
                share = self.held[name] / n
                columns[f"coverage_{name}"] = _last_nan(share)
                columns[f"coverage_{name}_mcse"] = _last_nan(np.sqrt(share * (1 - share) / n))
            columns[f"coverage_{name}_undefined"] = _last_nan(self.count - n)
            if name in self.se:
                columns[f"coverage_{name}_se_mean"] = _last_nan(self.se[name] / self.count)
        for field in ("", "_mcse", "_undefined"):
            columns[f"coverage_recommended{field}"] = columns[f"coverage_{RECOMMENDED_METHOD}{field}"]
        variance = self.variance()
        columns["coverage_sd"] = _last_nan(np.sqrt(variance))
        with np.errstate(divide="ignore", invalid="ignore"):
            columns["coverage_variance_ratio"] = _last_nan(variance / (pq_per_doc / self.k))
        columns["coverage_mean_chunks"] = _last_nan(self.chunks / self.count)
        return columns


def _last_nan(values) -> np.ndarray:
    """The values for K = 2..D - 1 and NaN at K = D (nothing to resample)."""
    return np.append(np.asarray(values, dtype=float), np.nan)


def _korn_graubard_holds(lin: Linearized, dfs: dict[str, np.ndarray | None], value: float) -> dict[str, tuple]:
    """``{method: (held, defined)}``: whether each row's Korn–Graubard interval holds ``value``, as its bounds say.

    ``dfs`` maps each method to its df (None: K - 1, as R; else the Bell–McCaffrey df).  The
    interval holds ``value`` when the estimate p lies between two thresholds that depend on the
    effective n only: the lower bound ``Beta^-1(alpha/2; n p, n (1 - p) + 1)`` increases with p, so
    it is at most ``value`` exactly for p up to some p_L(n), and the upper bound is at least
    ``value`` for p from some p_U(n).  Both are found by bisection on one grid of n
    (:func:`_thresholds`); an estimate farther than :data:`DECIDED_MARGIN` from the thresholds of
    its grid cell and its neighbours is decided, the others get their bounds from
    :func:`~ragunc.stats.proportion.korn_graubard_interval`.  With a Bell–McCaffrey df the
    effective n lies between its values at the df grid's neighbours (the t quantile is
    monotone in the df), which widens the cell.
    """
    p, v, level = lin.estimate, lin.cluster_variance, lin.level
    k = np.broadcast_to(lin.n_docs, p.shape)
    rows = np.broadcast_to(lin.design_rows, p.shape)
    alpha = 1 - level
    inside = (p >= 0) & (p <= 1)
    pq = p * (1 - p)
    informative = (pq > 0) & (v > ROUNDING_VARIANCE * pq)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = np.where(informative, pq / np.where(informative, v, 1.0) * _t_quantiles(rows - 1, alpha / 2) ** 2, k)
    ranges = {}
    for name, df in dfs.items():
        if df is None:
            n = np.where(informative, base / special.stdtrit(lin.n_docs - 1, alpha / 2) ** 2, k)
            ranges[name] = (n, n)
        else:
            grid = _Grid(df.min(), df.max(), DF_GRID_RATIO)
            t2 = special.stdtrit(grid.points, alpha / 2) ** 2
            cell = grid.cell(df)
            # |t| falls as the df grows: n = base / t^2 lies between its values at the cell's ends
            ranges[name] = (np.where(informative, base / t2[cell], k), np.where(informative, base / t2[cell + 1], k))
    lowest = min(float(n_lo.min()) for n_lo, _ in ranges.values())
    highest = max(float(n_hi.max()) for _, n_hi in ranges.values())
    n_grid = _Grid(lowest, min(highest, MAX_GRID_N), N_GRID_RATIO)
    p_low, p_high = _thresholds(n_grid.points, value, alpha)
    # p_L falls and p_U rises with n (checked on the grid, else nothing is decided here)
    monotone = bool(np.all(np.diff(p_low) <= 1e-12) and np.all(np.diff(p_high) >= -1e-12))
    out = {}
    for name, (n_lo, n_hi) in ranges.items():
        # the grid points around [n_lo, n_hi], one more cell on each side (and one for rounding)
        first, last = n_grid.position(n_lo) - 2, n_grid.position(n_hi) + 3
        on_grid = (first >= 0) & (last < n_grid.points.size)
        top = n_grid.points.size - 1
        first, last = np.minimum(np.maximum(first, 0), top), np.minimum(np.maximum(last, 0), top)
        lower_holds = (p == 0) | (p < p_low[last] - DECIDED_MARGIN)
        lower_fails = (p > 0) & (p > p_low[first] + DECIDED_MARGIN)
        upper_holds = (p == 1) | (p > p_high[last] + DECIDED_MARGIN)
        upper_fails = (p < 1) & (p < p_high[first] - DECIDED_MARGIN)
        decided = on_grid & inside & (lower_holds | lower_fails) & (upper_holds | upper_fails)
        if not monotone:
            decided[...] = False
        held = decided & lower_holds & upper_holds
        defined = inside.copy()
        todo = ~decided
        if todo.any():
            df = dfs[name]
            low, high = korn_graubard_interval(
                p[todo], v[todo], rows[todo], k[todo], level, None if df is None else df[todo]
            )
            held[todo] = (low <= value) & (value <= high)
            defined[todo] = ~(np.isnan(low) | np.isnan(high))
        out[name] = held, defined
    return out


def _t_quantiles(df: np.ndarray, q: float) -> np.ndarray:
    """``special.stdtrit(df, q)`` for whole-number df, through a table over their range."""
    lo, hi = int(df.min()), int(df.max())
    table = special.stdtrit(np.arange(lo, hi + 1), q)
    return table[(df - lo).astype(np.int64)]


class _Grid:
    """Points from just below ``lo`` to just above ``hi``, neighbours ``ratio`` apart: ``start * ratio**i``."""

    def __init__(self, lo: float, hi: float, ratio: float):
        self.start, self.step = lo / ratio, np.log(ratio)
        self.points = self.start * np.exp(self.step * np.arange(int(np.log(hi / self.start) / self.step) + 3))

    def position(self, x: np.ndarray) -> np.ndarray:
        """The index of the last point at or below each ``x``, give or take one for rounding."""
        return np.floor(np.log(x / self.start) / self.step).astype(np.int64)

    def cell(self, x: np.ndarray) -> np.ndarray:
        """The index i of the points with ``points[i] <= x <= points[i + 1]``, for x in [lo, hi]."""
        i = np.minimum(np.maximum(self.position(x), 0), self.points.size - 2)
        i -= self.points[i] > x
        return i + (self.points[i + 1] < x)


def _thresholds(n: np.ndarray, value: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``(p_L, p_U)`` at each effective n: the estimates whose lower (upper) Korn–Graubard bound is ``value``.

    The lower bound is at most ``value`` exactly when ``I_value(n p, n (1 - p) + 1) >= alpha / 2``
    (the Beta CDF at ``value``), which falls as p grows; the upper bound is at least ``value``
    exactly when ``I_value(n p + 1, n (1 - p)) <= 1 - alpha / 2``, which falls too.
    """

    def bisect(still_below):
        lo, hi = np.zeros(n.shape), np.ones(n.shape)
        for _ in range(BISECTION_STEPS):
            mid = (lo + hi) / 2
            below = still_below(mid)
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return (lo + hi) / 2

    with np.errstate(invalid="ignore"):
        p_low = bisect(lambda p: special.betainc(np.maximum(n * p, 1e-300), n - n * p + 1, value) >= alpha / 2)
        p_high = bisect(lambda p: special.betainc(n * p + 1, np.maximum(n - n * p, 1e-300), value) > 1 - alpha / 2)
    return p_low, p_high


def nested_bootstrap(
    population: ClusterStats,
    *,
    k: int,
    boot: int = 1000,
    reps: int | None = 1000,
    estimator: str = "micro",
    level: float = 0.95,
    seed: int = 0,
) -> tuple[IntervalReport, CoverageResult | None]:
    """Every interval of the nested sample at K (``boot`` replicates) and coverage over the R nested repetitions.

    What has no closed form, at one K: :func:`~ragunc.stats.explore.explore`'s report of
    :func:`~ragunc.stats.sample.nested_sample` and its coverage over the first K documents of each
    of the table's R repetitions (every method's: the analytic ones equal the table's), None when
    ``reps`` is None or K = D.  Both resample with the one engine, seeded by ``seed``.
    """
    seen = explore(population, k=k, boot=boot, reps=reps, estimator=estimator, level=level, seed=seed)
    return seen.report, seen.coverage
