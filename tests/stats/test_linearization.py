"""Estimators, intervals and diagnostics of ragunc.design against hand computation and independent code."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from ragunc.stats.diagnostics import (
    bernoulli_equivalent_n,
    deff_equal_size,
    deff_kish,
    diagnostics,
    k_over_rho,
    design_effect,
)
from ragunc.stats.intervals import interval_arrays, interval_report
from ragunc.stats.linearization import (
    binomial_se,
    cluster_variance,
    estimate,
    residual_variance,
)
from ragunc.stats.methods import METHODS
from ragunc.stats.sample import ClusterStats, finite_population_correction

# Three documents written out chunk by chunk (chunk order matters for the lag-1 check).
HAND_DOCS = {"a": [1, 0], "b": [1, 1, 0, 1], "c": [0, 0]}


def sample_from_chunks(docs: dict[str, list[float]], doc_type=None, population_docs=None) -> ClusterStats:
    """Sufficient statistics computed the slow, obvious way from explicit chunk lists."""
    ys = [np.asarray(v, dtype=float) for v in docs.values()]
    return ClusterStats(
        cluster_id=np.array(list(docs)),
        sum_y=np.array([y.sum() for y in ys]),
        n=np.array([y.size for y in ys]),
        sum_y2=np.array([(y**2).sum() for y in ys]),
        sum_y_next=np.array([(y[:-1] * y[1:]).sum() for y in ys]),
        first_y=np.array([y[0] for y in ys]),
        last_y=np.array([y[-1] for y in ys]),
        label=None if doc_type is None else np.asarray(doc_type),
        population_docs=population_docs,
    )


def random_population(rng, k=40, rho=0.3, p=0.2):
    """Beta-binomial documents with unequal sizes; returns (sample, chunk y, chunk group)."""
    n = rng.integers(1, 60, k)
    a = p * (1 / rho - 1)
    rate = rng.beta(a, (1 - p) / p * a, k)
    hits = rng.binomial(n, rate)
    y = np.concatenate([np.r_[np.ones(h), np.zeros(m - h)] for h, m in zip(hits, n)])
    group = np.repeat(np.arange(k), n)
    s = ClusterStats(np.arange(k).astype(str), hits.astype(float), n, hits.astype(float))
    return s, y, group


# --------------------------------------------------------------------------- hand computation


def test_hand_case_estimates_and_variances():
    s = sample_from_chunks(HAND_DOCS)
    # totals 1, 3, 0 over sizes 2, 4, 2: p = 4/8
    assert estimate(s) == 0.5
    assert estimate(s, "macro") == pytest.approx((0.5 + 0.75 + 0.0) / 3)
    # residuals Y - p m = 0, 1, -1 -> v = K/(K-1) * 2 / 8^2 = 3/64
    assert cluster_variance(s.sum_y, s.n) == pytest.approx(3 / 64)
    # macro: rates .5, .75, 0 with mean 5/12 -> s^2 = (1 + 16 + 25)/144/2, v = s^2/3
    assert cluster_variance(s.sum_y, s.n, "macro") == pytest.approx(42 / 144 / 2 / 3)
    r = interval_report(s, boot=200, rng=0)
    assert r.interval("naive").se == pytest.approx(np.sqrt(0.25 / 8))
    assert r.interval("cluster").se == pytest.approx(np.sqrt(3 / 64))
    z = stats.norm.ppf(0.975)
    assert r.interval("cluster").ci == pytest.approx((0.5 - z * np.sqrt(3 / 64), 0.5 + z * np.sqrt(3 / 64)))
    t = stats.t.ppf(0.975, 2)
    assert r.interval("cluster_t").ci == pytest.approx((0.5 - t * np.sqrt(3 / 64), 0.5 + t * np.sqrt(3 / 64)))


def test_deff_formulas_by_hand():
    # equal sizes: m = 5, rho = 0.25 -> 1 + 4 * 0.25 = 2; m = 1 is no clustering at all
    assert deff_equal_size(5, 0.25) == 2.0
    assert deff_equal_size(1, 0.9) == 1.0
    np.testing.assert_allclose(deff_equal_size(np.array([1.0, 3.0, 11.0]), 0.1), [1.0, 1.2, 2.0])
    # Kish: m_bar = 4, CV = 0.5 -> (1 + 0.25) * 4 = 5 chunks -> 1 + 4 * 0.25 = 2; CV = 0 is the equal-size case
    assert deff_kish(4, 0.5, 0.25) == 2.0
    assert deff_kish(4, 0.0, 0.25) == deff_equal_size(4, 0.25) == 1.75


def test_residual_variance_and_fpc_by_hand():
    # residuals 1, -1, 0: sum of squares 2 over K (K - 1) = 6; a population of D = 6 halves it
    assert residual_variance([1.0, -1.0, 0.0]) == pytest.approx(1 / 3)
    assert finite_population_correction(3, 6) == 0.5 and finite_population_correction(3, None) == 1.0
    assert residual_variance([1.0, -1.0, 0.0], fpc=0.5) == pytest.approx(1 / 6)
    np.testing.assert_allclose(residual_variance([[1.0, -1.0, 0.0], [2.0, 0.0, -2.0]]), [1 / 3, 4 / 3])


def test_hand_case_diagnostics():
    s = sample_from_chunks(HAND_DOCS, doc_type=["x", "x", "y"])
    d = diagnostics(s)
    assert d.deff == pytest.approx((3 / 64) / (0.25 / 8))  # 1.5
    # MSB = 0.75/2, MSW = 1.25/5, m0 = (8 - 24/8)/2 = 2.5 -> rho = 0.125/0.75
    assert d.icc == pytest.approx(1 / 6)
    # sizes 2, 4, 2: m_bar = 8/3, CV^2 = (8/9)/(64/9) = 1/8
    assert d.mean_size == pytest.approx(8 / 3)
    assert d.cv_size**2 == pytest.approx(1 / 8)
    assert d.deff_kish == pytest.approx(1 + ((1 + 1 / 8) * 8 / 3 - 1) / 6)
    assert d.deff_equal == pytest.approx(1 + (8 / 3 - 1) / 6)
    assert d.n_eff == pytest.approx(8 / 1.5)
    assert d.bernoulli_n == pytest.approx(0.25 / (3 / 64))
    assert d.k_over_rho == pytest.approx(3 * 6)
    # rates .5, .75 (type x) and 0 (type y): between SS / total SS
    rates = np.array([0.5, 0.75, 0.0])
    between = 2 * (0.625 - rates.mean()) ** 2 + (0.0 - rates.mean()) ** 2
    assert d.doc_type_share == pytest.approx(between / ((rates - rates.mean()) ** 2).sum())


def lag1_brute_force(docs: dict[str, list[float]]) -> float:
    num = den = 0.0
    for y in docs.values():
        r = np.asarray(y, dtype=float) - np.mean(y)
        num += (r[:-1] * r[1:]).sum()
        den += (r**2).sum()
    return num / den


def test_lag1_autocorrelation_matches_chunk_residuals():
    assert diagnostics(sample_from_chunks(HAND_DOCS)).lag1_autocorr == pytest.approx(lag1_brute_force(HAND_DOCS))
    rng = np.random.default_rng(3)
    docs = {f"d{i}": list(rng.random(rng.integers(1, 12)).round(2)) for i in range(15)}
    assert diagnostics(sample_from_chunks(docs)).lag1_autocorr == pytest.approx(lag1_brute_force(docs))


def test_missing_optional_columns_give_none():
    s = sample_from_chunks(HAND_DOCS)
    bare = ClusterStats(s.cluster_id, s.sum_y, s.n, s.sum_y2)
    d = diagnostics(bare)
    assert d.lag1_autocorr is None and d.doc_type_share is None


# --------------------------------------------------------------------------- independent implementations


def test_cluster_se_matches_statsmodels_cluster_robust_ols():
    s, y, group = random_population(np.random.default_rng(0))
    fit = sm.OLS(y, np.ones((y.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": group})
    # statsmodels' small-sample factor is G/(G-1) * (N-1)/(N-k); with k = 1 regressor
    # the second factor is 1, so it is exactly the linearization's K/(K-1).
    assert interval_report(s, boot=10, rng=0).interval("cluster").se == pytest.approx(fit.bse[0], rel=1e-10)
    assert estimate(s) == pytest.approx(fit.params[0])


def test_fpc_scales_the_linearization_variance():
    s, _, _ = random_population(np.random.default_rng(1))
    plain = interval_report(s, boot=10, rng=0).interval("cluster").se
    finite = interval_report(s.with_population(100), boot=10, rng=0).interval("cluster").se
    assert finite**2 == pytest.approx((1 - 40 / 100) * plain**2)


def test_naive_and_wilson_match_statsmodels():
    s, _, _ = random_population(np.random.default_rng(2))
    r = interval_report(s, boot=10, rng=0)
    count, nobs = int(s.sum_y.sum()), s.n_chunks
    assert r.interval("naive").ci == pytest.approx(proportion_confint(count, nobs, alpha=0.05, method="normal"))
    assert r.interval("wilson").ci == pytest.approx(proportion_confint(count, nobs, alpha=0.05, method="wilson"))


def test_cluster_wilson_is_wilson_at_effective_n_with_t_critical_value():
    s, _, _ = random_population(np.random.default_rng(4), k=20)
    r = interval_report(s, level=0.9, boot=10, rng=0)
    p = r.estimate
    n_eff = p * (1 - p) / r.interval("cluster").se ** 2
    t = stats.t.ppf(0.95, s.n_docs - 1)
    alpha = 2 * stats.norm.sf(t)  # the normal-alpha whose critical value is t(K-1)
    expected = proportion_confint(p * n_eff, n_eff, alpha=alpha, method="wilson")
    assert r.interval("cluster_wilson").ci == pytest.approx(expected, rel=1e-9)
    assert r.interval("cluster_wilson").ci[1] - r.interval("cluster_wilson").ci[0] > 0


def test_icc_matches_one_way_anova_f():
    s, y, group = random_population(np.random.default_rng(5), k=30)
    f = stats.f_oneway(*[y[group == g] for g in range(30)]).statistic
    n, m = s.n_chunks, s.n
    m0 = (n - (m**2).sum() / n) / 29
    assert diagnostics(s).icc == pytest.approx((f - 1) / (f + m0 - 1))


def test_doc_type_share_matches_pandas_groupby():
    rng = np.random.default_rng(6)
    s, _, _ = random_population(rng, k=30)
    types = rng.choice(["law", "memo", "report"], 30)
    s = ClusterStats(s.cluster_id, s.sum_y, s.n, s.sum_y2, label=types)
    frame = pd.DataFrame({"rate": s.sum_y / s.n, "type": types})
    fitted = frame.groupby("type")["rate"].transform("mean")
    share = ((fitted - frame.rate.mean()) ** 2).sum() / ((frame.rate - frame.rate.mean()) ** 2).sum()
    assert diagnostics(s).doc_type_share == pytest.approx(share)


def test_batch_kernel_equals_one_sample_report():
    rng = np.random.default_rng(7)
    samples = [random_population(rng, k=12)[0] for _ in range(3)]
    arr = interval_arrays(np.stack([s.sum_y for s in samples]), np.stack([s.n for s in samples]))
    for i, s in enumerate(samples):
        r = interval_report(s, boot=10, rng=0)
        assert list(arr.lower) == [m.name for m in METHODS if not m.resamples]  # no replicates without reps
        for name in arr.lower:
            assert (arr.lower[name][i], arr.upper[name][i]) == pytest.approx(r.interval(name).ci)


def test_non_binary_scores_use_chunk_variance():
    docs = {"a": [0.2, 0.4], "b": [1.0, 0.5, 0.0], "c": [0.9]}
    s = sample_from_chunks(docs)
    assert not s.binary
    y = np.concatenate([np.asarray(v) for v in docs.values()])
    r = interval_report(s, boot=10, rng=0)
    assert r.estimate == pytest.approx(y.mean())
    assert r.interval("naive").se == pytest.approx(y.std() / np.sqrt(y.size))


# --------------------------------------------------------------------------- a published worked example


def test_seed_figures():
    assert binomial_se(0.18, 10_000) == pytest.approx(0.0038, abs=5e-5)
    assert k_over_rho(20, 0.293) == pytest.approx(68, abs=0.5)
    assert k_over_rho(20, 0.0) == np.inf
    # an undefined ICC (e.g. one chunk per document: no within-document variance) gives no ceiling, not inf
    assert np.isnan(k_over_rho(20, np.nan))
    np.testing.assert_array_equal(k_over_rho(10, np.array([0.5, -0.1, np.nan])), [20.0, np.inf, np.nan])
    assert np.isnan(diagnostics(sample_from_chunks({"a": [1], "b": [0], "c": [1]})).k_over_rho)
    assert bernoulli_equivalent_n(0.1506, 0.0885**2) == pytest.approx(19.2, abs=0.05)
    assert bernoulli_equivalent_n(0.1506, 0.0915**2) == pytest.approx(18.0, abs=0.05)
    assert design_effect(0.0885**2, 0.0171**2) == pytest.approx(26.8, abs=0.1)
    assert design_effect(0.0915**2, 0.0171**2) == pytest.approx(28.7, abs=0.1)


# --------------------------------------------------------------------------- validation


def test_cluster_stats_validation_and_helpers():
    with pytest.raises(ValueError, match="^n has shape"):
        ClusterStats(np.array(["a", "b"]), np.array([1.0, 2.0]), np.array([3]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="n must be >= 1"):
        ClusterStats(np.array(["a", "b"]), np.array([0.0, 0.0]), np.array([3, 0]), np.array([0.0, 0.0]))
    with pytest.raises(ValueError, match="population_docs=1"):
        ClusterStats(
            np.array(["a", "b"]), np.array([0.0, 0.0]), np.array([3, 1]), np.array([0.0, 0.0]), population_docs=1
        )
    s = sample_from_chunks(HAND_DOCS, doc_type=["x", "x", "y"])
    assert (s.n_docs, s.n_chunks) == (3, 8)
    sub = s.subset(np.array([2, 0]))
    assert sub.cluster_id.tolist() == ["c", "a"] and sub.label.tolist() == ["y", "x"]
    assert sub.first_y.tolist() == [0.0, 1.0]
    assert s.with_population(10).population_docs == 10
    with pytest.raises(ValueError, match="at least 2 documents"):
        interval_report(s.subset([0]))
    with pytest.raises(ValueError, match="estimator must be one of"):
        interval_report(s, estimator="mean")
    with pytest.raises(ValueError, match="level must be strictly between"):
        interval_report(s, level=95)


# --------------------------------------------------------------------------- properties

docs_strategy = st.lists(st.lists(st.integers(0, 1), min_size=1, max_size=15), min_size=2, max_size=12)


def _sample(chunks: list[list[int]], population_docs=None) -> ClusterStats:
    return sample_from_chunks({f"d{i}": c for i, c in enumerate(chunks)}, population_docs=population_docs)


def test_documents_at_one_rate_give_korn_graubard_one_trial_per_document():
    # Three documents at 2/5 each: the residuals round to ~1e-17 instead of 0, and an effective n of
    # ~1e33 put Korn-Graubard's lower limit above the estimate (hypothesis found it).
    r = interval_report(_sample([[0, 0, 0, 1, 1]] * 3), estimator="macro", level=0.75, boot=50, rng=0)
    low, high = r.interval("korn_graubard").ci
    alpha = 0.25
    x = 3 * 0.4  # one trial per document: n = K = 3
    assert low == pytest.approx(stats.beta.ppf(alpha / 2, x, 3 - x + 1))
    assert high == pytest.approx(stats.beta.ppf(1 - alpha / 2, x + 1, 3 - x))
    assert low < 0.4 < high


@settings(max_examples=60, deadline=None)
@given(docs_strategy, st.sampled_from(["micro", "macro"]), st.floats(0.5, 0.99))
def test_interval_properties(chunks, estimator, level):
    s = _sample(chunks)
    r = interval_report(s, estimator=estimator, level=level, boot=50, rng=0)
    y = np.concatenate([np.asarray(c, float) for c in chunks])
    if estimator == "micro":
        assert r.estimate == pytest.approx(y.mean())
    assert 0 <= r.estimate <= 1
    for iv in (r.interval("wilson"), r.interval("cluster_wilson")):
        assert -1e-12 <= iv.ci[0] <= iv.ci[1] <= 1 + 1e-12
    for iv in (r.interval(m.name) for m in METHODS if not m.resamples):
        if iv.method == "logit" and r.estimate in (0, 1):  # the logit of 0 or 1 is infinite: undefined
            assert np.isnan(iv.ci).all()
            continue
        assert iv.ci[0] - 1e-12 <= r.estimate <= iv.ci[1] + 1e-12
    # t(K-1) is never narrower than the normal interval
    assert r.interval("cluster_t").ci[0] <= r.interval("cluster").ci[0] + 1e-15
    assert 0 <= r.interval("bootstrap").ci[0] <= r.interval("bootstrap").ci[1] <= 1


@settings(max_examples=60, deadline=None)
@given(docs_strategy, st.sampled_from(["micro", "macro"]), st.randoms(use_true_random=False))
def test_invariant_to_document_order(chunks, estimator, random):
    s = _sample(chunks)
    order = list(range(s.n_docs))
    random.shuffle(order)
    a = interval_arrays(s.sum_y, s.n, estimator=estimator)
    b = interval_arrays(s.sum_y[order], s.n[order], estimator=estimator)
    assert b.estimate == pytest.approx(a.estimate)
    for name in a.lower:
        assert [float(b.lower[name]), float(b.upper[name])] == pytest.approx(
            [float(a.lower[name]), float(a.upper[name])], nan_ok=True
        )
    da, db = diagnostics(s, estimator=estimator), diagnostics(s.subset(order), estimator=estimator)
    assert db.icc == pytest.approx(da.icc, nan_ok=True)
    assert db.deff == pytest.approx(da.deff, nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(docs_strategy, st.sampled_from(["micro", "macro"]), st.integers(0, 30))
def test_fpc_shrinks_and_census_has_zero_cluster_se(chunks, estimator, extra):
    s = _sample(chunks)
    plain = interval_report(s, estimator=estimator, boot=10, rng=0).interval("cluster").se
    finite = (
        interval_report(s.with_population(s.n_docs + extra), estimator=estimator, boot=10, rng=0).interval("cluster").se
    )
    assert finite <= plain + 1e-15
    if extra == 0:
        assert finite == 0.0
