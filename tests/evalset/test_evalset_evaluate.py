"""A retriever on a frozen set: hand-computed recall, the cluster SE against statsmodels, negatives apart."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from ragunc.data.results import load_results
from ragunc.evalset.evaluate import evaluate_evalset
from ragunc.evalset.store import FORMAT


def question(qid, src, chunks, docs=None, qtype="factual"):
    return {
        "question_id": qid,
        "question": f"question {qid}?",
        "type": qtype,
        "origin": "synthetic",
        "relevant_chunk_ids": chunks,
        "relevant_doc_ids": docs if docs is not None else sorted({c.split("#")[0] for c in chunks}),
        "source_chunk_ids": chunks[:1] or [f"{src}#0"],
        "source_doc_id": src,
        "generator": "hand",
        "scores": {},
    }


QUESTIONS = [
    question("q1", "A", ["A#0"]),
    question("q2", "A", ["A#1"]),
    question("q3", "B", ["B#0", "C#0"], qtype="two_chunk"),
    question("q4", "C", ["C#2"], qtype="procedural"),
    question("n1", "B", [], qtype="negative"),
    question("n2", "C", [], qtype="negative"),
]
RUN = pd.DataFrame(
    [  # q4 and n2 retrieve nothing
        ("q1", 1, "A#0", "A"),
        ("q1", 2, "B#0", "B"),
        ("q2", 1, "B#1", "B"),
        ("q2", 2, "A#3", "A"),  # document A, through another of its chunks
        ("q3", 1, "B#0", "B"),
        ("q3", 2, "B#1", "B"),
        ("n1", 1, "B#0", "B"),
    ],
    columns=["query_id", "rank", "chunk_id", "doc_id"],
)


@pytest.fixture
def hand_set(tmp_path):
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    manifest = {
        "format": FORMAT,
        "complete": True,
        "corpus": {"source": "<none>", "hash": "-"},
        "chunking": {"chunk_words": 100},
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    RUN.to_csv(tmp_path / "run.csv", index=False)
    return tmp_path


@pytest.mark.parametrize(("k", "scores"), [(1, [1, 0, 0.5, 0]), (2, [1, 1, 0.5, 0])])
def test_recall_by_hand_with_the_cluster_se_of_statsmodels(hand_set, k, scores):
    report = evaluate_evalset(hand_set, k=k, run=hand_set / "run.csv", boot=200)
    assert report.recall.recall == pytest.approx(np.mean(scores)) and report.recall.n_queries == 4
    assert report.recall.n_groups == 3 and report.recall.group_col == "source_doc_id"
    y = np.array(scores, dtype=float)
    fit = sm.OLS(y, np.ones(4)).fit(cov_type="cluster", cov_kwds={"groups": np.array([0, 0, 1, 2])})
    assert report.recall.interval("cluster").se == pytest.approx(float(fit.bse[0]))
    assert report.recall.interval("naive").se == pytest.approx(y.std() / np.sqrt(4))
    assert report.by_type["factual"]["recall"] == pytest.approx(np.mean(scores[:2]))


def test_negatives_are_reported_apart(hand_set):
    report = evaluate_evalset(hand_set, k=2, run=hand_set / "run.csv", boot=200)
    negatives = report.negatives
    assert negatives.n == 2 and negatives.returned.mean == 0.5  # n1 got a result, n2 none
    assert negatives.confident is None  # a run file without scores has no confidence to read
    assert report.to_dict()["n_negatives"] == 2 and report.to_dict()["n_answerable"] == 4


def test_per_question_results_follow_the_data_contract(hand_set):
    report = evaluate_evalset(hand_set, k=2, run=hand_set / "run.csv", boot=200)
    path = hand_set / "results.csv"
    report.results.to_csv(path, index=False)
    sample = load_results(path).population()
    assert sorted(sample.cluster_id.tolist()) == ["A", "B", "C"]  # clustered by source document
    assert sample.sum_y.sum() == pytest.approx(2.5) and sample.n.sum() == 4


def test_bad_inputs(hand_set, tmp_path):
    with pytest.raises(ValueError, match="k must be a positive integer"):
        evaluate_evalset(hand_set, k=0, run=hand_set / "run.csv")
    with pytest.raises(FileNotFoundError, match="no questions.jsonl"):
        evaluate_evalset(tmp_path / "empty")
    lines = (hand_set / "questions.jsonl").read_text().splitlines()
    (hand_set / "questions.jsonl").write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(ValueError, match="question_id 'q1' repeats"):
        evaluate_evalset(hand_set, run=hand_set / "run.csv")


# ---------------------------------------------------------------- a person's audit of the judged pairs

AUDIT = pd.DataFrame(
    [
        ("q1", "A#0", "1"),  # the judge's set confirmed
        ("q3", "C#0", "no"),  # the judge took C#0 for relevant; the person does not
        ("q4", "D#5", "yes"),  # a chunk the judge's set lacks
    ],
    columns=["question_id", "chunk_id", "relevant"],
)


def test_an_audit_corrects_the_judges_relevant_sets(hand_set):
    from ragunc.stats.judged.report import judged_report
    from tests.support.judged import judged_from_rows

    AUDIT.to_csv(hand_set / "audit.csv", index=False)
    report = evaluate_evalset(hand_set, k=1, run=hand_set / "run.csv", boot=50, audit=hand_set / "audit.csv")
    a = report.audit
    assert (a.pairs, a.made_relevant, a.made_irrelevant, a.left_out) == (3, 1, 1, 0)
    # By hand at k = 1: the judge's recalls (1, 0, 1/2, 0); the person's on q1, q3, q4: 1 (A), 1 (B alone
    # now, retrieved first), 0 (C and D, nothing retrieved).  Source documents A, A, B, C.
    expected = judged_report(
        judged_from_rows(np.array([0, 0, 1, 2]), [1, 0, 0.5, 0], [1, 0, 1, 0], [True, False, True, True])
    )
    assert a.report["judge_only"].estimate == pytest.approx(report.recall.recall)
    for name in ("judge_only", "gold_only", "prediction_powered"):
        assert a.report[name].estimate == pytest.approx(expected[name].estimate)
        assert a.report[name].interval.se == pytest.approx(expected[name].interval.se)
    d = report.to_dict()["audit"]
    assert d["recall_judge"] == pytest.approx(report.recall.recall)
    assert d["recall_corrected"] == pytest.approx(expected["prediction_powered"].estimate)
    assert "audit" not in evaluate_evalset(hand_set, k=1, run=hand_set / "run.csv", boot=50).to_dict()


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("n1", "B#0", "1")], r"column 'question_id': 1 row\(s\) naming no answerable question of the set: row 1"),
        ([("q1", "A#0", "maybe")], r"column 'relevant': 1 row\(s\) that are not 1/0, true/false or yes/no: row 1"),
        ([("q1", "A#0", "1"), ("q1", "A#0", "0")], r"column 'chunk_id': 1 row\(s\) repeat .*: row 2"),
        ([("q1", "", "1")], r"column 'chunk_id': 1 row\(s\) with an empty value: row 1"),
    ],
)
def test_a_bad_audit_is_named_with_its_rows(hand_set, rows, message):
    from ragunc.data.reader import DataError

    pd.DataFrame(rows, columns=["question_id", "chunk_id", "relevant"]).to_csv(hand_set / "audit.csv", index=False)
    with pytest.raises(DataError, match=message):
        evaluate_evalset(hand_set, k=1, run=hand_set / "run.csv", boot=50, audit=hand_set / "audit.csv")
    pd.DataFrame({"question_id": ["q1"], "chunk": ["A#0"]}).to_csv(hand_set / "audit.csv", index=False)
    with pytest.raises(DataError, match=r"missing column\(s\) 'chunk_id', 'relevant'"):
        evaluate_evalset(hand_set, k=1, run=hand_set / "run.csv", boot=50, audit=hand_set / "audit.csv")
