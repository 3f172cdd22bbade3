"""Known-item query simulation (Azzopardi et al. 2007) against its sampling model; query files."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from ragunc.retrieval.known_item import QueryModel, read_query_file, simulate_known_item


def _tf(rows):
    return sp.csr_matrix(np.array(rows, dtype=float))


def test_query_lengths_are_poisson_at_least_one():
    tf = _tf([[1, 2, 0, 1]] * 20_000)
    rows, _ = simulate_known_item(tf, QueryModel(mean_length=3.0), rng=1)
    lengths = np.bincount(rows, minlength=20_000)
    # E[max(1, X)] for X ~ Poisson(3) is 3 + P(X = 0).
    expected = 3.0 + stats.poisson.pmf(0, 3.0)
    assert lengths.min() >= 1
    assert abs(lengths.mean() - expected) < 4 * np.sqrt(3.0 / 20_000)


@pytest.mark.parametrize(
    "selection, expected",
    [
        ("popular", [1 / 6, 3 / 6, 0, 2 / 6]),  # tf / |d|
        ("random", [1 / 3, 1 / 3, 0, 1 / 3]),  # uniform over the chunk's distinct terms
    ],
)
def test_term_selection_from_the_chunk(selection, expected):
    tf = _tf([[1, 3, 0, 2]] * 5000 + [[0, 0, 7, 1]])
    rows, terms = simulate_known_item(tf, QueryModel(selection=selection, lam=1.0), rng=2)
    observed = np.bincount(terms[rows < 5000], minlength=4)
    _, p = stats.chisquare(observed[[0, 1, 3]], np.array(expected)[[0, 1, 3]] * observed.sum())
    assert observed[2] == 0 and p > 1e-3


def test_discriminative_selection_weights_inverse_collection_probability():
    # Collection frequencies: term 0 -> 1 + 99*... build a chunk holding terms 0 and 1 once each.
    tf = _tf([[1, 1, 0]] * 4000 + [[0, 9, 30]])
    cf = np.asarray(tf.sum(axis=0)).ravel()
    rows, terms = simulate_known_item(tf, QueryModel(selection="discriminative", lam=1.0), rng=3)
    observed = np.bincount(terms[rows < 4000], minlength=3)[:2]
    weights = 1 / cf[:2]
    _, p = stats.chisquare(observed, weights / weights.sum() * observed.sum())
    assert p > 1e-3


def test_noise_terms_follow_the_collection_model():
    tf = _tf([[5, 0, 0, 1]] * 10 + [[0, 2, 3, 0]] * 10)
    cf = np.asarray(tf.sum(axis=0)).ravel()
    rows, terms = simulate_known_item(tf, QueryModel(lam=0.0, mean_length=30), rng=4)
    observed = np.bincount(terms, minlength=4)
    _, p = stats.chisquare(observed, cf / cf.sum() * observed.sum())
    assert p > 1e-3


def test_lambda_mixes_chunk_and_collection():
    # 4000 chunks hold only term 0; 100 chunks hold term 1 fifty times each.
    tf = _tf([[1, 0]] * 4000 + [[0, 50]] * 100)
    lam = 0.6
    rows, terms = simulate_known_item(tf, QueryModel(lam=lam, mean_length=5), rng=5)
    cf = np.asarray(tf.sum(axis=0)).ravel()
    expected = lam + (1 - lam) * cf[0] / cf.sum()  # P(term 0) for a chunk holding only term 0
    drawn = terms[rows < 4000] == 0
    assert abs(drawn.mean() - expected) < 4 * np.sqrt(expected * (1 - expected) / len(drawn))


def test_seeded_and_deterministic():
    tf = _tf(np.random.default_rng(0).poisson(1.0, size=(50, 30)))
    a = simulate_known_item(tf, rng=11)
    b = simulate_known_item(tf, rng=11)
    c = simulate_known_item(tf, rng=12)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not (len(a[1]) == len(c[1]) and np.array_equal(a[1], c[1]))


def test_chunk_without_terms_gets_collection_terms():
    tf = _tf([[0, 0], [3, 1]])
    rows, terms = simulate_known_item(tf, QueryModel(lam=1.0, mean_length=4), rng=0)
    assert (rows == 0).sum() >= 1 and set(terms.tolist()) <= {0, 1}


def test_model_validation():
    with pytest.raises(ValueError, match="selection must be one of"):
        QueryModel(selection="best")
    with pytest.raises(ValueError, match=r"lam must be in \[0, 1\]"):
        QueryModel(lam=1.5)
    with pytest.raises(ValueError, match="mean_length must be > 0"):
        QueryModel(mean_length=0)


def test_query_files(tmp_path):
    (tmp_path / "q.csv").write_text("query_id,query,chunk_id\nq1,json decoder,json#0|json#1\nq2,csv,csv#3\n")
    frame = read_query_file(tmp_path / "q.csv")
    assert frame["chunk_ids"].tolist() == [["json#0", "json#1"], ["csv#3"]]
    assert frame["query_id"].tolist() == ["q1", "q2"]
    (tmp_path / "q.jsonl").write_text(json.dumps({"query": "a b", "chunk_id": ["d#0", "d#2"]}) + "\n")
    frame = read_query_file(tmp_path / "q.jsonl")
    assert frame["chunk_ids"].tolist() == [["d#0", "d#2"]] and frame["query_id"].tolist() == ["q0"]
    (tmp_path / "bad.csv").write_text("query,chunk_id\nfine,d#0\nno ids,\n")
    with pytest.raises(ValueError, match=r"column 'chunk_id' is empty in row 2\b"):
        read_query_file(tmp_path / "bad.csv")
    (tmp_path / "nocol.csv").write_text("text,chunk_id\na,b\n")
    with pytest.raises(ValueError, match="needs columns 'query' and 'chunk_id'"):
        read_query_file(tmp_path / "nocol.csv")


def test_a_repeated_query_id_is_named(tmp_path):
    (tmp_path / "q.csv").write_text("query_id,query,chunk_id\na,x y,d#0\nb,z,d#1\na,w,d#2\n")
    with pytest.raises(ValueError, match=r"column 'query_id' repeats a value in rows 1, 3$"):
        read_query_file(tmp_path / "q.csv")
