"""Diagnostics of one sample: DEFF, ICC, Kish, effective n, Bernoulli-equivalent n, K/rho, autocorrelation.

DEFF, effective n and the ICC have one definition each (:func:`design_effect`, :func:`effective_n`,
:func:`icc_anova`), shared with the design's values over repeated samples
(:func:`ragunc.stats.design.design`): a sample's figures estimate those.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .linearization import (
    check_options,
    chunk_variance,
    cluster_variance,
    point_estimate,
)
from .sample import ClusterStats, require_documents


@dataclass(frozen=True)
class Diagnostics:
    """One sample's estimates: each estimates the design's value of the same name (``stats.design``)."""

    deff: float  # design_effect: cluster variance (FPC when D is known) / binomial variance
    icc: float  # ANOVA estimator for unequal cluster sizes
    deff_kish: float  # 1 + ((1 + CV^2) * m_bar - 1) * rho
    deff_equal: float  # 1 + (m_bar - 1) * rho
    n_eff: float  # effective_n: n_chunks / deff
    bernoulli_n: float  # p(1-p) / cluster variance (FPC when D is known)
    k_over_rho: float  # limit of n_eff as chunks per document grow (inf when rho <= 0, NaN when rho is)
    mean_size: float  # m_bar
    cv_size: float  # sd(m) / m_bar
    lag1_autocorr: float | None  # residuals (y - document mean) of neighbouring chunks; None without chunk_index
    doc_type_share: float | None  # share of the variance of document rates explained by doc_type; None without it
    cluster_variance: float = float("nan")  # linearization variance, FPC when D is known (the DEFF numerator)
    binomial_variance: float = float("nan")  # p(1-p)/N (chunk variance / N for non-binary y)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


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


def design_effect(variance, binomial_variance):
    """DEFF: the variance of the estimate over the binomial variance p(1 - p)/n of its n chunks.

    How many times the naive binomial interval understates the variance; below 1 when the
    documents' rates are more alike than independent chunks would make them.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(variance) / np.asarray(binomial_variance)


def effective_n(chunks, deff):
    """Effective n: chunks / DEFF, the independent chunks that would give the same variance."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(chunks, dtype=float) / np.asarray(deff, dtype=float)


def icc_anova(sum_y, n, sum_y2) -> float:
    """ANOVA estimator of the intraclass correlation for unequal cluster sizes.

    (MSB - MSW) / (MSB + (m0 - 1) MSW), m0 = (N - sum(m^2)/N) / (K - 1).
    """
    sum_y, n, sum_y2 = (np.asarray(a, dtype=float) for a in (sum_y, n, sum_y2))
    k, n_chunks = sum_y.size, n.sum()
    within = sum_y2 - sum_y**2 / n  # sum over chunks of (y - document mean)^2
    msb = ((sum_y**2 / n).sum() - sum_y.sum() ** 2 / n_chunks) / (k - 1)
    msw = within.sum() / (n_chunks - k) if n_chunks > k else np.nan
    m0 = (n_chunks - (n**2).sum() / n_chunks) / (k - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float((msb - msw) / (msb + (m0 - 1) * msw))


def lag1_autocorrelation(sample: ClusterStats) -> float | None:
    """Lag-1 autocorrelation of within-document residuals (y - document mean) of neighbouring chunks."""
    if sample.sum_y_next is None or sample.first_y is None or sample.last_y is None:
        return None
    y, m = sample.sum_y, sample.n.astype(float)
    ybar = y / m
    pairs = sample.sum_y_next - ybar * (2 * y - sample.first_y - sample.last_y) + (m - 1) * ybar**2
    denom = (sample.sum_y2 - y**2 / m).sum()
    return float(pairs.sum() / denom) if denom > 0 else float("nan")


def doc_type_share(sample: ClusterStats) -> float | None:
    """Between-doc_type sum of squares over the total sum of squares of document rates."""
    if sample.label is None:
        return None
    rate = sample.sum_y / sample.n
    _, group, counts = np.unique(sample.label, return_inverse=True, return_counts=True)
    group_mean = np.bincount(group, weights=rate) / counts
    total_ss = ((rate - rate.mean()) ** 2).sum()
    between = (counts * (group_mean - rate.mean()) ** 2).sum()
    return float(between / total_ss) if total_ss > 0 else float("nan")


def diagnostics(sample: ClusterStats, *, estimator: str = "micro") -> Diagnostics:
    """This sample's DEFF, ICC, Kish, effective n, Bernoulli-equivalent n, K/rho, lag-1 autocorrelation, doc_type share.

    DEFF uses the variance the intervals use (the linearization, with the FPC when
    population_docs is known), so it estimates the design effect at this K of
    :func:`ragunc.stats.design.design`; from few documents it is noisy, and below 1
    when the sampled documents happen to have alike rates.
    """
    check_options(estimator)
    require_documents(sample)
    est = point_estimate(sample.sum_y, sample.n, estimator)
    n = sample.n_chunks
    pq = chunk_variance(sample.sum_y, sample.n, sample.sum_y2, est)
    cvar = float(cluster_variance(sample.sum_y, sample.n, estimator, fpc=sample.fpc))
    bvar = float(pq / n)
    deff = float(design_effect(cvar, bvar))
    rho = icc_anova(sample.sum_y, sample.n, sample.sum_y2)
    m_bar = float(sample.n.mean())
    cv = float(sample.n.std() / m_bar)
    return Diagnostics(
        deff=deff,
        icc=rho,
        deff_kish=float(deff_kish(m_bar, cv, rho)),
        deff_equal=float(deff_equal_size(m_bar, rho)),
        n_eff=float(effective_n(n, deff)),
        bernoulli_n=float(bernoulli_equivalent_n(pq, cvar)),
        k_over_rho=float(k_over_rho(sample.n_docs, rho)),
        mean_size=m_bar,
        cv_size=cv,
        lag1_autocorr=lag1_autocorrelation(sample),
        doc_type_share=doc_type_share(sample),
        cluster_variance=cvar,
        binomial_variance=bvar,
    )
