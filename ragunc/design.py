"""The cluster-sampling design and its estimators, intervals and diagnostics.

Documents are the sampling units (clusters); every chunk of a sampled document
is observed (a census inside the document).  Everything here works on
per-document sufficient statistics held by :class:`ClusterSample`, never on
chunk rows.

Interval kernels are written batch-wise: they take arrays whose last axis runs
over documents and any leading axes run over repetitions, so
``ragunc.simulate`` reuses the very same formulas on (R, K) arrays.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

ESTIMATORS = ("micro", "macro")

# Interval methods computed by :func:`interval_arrays`, in display order.
ANALYTIC_METHODS = ("naive", "wilson", "cluster", "cluster_t", "cluster_wilson")


# --------------------------------------------------------------------------- #
# The design object
# --------------------------------------------------------------------------- #


# ClusterSample's per-document arrays and their dtypes (None: keep as given).
_PER_DOCUMENT = {
    "doc_id": None, "total": np.float64, "size": np.int64, "sumsq": np.float64,
    "lag_cross": np.float64, "first": np.float64, "last": np.float64, "doc_type": None,
}


@dataclass(frozen=True)
class ClusterSample:
    """Per-document sufficient statistics of one config (the design object).

    All arrays have one entry per document, in the same order.
    """

    doc_id: np.ndarray  # (K,) str
    total: np.ndarray  # (K,) float64: sum of y over the document's chunks (hits for 0/1 y)
    size: np.ndarray  # (K,) int64: m_d, number of chunks
    sumsq: np.ndarray  # (K,) float64: sum of y**2 (== total for 0/1 y)
    lag_cross: np.ndarray | None = None  # (K,) sum of y_i*y_{i+1} over neighbouring chunk_index; None without chunk_index
    first: np.ndarray | None = None  # (K,) y of the document's first chunk (by chunk_index)
    last: np.ndarray | None = None  # (K,) y of the document's last chunk
    doc_type: np.ndarray | None = None  # (K,) str stratum, or None
    population_docs: int | None = None  # D, when the population's document count is known (FPC)
    binary: bool = True  # every y is 0 or 1
    config: str = "default"

    def __post_init__(self) -> None:
        # The loader is the data boundary; this only guards programmatic callers
        # against arrays of the wrong shape, cheaply.
        for name, dtype in _PER_DOCUMENT.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, np.asarray(value, dtype=dtype))
        if self.total.ndim != 1:
            raise ValueError(f"total must be 1-D (one entry per document), got shape {self.total.shape}")
        k = self.total.shape[0]
        for name in _PER_DOCUMENT:
            value = getattr(self, name)
            if value is not None and value.shape != (k,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({k},) like total")
        if k and self.size.min() < 1:
            bad = np.flatnonzero(self.size < 1)[:5].tolist()
            raise ValueError(f"size must be >= 1 chunk per document; documents at positions {bad} are not")
        if self.population_docs is not None and self.population_docs < k:
            raise ValueError(f"population_docs={self.population_docs} is smaller than the {k} sampled documents")

    @property
    def n_docs(self) -> int:
        return int(self.total.shape[0])

    @property
    def n_chunks(self) -> int:
        return int(self.size.sum())

    def with_population(self, population_docs: int | None) -> "ClusterSample":
        """The same sample with a known (or unknown: None) population document count."""
        return dataclasses.replace(self, population_docs=population_docs)

    def subset(self, index: np.ndarray) -> "ClusterSample":
        """The documents at ``index`` (positions or a boolean mask), keeping population_docs."""
        index = np.asarray(index)
        pick = {name: getattr(self, name) for name in _PER_DOCUMENT}
        return dataclasses.replace(
            self, **{name: None if value is None else value[index] for name, value in pick.items()}
        )


# --------------------------------------------------------------------------- #
# Results
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class IntervalEstimate:
    """One interval method's output. ``ci`` is (low, high)."""

    method: str
    se: float | None
    ci: tuple[float, float]

    def to_dict(self) -> dict:
        return {"se": self.se, "ci": list(self.ci)}


@dataclass(frozen=True)
class BootstrapResult:
    """Cluster bootstrap (documents resampled with replacement)."""

    se: float
    ci: tuple[float, float]  # percentile
    ci_bca: tuple[float, float]
    reps: int
    ci_t: tuple[float, float] = (float("nan"), float("nan"))  # studentized (bootstrap-t)

    def to_dict(self) -> dict:
        return {"se": self.se, "ci": list(self.ci), "ci_bca": list(self.ci_bca), "ci_t": list(self.ci_t),
                "reps": self.reps}


@dataclass(frozen=True)
class Diagnostics:
    deff: float  # cluster variance / binomial variance
    icc: float  # ANOVA estimator for unequal cluster sizes
    deff_kish: float  # 1 + ((1 + CV^2) * m_bar - 1) * rho
    deff_equal: float  # 1 + (m_bar - 1) * rho
    n_eff: float  # n_chunks / deff
    bernoulli_n: float  # p(1-p) / cluster variance
    k_over_rho: float  # limit of n_eff as chunks per document grow (inf when rho <= 0, NaN when rho is)
    mean_size: float  # m_bar
    cv_size: float  # sd(m) / m_bar
    lag1_autocorr: float | None  # residuals (y - document mean) of neighbouring chunks; None without chunk_index
    doc_type_share: float | None  # share of the variance of document rates explained by doc_type; None without it
    cluster_variance: float = float("nan")  # linearization variance without FPC (the DEFF numerator)
    binomial_variance: float = float("nan")  # p(1-p)/N (chunk variance / N for non-binary y)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class IntervalReport:
    """Everything ``ragunc interval`` prints."""

    estimator: str
    estimate: float
    n_docs: int
    n_chunks: int
    level: float
    naive: IntervalEstimate  # Wald binomial over chunks
    wilson: IntervalEstimate  # Wilson over chunks (se None)
    cluster: IntervalEstimate  # linearization, normal, FPC if population_docs is known
    cluster_t: IntervalEstimate  # linearization with t(K-1)
    bootstrap: BootstrapResult
    diagnostics: Diagnostics
    cluster_wilson: IntervalEstimate | None = None  # Wilson with n_eff = p(1-p)/v and a t(K-1) critical value
    population_docs: int | None = None  # D used for the FPC (None: no FPC)

    def to_dict(self) -> dict:
        """The JSON contract of ``ragunc interval`` (plus extra keys)."""
        d = self.diagnostics
        return {
            "estimator": self.estimator,
            "estimate": self.estimate,
            "n_docs": self.n_docs,
            "n_chunks": self.n_chunks,
            "level": self.level,
            "population_docs": self.population_docs,
            "naive": self.naive.to_dict(),
            "wilson": {"ci": list(self.wilson.ci)},
            "cluster": self.cluster.to_dict(),
            "cluster_t": self.cluster_t.to_dict(),
            "cluster_wilson": None if self.cluster_wilson is None else {"ci": list(self.cluster_wilson.ci)},
            "bootstrap": self.bootstrap.to_dict(),
            "deff": d.deff,
            "icc": d.icc,
            "n_eff": d.n_eff,
            "diagnostics": d.to_dict(),
        }


# --------------------------------------------------------------------------- #
# The seed's small formulas
# --------------------------------------------------------------------------- #


def binomial_se(p, n):
    """Wald SE of a proportion over ``n`` independent Bernoulli trials: sqrt(p(1-p)/n)."""
    return np.sqrt(np.asarray(p) * (1 - np.asarray(p)) / np.asarray(n))


def k_over_rho(k, rho):
    """The limit K/rho of the effective n as chunks per document grow (inf when rho <= 0, NaN when rho is)."""
    rho = np.asarray(rho, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(rho > 0, np.asarray(k) / np.where(rho > 0, rho, 1.0), np.where(np.isnan(rho), np.nan, np.inf))
    return out[()]


def deff_equal_size(m, rho):
    """Design effect of documents of ``m`` chunks each with intra-document correlation ``rho``: 1 + (m - 1) rho."""
    return (1 + (np.asarray(m, dtype=float) - 1) * np.asarray(rho, dtype=float))[()]


def deff_kish(m_bar, cv, rho):
    """Kish's design effect for unequal document sizes: 1 + ((1 + CV^2) m_bar - 1) rho.

    The equal-size formula at the size-weighted mean size (1 + CV^2) m_bar.
    """
    return deff_equal_size((1 + np.asarray(cv, dtype=float) ** 2) * np.asarray(m_bar, dtype=float), rho)


def bernoulli_equivalent_n(pq, variance):
    """How many iid Bernoulli trials would give this variance: p(1-p) / variance."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(pq) / np.asarray(variance)


def variance_ratio(variance, binomial_variance):
    """Design variance over the binomial reference variance (a design effect)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(variance) / np.asarray(binomial_variance)


# --------------------------------------------------------------------------- #
# Batch kernels: last axis = documents, leading axes = repetitions
# --------------------------------------------------------------------------- #


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


def finite_population_correction(k: int, population_docs: int | None) -> float:
    """1 - K/D for K documents drawn without replacement from D; 1 when D is unknown."""
    return 1.0 if population_docs is None else 1.0 - k / population_docs


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


# --------------------------------------------------------------------------- #
# One sample
# --------------------------------------------------------------------------- #


def _fpc(sample: ClusterSample) -> float:
    return finite_population_correction(sample.n_docs, sample.population_docs)


def _require_docs(sample: ClusterSample, at_least: int = 2) -> None:
    if sample.n_docs < at_least:
        raise ValueError(
            f"need at least {at_least} documents for a between-document variance, got {sample.n_docs}"
        )


def estimate(sample: ClusterSample, estimator: str = "micro") -> float:
    """micro: sum(total)/sum(size) (ratio estimator); macro: mean of total/size."""
    check_options(estimator)
    return float(point_estimate(sample.total, sample.size, estimator))


def interval_report(
    sample: ClusterSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> IntervalReport:
    """All intervals and diagnostics for one sample (what ``ragunc interval`` prints)."""
    # bootstrap.py builds on this module's dataclasses, hence the local import.
    from .bootstrap import cluster_bootstrap

    check_options(estimator, level)
    _require_docs(sample)
    arr = interval_arrays(
        sample.total, sample.size, sample.sumsq,
        estimator=estimator, level=level, binary=sample.binary, fpc=_fpc(sample),
    )

    def method(name: str) -> IntervalEstimate:
        se = arr.se[name]
        return IntervalEstimate(
            name, None if se is None else float(se), (float(arr.lower[name]), float(arr.upper[name]))
        )

    return IntervalReport(
        estimator=estimator,
        estimate=float(arr.estimate),
        n_docs=sample.n_docs,
        n_chunks=sample.n_chunks,
        level=level,
        naive=method("naive"),
        wilson=method("wilson"),
        cluster=method("cluster"),
        cluster_t=method("cluster_t"),
        bootstrap=cluster_bootstrap(sample, estimator=estimator, level=level, reps=boot, rng=rng),
        diagnostics=diagnostics(sample, estimator=estimator),
        cluster_wilson=method("cluster_wilson"),
        population_docs=sample.population_docs,
    )


def icc_anova(total, size, sumsq) -> float:
    """ANOVA estimator of the intraclass correlation for unequal cluster sizes.

    (MSB - MSW) / (MSB + (m0 - 1) MSW), m0 = (N - sum(m^2)/N) / (K - 1).
    """
    total, size, sumsq = (np.asarray(a, dtype=float) for a in (total, size, sumsq))
    k, n = total.size, size.sum()
    within = sumsq - total**2 / size  # sum over chunks of (y - document mean)^2
    msb = ((total**2 / size).sum() - total.sum() ** 2 / n) / (k - 1)
    msw = within.sum() / (n - k) if n > k else np.nan
    m0 = (n - (size**2).sum() / n) / (k - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float((msb - msw) / (msb + (m0 - 1) * msw))


def lag1_autocorrelation(sample: ClusterSample) -> float | None:
    """Lag-1 autocorrelation of within-document residuals (y - document mean) of neighbouring chunks."""
    if sample.lag_cross is None or sample.first is None or sample.last is None:
        return None
    y, m = sample.total, sample.size.astype(float)
    ybar = y / m
    pairs = sample.lag_cross - ybar * (2 * y - sample.first - sample.last) + (m - 1) * ybar**2
    denom = (sample.sumsq - y**2 / m).sum()
    return float(pairs.sum() / denom) if denom > 0 else float("nan")


def doc_type_share(sample: ClusterSample) -> float | None:
    """Between-doc_type sum of squares over the total sum of squares of document rates."""
    if sample.doc_type is None:
        return None
    rate = sample.total / sample.size
    _, group, counts = np.unique(sample.doc_type, return_inverse=True, return_counts=True)
    group_mean = np.bincount(group, weights=rate) / counts
    total_ss = ((rate - rate.mean()) ** 2).sum()
    between = (counts * (group_mean - rate.mean()) ** 2).sum()
    return float(between / total_ss) if total_ss > 0 else float("nan")


def diagnostics(sample: ClusterSample, *, estimator: str = "micro") -> Diagnostics:
    """DEFF, ICC, Kish, effective n, Bernoulli-equivalent n, K/rho, lag-1 autocorrelation, doc_type share.

    DEFF and n_eff use the cluster variance without FPC; ``bernoulli_n`` uses
    the variance the intervals use (with FPC when population_docs is known).
    """
    check_options(estimator)
    _require_docs(sample)
    est = point_estimate(sample.total, sample.size, estimator)
    n = sample.n_chunks
    pq = chunk_variance(sample.total, sample.size, sample.sumsq, est, sample.binary)
    cvar = float(cluster_variance(sample.total, sample.size, estimator))
    bvar = float(pq / n)
    deff = float(variance_ratio(cvar, bvar))
    rho = icc_anova(sample.total, sample.size, sample.sumsq)
    m_bar = float(sample.size.mean())
    cv = float(sample.size.std() / m_bar)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = float(np.divide(n, deff))
    return Diagnostics(
        deff=deff,
        icc=rho,
        deff_kish=float(deff_kish(m_bar, cv, rho)),
        deff_equal=float(deff_equal_size(m_bar, rho)),
        n_eff=n_eff,
        bernoulli_n=float(bernoulli_equivalent_n(pq, cvar * _fpc(sample))),
        k_over_rho=float(k_over_rho(sample.n_docs, rho)),
        mean_size=m_bar,
        cv_size=cv,
        lag1_autocorr=lag1_autocorrelation(sample),
        doc_type_share=doc_type_share(sample),
        cluster_variance=cvar,
        binomial_variance=bvar,
    )
