"""Runs and qrels as other tools write them: ranx (JSON, Parquet), BEIR's qrels TSV, trec_eval's tie rule.

The ranx files are written by ranx itself here; ragunc's metrics on them are checked
against ranx's and pytrec_eval's (trec_eval) own numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
import ranx

from ragunc.data import DataError
from ragunc.data.runs import load_qrels, load_run
from ragunc.ranking.metrics import match_qrels, recall


def case(seed: int = 0, n_queries: int = 20, tied: bool = False):
    """ranx-style dicts: two or three relevant documents per query; scores on a coarse grid when ``tied``."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{i}": {f"d{i}_{j}": int(rng.integers(1, 3)) for j in range(rng.integers(2, 4))} for i in range(n_queries)
    }
    run = {}
    for q, rel in qrels.items():
        docs = [*list(rel)[:2], *(f"n{j}" for j in range(8))]
        score = rng.integers(0, 3, len(docs)) / 2 if tied else rng.random(len(docs))
        run[q] = {d: float(s) for d, s in zip(docs, score)}
    return qrels, run


def ranx_recall(qrels, run, k):
    return ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), f"recall@{k}", return_mean=False)


@pytest.mark.parametrize("suffix", ["json", "parquet"])
def test_ranx_saved_run_and_qrels_read_with_ranx_recall(tmp_path, suffix):
    qrels, run = case()
    ranx.Run(run).save(str(tmp_path / f"run.{suffix}"))
    ranx.Qrels(qrels).save(str(tmp_path / f"qrels.{suffix}"))
    ours = load_run(tmp_path / f"run.{suffix}")
    matched = match_qrels(ours, load_qrels(tmp_path / f"qrels.{suffix}"))
    theirs = dict(zip(sorted(qrels), ranx_recall(qrels, run, 3)))  # ranx sorts its query ids
    assert dict(zip(matched.query_id, recall(matched, 3))) == pytest.approx(theirs, rel=1e-12)


def test_beir_qrels_tsv_with_its_header(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\tdoc7\t1\nq1\tdoc9\t2\nq2\tdoc1\t0\n")
    q = load_qrels(path)
    assert list(q.query_id) == ["q1", "q1", "q2"] and list(q.doc_id) == ["doc7", "doc9", "doc1"]
    assert list(q.relevance) == [1, 2, 0]


def test_columns_map_other_names(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("question,passage,sim\nq1,a,0.2\nq1,b,0.9\n")
    run = load_run(path, columns={"query_id": "question", "doc_id": "passage", "score": "sim"})
    assert list(run.chunk_id) == ["b", "a"]
    with pytest.raises(DataError, match="missing columns query_id, chunk_id"):
        load_run(path)


def test_ties_follow_trec_eval(tmp_path):
    qrels, run = case(seed=3, n_queries=40, tied=True)
    path = tmp_path / "run.json"
    ranx.Run(run).save(str(path))
    matched = match_qrels(load_run(path), load_qrels_dict(tmp_path, qrels))
    for k in (1, 2, 3, 5):
        want = pytrec_eval.RelevanceEvaluator(qrels, {f"recall.{k}"}).evaluate(run)
        got = dict(zip(matched.query_id, recall(matched, k)))
        assert got == pytest.approx({q: v[f"recall_{k}"] for q, v in want.items()}, rel=1e-12), k


def load_qrels_dict(directory, qrels):
    path = directory / "qrels.json"
    ranx.Qrels(qrels).save(str(path))
    return load_qrels(path)
