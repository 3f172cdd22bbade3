"""chunk_eval end to end: the data contract, ranks checked against rank-bm25, user queries, runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rank_bm25 import BM25Okapi

from ragunc.corpus.model import corpus_from_frame
from ragunc.corpus.stdlib import build_stdlib_frame
from ragunc.data.results import results_from_frame
from ragunc.retrieval.bm25 import encode, tokenize
from ragunc.retrieval.chunking import chunk_corpus
from ragunc.retrieval.known_item import QueryModel
from ragunc.retrieval.pipeline import (
    QRELS_COLUMNS,
    RESULT_COLUMNS,
    RUN_COLUMNS,
    chunk_eval,
    prepare_retrieval,
    qrels,
    simulated_queries,
    tokenize_corpus,
    top_k_run,
    user_queries,
)

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
MODULES = [
    "json",
    "json.decoder",
    "csv",
    "textwrap",
    "shlex",
    "fnmatch",
    "glob",
    "heapq",
    "bisect",
    "string",
    "calendar",
    "gettext",
    "smtplib",
    "queue",
    "sched",
    "colorsys",
]


@pytest.fixture(scope="module")
def corpus():
    return corpus_from_frame(build_stdlib_frame(modules=MODULES, topics=False), source="stdlib-subset")


@pytest.fixture(scope="module")
def results(corpus):
    return chunk_eval(corpus, chunk_words=40, rng=3)


def test_data_contract(results, corpus):
    assert tuple(results.columns[: len(RESULT_COLUMNS)]) == RESULT_COLUMNS
    assert (results["config"] == "40w").all()
    assert results["chunk_id"].tolist() == [f"{d}#{i}" for d, i in zip(results["doc_id"], results["chunk_index"])]
    assert set(results["doc_id"]) == set(corpus.doc_ids)
    rank = results["rank"]
    assert ((rank >= 1) & (rank <= 100)).fillna(True).all()
    np.testing.assert_array_equal(results["y"], (rank == 1).fillna(False).astype(int))
    assert (results["doc_hit1"] >= results["y"]).all()
    loaded = results_from_frame(results).population()
    assert loaded.n_docs == len(corpus) and loaded.n_chunks == len(results)
    summary = results.attrs["summary"]
    assert summary["n_chunks"] == len(results) and summary["hit1"] == pytest.approx(results["y"].mean())


def test_ranks_agree_with_rank_bm25(results, corpus):
    retrieval = prepare_retrieval(corpus, chunk_words=40)
    chunk_tokens = [tokenize(t) for t in retrieval.chunks.texts]
    oracle = BM25Okapi(chunk_tokens)
    doc_of = retrieval.chunks.doc_ids
    rng = np.random.default_rng(0)
    for row in rng.choice(len(results), size=80, replace=False):
        scores = oracle.get_scores(tokenize(results["query"].iloc[row]))
        s = scores[row]
        rank = 1 + int((scores > s).sum()) + int((scores[:row] == s).sum())
        got = results["rank"].iloc[row]
        assert (got == rank) if rank <= 100 else (got is pd.NA)
        assert results["doc_hit1"].iloc[row] == int(doc_of[int(np.argmax(scores))] == results["doc_id"].iloc[row])


def test_seeded_and_reproducible(corpus, results):
    again = chunk_eval(corpus, chunk_words=40, rng=3)
    pd.testing.assert_frame_equal(again, results)
    other = chunk_eval(corpus, chunk_words=40, rng=4)
    assert not other["query"].equals(results["query"])


def test_default_hit_rate_is_not_trivial(results):
    # Known-item queries with noise should neither always succeed nor always fail.
    assert 0.1 < results["y"].mean() < 0.7
    assert results["doc_hit1"].mean() > results["y"].mean()


def test_more_chunk_terms_make_queries_easier(corpus):
    easy = chunk_eval(
        corpus, chunk_words=40, query_model=QueryModel(lam=1.0, selection="discriminative", mean_length=6), rng=1
    )
    hard = chunk_eval(corpus, chunk_words=40, query_model=QueryModel(lam=0.2), rng=1)
    assert easy["y"].mean() > hard["y"].mean() + 0.2


def test_progress_reaches_total(corpus):
    calls = []
    frame = chunk_eval(corpus, chunk_words=200, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (len(frame), len(frame))
    assert all(d <= t for d, t in calls)


def test_user_queries_with_several_relevant_chunks(corpus, tmp_path):
    retrieval = prepare_retrieval(corpus, chunk_words=40)
    ids = retrieval.chunk_ids
    json0 = retrieval.chunks.texts[list(ids).index("json#0")]
    (tmp_path / "q.csv").write_text(
        "query_id,query,chunk_id\n"
        f"exact,{' '.join(json0.split()[:12]).replace(',', ' ')},json#0\n"
        f"either,{' '.join(json0.split()[:12]).replace(',', ' ')},csv#0|json#0\n"
        "nothing,zzzz qqqq,csv#1\n"
    )
    frame = chunk_eval(corpus, chunk_words=40, queries=tmp_path / "q.csv")
    assert frame["query_id"].tolist() == ["exact", "either", "nothing"]
    assert frame["relevant_chunk_id"].tolist() == ["json#0", "csv#0", "csv#1"]
    assert frame["y"].tolist()[:2] == [1, 1] and frame["doc_hit1"].tolist()[:2] == [1, 1]
    # No term matches: every chunk scores 0 and ties resolve to the lowest position.
    csv1 = list(ids).index("csv#1")
    got = frame["rank"].iloc[2]
    assert (got == csv1 + 1) if csv1 < 100 else (got is pd.NA)
    (tmp_path / "bad.csv").write_text("query,chunk_id\nx,nope#0\n")
    with pytest.raises(ValueError, match=r"not chunks of this corpus at 40 words, e.g. \['nope#0'\]"):
        user_queries(retrieval, tmp_path / "bad.csv")


def test_top_k_run_and_qrels(corpus, results):
    retrieval = prepare_retrieval(corpus, chunk_words=40)
    queries = simulated_queries(retrieval, rng=3).subset(np.arange(0, len(results), 7))
    run = top_k_run(retrieval, queries, k=20)
    judged = qrels(retrieval, queries)
    assert tuple(run.columns) == RUN_COLUMNS and tuple(judged.columns) == QRELS_COLUMNS
    assert len(run) == 20 * len(queries) and (judged["relevance"] == 1).all()
    assert (run.groupby("query_id")["score"].apply(lambda s: s.is_monotonic_decreasing)).all()
    # The run agrees with chunk_eval's ranks for the same queries (same seed).
    by_query = results.set_index("chunk_id")
    hits = run.merge(judged, on=["query_id", "chunk_id"])
    for _, hit in hits.iterrows():
        assert by_query.loc[hit["query_id"], "rank"] == hit["rank"]
    found = set(hits["query_id"])
    expected = set(by_query.index[(by_query["rank"] <= 20).fillna(False)]) & set(queries.query_ids)
    assert found == expected


def test_sample_data_match_their_metadata():
    meta = json.loads((SAMPLE / "stdlib_meta.json").read_text())
    assert set(meta["configs"]) == {"50w", "100w", "200w"}
    sizes = {}
    for config, info in meta["configs"].items():
        frame = pd.read_csv(SAMPLE / info["file"])
        assert tuple(frame.columns[: len(RESULT_COLUMNS)]) == RESULT_COLUMNS
        assert (frame["config"] == config).all() and len(frame) == info["n_chunks"]
        assert frame["doc_id"].nunique() == meta["corpus"]["n_docs"]
        assert frame["y"].mean() == pytest.approx(info["hit1"], abs=1e-4)
        assert frame["doc_hit1"].mean() == pytest.approx(info["doc_hit1"], abs=1e-4)
        assert frame["n_words"].sum() == meta["corpus"]["n_words"]  # no overlap: every word once
        sizes[config] = len(frame)
    assert sizes["50w"] > sizes["100w"] > sizes["200w"]
    run_info = meta["configs"]["100w"]["run"]
    run, judged = pd.read_csv(SAMPLE / run_info["file"]), pd.read_csv(SAMPLE / run_info["qrels"])
    assert list(run.columns) == list(RUN_COLUMNS) and list(judged.columns) == list(QRELS_COLUMNS)
    assert run["query_id"].nunique() == run_info["n_queries"] == len(judged)
    assert len(run) == run_info["k"] * run_info["n_queries"]
    # A source chunk found in the top 20 sits at the rank the per-chunk results give it.
    results = pd.read_csv(SAMPLE / "stdlib_100w.csv.gz").set_index("chunk_id")
    hits = run.merge(judged, on=["query_id", "chunk_id"])
    np.testing.assert_array_equal(hits["rank"].to_numpy(), results.loc[hits["query_id"], "rank"].to_numpy())
    assert len(hits) == int((results.loc[judged["query_id"], "rank"] <= 20).sum())


def test_several_questions_about_one_chunk_stay_a_loadable_file(corpus, tmp_path):
    # Rows are queries: two questions on json#0 must not read as a duplicated chunk.
    (tmp_path / "q.csv").write_text(
        "query_id,query,chunk_id\nq1,json encoder,json#0\nq2,decode json text,json#0\nq3,csv reader,csv#0\n"
    )
    frame = chunk_eval(corpus, chunk_words=40, queries=tmp_path / "q.csv")
    assert "chunk_id" not in frame and "chunk_index" not in frame
    sample = results_from_frame(frame).population()
    assert sample.n_chunks == 3 and sample.n_docs == 2  # queries clustered by document
    assert sample.sum_y.sum() == frame["y"].sum()


@pytest.mark.parametrize(("chunk_words", "overlap"), [(10, 0), (40, 0), (25, 7)])
def test_tokens_computed_once_give_the_chunks_own_tokens(corpus, chunk_words, overlap):
    # Tokenising the corpus once, word by word, is what tokenising every chunk's text gives.
    tokens = tokenize_corpus(corpus)
    chunks = chunk_corpus(corpus, chunk_words, overlap)
    ids, offsets, vocabulary = tokens.chunk_terms(chunks)
    expected_ids, expected_offsets, expected_vocabulary = encode([tokenize(t) for t in chunks.texts])
    np.testing.assert_array_equal(ids, expected_ids)
    np.testing.assert_array_equal(offsets, expected_offsets)
    assert vocabulary.equals(expected_vocabulary)
    reused, fresh = (chunk_eval(c, chunk_words=chunk_words, overlap=overlap, rng=2) for c in (tokens, corpus))
    pd.testing.assert_frame_equal(reused, fresh)


def test_tokens_of_words_whose_case_depends_on_neighbours():
    # Final sigma, a dotted capital I that lowercases to two characters, punctuation inside and between
    # words; each text is long enough to be cut across chunks at every size tried.
    texts = ["ΟΔΟΣ ΟΔΟΣ.ΑΣ İstanbul  don't\tstop-here", "ΣΑΣ Σ x_y ...  ¿qué? ΑΣ'Σ"]
    frame = pd.DataFrame({"doc_id": ["a", "b"], "doc_type": ["x", "x"], "text": [" ".join([t] * 7) for t in texts]})
    corpus = corpus_from_frame(frame, source="edge cases")
    for chunk_words, overlap in ((10, 0), (11, 0), (13, 4)):
        chunks = chunk_corpus(corpus, chunk_words, overlap)
        assert len(chunks) > 4
        ids, offsets, vocabulary = tokenize_corpus(corpus).chunk_terms(chunks)
        got = [list(vocabulary[ids[offsets[i] : offsets[i + 1]]]) for i in range(len(chunks))]
        assert got == [tokenize(t) for t in chunks.texts]
