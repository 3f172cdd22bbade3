"""``ragunc recall`` and ``ragunc evalset eval`` lead with the recommended interval, and it is exactly the one
``ragunc interval`` recommends on the same per-query values (queries as rows, their group as ``doc_id``)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pandas as pd
import pytest

from ragunc.cli import main
from ragunc.stats.methods import interval_method
from ragunc.stats.recommend import RECOMMENDED_METHOD
from tests.support.evalsets import question, write_set


def cli_json(argv: list[str]) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


def interval_recommended(path, column: str = "y") -> dict:
    """What ``ragunc interval`` recommends on the per-query values of ``column`` in a results file."""
    return cli_json(["interval", str(path), *(["--column", f"y={column}"] if column != "y" else [])])["recommended"]


def check(recommended: dict, expected: dict) -> None:
    assert list(recommended)[:3] == ["method", "ci", "reason"]
    assert recommended == expected  # to the last digit: the same method on the same values
    assert recommended["method"] == RECOMMENDED_METHOD
    assert 0 <= recommended["ci"][0] <= recommended["ci"][1] <= 1


def test_recall_json_recommends_what_interval_recommends_on_the_per_query_recall(tmp_path):
    # 24 queries in 6 groups; every third query has two relevant documents and finds one of them
    # (recall 1/2), so the per-query values are not 0/1.
    qrels, run = [], []
    for q in range(24):
        source = f"doc{q % 6}"
        qrels.append((f"q{q}", source, 1, source))
        if q % 3 == 0:
            qrels.append((f"q{q}", f"extra{q}", 1, source))
        found = (q * 5) % 7 < 5
        run += [(f"q{q}", 1, f"q{q}a", source if found else "other"), (f"q{q}", 2, f"q{q}b", "other")]
    pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance", "source"]).to_csv(
        tmp_path / "qrels.csv", index=False
    )
    pd.DataFrame(run, columns=["query_id", "rank", "chunk_id", "doc_id"]).to_csv(tmp_path / "run.csv", index=False)
    d = cli_json(
        ["recall", str(tmp_path / "run.csv"), str(tmp_path / "qrels.csv"), "--k", "2", "--group-col", "source"]
    )
    source = {q: s for q, _, _, s in qrels}
    rows = [(p["query_id"], source[p["query_id"]], p["recall"]) for p in d["per_query"] if p["recall"] is not None]
    assert {r for *_, r in rows} == {0.0, 0.5, 1.0}
    pd.DataFrame(rows, columns=["query_id", "doc_id", "y"]).to_csv(tmp_path / "results.csv", index=False)
    check(d["recommended"], interval_recommended(tmp_path / "results.csv"))
    # the existing keys are still there, and the recommended interval is none of them under another name
    assert {"naive", "cluster", "bootstrap", "deff"} <= set(d)
    assert d["recommended"]["ci"] not in (d["naive"]["ci"], d["cluster"]["ci"], d["bootstrap"]["ci"])


@pytest.fixture
def evalset(tmp_path):
    """16 questions from 8 source documents; the run finds the relevant document for all but one at rank 1."""
    write_set(
        tmp_path,
        [question(i, f"d{i % 8}") for i in range(16)],
        [(f"q{i}", 1, f"d{i % 8}#0" if i else "x#0", f"d{i % 8}" if i else "x") for i in range(16)]
        + [(f"q{i}", 2, f"d{(i + 3) % 8}#1", f"d{(i + 3) % 8}") for i in range(16)],
    )
    return tmp_path


def test_evalset_eval_json_recommends_what_interval_recommends_on_its_results_file(evalset):
    results = evalset / "results.csv"
    d = cli_json(
        ["evalset", "eval", str(evalset), "--run", str(evalset / "run.csv"), "--k", "2", "--results", str(results)]
    )
    recall = d["recall"]
    # A recall near 1 whose cluster interval passes 1; the recommended one stays inside.
    assert recall["recall"] == 0.9375 and recall["cluster"]["ci"][1] > 1
    check(recall["recommended"], interval_recommended(results))
    for name, column in (("hit", "hit"), ("rr", "rr"), ("ndcg", "ndcg")):
        check(d["metrics"][name]["recommended"], interval_recommended(results, column))
    for metric in d["metrics"].values():
        assert {"mean", "n_questions", "naive", "cluster", "deff", "recommended"} <= set(metric)


def test_tables_lead_with_the_recommended_interval(evalset, capsys):
    assert main(["evalset", "eval", str(evalset), "--run", str(evalset / "run.csv"), "--k", "2"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("Recall@2"))
    assert row.index("recommended [") < row.index("naive [") < row.index("cluster [")
    assert f"recommended: {interval_method(RECOMMENDED_METHOD).label}" in out
