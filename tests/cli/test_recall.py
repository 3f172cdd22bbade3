"""``ragunc recall``: a worked example's numbers, the JSON contract, groups, TREC input and clean errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ragunc.cli import main

CONTRACT = {"k", "order", "recall", "naive_sum", "n_queries", "n_excluded", "per_query", "naive", "cluster"}


@pytest.fixture
def example_files(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text(
        "query_id,rank,chunk_id,doc_id\n"
        "q1,1,manual#1,manual\nq1,2,manual#2,manual\nq1,3,manual#3,manual\nq1,4,faq#1,faq\nq1,5,terms#1,terms\n"
        "nothing,1,terms#1,terms\n"
    )
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query_id,doc_id,relevance\nq1,manual,1\nq1,faq,1\nempty,faq,1\n")
    return run, qrels


def run_json(capsys, *argv) -> dict:
    assert main([*map(str, argv), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_worked_example_both_orders(example_files, capsys):
    run, qrels = example_files
    d = run_json(capsys, "recall", run, qrels, "--k", 3)
    assert CONTRACT <= set(d)
    assert d["k"] == 3 and d["order"] == "truncate-dedup"
    # "q1" 0.5; "empty" (relevant doc, nothing retrieved) 0; "nothing" has no relevant documents: excluded.
    per_query = {q["query_id"]: q["recall"] for q in d["per_query"]}
    assert per_query == {"q1": 0.5, "nothing": None, "empty": 0.0}
    assert (d["n_queries"], d["n_excluded"]) == (2, 1)
    assert d["recall"] == pytest.approx(0.25)
    assert d["naive_sum"] == pytest.approx((1.5 + 0) / 2)
    dedup_first = run_json(capsys, "recall", run, qrels, "--k", 3, "--order", "dedup-truncate")
    assert {q["query_id"]: q["recall"] for q in dedup_first["per_query"]}["q1"] == 1.0


def test_worked_example_alone_gives_its_numbers_and_undefined_intervals(tmp_path, capsys):
    (tmp_path / "run.csv").write_text(
        "query_id,rank,chunk_id,doc_id\nq,1,m1,manual\nq,2,m2,manual\nq,3,m3,manual\nq,4,f1,faq\nq,5,t1,terms\n"
    )
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\nq,manual,1\nq,faq,1\n")
    d = run_json(capsys, "recall", tmp_path / "run.csv", tmp_path / "qrels.csv", "--k", 3)
    assert (d["recall"], d["naive_sum"], d["recall_by_order"]["dedup-truncate"]) == (0.5, 1.5, 1.0)
    assert d["cluster"] == {"se": None, "ci": [None, None]}
    assert main(["recall", str(tmp_path / "run.csv"), str(tmp_path / "qrels.csv"), "--k", "3"]) == 0
    table = capsys.readouterr().out
    assert "0.500" in table and "1.000" in table and "1.500" in table


@pytest.mark.parametrize("k", ["0", "-2"])
def test_k_below_one_is_a_clean_error(example_files, capsys, k):
    run, qrels = example_files
    assert main(["recall", str(run), str(qrels), "--k", k]) == 2
    err = capsys.readouterr().err
    assert "k must be a positive integer" in err and "Traceback" not in err


def test_grouped_queries_and_trec_input_with_chunk_map(tmp_path, capsys):
    rng = np.random.default_rng(4)
    lines, qrels, chunk_map = [], [], {}
    hits = []
    for i in range(30):
        source = f"doc{i % 6}"
        qrels.append(f"q{i} 0 {source} 1")
        hit = rng.random() < (0.2 if i % 6 < 3 else 0.8)  # groups differ: clustered outcomes
        docs = [source if hit else "other", "other", source]
        for r, d in enumerate(docs, start=1):
            chunk = f"q{i}c{r}"
            chunk_map[chunk] = d
            lines.append(f"q{i} Q0 {chunk} {r} {10 - r} bm25")
        hits.append(float(hit))
    (tmp_path / "run.trec").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")
    # qrels carry the source document as a per-query column in CSV form for grouping.
    (tmp_path / "qrels.csv").write_text(
        "query_id,doc_id,relevance,source\n" + "".join(f"q{i},doc{i % 6},1,doc{i % 6}\n" for i in range(30))
    )
    (tmp_path / "map.csv").write_text("chunk_id,doc_id\n" + "".join(f"{c},{d}\n" for c, d in chunk_map.items()))
    base = ["recall", tmp_path / "run.trec", tmp_path / "qrels.txt", "--k", 1, "--chunk-map", tmp_path / "map.csv"]
    d = run_json(capsys, *base, "--boot", 200, "--seed", 3)
    assert d["recall"] == pytest.approx(np.mean(hits))
    assert d["n_groups"] == 30 and d["naive"]["se"] == pytest.approx(np.std(hits) / np.sqrt(30))
    grouped = run_json(
        capsys,
        "recall",
        tmp_path / "run.trec",
        tmp_path / "qrels.csv",
        "--k",
        1,
        "--chunk-map",
        tmp_path / "map.csv",
        "--group-col",
        "source",
        "--boot",
        200,
        "--level",
        0.9,
    )
    assert grouped["n_groups"] == 6 and grouped["recall"] == d["recall"]
    group_means = np.array([np.mean(hits[g::6]) for g in range(6)])
    # Equal group sizes: the cluster SE is the SE of the mean of the group means.
    assert grouped["cluster"]["se"] == pytest.approx(stats.sem(group_means))
    low, high = grouped["cluster"]["ci"]
    assert high - low == pytest.approx(2 * stats.norm.ppf(0.95) * grouped["cluster"]["se"])


def test_bad_inputs_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "run.csv").write_text("query_id,rank,chunk_id,doc_id\nq,1,a,A\nq,two,b,B\n")
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\nq,A,1\n")
    assert main(["recall", str(tmp_path / "run.csv"), str(tmp_path / "qrels.csv"), "--k", "1"]) == 2
    assert "column rank" in capsys.readouterr().err
    (tmp_path / "run2.csv").write_text("query_id,rank,chunk_id\nq,1,a\n")
    assert main(["recall", str(tmp_path / "run2.csv"), str(tmp_path / "qrels.csv"), "--k", "1"]) == 2
    assert "missing column doc_id" in capsys.readouterr().err
    (tmp_path / "run3.csv").write_text("query_id,rank,chunk_id,doc_id\nq,1,a,A\nr,1,b,B\n")
    assert (
        main(["recall", str(tmp_path / "run3.csv"), str(tmp_path / "qrels.csv"), "--k", "1", "--group-col", "topic"])
        == 2
    )
    assert "group column 'topic'" in capsys.readouterr().err


def test_a_broken_gzip_is_a_one_line_error(tmp_path, capsys):
    import gzip

    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\nq,A,1\n")
    (tmp_path / "junk.csv.gz").write_bytes(b"\x1f\x8b not a deflate stream")  # gzip is told from these bytes
    (tmp_path / "cut.csv.gz").write_bytes(gzip.compress(b"query_id,rank,chunk_id,doc_id\n" + b"q,1,a,A\n" * 40)[:30])
    for name in ("junk.csv.gz", "cut.csv.gz"):
        assert main(["recall", str(tmp_path / name), str(tmp_path / "qrels.csv"), "--k", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"ragunc recall: error: {tmp_path / name}: not a readable gzip file")
        assert err.count("\n") == 1


def test_grouping_skips_queries_without_judgments(tmp_path, capsys):
    (tmp_path / "run.csv").write_text("query_id,rank,chunk_id,doc_id\nq1,1,a,A\nq2,1,b,B\nq3,1,c,C\nq9,1,z,Z\n")
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\nq1,A,1\nq2,A,1\nq3,C,1\n")
    assert (
        main(
            [
                "recall",
                str(tmp_path / "run.csv"),
                str(tmp_path / "qrels.csv"),
                "--k",
                "1",
                "--group-col",
                "doc_id",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["n_queries"] == 3 and out["n_excluded"] == 1 and out["n_groups"] == 2


def test_compare_two_runs_on_the_same_queries(tmp_path, capsys):
    rng = np.random.default_rng(8)
    found_a, found_b = rng.random(25) < 0.4, rng.random(25) < 0.7
    for name, found in (("a.csv", found_a), ("b.csv", found_b)):
        rows = "".join(f"q{i},1,{name}{i},{'rel' if hit else 'other'}{i}\n" for i, hit in enumerate(found))
        (tmp_path / name).write_text("query_id,rank,chunk_id,doc_id\n" + rows)
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\n" + "".join(f"q{i},rel{i},1\n" for i in range(25)))
    d = run_json(
        capsys,
        "recall",
        tmp_path / "a.csv",
        tmp_path / "qrels.csv",
        "--k",
        1,
        "--compare",
        tmp_path / "b.csv",
        "--boot",
        200,
    )
    c = d["comparison"]
    diff = found_b.astype(float) - found_a.astype(float)
    assert c["difference"] == pytest.approx(diff.mean()) and c["n_queries"] == 25
    assert c["paired"]["se"] == pytest.approx(stats.sem(diff))  # every query its own group
    assert (
        main(
            [
                "recall",
                str(tmp_path / "a.csv"),
                str(tmp_path / "qrels.csv"),
                "--k",
                "1",
                "--compare",
                str(tmp_path / "b.csv"),
                "--boot",
                "200",
            ]
        )
        == 0
    )
    assert "Paired B - A over 25 queries" in capsys.readouterr().out


def test_a_reader_that_stops_early_is_not_an_error():
    # `ragunc recall ... --json | head`: the closed pipe ends the command quietly, no traceback or error line.
    sample = Path(__file__).resolve().parents[2] / "sample_data"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragunc",
            "recall",
            str(sample / "stdlib_run_100w.csv.gz"),
            str(sample / "stdlib_qrels_100w.csv.gz"),
            "--k",
            "5",
            "--boot",
            "10",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.read(10).startswith(b"{")
    proc.stdout.close()  # per-query JSON of 2,000 queries is far beyond the pipe's buffer
    err = proc.stderr.read().decode()
    assert proc.wait() == 1
    assert err == ""


@pytest.fixture
def three_runs(tmp_path):
    """Runs a, b, c on 24 queries in 6 groups, as three files and as one file with a ``run`` column."""
    rng = np.random.default_rng(12)
    found = {"a": rng.random(24) < 0.4, "b": rng.random(24) < 0.7, "c": rng.random(24) < 0.45}
    table = []
    for name, hits in found.items():
        rows = [f"q{i},1,{name}{i},{'rel' if hit else 'other'}{i}\n" for i, hit in enumerate(hits)]
        (tmp_path / f"{name}.csv").write_text("query_id,rank,chunk_id,doc_id\n" + "".join(rows))
        table += [f"{name},{row}" for row in rows]
    (tmp_path / "all.csv").write_text("run,query_id,rank,chunk_id,doc_id\n" + "".join(table))
    (tmp_path / "qrels.csv").write_text(
        "query_id,doc_id,relevance,source\n" + "".join(f"q{i},rel{i},1,s{i % 6}\n" for i in range(24))
    )
    return tmp_path, found


def test_several_runs_against_a_baseline(three_runs, capsys):
    path, found = three_runs
    files = [path / f"{n}.csv" for n in "abc"]
    d = run_json(
        capsys,
        "recall",
        *files,
        path / "qrels.csv",
        "--k",
        1,
        "--baseline",
        "b",
        "--group-col",
        "source",
        "--adjust",
        "holm",
    )
    assert [r["run"] for r in d["runs"]] == ["b", "a", "c"]
    assert [(c["a"], c["b"]) for c in d["comparisons"]] == [("b", "a"), ("b", "c")]
    assert (d["metric"], d["k"], d["n_queries"], d["n_clusters"], d["dropped"]) == ("recall", 1, 24, 6, 0)
    diff = found["a"].astype(float) - found["b"]
    assert d["comparisons"][0]["difference"] == pytest.approx(diff.mean())
    # Equal group sizes: the paired SE is the SE of the mean of the groups' mean differences.
    assert d["comparisons"][0]["paired"]["se"] == pytest.approx(stats.sem([diff[g::6].mean() for g in range(6)]))
    one_file = run_json(
        capsys,
        "recall",
        path / "all.csv",
        path / "qrels.csv",
        "--k",
        1,
        "--runs-col",
        "run",
        "--baseline",
        "b",
        "--group-col",
        "source",
        "--adjust",
        "holm",
    )
    assert one_file == d
    pairs = run_json(
        capsys,
        "recall",
        path / "all.csv",
        path / "qrels.csv",
        "--k",
        1,
        "--runs-col",
        "run",
        "--baseline",
        "a",
        "--only",
        "c",
        "--all-pairs",
        "--metric",
        "hit",
        "--boot",
        100,
    )
    assert [r["run"] for r in pairs["runs"]] == ["a", "c"] and pairs["metric"] == "hit" and pairs["boot"] == 100
    assert capsys.readouterr().err == ""
    assert (
        main(
            [
                "recall",
                str(path / "all.csv"),
                str(path / "qrels.csv"),
                "--k",
                "1",
                "--runs-col",
                "run",
                "--baseline",
                "a",
                "--boot",
                "100",
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "3 runs on the 24 queries they share" in table and "c - a" in table and "dropped" in table


def test_several_runs_bad_inputs_are_one_line_errors(three_runs, capsys):
    path, _ = three_runs
    all_csv, qrels = str(path / "all.csv"), str(path / "qrels.csv")
    cases = [
        (["--runs-col", "run", "--baseline", "zz"], "run(s) ['zz'] not among the runs ['a', 'b', 'c']"),
        (["--runs-col", "tag", "--baseline", "a"], "missing column tag"),
        ([], "column run names 3 runs ('a', 'b', 'c')"),
        (["--runs-col", "run"], "3 runs ('a', 'b', 'c'): compare them with --baseline RUN"),
        (["--runs-col", "run", "--only", "a", "--all-pairs"], "--only, --all-pairs: only for comparing several runs"),
        (["--runs-col", "run", "--baseline", "a", "--compare", str(path / "b.csv")], "--compare compares two"),
    ]
    for extra, message in cases:
        assert main(["recall", all_csv, qrels, "--k", "1", *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (extra, err)
    (path / "other.csv").write_text("query_id,rank,chunk_id,doc_id\nx1,1,c,rel1\n")
    assert main(["recall", str(path / "a.csv"), str(path / "other.csv"), qrels, "--k", "1", "--baseline", "a"]) == 2
    assert "share no query with relevant items" in capsys.readouterr().err


def test_one_run_of_a_runs_column_is_the_single_run_report(three_runs, capsys):
    path, _ = three_runs
    (path / "only_b.csv").write_text(
        "".join(line for line in (path / "all.csv").read_text().splitlines(True) if not line.startswith(("a,", "c,")))
    )
    split = run_json(
        capsys, "recall", path / "only_b.csv", path / "qrels.csv", "--k", 1, "--runs-col", "run", "--boot", 50
    )
    plain = run_json(capsys, "recall", path / "b.csv", path / "qrels.csv", "--k", 1, "--boot", 50)
    assert split == plain


def test_column_maps_the_files_names(tmp_path, capsys):
    (tmp_path / "run.csv").write_text("question,passage,sim\nq1,a,0.9\nq1,b,0.2\nq2,c,0.5\nq2,d,0.7\n")
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\ta\t1\nq2\tc\t1\n")
    argv = ["recall", str(tmp_path / "run.csv"), str(tmp_path / "qrels.tsv"), "--k", "1", "--json"]
    assert main(argv) != 0
    assert "missing columns query_id, chunk_id (found: question, passage, sim)" in capsys.readouterr().err
    assert main([*argv, "--column", "query_id=question", "--column", "doc_id=passage", "--column", "score=sim"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [q["recall"] for q in out["per_query"]] == [1.0, 0.0]
