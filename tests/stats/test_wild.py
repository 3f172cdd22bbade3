"""The jackknife (CV3) and the restricted wild cluster bootstrap against pyfixest, wildboottest and theory."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from ragunc.stats.bootstrap_kernels import row_seeds, wild_sums, wild_tstats
from ragunc.stats.intervals import interval_arrays
from ragunc.stats.linearization import cluster_variance, jackknife_variance
from ragunc.stats.wild import wild_cluster_restricted, wild_pvalue, wild_resample

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "cv3_wcr.json").read_text())
CASES = FIXTURE["cases"]


def _sample(k=20, seed=0, tail=1.0):
    rng = np.random.default_rng(seed)
    n = np.ceil(3 * (rng.pareto(tail, k) + 1))
    hits = rng.binomial(n.astype(int), np.where(rng.random(k) < 0.5, 0, rng.beta(1, 3, k))).astype(float)
    hits[0] = max(hits[0], 1.0)
    return hits, n


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"K={len(c['size'])}")
def test_jackknife_se_is_pyfixest_crv3(case):
    hits, n = np.array(case["hits"], float), np.array(case["size"], float)
    k = n.size
    se = np.sqrt(jackknife_variance(hits, n))
    # CV3 of MacKinnon, Nielsen & Webb: (G - 1)/G times pyfixest's sum without small-sample factor;
    # pyfixest's default factor is G/(G - 1) on that sum.
    assert se == pytest.approx(np.sqrt((k - 1) / k) * case["crv3_se_no_ssc"], abs=1e-6)
    assert se * k / (k - 1) == pytest.approx(case["crv3_se_default"], abs=1e-6)
    assert hits.sum() / n.sum() == pytest.approx(case["estimate"], abs=1e-12)


def test_jackknife_of_the_macro_mean_is_its_linearization_and_fpc_scales_it():
    hits, n = _sample()
    assert jackknife_variance(hits, n, "macro") == pytest.approx(cluster_variance(hits, n, "macro"))
    assert jackknife_variance(hits, n, fpc=0.6) == pytest.approx(0.6 * jackknife_variance(hits, n))


def test_jackknife_interval_is_estimate_plus_minus_t_se_inside_zero_one():
    from scipy import stats

    hits, n = _sample(k=12, seed=4)
    arr = interval_arrays(hits, n, methods=["jackknife"], fpc=0.9)
    se = np.sqrt(jackknife_variance(hits, n, fpc=0.9))
    t = stats.t.ppf(0.975, 11)
    est = hits.sum() / n.sum()
    assert arr.se["jackknife"] == pytest.approx(se)
    assert arr.lower["jackknife"] == pytest.approx(max(0.0, est - t * se))
    assert arr.upper["jackknife"] == pytest.approx(est + t * se)
    assert arr.lower["jackknife"] >= 0


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"K={len(c['size'])}")
def test_wild_pvalues_agree_with_wildboottest_within_monte_carlo_error(case):
    hits, n = np.array(case["hits"], float), np.array(case["size"], float)
    b = case["B"]
    for ref in case["wcr_pvalues"]:
        p = float(wild_pvalue(hits, n, ref["beta0"], reps=b, webb=case["weights"] == "webb", rng=11))
        # two independent estimates of one p-value: SE of their difference sqrt(2 p (1 - p) / B)
        mcse = np.sqrt(2 * max(ref["p"] * (1 - ref["p"]), 1 / b) / b)
        assert abs(p - ref["p"]) <= 4 * mcse, (ref, p)


@pytest.mark.parametrize(("k", "seed", "fpc"), [(5, 1, 1.0), (10, 2, 1.0), (20, 3, 1.0), (20, 3, 0.7), (50, 5, 1.0)])
def test_wild_interval_is_the_set_the_test_does_not_reject(k, seed, fpc):
    hits, n = _sample(k=k, seed=seed)
    w = wild_resample(hits, n, reps=999, fpc=fpc, rng=seed)
    _, lower, upper = wild_cluster_restricted(w)
    # the p-value of every null on a grid, from the same replicates
    grid = np.linspace(0, 1, 2001)
    t = np.abs(w.theta - grid) / w.se
    one = w.sums()
    sums = one._replace(
        first=np.repeat(one.first, grid.size, 0),
        second=np.repeat(one.second, grid.size, 0),
        sum_m2=np.repeat(one.sum_m2, grid.size),
        sum_m=np.repeat(one.sum_m, grid.size),
    )
    p = (wild_tstats(sums, grid) >= t[:, None]).mean(-1)
    step = grid[1] - grid[0]
    near = grid[(grid > lower - 0.5) & (grid < upper + 0.5)]
    inside = p[(grid >= lower + step) & (grid <= upper - step)]
    assert (inside > 0.05).all() and near.size
    # just outside each bound the test rejects (or the bound is the edge of [0, 1])
    for bound, outside in ((lower, grid < lower - step), (upper, grid > upper + step)):
        if 0 < bound < 1:
            assert p[outside][np.argmin(np.abs(grid[outside] - bound))] <= 0.05


@pytest.mark.parametrize(("k", "tail", "estimator"), [(14, 1.0, "micro"), (20, 0.8, "micro"), (40, 1.5, "macro")])
def test_each_bound_sits_where_the_p_value_crosses_alpha_within_a_thousandth_of_an_se(k, tail, estimator):
    """The interval kernel (one replicate's closed form solved, checked by counts) against the p-values of
    the same replicates drawn apart (:func:`wild_sums`), on 40 samples at once."""
    rows = [_sample(k=k, seed=s, tail=tail) for s in range(40)]
    hits, n = np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])
    w = wild_resample(hits, n, estimator=estimator, fpc=0.9, rng=21)
    _, lower, upper = wild_cluster_restricted(w)
    sums = w.sums()
    for bound, side in ((lower, -1.0), (upper, 1.0)):
        inside = bound - side * 1e-3 * w.se
        outside = bound + side * 1e-3 * w.se
        for beta, rejects in ((inside, False), (outside, True)):
            t = np.abs(w.theta - beta) / w.se
            p = (wild_tstats(sums, beta) >= t[:, None]).mean(-1)
            on_edge = (bound == 0) | (bound == 1)
            assert ((p <= 0.05) == rejects)[~on_edge].all(), (side, rejects, p[~on_edge])


def test_webb_weights_below_twelve_documents_and_rows_keep_their_streams():
    hits, n = _sample(k=6, seed=7)
    one = wild_sums(hits[None], n[None], 999, row_seeds(np.random.default_rng(5), 1), webb=True)
    # Rademacher weights give at most 2^6 sums: Webb's six points give hundreds
    assert np.unique(np.round(one.first[0, :, 1], 9)).size > 500
    rad = wild_sums(hits[None], n[None], 999, row_seeds(np.random.default_rng(5), 1), webb=False)
    assert np.unique(np.round(rad.first[0, :, 1], 9)).size <= 64
    # E v = 0, E v^2 = 1 for Webb's weights: the mean of sum v^2 m^2 is sum m^2
    assert one.second[0, :, 2].mean() == pytest.approx((n**2).sum(), rel=0.1)
    # a row's replicates do not depend on the rows beside it (one stream per row)
    batch = wild_sums(
        np.stack([hits, hits[::-1]]),
        np.stack([n, n[::-1]]),
        999,
        row_seeds(np.random.default_rng(5), 2),
        webb=True,
    )
    np.testing.assert_array_equal(batch.first[0], one.first[0])


def test_wild_interval_undefined_without_a_spread_and_narrower_with_the_fpc():
    n = np.array([3.0, 5, 8, 2, 9, 4, 6, 7, 3, 5, 4, 6, 8])
    _, lo, hi = wild_cluster_restricted(wild_resample(np.zeros(13), n, rng=0))
    assert np.isnan(lo) and np.isnan(hi)
    hits, n = _sample(k=30, seed=9)
    _, lo1, hi1 = wild_cluster_restricted(wild_resample(hits, n, rng=0))
    _, lo2, hi2 = wild_cluster_restricted(wild_resample(hits, n, fpc=0.5, rng=0))
    assert lo1 < lo2 < hi2 < hi1
