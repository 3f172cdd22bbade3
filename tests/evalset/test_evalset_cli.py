"""``ragunc evalset build | eval | add`` in-process: the offline path end to end, the JSON contract, errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ragunc.cli import main
from ragunc.data.results import load_results
from ragunc.evalset.store import REVIEW_LISTS


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(map(str, args)))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def offline(corpus, out, *extra):
    return ("evalset", "build", corpus, "--n", 40, "--generator", "offline", "--out", out, "--no-progress", *extra)


@pytest.fixture(scope="module")
def built(small_corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("set")
    assert main(list(map(str, offline(small_corpus, out, "--json")))) == 0
    return out


def test_an_offline_build_writes_a_frozen_set(built, small_corpus):
    manifest = json.loads((built / "manifest.json").read_text())
    assert {p.stem for p in (built / "review").glob("*.jsonl")} == set(REVIEW_LISTS) - {"displaced"}
    assert manifest["corpus"]["hash"].startswith("sha256:") and manifest["corpus"]["source"] == str(small_corpus)
    assert manifest["chunking"]["chunk_words"] == 100 and manifest["sampling"]["seed"] == 0
    assert manifest["generator"] == {"kind": "offline", "model": "offline-templates-v1", "concurrency": 4}
    assert "BM25" in manifest["filters"]["round_trip"]["ranker"] and manifest["filters"]["round_trip"]["depth"] == 50
    assert manifest["complete"] and len(manifest["prompt_templates_hash"]) == 16
    questions = [json.loads(line) for line in (built / "questions.jsonl").read_text().splitlines()]
    assert len(questions) == manifest["funnel"]["kept"] > 0
    assert {q["origin"] for q in questions} == {"synthetic"}
    # The offline questions leak by construction: the leakage filter flags (nearly) every answerable one.
    answerable_parsed = sum(manifest["by_type"][t]["parsed"] for t in manifest["by_type"] if t != "negative")
    assert manifest["counts"]["leaky"] >= 0.9 * answerable_parsed


def test_a_finished_build_run_again_reads_everything_from_the_journal(built, small_corpus, capsys):
    before = (built / "questions.jsonl").read_text()
    code, out, _ = cli(capsys, *offline(small_corpus, built, "--json"))
    calls = json.loads(out)["calls"]
    assert code == 0 and calls["made"] == 0 and calls["from_journal"] > 40
    assert (built / "questions.jsonl").read_text() == before


def test_the_build_table(small_corpus, tmp_path, capsys):
    code, out, _ = cli(capsys, *offline(small_corpus, tmp_path))
    assert code == 0 and "funnel" in out and "kept" in out and "review" in out


def test_a_dry_run_calls_nothing_and_writes_nothing(small_corpus, tmp_path, capsys):
    out_dir = tmp_path / "never"
    code, out, _ = cli(capsys, *offline(small_corpus, out_dir, "--dry-run", "--json"))
    plan = json.loads(out)
    assert code == 0 and not out_dir.exists()
    assert plan["question_calls"] == 40 and plan["journaled"] == 0 and plan["prompt_tokens"] > 40 * 100
    code, out, _ = cli(capsys, *offline(small_corpus, out_dir, "--dry-run"))
    assert "no call made" in out


def test_eval_gives_recall_with_a_cluster_interval_and_writes_results(built, tmp_path, capsys):
    results = tmp_path / "results.csv"
    code, out, _ = cli(capsys, "evalset", "eval", built, "--k", 1, "--json", "--results", results)
    d = json.loads(out)
    assert code == 0 and d["k"] == 1 and d["recall"]["group_col"] == "source_doc_id"
    assert d["recall"]["cluster"]["se"] > 0 and d["recall"]["deff"] > 0
    assert set(d["metrics"]) >= {"hit", "precision", "rr", "ndcg"} and d["negatives"]["n"] > 0
    questions = [json.loads(line) for line in (built / "questions.jsonl").read_text().splitlines()]
    frame = pd.read_csv(results)
    sources = {q["question_id"]: q["source_doc_id"] for q in questions}
    assert frame["doc_id"].tolist() == [sources[q] for q in frame["query_id"]]
    assert load_results(results).population().n_docs == d["recall"]["n_groups"]
    code, out, _ = cli(capsys, "evalset", "eval", built)
    assert "Recall@10" in out and "cluster" in out and "negatives" in out


def test_real_questions_displace_synthetic_ones(built, tmp_path, capsys):
    import shutil

    folder = tmp_path / "set"
    shutil.copytree(built, folder)
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    chunk = next(q for q in questions if q["relevant_chunk_ids"])["relevant_chunk_ids"][0]
    real = tmp_path / "real.csv"
    pd.DataFrame(
        {
            "question": ["how do i merge two sorted lists", "what is a heap", "can csv read excel files"],
            "chunk_ids": [chunk, "", ""],
            "doc_ids": ["", "heapq", ""],
        }
    ).to_csv(real, index=False)
    code, out, _ = cli(capsys, "evalset", "add", folder, real, "--json")
    d = json.loads(out)
    assert code == 0 and d["added"] == 3 and d["displaced"] == 3 and d["origin"]["real"] == 3
    after = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    assert len(after) == len(questions) and sum(q["origin"] == "real" for q in after) == 3
    negative = next(q for q in after if q["question"] == "can csv read excel files")
    assert negative["type"] == "negative" and negative["relevant_doc_ids"] == []
    displaced = (folder / "review" / "displaced.jsonl").read_text().splitlines()
    assert len(displaced) == 3 and all("displaced_by" in json.loads(row) for row in displaced)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["origin"]["real_share"] == pytest.approx(3 / len(after))
    code, out, _ = cli(capsys, "evalset", "add", folder, real, "--json")
    assert json.loads(out)["already_present"] == 3 and json.loads(out)["added"] == 0
    code, out, _ = cli(capsys, "evalset", "eval", folder, "--json")
    assert json.loads(out)["by_origin"]["real"]["n"] == 2


def test_a_build_that_keeps_nothing_exits_3(tmp_path, capsys):
    corpus = tmp_path / "empty.csv"
    pd.DataFrame({"doc_id": ["a", "b"], "text": ["the and of to " * 30, "a an the is " * 30]}).to_csv(
        corpus, index=False
    )
    code, out, err = cli(capsys, *offline(corpus, tmp_path / "set"))
    assert code == 3 and "no question was kept" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("evalset", "build", "stdlib", "--n", 5, "--generator", "openai", "--out", "x"), "needs --model"),
        (
            ("evalset", "build", "stdlib", "--n", 5, "--generator", "offline", "--out", "x", "--types", "trivia"),
            "unknown question type",
        ),
        (("evalset", "eval", "/nonexistent/set"), "no questions.jsonl"),
    ],
)
def test_bad_input_is_one_clear_line(capsys, args, message):
    code, _, err = cli(capsys, *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_add_names_unknown_chunks(built, tmp_path, capsys):
    real = tmp_path / "real.jsonl"
    real.write_text(json.dumps({"question": "what?", "chunk_ids": ["nope#7"]}) + "\n")
    code, _, err = cli(capsys, "evalset", "add", built, real)
    assert code == 2 and "nope#7" in err


def test_eval_with_an_audit_corrects_recall(built, tmp_path, capsys):
    questions = [json.loads(line) for line in (built / "questions.jsonl").read_text().splitlines()]
    answerable = [q for q in questions if q["relevant_doc_ids"]][:12]
    # The person confirms every source chunk and rejects a chunk the judge never saw: the relevant
    # sets do not change, so the corrected recall is the judge's (lambda aside, the same numbers).
    rows = [(q["question_id"], c, 1) for q in answerable for c in q["relevant_chunk_ids"]]
    rows += [(answerable[0]["question_id"], "elsewhere#0", 0)]
    audit = tmp_path / "audit.csv"
    pd.DataFrame(rows, columns=["question_id", "chunk_id", "relevant"]).to_csv(audit, index=False)
    code, out, _ = cli(capsys, "evalset", "eval", built, "--k", 1, "--json", "--audit", audit)
    d = json.loads(out)["audit"]
    assert code == 0 and d["pairs"] == len(rows) and d["made_relevant"] == d["made_irrelevant"] == 0
    assert d["recall_judge"] == pytest.approx(json.loads(out)["recall"]["recall"])
    assert d["prediction_powered"]["n_audited"] == 12
    # The audited questions' recall is their judged recall: the correction is zero at any lambda.
    assert d["recall_corrected"] == pytest.approx(d["recall_judge"])
    code, out, _ = cli(capsys, "evalset", "eval", built, "--k", 1, "--audit", audit)
    assert code == 0 and "Recall@1 audited" in out and "corrected by" in out
    pd.DataFrame({"question_id": ["nobody"], "chunk_id": ["x#0"], "relevant": [1]}).to_csv(audit, index=False)
    code, _, err = cli(capsys, "evalset", "eval", built, "--audit", audit)
    assert code == 2 and "naming no answerable question" in err and err.count("\n") == 1
