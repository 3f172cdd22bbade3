"""Paired comparison against statsmodels, scipy's paired t and hand formulas."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from ragunc.stats.paired import paired_comparison
from ragunc.stats.sample import ClusterStats


def two_configs(seed: int, k: int = 40, shift: float = 0.08):
    """Same documents and chunks under two configs; b helps every document a little."""
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 40, k)
    rate = rng.beta(1, 3, k)
    ya = [rng.random(m) < p for m, p in zip(n, rate)]
    yb = [a | (rng.random(a.size) < shift) for a in ya]

    def sample(ys, name):
        tot = np.array([y.sum() for y in ys], dtype=float)
        return ClusterStats(np.arange(k).astype(str), tot, n, tot, config=name)

    return sample(ya, "a"), sample(yb, "b"), ya, yb


def test_micro_paired_se_matches_statsmodels_on_chunk_differences():
    a, b, ya, yb = two_configs(0)
    diff = np.concatenate(yb).astype(float) - np.concatenate(ya)
    groups = np.repeat(np.arange(a.n_docs), a.n)
    fit = sm.OLS(diff, np.ones((diff.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    r = paired_comparison(a, b, boot=200, rng=0)
    assert r.difference == pytest.approx(fit.params[0])
    assert r.interval("paired").se == pytest.approx(fit.bse[0])


def test_macro_paired_se_is_the_paired_t_se():
    a, b, _, _ = two_configs(1)
    ra, rb = a.sum_y / a.n, b.sum_y / b.n
    t = stats.ttest_rel(rb, ra)
    r = paired_comparison(a, b, estimator="macro", boot=200, rng=0)
    assert r.difference == pytest.approx((rb - ra).mean())
    assert r.interval("paired").se == pytest.approx(r.difference / t.statistic)


def test_naive_is_the_unpaired_binomial():
    a, b, _, _ = two_configs(2)
    r = paired_comparison(a, b, boot=200, rng=0)
    pa, pb = a.sum_y.sum() / a.n_chunks, b.sum_y.sum() / b.n_chunks
    assert r.interval("naive").se == pytest.approx(np.sqrt(pa * (1 - pa) / a.n_chunks + pb * (1 - pb) / b.n_chunks))
    # pairing removes the shared document difficulty: far tighter than the unpaired chunks
    assert r.interval("paired").se < r.interval("naive").se


def test_bootstrap_agrees_with_linearization():
    a, b, _, _ = two_configs(3, k=80)
    r = paired_comparison(a, b, boot=4000, rng=0)
    assert r.interval("bootstrap").se == pytest.approx(r.interval("paired").se, rel=0.12)
    assert r.interval("bootstrap").ci[0] < r.difference < r.interval("bootstrap").ci[1]


def test_identical_configs_have_no_paired_uncertainty():
    a, _, _, _ = two_configs(4)
    r = paired_comparison(a, a, boot=100, rng=0)
    assert r.difference == 0 and r.interval("paired").se == 0 and r.interval("bootstrap").se == 0
    assert r.interval("naive").se > 0


def test_only_shared_documents_count():
    a, b, _, _ = two_configs(5, k=10)
    b2 = b.subset(np.arange(3, 10))
    extra = ClusterStats(np.array(["x", "y"]), np.array([1.0, 0.0]), np.array([2, 2]), np.array([1.0, 0.0]))
    b3 = ClusterStats(
        np.r_[b2.cluster_id, extra.cluster_id][::-1],
        np.r_[b2.sum_y, extra.sum_y][::-1],
        np.r_[b2.n, extra.n][::-1],
        np.r_[b2.sum_y2, extra.sum_y2][::-1],
        config="b",
    )
    r = paired_comparison(a, b3, boot=100, rng=0)
    assert (r.n_docs, r.dropped_a, r.dropped_b) == (7, 3, 2)
    ref = paired_comparison(a.subset(np.arange(3, 10)), b2, boot=100, rng=0)
    assert r.difference == pytest.approx(ref.difference)
    assert r.interval("paired").se == pytest.approx(ref.interval("paired").se)
    with pytest.raises(ValueError, match="share 0 document"):
        paired_comparison(a, extra)


def test_one_query_per_document_is_scipys_paired_t():
    rng = np.random.default_rng(5)
    ya, yb = rng.random(25), rng.random(25)
    one = np.ones(25)

    def sample(y, name):
        return ClusterStats(np.arange(25).astype(str), y, one, y**2, config=name)

    r = paired_comparison(sample(ya, "a"), sample(yb, "b"), boot=200, rng=0)
    t = stats.ttest_rel(yb, ya)
    assert r.t == pytest.approx(t.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(t.pvalue, rel=1e-12)
    assert r.df == 24
