"""ClusterSample: 0/1 outcomes are read off the sums, never declared."""
from __future__ import annotations

import numpy as np
import pytest

from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_arrays, interval_report
from ragunc.stats.sample import ClusterSample, zero_one

# Three documents of scores in [0, 1]: mean 0.5, chunk variance (4 * 0.3**2 + 2 * 0) / 6 = 0.06.
SCORES = {"a": [0.2, 0.8], "b": [0.5, 0.5], "c": [0.8, 0.2]}


def _sample(docs: dict[str, list[float]]) -> ClusterSample:
    ys = [np.asarray(v, dtype=float) for v in docs.values()]
    return ClusterSample(np.array(list(docs)), np.array([y.sum() for y in ys]), np.array([y.size for y in ys]),
                         np.array([(y**2).sum() for y in ys]))


def test_binary_is_derived_from_the_sums():
    assert _sample({"a": [1, 0, 1], "b": [0], "c": [1, 1]}).binary
    assert _sample({"a": [0, 0], "b": [0]}).binary  # no hits at all is still 0/1
    assert not _sample(SCORES).binary
    assert not _sample({"a": [1, 0], "b": [1, 0.999]}).binary  # one score off 0/1 is enough
    np.testing.assert_array_equal(zero_one(np.array([[2.0, 1.0], [0.5, 1.0]]), np.array([[2.0, 1.0], [0.25, 1.0]])),
                                  [True, False])


def test_binary_cannot_be_declared():
    with pytest.raises(TypeError, match="binary"):
        ClusterSample(np.array(["a", "b"]), np.array([0.5, 1.0]), np.array([1, 2]), np.array([0.25, 0.5]), binary=True)


def test_scores_built_without_a_flag_get_the_chunk_variance_not_the_binomial_one():
    # Before, ClusterSample defaulted to binary=True and this sample got the binomial SE
    # sqrt(0.25 / 6) = 0.204 for its naive interval; its scores' own spread gives 0.1.
    s = _sample(SCORES)
    r = interval_report(s, boot=50, rng=0)
    assert r.estimate == 0.5
    assert r.interval("naive").se == pytest.approx(np.sqrt(0.06 / 6))  # 0.1
    assert r.interval("naive").se != pytest.approx(np.sqrt(0.25 / 6), abs=0.05)
    assert diagnostics(s).binomial_variance == pytest.approx(0.06 / 6)


def test_each_row_of_a_batch_is_judged_on_its_own_sums():
    scores, hits = _sample(SCORES), _sample({"a": [1, 0], "b": [1, 1], "c": [0, 0]})
    arr = interval_arrays(np.stack([scores.total, hits.total]), np.stack([scores.size, hits.size]),
                          np.stack([scores.sumsq, hits.sumsq]))
    np.testing.assert_allclose(arr.binomial_variance, [0.06 / 6, 0.5 * 0.5 / 6])
    # sumsq omitted means 0/1 y (sumsq = total)
    assert interval_arrays(hits.total, hits.size).binomial_variance == pytest.approx(0.25 / 6)
