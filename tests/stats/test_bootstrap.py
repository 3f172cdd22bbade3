"""Cluster bootstrap against scipy.stats.bootstrap, resampling theory and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import ragunc.stats.bootstrap as rb
from ragunc.stats.bootstrap import sorted_quantile
from ragunc.stats.linearization import jackknife
from ragunc.stats.intervals import interval_arrays, interval_estimates
from ragunc.stats.methods import CLUSTER_BOOTSTRAP, METHODS
from ragunc.stats.sample import ClusterStats

BOOTSTRAP = [m.name for m in METHODS if m.family == CLUSTER_BOOTSTRAP]  # percentile, BCa, studentized (linear, logit)
STUDENTIZED = [m.name for m in METHODS if m.needs_replicate_se]


def cluster_bootstrap(s: ClusterStats, *, estimator: str = "micro", reps: int, rng, level: float = 0.95):
    """The bootstrap methods' intervals of one sample, sharing their replicates."""
    return interval_estimates(s, BOOTSTRAP, estimator=estimator, level=level, boot=reps, rng=rng)


def beta_binomial_sample(rng, k=30, rho=0.3, p=0.25) -> ClusterStats:
    n = rng.integers(1, 80, k)
    a = p * (1 / rho - 1)
    hits = rng.binomial(n, rng.beta(a, a * (1 - p) / p, k)).astype(float)
    return ClusterStats(np.arange(k).astype(str), hits, n, hits)


def ratio(y, m, axis=-1):
    return y.sum(axis=axis) / m.sum(axis=axis)


def mean_rate(r, axis=-1):
    return r.mean(axis=axis)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_matches_scipy_bootstrap(method, estimator):
    s = beta_binomial_sample(np.random.default_rng(11))
    reps = 50_000
    ours = cluster_bootstrap(s, estimator=estimator, reps=reps, rng=1)
    if estimator == "micro":
        data, stat = (s.sum_y, s.n.astype(float)), ratio
    else:
        data, stat = (s.sum_y / s.n,), mean_rate
    ref = stats.bootstrap(data, stat, paired=True, vectorized=True, n_resamples=reps, method=method, rng=2)
    ci = ours["bootstrap" if method == "percentile" else "bootstrap_bca"].ci
    # Two independent Monte Carlo runs of B = 50,000: each bound's MC sd is ~2% of
    # the SE here (measured over seeds), so 8% of the SE is ~3 sd of their difference.
    tol = 0.08 * ref.standard_error
    assert ci[0] == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert ci[1] == pytest.approx(ref.confidence_interval.high, abs=tol)
    assert ours["bootstrap"].se == pytest.approx(ref.standard_error, rel=0.03)


def test_bootstrap_variance_of_a_mean_matches_theory():
    # Resampling K values with replacement: Var* of their mean is (K-1)/K * s^2 / K exactly.
    rng = np.random.default_rng(12)
    s = beta_binomial_sample(rng, k=25)
    rate = s.sum_y / s.n
    theory = (24 / 25) * rate.var(ddof=1) / 25
    se = cluster_bootstrap(s, estimator="macro", reps=40_000, rng=3)["bootstrap"].se
    assert se**2 == pytest.approx(theory, rel=0.03)


def test_seeded_and_reproducible():
    s = beta_binomial_sample(np.random.default_rng(6))
    assert cluster_bootstrap(s, reps=300, rng=9) == cluster_bootstrap(s, reps=300, rng=9)
    assert cluster_bootstrap(s, reps=300, rng=9) != cluster_bootstrap(s, reps=300, rng=10)


@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_jackknife_closed_form_matches_leave_one_out(estimator):
    s = beta_binomial_sample(np.random.default_rng(7), k=9)
    rate = s.sum_y / s.n
    brute = [
        (np.delete(s.sum_y, i).sum() / np.delete(s.n, i).sum()) if estimator == "micro" else np.delete(rate, i).mean()
        for i in range(9)
    ]
    assert jackknife(s.sum_y, s.n, estimator) == pytest.approx(brute)


def test_sorted_quantile_matches_numpy_percentile():
    rng = np.random.default_rng(8)
    x = np.sort(rng.random((5, 101)), -1)
    q = rng.random(5)
    expected = [np.percentile(x[i], 100 * q[i]) for i in range(5)]
    assert sorted_quantile(x, q) == pytest.approx(expected)
    q[1] = np.nan
    out = sorted_quantile(x, q)
    assert np.isnan(out[1]) and np.isfinite(out[[0, 2, 3, 4]]).all()


def test_batch_equals_leading_axes():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 10, (3, 15)).astype(float)
    m = y + rng.integers(1, 10, (3, 15))
    arr = interval_arrays(y, m, methods=BOOTSTRAP, reps=500, rng=0)
    assert arr.se["bootstrap"].shape == arr.lower["bootstrap_bca"].shape == (3,)
    for name in BOOTSTRAP:
        assert np.all(arr.lower[name] <= arr.upper[name])


def test_degenerate_sample_gives_point_interval():
    s = ClusterStats(np.array(["a", "b", "c"]), np.zeros(3), np.array([2, 5, 1]), np.zeros(3))
    b = cluster_bootstrap(s, reps=100, rng=0)
    assert b["bootstrap"].se == 0
    for name in BOOTSTRAP:
        if name in STUDENTIZED:  # nothing to studentize without a spread: undefined, not a point
            assert np.isnan(b[name].ci).all(), name
        else:
            assert b[name].ci == (0.0, 0.0), name


def test_validation():
    s = beta_binomial_sample(np.random.default_rng(10))
    with pytest.raises(ValueError, match="boot must be a whole number >= 2, got 1"):
        cluster_bootstrap(s, reps=1, rng=0)
    with pytest.raises(ValueError, match="at least 2 documents"):
        cluster_bootstrap(s.subset([0]), reps=10, rng=0)


@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_replicate_se_is_the_linearization_se_of_the_resample(estimator):
    # Two documents: every resample is aa, bb (no spread: SE 0) or ab/ba, whose
    # linearization SE is computed here by hand.
    y, m = np.array([3.0, 1.0]), np.array([4.0, 5.0])
    theta, se = rb.replicates(y, m, estimator=estimator, reps=400, rng=3)
    if estimator == "micro":
        p_ab = 4 / 9
        se_ab = np.sqrt(2 / 1 * ((3 - p_ab * 4) ** 2 + (1 - p_ab * 5) ** 2) / 9**2)
        expected = {(0.75, 0.0), (0.2, 0.0), (round(p_ab, 12), round(se_ab, 12))}
    else:
        r = np.array([0.75, 0.2])
        expected = {(0.75, 0.0), (0.2, 0.0), (round(r.mean(), 12), round(np.sqrt(r.var(ddof=1) / 2), 12))}
    seen = {(round(t, 12), round(s, 12)) for t, s in zip(theta, se)}
    assert seen == expected


def _studentized_by_hand(y, m, reps, level, rng):
    """Brute force: resample document indices, recompute the ratio and its SE per replicate."""
    k = y.size
    idx = rng.integers(0, k, size=(reps, k))
    yb, mb = y[idx], m[idx]
    pb = yb.sum(1) / mb.sum(1)
    seb = np.sqrt(k / (k - 1) * ((yb - pb[:, None] * mb) ** 2).sum(1)) / mb.sum(1)
    p = y.sum() / m.sum()
    se = np.sqrt(k / (k - 1) * ((y - p * m) ** 2).sum()) / m.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(seb > 0, (pb - p) / seb, np.sign(pb - p) * np.inf)  # all-alike resamples: +-inf
    q_lo, q_hi = np.percentile(np.nan_to_num(t, nan=0.0), [50 * (1 - level), 50 * (1 + level)])
    return max(p - q_hi * se, 0.0), min(p - q_lo * se, 1.0)


def test_studentized_interval_matches_brute_force():
    s = beta_binomial_sample(np.random.default_rng(5), k=20)
    ours = cluster_bootstrap(s, reps=40_000, rng=2)["bootstrap_t"].ci
    hand = _studentized_by_hand(s.sum_y, s.n.astype(float), 40_000, 0.95, np.random.default_rng(9))
    assert ours == pytest.approx(hand, abs=0.006)
    # and it is not the percentile interval under another name
    assert ours != pytest.approx(cluster_bootstrap(s, reps=40_000, rng=2)["bootstrap"].ci, abs=1e-3)


def test_studentized_can_be_skipped_without_changing_the_other_intervals():
    # Without the studentized method the replicates' SEs are not resampled; the draws,
    # hence the percentile and BCa bounds, are the same.
    s = beta_binomial_sample(np.random.default_rng(2))
    full = interval_arrays(s.sum_y, s.n, methods=BOOTSTRAP, reps=300, rng=1)
    lean = interval_arrays(s.sum_y, s.n, methods=["bootstrap", "bootstrap_bca"], reps=300, rng=1)
    assert list(lean.lower) == ["bootstrap", "bootstrap_bca"]
    for name in lean.lower:
        assert (lean.lower[name], lean.upper[name]) == (full.lower[name], full.upper[name])
    assert np.isfinite(full.lower["bootstrap_t"]) and full.lower["bootstrap_t"] < full.upper["bootstrap_t"]


@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_studentized_is_undefined_with_two_documents(estimator):
    # K = 2: the resamples aa and bb have se* = 0 and ab / ba are the sample itself
    # (t* = 0), so the t quantiles carry no information; a zero-width interval at
    # the estimate would claim certainty the two documents do not give.
    s = ClusterStats(np.array(["a", "b"]), np.array([3.0, 1.0]), np.array([4, 5]), np.array([3.0, 1.0]))
    b = cluster_bootstrap(s, estimator=estimator, reps=500, rng=0)
    assert np.isnan(b["bootstrap_t"].ci).all()
    assert b["bootstrap"].ci.low < b["bootstrap"].ci.high  # the percentile interval is still there


@pytest.mark.parametrize("seed", range(6))
def test_bca_counts_resamples_of_the_sample_itself_as_ties(seed):
    # Equal sizes: macro equals micro replicate by replicate (same draws), but macro
    # sums float rates in resampling order, so a replicate that redraws the sample's
    # own documents (~9% of them at K = 4) misses the estimate by an ulp.  Counted
    # as ties, both give the same bias correction and the same BCa interval.
    rng = np.random.default_rng(seed)
    m = np.full(4, 7)
    y = rng.binomial(m, 0.4).astype(float)
    s = ClusterStats(np.arange(4).astype(str), y, m, y)
    micro = cluster_bootstrap(s, estimator="micro", reps=2000, rng=3)
    macro = cluster_bootstrap(s, estimator="macro", reps=2000, rng=3)
    assert macro["bootstrap_bca"].ci == pytest.approx(micro["bootstrap_bca"].ci, rel=1e-9)


def _one_document_with_hits(hit_docs: int) -> ClusterStats:
    n = np.array([12, 30, 8, 41, 19, 25, 7, 60, 14, 22])
    hits = np.zeros(10)
    hits[:hit_docs] = np.minimum(n[:hit_docs], 5)
    return ClusterStats(np.arange(10).astype(str), hits, n, hits)


def test_resamples_without_spread_are_infinite_pivots_not_dropped():
    s = _one_document_with_hits(1)
    theta_star, se_star = rb.replicates(s.sum_y, s.n, reps=4000, rng=3)
    theta = s.sum_y.sum() / s.n.sum()
    t = rb.studentized_pivots(theta_star, se_star, theta)
    missed = theta_star == 0  # resamples without the one document with hits
    assert missed.mean() == pytest.approx(0.9**10, abs=0.025)
    assert np.all(se_star[missed] == 0) and np.all(t[missed] == -np.inf)
    assert np.all(np.isfinite(t[~missed]))
    # More than 2.5% of the pivots are -inf: the upper bound is the edge of [0, 1]
    # (the old rule, dropping them, put it a little above the estimate).
    b = cluster_bootstrap(s, reps=4000, rng=3)
    assert b["bootstrap_t"].ci[1] == 1.0 and b["bootstrap_t_logit"].ci[1] == 1.0
    assert 0.0 <= b["bootstrap_t"].ci[0] < theta and 0.0 < b["bootstrap_t_logit"].ci[0] < theta
    kept = t[np.isfinite(t)]
    se_hat = np.sqrt(10 / 9 * ((s.sum_y - theta * s.n) ** 2).sum()) / s.n.sum()
    assert theta - np.quantile(kept, 0.025) * se_hat < 0.5  # what dropping them gave


def test_enough_documents_with_hits_give_an_informative_studentized_interval():
    # Five of ten documents with hits: a resample misses all of them with probability 0.5^10 < 2.5%.
    s = _one_document_with_hits(5)
    b = cluster_bootstrap(s, reps=4000, rng=3)
    theta = s.sum_y.sum() / s.n.sum()
    for name in STUDENTIZED:
        assert 0 < b[name].ci[0] < theta < b[name].ci[1] < 0.5, name


def test_studentized_bounds_stay_in_the_unit_interval_and_need_a_spread():
    rng = np.random.default_rng(4)
    n = rng.integers(1, 40, (300, 8))
    hits = rng.binomial(n, 0.04).astype(float)  # many samples with bounds below 0 before clipping
    arr = interval_arrays(hits, n, methods=STUDENTIZED, reps=500, rng=5)
    no_spread = (hits / n == (hits / n)[:, :1]).all(1)
    assert no_spread.any()
    for name in STUDENTIZED:
        lo, hi = arr.lower[name], arr.upper[name]
        assert np.isnan(lo[no_spread]).all() and np.isnan(hi[no_spread]).all()
        assert np.all((lo[~no_spread] >= 0) & (lo[~no_spread] <= hi[~no_spread]) & (hi[~no_spread] <= 1))
    assert (arr.lower["bootstrap_t"][~no_spread] == 0).any()  # clipped, not negative


def test_sorted_quantile_interpolates_towards_infinities():
    reps = np.array([-np.inf, -np.inf, 1.0, 2.0, 3.0])
    assert sorted_quantile(reps, 0.25) == -np.inf  # position 1: the second -inf
    assert sorted_quantile(reps, 0.3) == -np.inf  # between -inf and 1
    assert sorted_quantile(reps, 0.5) == 1.0
    assert sorted_quantile(reps, 0.625) == 1.5
    both = np.array([-np.inf, np.inf])
    assert sorted_quantile(both, 0.4) == -np.inf and sorted_quantile(both, 0.6) == np.inf
    assert sorted_quantile(np.array([1.0, np.inf]), 0.0) == 1.0


def test_repetitions_have_independent_resampling_patterns():
    # Identical samples in every row: each row has its own stream, so their replicates differ and
    # agree only in distribution (no resampling pattern is shared across repetitions).
    s = beta_binomial_sample(np.random.default_rng(6), k=20)
    rows = 300
    y, m = np.tile(s.sum_y, (rows, 1)), np.tile(s.n.astype(float), (rows, 1))
    boot, _ = rb.replicates(y, m, reps=400, rng=1, with_se=False)
    assert len({row.tobytes() for row in boot}) == rows
    corr = np.corrcoef(boot[:, :200])[np.triu_indices(rows, 1)]
    assert abs(corr.mean()) < 0.01 and corr.std() == pytest.approx(1 / np.sqrt(200), rel=0.15)


def test_kernel_sd_and_ties_match_numpy_on_the_replicates():
    s = beta_binomial_sample(np.random.default_rng(8), k=15)
    boot = rb.resample(s.sum_y[None], s.n[None], reps=3000, rng=2, with_se=False)
    reps, _ = rb.replicates(s.sum_y[None], s.n[None], reps=3000, rng=2, with_se=False)
    theta = s.sum_y.sum() / s.n.sum()
    assert boot.sd[0] == pytest.approx(reps[0].std(ddof=1), rel=1e-9)
    assert boot.below[0] == (reps[0] < theta).sum() + 0.5 * (reps[0] == theta).sum()
    assert np.array_equal(boot.sorted[0], np.sort(reps[0]))
