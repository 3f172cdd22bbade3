"""Linearization: point estimates, per-document residuals, the one residual-variance formula and the
analytic interval kernels, batch-wise (documents on the last axis, repetitions on leading axes).

Every analytic kernel reads one :class:`Linearized` (the estimate, the chunk count and the two
variances of a batch) and returns ``(se, lower, upper)``; the registry
(:mod:`ragunc.stats.methods`) names them, :func:`ragunc.stats.intervals.interval_arrays` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .proportion import korn_graubard_interval, logit_interval
from .sample import ClusterStats, zero_one

ESTIMATORS = ("micro", "macro")


def binomial_se(p, n):
    """Wald SE of a proportion over ``n`` independent Bernoulli trials: sqrt(p(1-p)/n)."""
    return np.sqrt(np.asarray(p) * (1 - np.asarray(p)) / np.asarray(n))


def check_options(estimator: str, level: float | None = None) -> None:
    """Raise ``ValueError`` for an unknown estimator or a level outside (0, 1)."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    if level is not None and not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")


def point_estimate(sum_y, n, estimator: str = "micro"):
    """micro: sum(sum_y)/sum(n) (ratio estimator); macro: mean of sum_y/n. Batch-wise."""
    sum_y = np.asarray(sum_y, dtype=float)
    if estimator == "micro":
        return sum_y.sum(-1) / np.sum(n, axis=-1)
    return (sum_y / n).mean(-1)


def linearized_residuals(sum_y, n, estimator: str = "micro"):
    """Estimate and per-document linearized residuals ``e_d`` (mean zero).

    The cluster variance is ``(1 - f) * sum(e_d**2) / (K (K - 1))``:
    micro (ratio) ``e_d = (Y_d - p m_d) K / sum(m)``; macro ``e_d = r_d - mean(r)``.
    """
    sum_y = np.asarray(sum_y, dtype=float)
    n = np.asarray(n, dtype=float)
    k = sum_y.shape[-1]
    if estimator == "micro":
        n_chunks = n.sum(-1, keepdims=True)
        p = sum_y.sum(-1, keepdims=True) / n_chunks
        resid = (sum_y - p * n) * (k / n_chunks)
    else:
        rate = sum_y / n
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


def jackknife(sum_y, n, estimator: str = "micro") -> np.ndarray:
    """Leave-one-document-out estimates (..., K), in closed form."""
    sum_y = np.asarray(sum_y, dtype=float)
    n = np.asarray(n, dtype=float)
    if estimator == "micro":
        return (sum_y.sum(-1, keepdims=True) - sum_y) / (n.sum(-1, keepdims=True) - n)
    rate = sum_y / n
    return (rate.sum(-1, keepdims=True) - rate) / (rate.shape[-1] - 1)


def bell_mccaffrey_df(n):
    """Satterthwaite degrees of freedom of the micro ratio's cluster variance (Bell & McCaffrey 2002), batch-wise.

    Under independent chunks of equal variance the bias-reduced (CR2) cluster
    variance ``sum_d (Y_d - p m_d)^2 / (1 - pi_d) / N^2`` is a quadratic form in
    the chunks; its Satterthwaite approximation ``tr(M)^2 / tr(M^2)`` is, for the
    ratio, ``1 / (sum_d c_d^2 pi_d^2 (1 - 2 pi_d) + (sum_d c_d pi_d^2)^2)`` with
    ``pi_d = m_d / N`` and ``c_d = 1 / (1 - pi_d)``.  It depends on the sizes
    only: K - 1 when they are equal, fewer when a few long documents carry most
    chunks and so most of the variance (10 documents, one with half the chunks: 3.2).
    ``n`` has documents on the last axis.
    """
    n = np.asarray(n, dtype=float)
    share = n / n.sum(-1, keepdims=True)
    scaled = share / (1 - share)  # c_d pi_d
    return 1 / ((scaled**2 * (1 - 2 * share)).sum(-1) + (scaled * share).sum(-1) ** 2)


def cluster_variance(sum_y, n, estimator: str = "micro", fpc=1.0):
    """Linearization variance of the estimator; ``fpc`` is 1 - K/D (1: no FPC)."""
    _, resid = linearized_residuals(sum_y, n, estimator)
    return residual_variance(resid, fpc)


def wilson_interval(p, n, crit):
    """Wilson score interval for proportion ``p`` over ``n`` trials (NaN where p is outside [0, 1])."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z2n = crit**2 / n
        centre = (p + z2n / 2) / (1 + z2n)
        half = crit * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    inside = (p >= 0) & (p <= 1)
    return np.where(inside, centre - half, np.nan), np.where(inside, centre + half, np.nan)


def chunk_variance(sum_y, n, sum_y2, estimate):
    """Per-chunk variance the binomial reference uses, batch-wise.

    p(1-p) with p the estimate where every y of the row is 0 or 1 (read off the sums:
    :func:`~ragunc.stats.sample.zero_one`), else the chunk variance about the pooled mean.
    """
    n_chunks = np.sum(n, axis=-1)
    mean = np.sum(sum_y, axis=-1) / n_chunks
    spread = np.maximum(np.sum(sum_y2, axis=-1) / n_chunks - mean**2, 0.0)
    return np.where(zero_one(sum_y, sum_y2), estimate * (1 - estimate), spread)


@dataclass(frozen=True)
class Linearized:
    """What every analytic kernel reads; arrays have the batch's leading (repetition) shape."""

    estimate: np.ndarray
    n_chunks: np.ndarray
    n_docs: int | np.ndarray  # K, documents per row (an array on the last axis when rows differ in K)
    binomial_variance: np.ndarray  # chunk variance / N
    cluster_variance: np.ndarray  # linearization variance, FPC applied
    level: float
    estimator: str = "micro"
    n: np.ndarray | None = None  # (..., K) chunks per document (the Bell–McCaffrey df reads them)
    df_bell_mccaffrey: np.ndarray | None = None  # its df when computed already (else read off n)
    sum_y: np.ndarray | None = None  # (..., K) sum of y per document (the jackknife reads them)
    fpc: np.ndarray | float = 1.0  # 1 - K/D (1: no FPC), already in cluster_variance

    @property
    def z(self) -> float:
        return special.ndtri(0.5 + self.level / 2)

    @property
    def t(self) -> float:
        """The t(K - 1) critical value."""
        return special.stdtrit(self.n_docs - 1, 0.5 + self.level / 2)

    @property
    def bell_mccaffrey_df(self):
        """:func:`bell_mccaffrey_df` of the chunk counts ``n`` (the micro ratio's)."""
        return bell_mccaffrey_df(self.n) if self.df_bell_mccaffrey is None else self.df_bell_mccaffrey

    @property
    def design_rows(self):
        """Rows of R survey's design: chunks for the micro ratio, documents (y = their rate) for the macro mean."""
        return self.n_chunks if self.estimator == "micro" else np.full(np.shape(self.estimate), self.n_docs)


def linearize(sum_y, n, sum_y2=None, *, estimator: str = "micro", level: float = 0.95, fpc=1.0) -> Linearized:
    """The estimate, chunk count and binomial and cluster variances of each row (documents on the last axis).

    ``sum_y2`` (sum of y**2 per document) defaults to ``sum_y`` (0/1 y); ``fpc`` is 1 - K/D
    (1 without a known population).
    """
    sum_y = np.asarray(sum_y, dtype=float)
    n = np.asarray(n)
    if sum_y2 is None:
        sum_y2 = sum_y
    est, resid = linearized_residuals(sum_y, n, estimator)
    n_chunks = n.sum(-1)
    return Linearized(
        estimate=est,
        n_chunks=n_chunks,
        n_docs=sum_y.shape[-1],
        binomial_variance=chunk_variance(sum_y, n, sum_y2, est) / n_chunks,
        cluster_variance=residual_variance(resid, fpc),
        level=level,
        estimator=estimator,
        n=n,
        sum_y=sum_y,
        fpc=fpc,
    )


def naive_wald(lin: Linearized):
    """Wald over chunks taken as independent: estimate ± z sqrt(chunk variance / N)."""
    se = np.sqrt(lin.binomial_variance)
    return se, lin.estimate - lin.z * se, lin.estimate + lin.z * se


def naive_wilson(lin: Linearized):
    """Wilson score interval over the N chunks taken as independent (no SE)."""
    return (None, *wilson_interval(lin.estimate, lin.n_chunks, lin.z))


def cluster_normal(lin: Linearized):
    """Linearization (documents as clusters): estimate ± z SE, the FPC in the SE."""
    se = np.sqrt(lin.cluster_variance)
    return se, lin.estimate - lin.z * se, lin.estimate + lin.z * se


def cluster_student_t(lin: Linearized):
    """Linearization with a t(K - 1) critical value."""
    se = np.sqrt(lin.cluster_variance)
    return se, lin.estimate - lin.t * se, lin.estimate + lin.t * se


def cluster_effective_n_wilson(lin: Linearized):
    """Wilson on the effective n = p(1-p) / v with a t(K - 1) critical value (no SE).

    Without information on the design (p at 0 or 1, so v = 0 too) it falls back to one
    trial per document, the worst case (ICC = 1).  For scores in [0, 1] it treats the mean
    as a proportion (NaN outside [0, 1]).
    """
    est = lin.estimate
    pq = est * (1 - est)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(pq > 0, pq / lin.cluster_variance, lin.n_docs)
    return (None, *wilson_interval(est, n_eff, lin.t))


def korn_graubard(lin: Linearized):
    """Korn–Graubard as R survey's ``svyciprop(method = "beta")`` (no SE): see :func:`.proportion.korn_graubard_interval`.

    The design has documents as clusters; for scores in [0, 1] the mean is treated as a
    proportion (NaN outside [0, 1]).
    """
    return (None, *korn_graubard_interval(lin.estimate, lin.cluster_variance, lin.design_rows, lin.n_docs, lin.level))


def logit(lin: Linearized):
    """The logit interval of R survey's ``svyciprop(method = "logit")`` (no SE; NaN at p = 0 or 1)."""
    return (None, *logit_interval(lin.estimate, lin.cluster_variance, lin.n_docs, lin.level))


def korn_graubard_bell_mccaffrey(lin: Linearized):
    """Korn–Graubard with :func:`bell_mccaffrey_df` in place of K - 1 (no SE): ragunc's recommended interval.

    The macro mean weighs documents equally: its Bell–McCaffrey df is K - 1, so it is R's interval.
    """
    if lin.estimator != "micro":
        return korn_graubard(lin)
    return (
        None,
        *korn_graubard_interval(
            lin.estimate, lin.cluster_variance, lin.design_rows, lin.n_docs, lin.level, lin.bell_mccaffrey_df
        ),
    )


def jackknife_variance(sum_y, n, estimator: str = "micro", fpc=1.0):
    """The jackknife variance over documents (CV3 of MacKinnon, Nielsen & Webb 2023), batch-wise.

    ``fpc (K - 1) / K sum_d (theta_(d) - theta)^2`` with ``theta_(d)`` the estimate without
    document d (:func:`jackknife`), centred on the full sample's estimate as pyfixest's
    ``vcov="CRV3"`` of the chunk-level intercept-only regression is (a fixture).  For the micro
    ratio a long document moves its leave-one-out estimate most, so its residual weighs by
    about ``1 / (1 - m_d/N)^2``: more than CR2's ``1 / (1 - m_d/N)``.  For the macro mean it is
    the linearization variance exactly.
    """
    est = point_estimate(sum_y, n, estimator)
    jack = jackknife(sum_y, n, estimator)
    k = jack.shape[-1]
    return np.asarray(fpc) * (k - 1) / k * ((jack - est[..., None]) ** 2).sum(-1)


def jackknife_t(lin: Linearized):
    """The jackknife (CV3) SE with a t(K - 1) critical value, clipped to [0, 1] (a proportion's range), FPC in the SE.

    NaN where a leave-one-out estimate is undefined (a document holding every chunk: K = 1).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(jackknife_variance(lin.sum_y, lin.n, lin.estimator, lin.fpc))
    lower = np.clip(lin.estimate - lin.t * se, 0.0, 1.0)
    upper = np.clip(lin.estimate + lin.t * se, 0.0, 1.0)
    return se, np.where(np.isnan(se), np.nan, lower), np.where(np.isnan(se), np.nan, upper)


def estimate(sample: ClusterStats, estimator: str = "micro") -> float:
    """micro: sum(sum_y)/sum(n) (ratio estimator); macro: mean of sum_y/n."""
    check_options(estimator)
    return float(point_estimate(sample.sum_y, sample.n, estimator))
