"""Drawing K documents from a population: without replacement, uniform over K-subsets, with the FPC set."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from ragunc.stats.intervals import interval_report
from ragunc.stats.sample import ClusterSample, document_rates, draw_sample

RNG = np.random.default_rng(3)
SIZE = RNG.integers(1, 20, 10)
HITS = RNG.binomial(SIZE, 0.3).astype(float)
POPULATION = ClusterSample(np.array([f"d{i}" for i in range(10)]), HITS, SIZE, HITS, config="100w")


def test_a_draw_is_k_distinct_population_documents_in_population_order_with_d_known():
    sample = draw_sample(POPULATION, 4, rng=7)
    assert sample.n_docs == 4 and len(set(sample.doc_id)) == 4
    position = [int(d[1:]) for d in sample.doc_id]
    assert position == sorted(position)
    np.testing.assert_array_equal(sample.total, HITS[position])
    np.testing.assert_array_equal(sample.size, SIZE[position])
    assert sample.population_docs == 10 and sample.fpc == pytest.approx(1 - 4 / 10)
    assert sample.config == "100w"


def test_the_seed_fixes_the_draw():
    same = draw_sample(POPULATION, 5, rng=11), draw_sample(POPULATION, 5, rng=np.random.default_rng(11))
    np.testing.assert_array_equal(same[0].doc_id, same[1].doc_id)
    others = {tuple(draw_sample(POPULATION, 5, rng=seed).doc_id) for seed in range(20)}
    assert len(others) > 10


def test_every_k_subset_is_equally_likely():
    # Simple random sampling without replacement: all C(10, 3) = 120 subsets, about 100 times each in 12,000 draws.
    rng = np.random.default_rng(0)
    counts = dict.fromkeys(combinations(POPULATION.doc_id.tolist(), 3), 0)
    for _ in range(12_000):
        counts[tuple(draw_sample(POPULATION, 3, rng=rng).doc_id.tolist())] += 1
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_a_census_drawn_this_way_has_no_sampling_error():
    census = draw_sample(POPULATION, 10, rng=0)
    report = interval_report(census, boot=20, rng=0)
    assert report.cluster.se == 0.0
    assert report.cluster.ci == pytest.approx((HITS.sum() / SIZE.sum(),) * 2)


@pytest.mark.parametrize("k", [0, 11, 2.5, True])
def test_k_outside_the_population_is_refused_by_name(k):
    with pytest.raises(ValueError, match="k must be a whole number of documents from 1 to the population's 10"):
        draw_sample(POPULATION, k, rng=0)


def test_document_rates_are_hits_over_chunks_per_document():
    sample = ClusterSample(np.array(["a", "b", "c"]), np.array([1.0, 3.0, 0.0]), np.array([2, 4, 2]),
                           np.array([1.0, 3.0, 0.0]))
    np.testing.assert_array_equal(document_rates(sample), [0.5, 0.75, 0.0])
