"""chunk_size_diagnostics: one row per chunk size, checked by hand and against repeated sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ragunc.stats.design import chunk_size_diagnostics
from ragunc.stats.sample import ClusterStats


def _population(hits_per_doc: list[list[int]], config: str) -> ClusterStats:
    sum_y = [sum(h) for h in hits_per_doc]
    n = [len(h) for h in hits_per_doc]
    return ClusterStats(
        cluster_id=np.array([f"d{i}" for i in range(len(n))]),
        sum_y=np.array(sum_y, float),
        n=np.array(n),
        sum_y2=np.array(sum_y, float),
        config=config,
    )


# The same four documents cut in two ways: 10 chunks in all at the coarse size, 20 at the fine one.
COARSE = _population([[1, 1], [1, 0, 0], [0], [1, 1, 0, 0]], "200w")
FINE = _population([[1, 1, 1, 1], [1, 1, 0, 0, 0, 0], [0, 0], [1, 1, 1, 0, 0, 0, 0, 0]], "100w")


def _by_hand(y: list[list[int]], k: int) -> dict:
    flat = np.concatenate([np.array(d, float) for d in y])
    n, d_docs = len(flat), len(y)
    m = np.array([len(d) for d in y], float)
    total = np.array([sum(d) for d in y], float)
    p = flat.mean()
    m_bar = m.mean()
    # The design's variance: the micro estimate over every one of the C(D, k) equally likely samples.
    every = [total[list(c)].sum() / m[list(c)].sum() for c in itertools.combinations(range(d_docs), k)]
    variance = np.var(every)
    binomial = p * (1 - p) / (k * m_bar)
    # ANOVA ICC from the chunks themselves.
    means = total / m
    msb = (m * (means - p) ** 2).sum() / (d_docs - 1)
    msw = sum(((np.array(d) - means[i]) ** 2).sum() for i, d in enumerate(y)) / (n - d_docs)
    m0 = (n - (m**2).sum() / n) / (d_docs - 1)
    return {
        "estimate": p,
        "mean_size": m_bar,
        "chunks_per_sample": k * m_bar,
        "deff": variance / binomial,
        "icc": (msb - msw) / (msb + (m0 - 1) * msw),
        "n_eff": k * m_bar * binomial / variance,
        "micro_sd": np.sqrt(variance),
        "binomial_sd": np.sqrt(binomial),
    }


# Measured on 20,000 draws of k documents (stats.design): a few per cent of Monte Carlo error at most.
MEASURED = {"deff", "n_eff", "micro_sd"}


def test_rows_match_hand_computation_smallest_size_first():
    rows = chunk_size_diagnostics({200: COARSE, 100: FINE}, k=2)
    assert [r.words for r in rows] == [100, 200]
    cuts = {
        100: [[1, 1, 1, 1], [1, 1, 0, 0, 0, 0], [0, 0], [1, 1, 1, 0, 0, 0, 0, 0]],
        200: [[1, 1], [1, 0, 0], [0], [1, 1, 0, 0]],
    }
    for row in rows:
        expected = _by_hand(cuts[row.words], k=2)
        assert (row.k, row.n_docs) == (2, 4)
        assert row.n_chunks == sum(map(len, cuts[row.words]))
        for field, value in expected.items():
            assert getattr(row, field) == pytest.approx(value, rel=0.05 if field in MEASURED else 1e-12), field


def test_micro_sd_is_the_sd_over_repeated_samples_of_k_documents():
    # The SD is the spread of the micro estimate over many samples of K documents (20,000 independent draws here).
    rng = np.random.default_rng(3)
    d, k = 400, 25
    n = rng.integers(1, 40, d)
    rate = rng.beta(0.6, 1.8, d)
    sum_y = rng.binomial(n, rate).astype(float)
    population = ClusterStats(cluster_id=np.arange(d).astype(str), sum_y=sum_y, n=n, sum_y2=sum_y)
    row = chunk_size_diagnostics({50: population}, k=k)[0]
    draws = rng.random((20_000, d)).argsort(axis=1)[:, :k]  # samples without replacement
    estimates = sum_y[draws].sum(1) / n[draws].sum(1)
    assert row.micro_sd == pytest.approx(estimates.std(), rel=0.06)
    assert row.binomial_sd < row.micro_sd  # clustered documents: counting chunks understates the spread


def test_finer_chunks_add_chunks_not_information():
    # Splitting every chunk in two with the same hits: twice the chunks per sample, the same SD and effective n
    # up to the within-document part, and a binomial SD that shrinks by about sqrt(2).
    rng = np.random.default_rng(8)
    d = 300
    n = rng.integers(1, 20, d)
    sum_y = rng.binomial(n, rng.beta(0.5, 1.5, d)).astype(float)
    coarse = ClusterStats(cluster_id=np.arange(d).astype(str), sum_y=sum_y, n=n, sum_y2=sum_y)
    fine = ClusterStats(cluster_id=np.arange(d).astype(str), sum_y=2 * sum_y, n=2 * n, sum_y2=2 * sum_y)
    small, large = chunk_size_diagnostics({50: fine, 100: coarse}, k=20)
    assert small.chunks_per_sample == pytest.approx(2 * large.chunks_per_sample)
    assert small.micro_sd == pytest.approx(large.micro_sd, rel=1e-12)
    assert small.binomial_sd == pytest.approx(large.binomial_sd / np.sqrt(2), rel=1e-12)
    assert small.n_eff == pytest.approx(large.n_eff, rel=1e-12) and small.deff == pytest.approx(2 * large.deff)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least one chunk size"):
        chunk_size_diagnostics({})
    with pytest.raises(ValueError, match="positive word counts, got \\['100w'\\]"):
        chunk_size_diagnostics({"100w": FINE})
    with pytest.raises(ValueError, match="k must be a whole number of documents from 2 to 4 "):
        chunk_size_diagnostics({100: FINE}, k=1)
    with pytest.raises(ValueError, match="from 2 to 4 of the population's 4, got 5"):
        chunk_size_diagnostics({100: FINE}, k=5)
    five = _population([[1], [0], [1], [0], [1, 0]], "50w")
    with pytest.raises(ValueError, match="k = 5 documents is more than some chunk sizes hold: 100 words: 4 documents"):
        chunk_size_diagnostics({50: five, 100: FINE}, k=5)
