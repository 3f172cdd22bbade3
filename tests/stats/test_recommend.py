"""The recommendation rule on hand-made samples: the method, the degrees of freedom and the reason given."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.stats.battery import battery_population
from ragunc.stats.coverage import random_subsets
from ragunc.stats.intervals import interval_arrays, interval_report
from ragunc.stats.linearization import bell_mccaffrey_df
from ragunc.stats.leverage import effective_documents
from ragunc.stats.recommend import (
    RECOMMENDED_METHOD,
    SPAN_METHOD,
    WILD_METHOD,
    WILD_SHARE,
    recommend,
    recommended_methods,
    weak_corner,
    wild_evidence,
)
from ragunc.stats.sample import draw_sample

SIZES = np.array([12, 30, 8, 41, 19, 25, 7, 60, 14, 22])


def test_equal_sizes_are_rs_korn_graubard():
    r = recommend(np.array([1.0, 4, 0, 2, 3, 5]), np.full(6, 8))
    assert r.method == RECOMMENDED_METHOD == "korn_graubard_bm"
    assert r.df == pytest.approx(5)
    assert "near-equal" in r.reason and "svyciprop" in r.reason
    assert (r.documents_with_hits, r.documents_with_misses) == (5, 6)
    assert "Only" not in r.reason


def test_one_long_document_lowers_the_degrees_of_freedom_and_says_why():
    n = np.array([300, 5, 5, 5, 5, 5, 5, 5, 5, 5])
    sum_y = np.array([60.0, 1, 0, 2, 1, 0, 1, 3, 0, 1])
    r = recommend(sum_y, n)
    assert r.df == pytest.approx(float(bell_mccaffrey_df(n)))
    assert r.df < 3
    assert f"df = {r.df:.1f} instead of K - 1 = 9" in r.reason and "long documents" in r.reason
    assert "as well" not in r.reason  # hits in 7 of the 10 documents: not the weak corner
    # one document holds 300 of 345 chunks: G* = 345^2 / 90,225 = 1.3 of 10, so the span is reported
    assert r.method == SPAN_METHOD and "worth G* = 1.3 equal ones" in r.reason


def test_a_long_document_among_ten_with_g_star_at_four_tenths_of_k_keeps_the_default():
    n = np.array([40, 10, 10, 10, 10, 10, 10, 10, 10, 10])  # G* = 130^2 / 2,500 = 6.8 of 10
    sum_y = np.array([8.0, 1, 0, 2, 1, 0, 1, 3, 0, 1])
    assert effective_documents(n) == pytest.approx(130**2 / 2500)
    r = recommend(sum_y, n)
    assert r.method == RECOMMENDED_METHOD and "G*" not in r.reason


def test_no_hits_falls_back_to_one_trial_per_document():
    r = recommend(np.zeros(10), SIZES)
    assert r.documents_with_hits == 0
    assert "No document has a hit" in r.reason and "10 trials" in r.reason
    arr = interval_arrays(np.zeros(10), SIZES)
    assert float(arr.upper[r.method]) == pytest.approx(1 - 0.025 ** (1 / 10))


def test_no_misses_is_the_mirror_image():
    r = recommend(SIZES.astype(float), SIZES)
    assert r.documents_with_misses == 0 and "No document has a miss" in r.reason


@pytest.mark.parametrize("hit_docs, word", [(1, "Only 1 document has hits"), (2, "Only 2 documents have hits")])
def test_one_or_two_documents_with_hits_carry_a_warning(hit_docs, word):
    sum_y = np.zeros(10)
    sum_y[:hit_docs] = 3
    r = recommend(sum_y, SIZES)
    assert r.method == RECOMMENDED_METHOD and word in r.reason and "Add documents" in r.reason


def test_three_documents_with_hits_need_no_warning():
    sum_y = np.zeros(10)
    sum_y[:3] = 3
    assert "Only" not in recommend(sum_y, SIZES).reason


def test_few_misses_warn_about_misses():
    sum_y = SIZES.astype(float)
    sum_y[0] -= 2  # one document with misses
    r = recommend(sum_y, SIZES)
    assert "Only 1 document has misses" in r.reason


def test_macro_uses_k_minus_1_and_names_rs_interval_on_document_rates():
    n = np.array([300, 5, 5, 5, 5, 5, 5, 5, 5, 5])
    r = recommend(np.array([60.0, 1, 0, 2, 1, 0, 1, 3, 0, 1]), n, estimator="macro")
    assert r.df == 9 and "macro mean" in r.reason


def test_scores_are_flagged():
    r = recommend(np.array([0.5, 2.5, 1.2]), np.array([2, 5, 3]), binary=False)
    assert "score" in r.reason


@pytest.mark.parametrize("sum_y, n", [(np.array([1.0]), np.array([3])), (np.ones((2, 3)), np.ones((2, 3)))])
def test_one_sample_of_at_least_two_documents(sum_y, n):
    with pytest.raises(ValueError, match="one sample of at least 2 documents"):
        recommend(sum_y, n)


def test_unknown_estimator():
    with pytest.raises(ValueError, match="estimator"):
        recommend(np.ones(3), np.ones(3) * 2, estimator="weighted")


# The weak corner (docs/weak_corner.md): most documents without a hit, a few long ones holding most chunks.
CORNER_SIZES = np.array([400, 150, 60, 20, 9, 6, 5, 4, 4, 3, 3, 3])  # BM df 1.8 of K - 1 = 11
CORNER_TOTAL = np.array([0.0, 0, 12, 0, 2, 0, 0, 0, 1, 0, 0, 0])  # 3 of the 12 documents have hits


def test_a_sample_from_the_weak_corner_is_told_so():
    assert bell_mccaffrey_df(CORNER_SIZES) < 11 / 2
    r = recommend(CORNER_TOTAL, CORNER_SIZES)
    assert r.method == SPAN_METHOD and r.documents_with_hits == 3  # G* = 667^2 / 186,701 = 2.4 of 12
    assert r.reason.startswith("Korn–Graubard and the wild cluster bootstrap together: the 12 documents are worth")
    assert "G* = 2.4 equal ones" in r.reason
    assert "9 of the 12 documents have no hit as well" in r.reason
    assert "longest documents" in r.reason and "probability proportional to their chunks" in r.reason
    assert "docs/weak_corner.md" in r.reason
    assert "Only" not in r.reason  # three documents with hits: not the one-or-two warning


def test_the_weak_corner_of_misses_is_the_mirror_image():
    r = recommend(CORNER_SIZES - CORNER_TOTAL, CORNER_SIZES)
    assert "9 of the 12 documents have no miss as well" in r.reason and "had misses" in r.reason


@pytest.mark.parametrize(
    "sum_y, n, why",
    [
        (CORNER_TOTAL, np.full(12, 20), "equal sizes: df = K - 1"),
        (np.array([0.0, 3, 12, 1, 2, 0, 1, 2, 1, 0, 1, 1]), CORNER_SIZES, "hits in 9 of the 12 documents"),
        (np.array([0.0, 3, 12, 1, 2, 0, 1, 0, 1, 0, 0, 0]), CORNER_SIZES, "hits in exactly half"),
        (np.zeros(12), CORNER_SIZES, "no hits at all: the worst-case bound already says so"),
    ],
)
def test_no_weak_corner_warning_without_both_signs(sum_y, n, why):
    assert not weak_corner(sum_y, n), why
    assert "as well" not in recommend(sum_y, n).reason, why


def test_the_macro_mean_gets_no_weak_corner_warning():
    assert "as well" not in recommend(CORNER_TOTAL, CORNER_SIZES, estimator="macro").reason


def test_weak_corner_is_batch_wise_and_agrees_with_the_reason():
    rows = np.stack([CORNER_TOTAL, np.array([0.0, 3, 12, 1, 2, 0, 1, 2, 1, 0, 1, 1])])
    assert weak_corner(rows, np.stack([CORNER_SIZES, CORNER_SIZES])).tolist() == [True, False]


def test_samples_of_the_sparse_pareto_battery_are_flagged_and_others_are_not():
    """At K = 50 nearly every sample of the heaviest corner population is flagged, almost none of the mild ones."""
    rng = np.random.default_rng(0)

    def flagged_share(name):
        pop = battery_population(name)
        idx = random_subsets(rng, pop.n_docs, 50, 400)
        return weak_corner(pop.sum_y[idx], pop.n[idx]).mean()

    assert flagged_share("sparse_pareto_0.8") > 0.9
    for name in ("beta", "high", "size_correlated", "near_iid_unequal"):
        assert flagged_share(name) < 0.02, name


def test_one_sample_drawn_from_the_corner_carries_the_warning_into_its_report():
    sample = draw_sample(battery_population("sparse_pareto_0.8"), 50, rng=1)
    report = interval_report(sample, boot=20, rng=0)
    r = report.recommendation
    assert r.documents_with_hits < 25 and r.df < 49 / 2
    assert f"{50 - r.documents_with_hits} of the 50 documents have no hit as well" in r.reason
    assert report.to_dict()["recommended"]["reason"] == r.reason  # what `ragunc interval --json` prints


def test_the_span_is_chosen_by_g_star_alone_when_the_sample_has_hits_and_misses():
    assert effective_documents(CORNER_SIZES) == pytest.approx(CORNER_SIZES.sum() ** 2 / (CORNER_SIZES**2).sum())
    assert effective_documents(CORNER_SIZES) < WILD_SHARE * 12
    many = np.array([0.0, 3, 12, 1, 2, 0, 1, 2, 1, 0, 1, 1])  # hits in 9 of the 12: the span all the same
    rows = np.stack([CORNER_TOTAL, many, np.zeros(12), CORNER_TOTAL])
    sizes = np.stack([CORNER_SIZES, CORNER_SIZES, CORNER_SIZES, np.full(12, 20)])
    # no hits: no spread for the wild bootstrap to reweigh; equal sizes: G* = K
    assert wild_evidence(rows, sizes).tolist() == [True, True, False, False]
    assert recommended_methods(rows, sizes).tolist() == [SPAN_METHOD] * 2 + [RECOMMENDED_METHOD] * 2
    assert recommended_methods(rows, sizes, estimator="macro").tolist() == [RECOMMENDED_METHOD] * 4
    assert recommend(many, CORNER_SIZES).method == SPAN_METHOD


def test_the_recommended_span_is_inside_zero_one_and_reported():
    from ragunc.stats.sample import ClusterStats

    s = ClusterStats(np.arange(12).astype(str), CORNER_TOTAL, CORNER_SIZES, CORNER_TOTAL)
    r = interval_report(s, boot=50, rng=0)
    assert r.recommendation.method == SPAN_METHOD
    low, high = r.recommended().ci
    assert 0 <= low < r.estimate < high <= 1
    assert r.to_dict()["recommended"]["method"] == SPAN_METHOD
    # the span of the default's interval and the wild bootstrap's, both reported beside it
    parts = [r.interval(name).ci for name in (RECOMMENDED_METHOD, WILD_METHOD)]
    assert (low, high) == (min(p.low for p in parts), max(p.high for p in parts))
