"""``ragunc aggregate``: many files to one per-document file, the same samples and errors as load_results."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ragunc.cli import main
from ragunc.data.aggregate import aggregate, expand_inputs
from ragunc.data.per_document import FORMAT_COLUMN
from ragunc.data.results import DataError, load_results, results_from_frame, write_results
from ragunc.stats.synthetic import synthesize


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Two configs of synthetic chunk rows, shuffled (documents spread over every file)."""
    parts = [synthesize(n_docs=120, rng=seed).assign(config=config) for seed, config in ((1, "100w"), (2, "50w"))]
    return pd.concat(parts, ignore_index=True).sample(frac=1, random_state=0).reset_index(drop=True)


def split(frame: pd.DataFrame, n: int) -> list[pd.DataFrame]:
    return [frame.iloc[i::n] for i in range(n)]


def assert_same(a, b):
    assert a.configs == b.configs and a.n_rows == b.n_rows
    for config in a.configs:
        left, right = a.population(config), b.population(config)
        for field in ("cluster_id", "sum_y", "n", "sum_y2", "sum_y_next", "first_y", "last_y", "label"):
            np.testing.assert_array_equal(getattr(left, field), getattr(right, field), err_msg=field)
        assert left.binary == right.binary


@pytest.mark.parametrize(
    ("suffix", "out"),
    [(".parquet", "docs.parquet"), (".csv.gz", "docs.csv"), (".jsonl", "docs.jsonl.gz"), (".tsv", "docs.tsv")],
)
def test_files_aggregate_to_what_loading_all_rows_gives(tmp_path, rows, suffix, out):
    for i, part in enumerate(split(rows, 4)):
        write_results(part, tmp_path / f"part-{i}{suffix}")
    summary = aggregate([str(tmp_path / f"part-*{suffix}")], tmp_path / out)
    assert (summary.files, summary.rows) == (4, len(rows))
    assert summary.documents == {"100w": 120, "50w": 120}
    assert_same(load_results(tmp_path / out), results_from_frame(rows))


def test_a_partitioned_folder_gives_its_key_as_a_column(tmp_path, rows):
    for config, block in rows.groupby("config"):
        folder = tmp_path / "data" / f"config={config}"
        folder.mkdir(parents=True)
        for i, part in enumerate(split(block.drop(columns="config"), 3)):
            part.to_parquet(folder / f"part-{i:05d}.parquet")
    (tmp_path / "data" / "_SUCCESS").write_text("")  # what Spark leaves beside its files
    summary = aggregate([tmp_path / "data"], tmp_path / "docs.parquet")
    assert summary.files == 6
    assert_same(load_results(tmp_path / "docs.parquet"), results_from_frame(rows))
    written = pd.read_parquet(tmp_path / "docs.parquet")
    assert written[FORMAT_COLUMN].eq(1).all()
    assert list(written[["config", "doc_id"]].itertuples(index=False)) == sorted(
        written[["config", "doc_id"]].itertuples(index=False)
    )  # in document order


def test_the_cli_writes_the_file_every_command_reads(tmp_path, rows, capsys):
    for i, part in enumerate(split(rows, 2)):
        write_results(part, tmp_path / f"rows-{i}.parquet")
    write_results(rows, tmp_path / "all.csv")
    assert (
        main(
            [
                "aggregate",
                str(tmp_path / "rows-0.parquet"),
                str(tmp_path / "rows-1.parquet"),
                "--out",
                str(tmp_path / "docs.parquet"),
                "--json",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    summary = json.loads(captured.out)  # the progress bar went to stderr
    assert summary == {
        "out": str(tmp_path / "docs.parquet"),
        "file_type": "parquet",
        "format_version": 1,
        "files": 2,
        "rows": len(rows),
        "documents": 240,
        "configs": {"100w": 120, "50w": 120},
    }
    outputs = []
    for path in (tmp_path / "all.csv", tmp_path / "docs.parquet"):
        assert main(["interval", str(path), "--config", "50w", "--boot", "200", "--json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert main(["aggregate", str(tmp_path / "rows-*.parquet"), "--out", str(tmp_path / "docs.csv")]) == 0
    assert "240 documents from" in capsys.readouterr().out


def test_progress_reaches_its_total(tmp_path, rows):
    write_results(rows, tmp_path / "rows.parquet")
    calls = []
    aggregate(
        [tmp_path / "rows.parquet"], tmp_path / "docs.parquet", progress=lambda done, total: calls.append((done, total))
    )
    # Passes: sums, repeated chunk_id, neighbours, and repeated chunk_index in documents spanning over 64 indices.
    long_documents = (rows.groupby(["config", "doc_id"])["chunk_index"].agg(np.ptp) >= 64).any()
    passes = 4 if long_documents else 3
    assert calls and calls[-1] == (100 * passes, 100 * passes)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_column_mapping_applies_to_every_file(tmp_path, rows):
    for i, part in enumerate(split(rows.rename(columns={"y": "hit1"}), 2)):
        write_results(part, tmp_path / f"r{i}.csv")
    aggregate([tmp_path / "r0.csv", tmp_path / "r1.csv"], tmp_path / "docs.parquet", columns={"y": "hit1"})
    assert_same(load_results(tmp_path / "docs.parquet"), results_from_frame(rows))


# ---------------------------------------------------------------- bad input


def test_a_bad_row_is_named_by_its_file_and_row_and_nothing_is_written(tmp_path, rows):
    parts = split(rows, 3)
    for i, part in enumerate(parts):
        write_results(part.reset_index(drop=True), tmp_path / f"p{i}.parquet")
    bad = parts[1].reset_index(drop=True).astype({"y": float})
    bad.loc[[2, 40], "y"] = 1.5
    bad.loc[7, "chunk_id"] = parts[0].iloc[0]["chunk_id"]  # repeats a chunk of the first file...
    bad.loc[7, ["doc_id", "config", "chunk_index"]] = parts[0].iloc[0][["doc_id", "config", "chunk_index"]]
    write_results(bad, tmp_path / "p1.parquet")
    with pytest.raises(DataError) as err:
        aggregate([tmp_path / "p*.parquet"], tmp_path / "docs.parquet")
    text = str(err.value)
    assert (
        f"column 'y': 2 row(s) outside [0, 1]: rows 3 ({tmp_path / 'p1.parquet'}), 41 ({tmp_path / 'p1.parquet'})"
        in text
    )
    assert f"(config, doc_id, chunk_id) of an earlier row: row 8 ({tmp_path / 'p1.parquet'})" in text
    assert f"repeat a chunk_index of an earlier row of the same document: row 8 ({tmp_path / 'p1.parquet'})" in text
    assert text.endswith("(row numbers count each file's data rows from 1)")
    assert not list(tmp_path.glob("*docs*"))


def test_one_file_fails_as_load_results_does(tmp_path):
    frame = pd.DataFrame({"doc_id": ["a", "a", "b"], "chunk_index": [0, 0, 1], "y": [1, 2, 0]})
    write_results(frame, tmp_path / "bad.csv")
    with pytest.raises(DataError) as loaded:
        load_results(tmp_path / "bad.csv")
    with pytest.raises(DataError) as aggregated:
        aggregate([tmp_path / "bad.csv"], tmp_path / "docs.parquet")
    assert str(aggregated.value) == str(loaded.value)
    # A config with one document is written, as load_results keeps it; choosing it is refused.
    two = pd.DataFrame(
        {
            "doc_id": ["a", "a", "b", "c"],
            "config": ["x", "x", "x", "solo"],
            "chunk_index": [0, 1, 0, 0],
            "y": [1, 0, 1, 0],
        }
    )
    write_results(two, tmp_path / "one.csv")
    aggregate([tmp_path / "one.csv"], tmp_path / "docs.parquet")
    assert load_results(tmp_path / "docs.parquet").population("x").n_docs == 2
    with pytest.raises(
        DataError,
        match=r"docs\.parquet: column 'doc_id' has a single document \('c'\) "
        r"for config 'solo'",
    ):
        load_results(tmp_path / "docs.parquet").population("solo")
    write_results(frame.iloc[:0], tmp_path / "header.csv")
    with pytest.raises(DataError, match=r"header\.csv has no data rows"):
        aggregate([tmp_path / "header.csv"], tmp_path / "docs.parquet")


def test_inputs_that_name_nothing(tmp_path, rows):
    with pytest.raises(DataError, match=r"'.*nothing-\*\.parquet' is a pattern that matches no file"):
        expand_inputs([str(tmp_path / "nothing-*.parquet")])
    with pytest.raises(FileNotFoundError, match=r"no such file: .*absent\.parquet"):
        expand_inputs([tmp_path / "absent.parquet"])
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("x")
    with pytest.raises(DataError, match=r"is a folder with no \.csv, .* file \(optionally \.gz\) below it"):
        expand_inputs([tmp_path / "empty"])
    with pytest.raises(DataError, match=r"no input files given"):
        expand_inputs([])
    write_results(rows.iloc[:50], tmp_path / "a.parquet")
    write_results(rows.iloc[50:], tmp_path / "b.csv")
    assert expand_inputs([tmp_path / "a.parquet", str(tmp_path / "*.parquet")]) == [tmp_path / "a.parquet"]
    with pytest.raises(DataError, match=r"the inputs mix file types \(csv: 'b\.csv'; parquet: 'a\.parquet'\)"):
        aggregate([tmp_path / "a.parquet", tmp_path / "b.csv"], tmp_path / "docs.parquet")
    (tmp_path / "c.parquet").write_bytes(b"")
    with pytest.raises(DataError, match=r"c\.parquet is an empty file"):
        aggregate([tmp_path / "a.parquet", tmp_path / "c.parquet"], tmp_path / "docs.parquet")
    with pytest.raises(DataError, match=r"unknown file type for '.*docs\.xlsx'"):
        aggregate([tmp_path / "a.parquet"], tmp_path / "docs.xlsx")


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["aggregate", str(tmp_path / "none-*.csv"), "--out", str(tmp_path / "d.parquet")]) == 2
    assert "ragunc aggregate: error: " in capsys.readouterr().err


# ---------------------------------------------------------------- the shared aggregation's neighbour pass


def neighbour_reference(frame: pd.DataFrame) -> pd.Series:
    """Σ y_i·y_(i+1) per document over chunks in chunk_index order, the slow, obvious way."""
    ordered = frame.sort_values(["doc_id", "chunk_index"])
    following = ordered.groupby("doc_id")["y"].shift(-1)
    return (ordered["y"] * following).groupby(ordered["doc_id"]).sum()


@pytest.mark.parametrize("gaps", [False, True])
@pytest.mark.parametrize("collide", [False, True])
def test_neighbour_products_follow_chunk_index_with_and_without_gaps(monkeypatch, gaps, collide):
    import ragunc.data.duckdb_sql as results

    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 9, 60)
    index = [np.sort(rng.choice(20, m, replace=False)) if gaps else np.arange(m) for m in sizes]
    frame = pd.DataFrame(
        {
            "doc_id": np.repeat([f"d{i}" for i in range(sizes.size)], sizes),
            "chunk_index": np.concatenate(index),
            "y": rng.choice([0.0, 0.25, 0.5, 1.0], sizes.sum()),
        }
    ).sample(frac=1, random_state=1)
    if collide:  # as if two documents shared a 64-bit hash: the strings are used instead
        monkeypatch.setattr(results, "_keys_collide", lambda con: True)
    got = results_from_frame(frame).population()
    want = neighbour_reference(frame).reindex(got.cluster_id)
    np.testing.assert_array_equal(got.sum_y_next, want.to_numpy())
    assert gaps == any(np.any(np.diff(i) > 1) for i in index)


@pytest.mark.parametrize("span", [10, 63, 64, 65, 5000])
@pytest.mark.parametrize("repeat", [False, True])
def test_a_repeated_chunk_index_is_found_in_short_and_long_documents(span, repeat):
    """Documents whose indices span up to 64 are checked from bits, longer ones from sorted hashes."""
    index = np.r_[0, np.sort(np.random.default_rng(span).choice(np.arange(1, span - 1), 4, replace=False)), span - 1]
    if repeat:
        index[3] = index[2]
    frame = pd.DataFrame({"doc_id": ["a"] * 6 + ["b"] * 2, "chunk_index": np.r_[index, 0, 1], "y": 1})
    if repeat:
        with pytest.raises(
            DataError,
            match=r"column 'chunk_index': 1 row\(s\) repeat a chunk_index of an earlier "
            r"row of the same document: row 4",
        ):
            results_from_frame(frame)
    else:
        assert results_from_frame(frame).population().sum_y_next.tolist() == [5.0, 1.0]


def test_a_repeated_hash_that_is_only_a_collision_lets_the_load_go_on(monkeypatch, rows):
    import ragunc.data.duckdb_sql as results

    # As if two different chunk_ids had hashed alike: the exact error pass finds nothing.
    monkeypatch.setattr(results, "_repeated_hashes_sql", lambda rows, column, only=None: "SELECT 1, 0")
    clean = rows.iloc[:3000]
    got = results_from_frame(clean)
    monkeypatch.undo()
    want = results_from_frame(clean)
    assert_same(got, want)


def test_an_output_that_cannot_be_written_is_an_os_error(tmp_path, rows):
    write_results(rows.iloc[:2000], tmp_path / "rows.parquet")
    with pytest.raises(OSError, match=r"cannot write .*missing-folder.*docs\.parquet"):
        aggregate([tmp_path / "rows.parquet"], tmp_path / "missing-folder" / "docs.parquet")
