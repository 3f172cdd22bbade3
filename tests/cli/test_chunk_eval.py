"""``ragunc chunk-eval``: JSON contract, written results that ragunc loads, clear errors."""

from __future__ import annotations

import json
import platform
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from ragunc.cli import main
from ragunc.data.results import load_results

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture()
def corpus_file(tmp_path):
    words = [f"term{i % 97} topic{i % 13}" for i in range(600)]
    rows = [
        {"doc_id": f"doc{d}", "text": " ".join(words[d * 37 : d * 37 + 80 + 9 * d]), "doc_type": f"t{d % 2}"}
        for d in range(6)
    ]
    rows.append({"doc_id": "empty", "text": "   "})
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_chunk_eval_writes_loadable_results(corpus_file, tmp_path, capsys):
    out, meta = tmp_path / "res.csv.gz", tmp_path / "meta.json"
    code = main(
        [
            "chunk-eval",
            str(corpus_file),
            "--chunk-words",
            "20",
            "--overlap",
            "5",
            "--out",
            str(out),
            "--metadata",
            str(meta),
            "--seed",
            "9",
            "--json",
            "--no-progress",
        ]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload == json.loads(meta.read_text())
    frame = pd.read_csv(out)
    assert payload["n_chunks"] == len(frame) and payload["n_docs"] == 6 and payload["n_empty_skipped"] == 1
    assert payload["config"] == "20w5o" and set(frame["config"]) == {"20w5o"}
    assert payload["hit1"] == pytest.approx(frame["y"].mean())
    assert payload["hit_at"]["10"] == pytest.approx((frame["rank"] <= 10).mean())
    assert "--seed 9" in payload["command"] and "--out res.csv.gz" in payload["command"]
    loaded = load_results(out)
    assert loaded.configs == ["20w5o"] and loaded.population().n_docs == 6


def test_chunk_eval_table_and_progress(corpus_file, capsys):
    assert main(["chunk-eval", str(corpus_file), "--chunk-words", "10"]) == 0
    captured = capsys.readouterr()
    assert "chunks" in captured.out and "hit@1" in captured.out and "reproduce" in captured.out
    assert "chunk-eval 10:" in captured.err  # the progress bar


def test_duplicate_doc_id_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("doc_id,text\na,one two\na,three four\n")
    assert main(["chunk-eval", str(path), "--chunk-words", "10", "--no-progress"]) == 2
    assert "ragunc chunk-eval: error:" in (err := capsys.readouterr().err) and "duplicate doc_id 'a'" in err


def test_bad_chunk_size_and_extension(corpus_file, capsys):
    assert main(["chunk-eval", str(corpus_file), "--chunk-words", "5", "--no-progress"]) == 2
    assert "chunk_words must be an integer >= 10" in capsys.readouterr().err
    assert main(["chunk-eval", str(corpus_file), "--out", "res.xlsx", "--no-progress"]) == 2
    assert "unknown file type" in capsys.readouterr().err


def test_unreadable_corpus_and_unwritable_out_are_one_line_errors(corpus_file, tmp_path, capsys):
    (tmp_path / "docs.jsonl.gz").write_bytes(b"\x1f\x8b not a deflate stream")  # gzip is told from these bytes
    assert main(["chunk-eval", str(tmp_path / "docs.jsonl.gz"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "docs.jsonl.gz: not a readable gzip file" in err and err.count("\n") == 1
    (tmp_path / "taken").write_text("a file, not a folder")
    assert (
        main(
            [
                "chunk-eval",
                str(corpus_file),
                "--chunk-words",
                "20",
                "--no-progress",
                "--out",
                str(tmp_path / "taken" / "res.csv"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("ragunc chunk-eval: error: ") and "taken" in err and err.count("\n") == 1


def _folder_and_zip(tmp_path) -> tuple[Path, Path]:
    """The same documents as a folder and as a .zip of it (with a hidden file and macOS's clutter beside them)."""
    folder = tmp_path / "docs"
    for d in range(6):
        path = folder / f"t{d % 2}" / f"doc{d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(" ".join(f"term{(d * 37 + i) % 97} topic{i % 13}" for i in range(60 + 9 * d)))
    archive = tmp_path / "docs.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for file in sorted(folder.rglob("*.txt")):
            z.write(file, file.relative_to(folder).as_posix())
        z.writestr(".DS_Store", b"\x00\x01")
        z.writestr("__MACOSX/t0/._doc0.txt", b"\x00\x05")
    return folder, archive


def test_a_zip_of_text_files_is_read_as_the_folder_it_holds(tmp_path, capsys):
    folder, archive = _folder_and_zip(tmp_path)
    outputs = {}
    for source in (folder, archive):
        out = tmp_path / f"{source.name}.csv"
        args = ["chunk-eval", str(source), "--chunk-words", "20", "--out", str(out), "--seed", "3", "--json"]
        assert main([*args, "--no-progress"]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["n_docs"] == 6
        outputs[source.name] = pd.read_csv(out)
    pd.testing.assert_frame_equal(outputs["docs"], outputs["docs.zip"])
    assert set(outputs["docs.zip"]["doc_id"]) == {f"t{d % 2}/doc{d}.txt" for d in range(6)}


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("broken.zip", b"PK\x03\x04 not really", "broken.zip: not a readable .zip archive"),
        ("images.zip", None, "images.zip: the archive holds no .txt, .md or .html file"),
    ],
)
def test_a_bad_zip_is_a_one_line_error(tmp_path, capsys, name, data, message):
    path = tmp_path / name
    if data is None:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("a.png", b"\x89PNG")
    else:
        path.write_bytes(data)
    assert main(["chunk-eval", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragunc chunk-eval: error: ") and message in err and err.count("\n") == 1


def test_stdlib_at_75_words(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGUNC_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "stdlib_75w.csv.gz"
    assert main(["chunk-eval", "stdlib", "--chunk-words", "75", "--out", str(out), "--json", "--no-progress"]) == 0
    payload = json.loads(capsys.readouterr().out)
    loaded = load_results(out)
    assert loaded.configs == ["75w"] and loaded.n_rows == payload["n_chunks"] > 4000
    assert 0.1 < payload["hit1"] < 0.5


def _built_elsewhere() -> str | None:
    """Why the stdlib sample cannot be rebuilt here, or None when this Python is the one that built it."""
    meta = json.loads((SAMPLE / "stdlib_meta.json").read_text())
    built = f"{meta['implementation']} {meta['python']}"
    running = f"{platform.python_implementation()} {platform.python_version()}"
    if running == built:
        return None
    return (
        f"the stdlib corpus is this Python's own standard library: the sample data were built on {built}, "
        f"this is {running}, so a rebuild cannot match row for row"
    )


@pytest.mark.skipif(_built_elsewhere() is not None, reason=_built_elsewhere() or "")
def test_the_sample_data_rebuild_row_for_row(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGUNC_CACHE_DIR", str(tmp_path / "cache"))
    meta = json.loads((SAMPLE / "stdlib_meta.json").read_text())
    # The recorded build command reproduces the shipped file row for row.
    command = meta["configs"]["200w"]["command"].split()[2:]
    rebuilt = tmp_path / "stdlib_200w.csv.gz"
    command[command.index("--out") + 1] = str(rebuilt)
    assert main(["chunk-eval", *command, "--no-progress"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(rebuilt), pd.read_csv(SAMPLE / "stdlib_200w.csv.gz"))


def test_run_and_qrels_for_a_seeded_subset(corpus_file, tmp_path, capsys):
    run, judged, out = tmp_path / "run.csv.gz", tmp_path / "qrels.csv.gz", tmp_path / "res.csv"
    args = [
        "chunk-eval",
        str(corpus_file),
        "--chunk-words",
        "10",
        "--out",
        str(out),
        "--run",
        str(run),
        "--qrels",
        str(judged),
        "--run-queries",
        "7",
        "--run-k",
        "5",
        "--json",
        "--no-progress",
    ]
    assert main(args) == 0
    payload = json.loads(capsys.readouterr().out)
    run_frame, qrels_frame, results = pd.read_csv(run), pd.read_csv(judged), pd.read_csv(out)
    assert list(run_frame.columns) == ["query_id", "rank", "score", "chunk_id", "doc_id"]
    assert list(qrels_frame.columns) == ["query_id", "doc_id", "chunk_id", "relevance"]
    assert run_frame["query_id"].nunique() == 7 == payload["run"]["n_queries"] and len(run_frame) == 35
    assert set(run_frame["query_id"]) == set(qrels_frame["query_id"]) <= set(results["chunk_id"])
    # Where the source chunk made the top 5, its run rank is the rank chunk-eval reported.
    merged = run_frame.merge(qrels_frame, on=["query_id", "chunk_id"]).merge(
        results, left_on="query_id", right_on="chunk_id", suffixes=("_run", "")
    )
    assert (merged["rank_run"] == merged["rank"]).all()
    assert len(merged) == int((results.set_index("chunk_id").loc[qrels_frame["query_id"], "rank"] <= 5).sum())
    assert main(args) == 0 and pd.read_csv(run).equals(run_frame)  # seeded: the same subset again
    capsys.readouterr()
    assert main(["chunk-eval", str(corpus_file), "--qrels", str(judged), "--no-progress"]) == 2
    assert "--qrels needs --run" in capsys.readouterr().err


def test_beir_corpus_queries_and_qrels(tmp_path, capsys):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"_id": f"d{i}", "title": f"Title {w}", "text": " ".join([w] * 15 + ["common"] * 10)}) + "\n"
            for i, w in enumerate(words)
        )
    )
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": f"{w} {w}", "metadata": {}}) + "\n" for i, w in enumerate(words))
    )
    qrels = tmp_path / "test.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(5)))  # q5 not judged
    out = tmp_path / "res.csv"
    argv = ["chunk-eval", str(corpus), "--chunk-words", "10", "--queries", str(queries), "--relevant", str(qrels)]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    rows = pd.read_csv(out)
    assert sorted(rows["query_id"]) == [f"q{i}" for i in range(5)]
    assert rows["y"].eq(1).all()  # each query's word is only in its document: its top chunk is one of them


def test_column_maps_the_corpus_table(tmp_path, capsys):
    path = tmp_path / "docs.csv"
    path.write_text("id,body\n" + "".join(f"n{i},{' '.join(f'w{i}x{j}' for j in range(30))}\n" for i in range(4)))
    argv = ["chunk-eval", str(path), "--chunk-words", "10", "--no-progress"]
    assert main(argv) == 2
    assert "missing column 'doc_id'" in capsys.readouterr().err
    assert main([*argv, "--column", "doc_id=id", "--column", "text=body", "--out", str(tmp_path / "r.csv")]) == 0
    assert set(pd.read_csv(tmp_path / "r.csv")["doc_id"]) == {"n0", "n1", "n2", "n3"}
    assert main([*argv, "--column", "title=head"]) == 2
    assert "--column maps 'title'; a corpus has 'doc_id', 'text', 'doc_type'" in capsys.readouterr().err
