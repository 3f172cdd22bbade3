"""Planning against the hand-computed three-document case and the closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ragunc.stats.intervals import interval_report
from ragunc.stats.linearization import linearized_residuals, residual_variance
from ragunc.stats.planning import plan_difference, plan_documents, plan_from_pilot, power_at
from ragunc.stats.sample import ClusterStats

# totals 1, 3, 0 over sizes 2, 4, 2: p = 1/2, residuals (Y - p m)/m_bar = (0, 1, -1) * 3/8
HAND = ClusterStats(
    np.array(["a", "b", "c"]), np.array([1.0, 3.0, 0.0]), np.array([2, 4, 2]), np.array([1.0, 3.0, 0.0])
)
S2 = 2 * (3 / 8) ** 2 / 2  # sum of squared residuals / (K - 1)
Z = stats.norm.ppf(0.975)


def test_hand_case():
    r = plan_documents(HAND, half_width=0.05)
    assert r.doc_variance == pytest.approx(S2)
    expected = math.ceil(Z**2 * S2 / 0.05**2)
    assert r.docs_needed == expected
    assert r.chunks_expected == pytest.approx(expected * 8 / 3)
    assert r.naive_chunks_needed == math.ceil(Z**2 * 0.25 / 0.05**2)
    i = np.searchsorted(r.k, expected)
    assert r.curve_half_width[i] <= 0.05 < r.curve_half_width[i - 1]
    assert r.curve_half_width[i] == pytest.approx(Z * np.sqrt(S2 / expected))
    assert r.curve_naive_half_width[i] == pytest.approx(Z * np.sqrt(0.25 / (expected * 8 / 3)))


def test_curve_at_the_sample_size_is_the_cluster_interval():
    rng = np.random.default_rng(0)
    n = rng.integers(1, 50, 30)
    hits = rng.binomial(n, rng.beta(1, 3, 30)).astype(float)
    s = ClusterStats(np.arange(30).astype(str), hits, n, hits)
    for estimator in ("micro", "macro"):
        r = plan_documents(s, half_width=0.02, estimator=estimator)
        report = interval_report(s, estimator=estimator, boot=10, rng=0)
        half = (report.interval("cluster").ci[1] - report.interval("cluster").ci[0]) / 2
        assert r.curve_half_width[r.k == 30][0] == pytest.approx(half)


@pytest.mark.parametrize("d", [60, 200, 1000])
def test_fpc_makes_the_target_reachable_and_smallest(d):
    s = HAND.with_population(d)
    r = plan_documents(s, half_width=0.05, k_max=10_000)  # the curve stops at D
    assert r.k[-1] == d and r.curve_half_width[-1] == 0
    reached = r.k[r.curve_half_width <= 0.05]
    assert r.docs_needed == max(2, reached.min())
    assert r.docs_needed <= plan_documents(HAND, half_width=0.05).docs_needed


def test_validation_and_contract():
    with pytest.raises(ValueError, match="half_width must be > 0"):
        plan_documents(HAND, half_width=0)
    with pytest.raises(ValueError, match="at least 2 documents"):
        plan_documents(HAND.subset([0]), half_width=0.1)
    d = plan_documents(HAND, half_width=0.1, k_max=50).to_dict()
    assert len(d["curve"]["k"]) == 50
    for key in ("docs_needed", "chunks_expected", "naive_chunks_needed", "half_width", "level"):
        assert key in d


def test_a_pilot_that_is_the_whole_corpus_plans_with_the_fpc_of_its_own_documents():
    # HAND as the whole corpus (D = 3): solve z^2 (1/K - 1/3) s^2 <= h^2 by hand; never more than the 3 documents.
    for half_width in (0.05, 0.3):
        plan = plan_from_pilot(HAND, half_width=half_width, whole_corpus=True)
        by_hand = min(3, max(2, math.ceil(1 / (half_width**2 / (Z**2 * S2) + 1 / 3) - 1e-9)))
        assert plan.docs_needed == by_hand and plan.population_docs == 3
        assert plan.k[-1] == 3 and plan.curve_half_width[-1] == 0  # the census has no sampling error


def test_a_pilot_for_a_larger_corpus_plans_without_the_fpc_even_when_it_carries_a_d():
    plan = plan_from_pilot(HAND.with_population(3), half_width=0.05)
    assert plan.population_docs is None
    assert plan.docs_needed == math.ceil(Z**2 * S2 / 0.05**2)  # the hand case above, with no cap at D
    assert plan.docs_needed > 3


def _two_config_population(seed: int, d: int = 20000):
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 30, d)
    base = rng.beta(1, 5, d)
    ta = rng.binomial(n, base).astype(float)
    tb = rng.binomial(n, np.clip(base + 0.02 + rng.normal(0, 0.04, d), 0, 1)).astype(float)
    ids = np.arange(d).astype(str)
    return ClusterStats(ids, ta, n, ta, config="a"), ClusterStats(ids, tb, n, tb, config="b")


def test_planned_documents_reach_the_power_by_simulation():
    a, b = _two_config_population(0)
    delta = b.sum_y.sum() / b.n_chunks - a.sum_y.sum() / a.n_chunks
    plan = plan_difference(a, b, difference=delta, power=0.8)
    reps, k = 3000, plan.docs_needed
    pick = np.random.default_rng(1).integers(0, a.n_docs, (reps, k))  # K documents of the superpopulation
    est_a, res_a = linearized_residuals(a.sum_y[pick], a.n[pick])
    est_b, res_b = linearized_residuals(b.sum_y[pick], b.n[pick])
    se = np.sqrt(residual_variance(res_b - res_a))
    rejected = np.abs(est_b - est_a) / se > stats.norm.ppf(0.975)
    assert abs(rejected.mean() - 0.8) < 3 * np.sqrt(0.16 / reps) + 0.01
    # one document fewer is (just) short of the target in the formula
    assert power_at(k - 1, delta, plan.paired_variance, 0.95) < 0.8 <= power_at(k, delta, plan.paired_variance, 0.95)


def test_difference_plan_by_hand_and_naive():
    a, b = _two_config_population(2, d=400)
    plan = plan_difference(a, b, difference=0.03, power=0.9, level=0.9)
    _, ra = linearized_residuals(a.sum_y, a.n)
    _, rb = linearized_residuals(b.sum_y, b.n)
    s2 = ((rb - ra) ** 2).sum() / 399
    assert plan.paired_variance == pytest.approx(s2)
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.9)
    assert plan.docs_needed == pytest.approx(z**2 * s2 / 0.03**2, abs=1.5)
    pa, pb = a.sum_y.sum() / a.n_chunks, b.sum_y.sum() / b.n_chunks
    m_bar = a.n.mean()
    assert plan.naive_docs_needed == int(np.ceil(z**2 * (pa * (1 - pa) + pb * (1 - pb)) / (m_bar * 0.03**2)))
    assert np.all(np.diff(plan.curve_power) >= 0)
    with pytest.raises(ValueError, match="power must be"):
        plan_difference(a, b, difference=0.03, power=1.0)
    with pytest.raises(ValueError, match="difference must be"):
        plan_difference(a, b, difference=0.0)
