"""Sparse BM25 against rank-bm25 (the oracle), hand computation, and the tie rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from ragunc.corpus.model import corpus_from_frame
from ragunc.corpus.stdlib import build_stdlib_frame
from ragunc.retrieval import bm25
from ragunc.retrieval.bm25 import (
    STOPWORDS,
    Tokenizer,
    bm25_index,
    rank_targets,
    tokenize,
    top_k,
)
from ragunc.retrieval.chunking import chunk_corpus

PARITY_MODULES = [
    "json",
    "json.decoder",
    "json.encoder",
    "csv",
    "textwrap",
    "shlex",
    "fnmatch",
    "glob",
    "heapq",
    "bisect",
    "smtplib",
    "string",
    "calendar",
    "gettext",
]


@pytest.fixture(scope="module")
def stdlib_chunks():
    """A real subset of the stdlib corpus: a few hundred 30-word chunks."""
    corpus = corpus_from_frame(build_stdlib_frame(modules=PARITY_MODULES, topics=False), source="stdlib")
    chunks = chunk_corpus(corpus, 30)
    assert 200 <= len(chunks) <= 600
    return [tokenize(t) for t in chunks.texts]


def _oracle_rank(scores: np.ndarray, target: int) -> int:
    """1 + chunks scoring higher + chunks tying at a lower position (brute force)."""
    s = scores[target]
    return 1 + int((scores > s).sum()) + int((scores[:target] == s).sum())


def test_hand_computed_scores():
    docs = [["a", "b", "a"], ["b", "c"], ["c", "c", "d", "e"], ["f"]]
    index = bm25_index(docs)
    avgdl, k1, b = 10 / 4, 1.5, 0.75  # four documents of 3, 2, 4 and 1 terms
    # df: a 1, b 2, c 2 -> idf(b)=idf(c)=log(2.5/2.5)=0, idf(a)=log(3.5/1.5)
    idf_a = math.log(3.5) - math.log(1.5)
    idf_d = idf_a
    tf_part = lambda tf, dl: tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))  # noqa: E731
    expected = np.array([idf_a * tf_part(2, 3), 0.0, idf_d * tf_part(1, 4), 0.0])
    np.testing.assert_allclose(index.get_scores(["a", "d"]), expected, rtol=1e-12)
    # A repeated query term counts twice; an unknown term counts nothing.
    np.testing.assert_allclose(index.get_scores(["a", "a", "zzz"]), 2 * np.array([expected[0], 0, 0, 0]), rtol=1e-12)


def test_negative_idf_floor_matches_rank_bm25():
    # Two documents: every shared term has negative idf, floored at epsilon * mean idf (< 0 here).
    docs = [["x", "y", "y"], ["x", "z"]]
    index, oracle = bm25_index(docs), BM25Okapi(docs)
    assert oracle.average_idf < 0
    for query in (["x"], ["y"], ["x", "z"], ["q"]):
        np.testing.assert_allclose(index.get_scores(query), oracle.get_scores(query), rtol=1e-12, atol=1e-15)
    # Scores <= 0 everywhere: ranks and top-1 still follow the brute-force rule.
    queries = index.query_matrix([["x"], ["x"], ["q"], ["q"], ["z", "x"]])
    targets = np.array([0, 1, 0, 1, 0])
    result = rank_targets(index, queries, targets)
    for i, query in enumerate([["x"], ["x"], ["q"], ["q"], ["z", "x"]]):
        scores = oracle.get_scores(query)
        assert result.rank[i] == _oracle_rank(scores, targets[i])
        assert result.top[i] == int(np.argmax(scores))


def test_parity_with_rank_bm25_on_stdlib_subset(stdlib_chunks):
    index, oracle = bm25_index(stdlib_chunks), BM25Okapi(stdlib_chunks)
    rng = np.random.default_rng(7)
    targets = rng.choice(len(stdlib_chunks), size=60, replace=False)
    queries = [list(rng.choice(stdlib_chunks[t], size=min(4, len(stdlib_chunks[t])))) for t in targets]
    matrix = index.query_matrix(queries)
    ranked = rank_targets(index, matrix, targets, cutoff=len(stdlib_chunks))
    for i, (query, target) in enumerate(zip(queries, targets)):
        expected = oracle.get_scores(query)
        np.testing.assert_allclose(index.get_scores(query), expected, rtol=1e-6, atol=0)
        assert ranked.top[i] == int(np.argmax(expected))
        assert ranked.rank[i] == _oracle_rank(expected, target)
        assert ranked.target_score[i] == pytest.approx(expected[target], rel=1e-6)


def test_cutoff_and_batches_do_not_change_ranks(stdlib_chunks):
    index = bm25_index(stdlib_chunks)
    targets = np.arange(len(stdlib_chunks))
    matrix = index.query_matrix([c[:3] for c in stdlib_chunks])
    whole = rank_targets(index, matrix, targets, cutoff=10**9)
    batched = rank_targets(index, matrix, targets, cutoff=5, max_entries=3 * len(stdlib_chunks))
    np.testing.assert_array_equal(whole.top, batched.top)
    np.testing.assert_array_equal(np.where(whole.rank <= 5, whole.rank, np.nan), batched.rank)
    assert np.isnan(batched.rank).any() and not np.isnan(whole.rank).any()


def test_top_k_is_rank_bm25_order_with_lower_position_on_ties(stdlib_chunks):
    index, oracle = bm25_index(stdlib_chunks), BM25Okapi(stdlib_chunks)
    queries = [["the", "module"], ["json", "decoder"], ["zzzz"], ["calendar", "month", "the"]]
    positions, scores = top_k(index, index.query_matrix(queries), k=15, max_entries=2 * len(stdlib_chunks))
    for i, query in enumerate(queries):
        expected = oracle.get_scores(query)
        order = sorted(range(len(expected)), key=lambda j: (-expected[j], j))[:15]
        assert positions[i].tolist() == order
        np.testing.assert_allclose(scores[i], expected[order], rtol=1e-6)


# rank_targets scores a query on its candidate chunks (MaxScore) or densely; these shares force either path.
ALL_PRUNED, ALL_DENSE = 1.0, 0.0


@pytest.mark.parametrize("share", [ALL_PRUNED, ALL_DENSE])
@settings(max_examples=60, deadline=None)
@given(
    docs=st.lists(st.lists(st.sampled_from("abcdef"), min_size=0, max_size=6), min_size=2, max_size=8),
    data=st.data(),
)
def test_ranks_match_brute_force_on_random_collections(share, docs, data):
    assume(any(docs))  # rank-bm25 divides by the mean length
    index, oracle = bm25_index(docs), BM25Okapi(docs)
    n_queries = data.draw(st.integers(1, 5))
    queries = [data.draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=4)) for _ in range(n_queries)]
    targets = np.array([data.draw(st.integers(0, len(docs) - 1)) for _ in range(n_queries)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bm25, "PRUNED_SHARE", share)
        result = rank_targets(index, index.query_matrix(queries), targets, cutoff=100)
    for i, query in enumerate(queries):
        expected = oracle.get_scores(query)
        np.testing.assert_allclose(index.get_scores(query), expected, rtol=1e-9, atol=1e-12)
        assert result.rank[i] == _oracle_rank(expected, targets[i])
        assert result.top[i] == int(np.argmax(expected))


@pytest.mark.parametrize("share", [ALL_PRUNED, ALL_DENSE, bm25.PRUNED_SHARE])
def test_pruned_and_dense_ranks_equal_the_full_product_exactly(stdlib_chunks, share):
    # Scores of the whole product, ranked by brute force: rank_targets must reproduce them bit for bit
    # (the same sums in the same order), ties included; the collection has duplicated chunks.
    index = bm25_index(stdlib_chunks)
    rng = np.random.default_rng(11)
    targets = rng.integers(0, len(stdlib_chunks), size=300)
    queries = [
        list(rng.choice(stdlib_chunks[t], size=rng.integers(1, 6))) + (["the"] if i % 3 else [])
        for i, t in enumerate(targets)
    ]
    matrix = index.query_matrix(queries)
    full = (matrix @ index.weights).toarray()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bm25, "PRUNED_SHARE", share)
        result = rank_targets(index, matrix, targets, cutoff=len(stdlib_chunks), max_entries=5_000)
    expected_rank = [_oracle_rank(full[i], t) for i, t in enumerate(targets)]
    np.testing.assert_array_equal(result.rank, expected_rank)
    np.testing.assert_array_equal(result.top, full.argmax(axis=1))
    np.testing.assert_array_equal(result.target_score, full[np.arange(len(targets)), targets])
    assert len(set(map(tuple, stdlib_chunks))) < len(stdlib_chunks)  # exact ties exist to be broken


def test_pruning_sets_aside_only_terms_that_cannot_reach_the_target():
    # Chunk 0 holds the rare term "r" (high bound) and "c"; "c" is everywhere, its bound small.
    docs = [["r", "c"], ["c", "x"], ["c", "y"], ["c", "z"], ["w", "x"], ["w", "y"]]
    index = bm25_index(docs)
    matrix = index.query_matrix([["r", "c"], ["c"]])
    weights = bm25._Weights.of(index, max_entries=100)
    target_score = weights.scores(matrix, np.arange(2), np.array([0, 1]))
    essential, work = bm25._essential_terms(matrix, weights.matrix, target_score)
    r, c = index.vocabulary.get_loc("r"), index.vocabulary.get_loc("c")
    bound = index.weights.max(axis=1).toarray().ravel()
    assert bound[c] < target_score[0]  # "c" alone cannot reach chunk 0's score ...
    assert matrix.indices[:2].tolist() == sorted([r, c])
    assert essential[:2].tolist() == ([True, False] if r < c else [False, True])  # ... so only "r" is essential
    assert work[0] == 1  # "r" lists one chunk
    assert essential[2] and work[1] == 4  # "c" alone: its four chunks are the candidates


def test_tokenizer_defaults_and_options():
    assert tokenize("Ação, RÉSUMÉ-2 naïve_x") == ["ação", "résumé", "2", "naïve_x"]
    assert Tokenizer(stopwords="en")("The cat and the hat") == ["cat", "hat"]
    assert Tokenizer(stopwords="pt")("o gato e a casa") == ["gato", "casa"]
    assert Tokenizer(stopwords="es")("el perro y la casa") == ["perro", "casa"]
    assert Tokenizer(stopwords=frozenset({"b"}), stemmer=lambda w: w.rstrip("s"))("As B cats") == ["a", "cat"]
    assert "the" in STOPWORDS["en"]
    with pytest.raises(ValueError, match="unknown language 'xx'"):
        Tokenizer(stopwords="xx")


def test_rank_targets_rejects_mismatched_targets():
    index = bm25_index([["a"], ["b"]])
    with pytest.raises(ValueError, match="3 targets for 2 queries"):
        rank_targets(index, index.query_matrix([["a"], ["b"]]), np.array([0, 1, 0]))


def test_stemmer_by_language_needs_a_stemming_package():
    import importlib.util

    if importlib.util.find_spec("Stemmer") or importlib.util.find_spec("nltk"):
        assert Tokenizer(stemmer="en")("Running runs") == ["run", "run"]  # Snowball English
    else:
        with pytest.raises(ValueError, match="stemming needs PyStemmer or nltk installed"):
            Tokenizer(stemmer="en")
