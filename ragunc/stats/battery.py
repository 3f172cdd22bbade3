"""The battery of synthetic populations on which ragunc's recommended interval was chosen.

Twelve populations of D = 1,200 documents, each a shape that breaks some interval
at small K (bench/study_small_k.py adds the real stdlib sample as a tenth).
Documents' hits are Binomial(m_d, p_d); only per-document sufficient statistics
matter to every interval, so the populations are :class:`ClusterStats` s
without chunk rows.

========================  ===================================================================
name                      shape
========================  ===================================================================
``beta``                  p ~ 0.18, ICC ~ 0.3: Beta document rates, negative binomial sizes
``rare``                  p ~ 0.03, ~72% of documents without a hit (zero-inflated Beta rates)
``high``                  p ~ 0.86, ICC ~ 0.2; ~40% of documents all hits
``size_correlated``       long documents worse: logit p_d falls with log m_d; lognormal sizes
``near_iid_unequal``      ICC ~ 0.01 with very unequal sizes (lognormal, CV ~ 1.8, up to ~900)
``zero_inflated_pareto``  45% of documents at rate 0, heavy-tailed Pareto(1.2) sizes (CV ~ 3)
``sparse_pareto_1.2``     80% of documents at rate 0, Pareto sizes of tail index 1.2: the
                          12 longest documents (1%) hold 30% of the chunks
``sparse_pareto_1.0``     the same rates, tail index 1.0: the 12 longest hold 48%
``sparse_pareto_0.8``     the same rates, tail index 0.8: the 12 longest hold 74%, one 42%
``zip_pareto_0.9``        60% of documents at rate 0, random Pareto(0.9) sizes (at most 2,000)
``lognormal_heavy``       Beta rates (p ~ 0.2, ICC ~ 0.3), lognormal sizes with sigma 1.8 (CV ~ 5)
``half_in_one``           Beta rates (p ~ 0.2, ICC ~ 0.3); one document holds half the chunks
========================  ===================================================================

The three ``sparse_pareto`` populations are the recommended interval's weak corner
(docs/weak_corner.md): most documents have no hit and a few documents hold most
chunks.  Their sizes are the D quantiles of a Pareto distribution (minimum 3 chunks)
rather than D random draws: below a tail index of about 1 the share of the
longest of D draws changes several-fold from seed to seed, so the population's
shape would be the seed's, not the tail index's.  Which documents have hits is
drawn as for the others.
"""

from __future__ import annotations

import numpy as np

from .sample import ClusterStats
from .synthetic import document_sizes

N_DOCS = 1200
POPULATIONS = (
    "beta",
    "rare",
    "high",
    "size_correlated",
    "near_iid_unequal",
    "zero_inflated_pareto",
    "sparse_pareto_1.2",
    "sparse_pareto_1.0",
    "sparse_pareto_0.8",
    "zip_pareto_0.9",
    "lognormal_heavy",
    "half_in_one",
)

SPARSE_PARETO_TAIL = {"sparse_pareto_1.2": 1.2, "sparse_pareto_1.0": 1.0, "sparse_pareto_0.8": 0.8}
# Populations whose sizes are heavy-tailed enough that a few documents carry much of a sample.
HEAVY_TAILED = ("zero_inflated_pareto", *SPARSE_PARETO_TAIL, "zip_pareto_0.9", "lognormal_heavy", "half_in_one")


def _beta_rates(mean: float, icc: float, n: int, rng: np.random.Generator) -> np.ndarray:
    concentration = 1 / icc - 1  # Beta(a, b) with a + b = 1/icc - 1 has variance icc * mean * (1 - mean)
    return rng.beta(mean * concentration, (1 - mean) * concentration, n)


def _lognormal_sizes(median: float, sigma: float, n: int, rng: np.random.Generator) -> np.ndarray:
    return np.maximum(1, np.rint(rng.lognormal(np.log(median), sigma, n))).astype(np.int64)


def _pareto_quantile_sizes(tail: float, minimum: float, n: int) -> np.ndarray:
    """The n quantiles (i + 1/2) / n of a Pareto(``tail``) law with scale ``minimum``, rounded up to whole chunks."""
    upper = (np.arange(n) + 0.5) / n  # P(size > s) at each quantile
    return np.ceil(minimum * upper ** (-1 / tail)).astype(np.int64)


def _rates_and_sizes(name: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    d = N_DOCS
    if name == "beta":
        return _beta_rates(0.18, 0.3, d, rng), document_sizes(d, 25.8, 0.8, rng)
    if name == "rare":
        zero, mean_rest = 0.52, 0.03 / 0.48
        rest = rng.beta(1.5, 1.5 * (1 - mean_rest) / mean_rest, d)
        return np.where(rng.random(d) < zero, 0.0, rest), document_sizes(d, 20.0, 0.8, rng)
    if name == "high":
        return _beta_rates(0.85, 0.2, d, rng), document_sizes(d, 20.0, 0.8, rng)
    if name == "size_correlated":
        size = _lognormal_sizes(15, 0.9, d, rng)
        log_size = np.log(size)
        logit = -0.6 - 0.7 * (log_size - log_size.mean()) + rng.normal(0, 0.6, d)
        return 1 / (1 + np.exp(-logit)), size
    if name == "near_iid_unequal":
        return _beta_rates(0.25, 0.01, d, rng), _lognormal_sizes(12, 1.3, d, rng)
    if name == "zero_inflated_pareto":
        size = np.minimum(2000, np.ceil(3 * (rng.pareto(1.2, d) + 1))).astype(np.int64)
        return np.where(rng.random(d) < 0.45, 0.0, rng.beta(1.5, 3.0, d)), size
    if name in SPARSE_PARETO_TAIL:
        rate = np.where(rng.random(d) < 0.8, 0.0, rng.beta(1.5, 3.0, d))
        return rate, _pareto_quantile_sizes(SPARSE_PARETO_TAIL[name], 3.0, d)
    if name == "zip_pareto_0.9":
        size = np.minimum(2000, np.ceil(3 * (rng.pareto(0.9, d) + 1))).astype(np.int64)
        return np.where(rng.random(d) < 0.6, 0.0, rng.beta(1.5, 3.0, d)), size
    if name == "lognormal_heavy":
        return _beta_rates(0.2, 0.3, d, rng), _lognormal_sizes(8, 1.8, d, rng)
    if name == "half_in_one":
        size = document_sizes(d, 20.0, 0.8, rng)
        size[0] = size[1:].sum()
        return _beta_rates(0.2, 0.3, d, rng), size
    raise AssertionError(name)


def battery_population(name: str, seed: int = 0) -> ClusterStats:
    """One population of the battery (see the module's table), reproducible from ``seed``."""
    if name not in POPULATIONS:
        raise ValueError(f"unknown population {name!r}; choose one of {POPULATIONS}")
    rng = np.random.default_rng([seed, POPULATIONS.index(name)])
    rate, size = _rates_and_sizes(name, rng)
    hits = rng.binomial(size, rate).astype(np.float64)
    width = len(str(N_DOCS))
    doc_id = np.char.add("doc", np.char.zfill(np.arange(1, N_DOCS + 1).astype(str), width))
    return ClusterStats(doc_id, hits, size, hits, config=name)
