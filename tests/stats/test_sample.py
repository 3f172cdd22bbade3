"""ClusterStats: 0/1 outcomes read off the sums; drawing K documents (uniform over K-subsets, FPC set)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import chunk_size_diagnostics, design
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_arrays, interval_report
from ragunc.stats.sample import ClusterStats, document_rates, draw_sample, nested_sample, zero_one

RNG = np.random.default_rng(3)
SIZE = RNG.integers(1, 20, 10)
HITS = RNG.binomial(SIZE, 0.3).astype(float)
POPULATION = ClusterStats(np.array([f"d{i}" for i in range(10)]), HITS, SIZE, HITS, config="100w")


def test_a_draw_is_k_distinct_population_documents_in_population_order_with_d_known():
    sample = draw_sample(POPULATION, 4, rng=7)
    assert sample.n_docs == 4 and len(set(sample.cluster_id)) == 4
    position = [int(d[1:]) for d in sample.cluster_id]
    assert position == sorted(position)
    np.testing.assert_array_equal(sample.sum_y, HITS[position])
    np.testing.assert_array_equal(sample.n, SIZE[position])
    assert sample.population_docs == 10 and sample.fpc == pytest.approx(1 - 4 / 10)
    assert sample.config == "100w"


def test_the_seed_fixes_the_draw():
    same = draw_sample(POPULATION, 5, rng=11), draw_sample(POPULATION, 5, rng=np.random.default_rng(11))
    np.testing.assert_array_equal(same[0].cluster_id, same[1].cluster_id)
    others = {tuple(draw_sample(POPULATION, 5, rng=seed).cluster_id) for seed in range(20)}
    assert len(others) > 10


def test_every_k_subset_is_equally_likely():
    # Simple random sampling without replacement: all C(10, 3) = 120 subsets, about 100 times each in 12,000 draws.
    rng = np.random.default_rng(0)
    counts = dict.fromkeys(combinations(POPULATION.cluster_id.tolist(), 3), 0)
    for _ in range(12_000):
        counts[tuple(draw_sample(POPULATION, 3, rng=rng).cluster_id.tolist())] += 1
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_a_small_k_from_a_large_population_includes_every_document_equally_often():
    # K well below D/50 of D > 10,000: numpy's draw of K indices without permuting all D (the O(K) path).
    d, k, draws = 20_000, 100, 4_000
    large = ClusterStats(np.arange(d).astype(str), np.zeros(d), np.ones(d, dtype=int), np.zeros(d))
    rng = np.random.default_rng(5)
    counts = np.zeros(d, dtype=int)
    for _ in range(draws):
        drawn = draw_sample(large, k, rng=rng)
        assert drawn.n_docs == k and np.unique(drawn.cluster_id).size == k
        counts[drawn.cluster_id.astype(int)] += 1
    assert counts.sum() == draws * k
    assert stats.chisquare(counts).pvalue > 1e-3  # each document in k/d of the draws, about 20 times


def test_a_census_drawn_this_way_has_no_sampling_error():
    census = draw_sample(POPULATION, 10, rng=0)
    report = interval_report(census, boot=20, rng=0)
    assert report.interval("cluster").se == 0.0
    assert report.interval("cluster").ci == pytest.approx((HITS.sum() / SIZE.sum(),) * 2)


@pytest.mark.parametrize("k", [0, 11, 2.5, True])
def test_k_outside_the_population_is_refused_by_name(k):
    with pytest.raises(ValueError, match="k must be a whole number of documents from 1 to 10 of the population's 10"):
        draw_sample(POPULATION, k, rng=0)


@pytest.mark.parametrize(
    ("call", "least", "most"),
    [
        (lambda k: draw_sample(POPULATION, k), 1, 10),
        (lambda k: nested_sample(POPULATION, k), 1, 10),
        (lambda k: design(POPULATION, k), 2, 10),
        (lambda k: chunk_size_diagnostics({100: POPULATION}, k=k), 2, 10),
        (lambda k: coverage_experiment(POPULATION, k=k, reps=2), 2, 9),  # K = D would repeat one sample
    ],
    ids=["draw_sample", "nested_sample", "design", "chunk_size_diagnostics", "coverage_experiment"],
)
def test_every_entry_refuses_a_fractional_k_in_the_same_words(call, least, most):
    with pytest.raises(ValueError) as refused:
        call(2.5)
    assert (
        str(refused.value)
        == f"k must be a whole number of documents from {least} to {most} of the population's 10, got 2.5"
    )


def test_document_rates_are_hits_over_chunks_per_document():
    sample = ClusterStats(
        np.array(["a", "b", "c"]), np.array([1.0, 3.0, 0.0]), np.array([2, 4, 2]), np.array([1.0, 3.0, 0.0])
    )
    np.testing.assert_array_equal(document_rates(sample), [0.5, 0.75, 0.0])


# Three documents of scores in [0, 1]: mean 0.5, chunk variance (4 * 0.3**2 + 2 * 0) / 6 = 0.06.
SCORES = {"a": [0.2, 0.8], "b": [0.5, 0.5], "c": [0.8, 0.2]}


def _sample(docs: dict[str, list[float]]) -> ClusterStats:
    ys = [np.asarray(v, dtype=float) for v in docs.values()]
    return ClusterStats(
        np.array(list(docs)),
        np.array([y.sum() for y in ys]),
        np.array([y.size for y in ys]),
        np.array([(y**2).sum() for y in ys]),
    )


def test_binary_is_derived_from_the_sums():
    assert _sample({"a": [1, 0, 1], "b": [0], "c": [1, 1]}).binary
    assert _sample({"a": [0, 0], "b": [0]}).binary  # no hits at all is still 0/1
    assert not _sample(SCORES).binary
    assert not _sample({"a": [1, 0], "b": [1, 0.999]}).binary  # one score off 0/1 is enough
    np.testing.assert_array_equal(
        zero_one(np.array([[2.0, 1.0], [0.5, 1.0]]), np.array([[2.0, 1.0], [0.25, 1.0]])), [True, False]
    )


def test_binary_cannot_be_declared():
    with pytest.raises(TypeError, match="binary"):
        ClusterStats(np.array(["a", "b"]), np.array([0.5, 1.0]), np.array([1, 2]), np.array([0.25, 0.5]), binary=True)


def test_scores_built_without_a_flag_get_the_chunk_variance_not_the_binomial_one():
    # Before, ClusterStats defaulted to binary=True and this sample got the binomial SE
    # sqrt(0.25 / 6) = 0.204 for its naive interval; its scores' own spread gives 0.1.
    s = _sample(SCORES)
    r = interval_report(s, boot=50, rng=0)
    assert r.estimate == 0.5
    assert r.interval("naive").se == pytest.approx(np.sqrt(0.06 / 6))  # 0.1
    assert r.interval("naive").se != pytest.approx(np.sqrt(0.25 / 6), abs=0.05)
    assert diagnostics(s).binomial_variance == pytest.approx(0.06 / 6)


def test_each_row_of_a_batch_is_judged_on_its_own_sums():
    scores, hits = _sample(SCORES), _sample({"a": [1, 0], "b": [1, 1], "c": [0, 0]})
    arr = interval_arrays(
        np.stack([scores.sum_y, hits.sum_y]), np.stack([scores.n, hits.n]), np.stack([scores.sum_y2, hits.sum_y2])
    )
    np.testing.assert_allclose(arr.binomial_variance, [0.06 / 6, 0.5 * 0.5 / 6])
    # sumsq omitted means 0/1 y (sumsq = total)
    assert interval_arrays(hits.sum_y, hits.n).binomial_variance == pytest.approx(0.25 / 6)
