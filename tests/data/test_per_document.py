"""Per-document statistics as an input: the same samples and results as the chunk rows, every DataError."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import ragunc as ru
from ragunc.cli import main
from ragunc.data.per_document import FORMAT_COLUMN, per_document_frame, validated
from ragunc.data.results import DataError, load_results, results_from_frame, write_results


def chunk_rows(seed=0, n_docs=50, configs=("100w", "50w"), scores=False) -> pd.DataFrame:
    """Shuffled chunk rows of clustered results; scores are multiples of 1/8, so every sum is exact."""
    rng = np.random.default_rng(seed)
    parts = []
    for config in configs:
        sizes = rng.integers(1, 15, n_docs)
        rate = np.repeat(rng.beta(0.5, 1.5, n_docs), sizes)
        y = np.round(rng.random(sizes.sum()) * 8) / 8 if scores else (rng.random(sizes.sum()) < rate).astype(int)
        doc = np.repeat([f"{d:03d}" for d in range(n_docs)], sizes)
        parts.append(
            pd.DataFrame(
                {
                    "doc_id": doc,
                    "chunk_id": [f"{d}#{i}" for d, m in zip(range(n_docs), sizes) for i in range(m)],
                    "chunk_index": np.concatenate([rng.permutation(m) for m in sizes]),
                    "config": config,
                    "doc_type": np.repeat(rng.choice(["law", "memo"], n_docs), sizes),
                    "y": y,
                }
            )
        )
    return pd.concat(parts, ignore_index=True).sample(frac=1, random_state=seed).reset_index(drop=True)


def assert_same_samples(a, b):
    assert a.configs == b.configs and a.n_rows == b.n_rows
    for config in a.configs:
        left, right = dataclasses.asdict(a.population(config)), dataclasses.asdict(b.population(config))
        assert left.keys() == right.keys()
        for key, value in left.items():
            if isinstance(value, np.ndarray):
                assert value.dtype.kind == right[key].dtype.kind, key
                np.testing.assert_array_equal(value, right[key], err_msg=key)  # exactly, not approximately
            else:
                assert value == right[key], key


@pytest.mark.parametrize("name", ["stats.parquet", "stats.csv", "stats.csv.gz", "stats.jsonl", "stats.tsv"])
@pytest.mark.parametrize("scores", [False, True])
def test_a_per_document_file_loads_to_the_samples_of_its_chunk_rows(tmp_path, name, scores):
    rows = chunk_rows(seed=1, scores=scores)
    from_rows = results_from_frame(rows)
    write_results(per_document_frame(from_rows.populations), tmp_path / name)
    from_file = load_results(tmp_path / name)
    assert_same_samples(from_file, from_rows)
    assert from_file.population("100w").binary is (not scores)


@pytest.mark.parametrize("drop", [[], ["doc_type"], ["chunk_index"], ["config"], ["chunk_index", "doc_type", "config"]])
def test_optional_columns_stay_optional(tmp_path, drop):
    rows = chunk_rows(seed=2, configs=("100w",)).drop(columns=drop)
    from_rows = results_from_frame(rows)
    frame = per_document_frame(from_rows.populations)
    if "config" in drop:  # a file without the column reads as the "default" config
        frame = frame.drop(columns="config")
    frame.to_parquet(tmp_path / "stats.parquet")
    assert_same_samples(load_results(tmp_path / "stats.parquet"), from_rows)
    assert set(frame.columns).isdisjoint({"sum_y_next", "first_y", "last_y"}) == ("chunk_index" in drop)


def test_a_column_n_reads_as_chunks():
    from_rows = results_from_frame(chunk_rows(seed=4))
    frame = per_document_frame(from_rows.populations).rename(columns={"chunks": "n"})
    assert_same_samples(results_from_frame(frame), from_rows)


def test_rows_in_any_order_and_an_in_memory_frame_give_the_same_samples():
    from_rows = results_from_frame(chunk_rows(seed=3))
    frame = per_document_frame(from_rows.populations).sample(frac=1, random_state=0)
    assert_same_samples(results_from_frame(frame), from_rows)


def test_every_command_gives_the_same_json_from_either_file(tmp_path, capsys):
    rows = chunk_rows(seed=4, configs=("100w", "50w", "25w"))
    write_results(rows, tmp_path / "chunks.csv")
    write_results(per_document_frame(results_from_frame(rows).populations), tmp_path / "stats.parquet")
    # one file per chunk size, as plan and compare read several
    for config, block in rows.groupby("config"):
        write_results(block, tmp_path / f"chunks-{config}.csv")
        write_results(per_document_frame(results_from_frame(block).populations), tmp_path / f"stats-{config}.parquet")
    commands = [
        ["interval", "--config", "100w", "--boot", "300", "--population-docs", "400", "--seed", "7"],
        ["interval", "--config", "50w", "--estimator", "macro", "--boot", "200"],
        ["simulate", "--config", "100w", "--k", "10", "--reps", "200", "--boot", "50", "--seed", "7"],
        ["plan", "--config", "50w", "--half-width", "0.05"],
        ["plan", "--difference", "0.05", "--a", "50w", "--b", "100w"],
        ["compare", "--a", "50w", "--b", "100w", "--boot", "200", "--seed", "7"],
        ["compare", "--baseline", "50w", "--boot", "200", "--seed", "7"],
    ]
    for command, *options in commands:
        outputs = []
        for paths in ([tmp_path / "chunks.csv"], [tmp_path / "stats.parquet"]):
            assert main([command, *map(str, paths), *options, "--json"]) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        assert outputs[0] == outputs[1], command
    for command, *options in commands[4:]:  # the several-file form too
        outputs = []
        for stem in ("chunks-{}.csv", "stats-{}.parquet"):
            paths = [tmp_path / stem.format(c) for c in ("100w", "50w", "25w")]
            assert main([command, *map(str, paths), *options, "--json"]) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        assert outputs[0] == outputs[1], command


def test_the_library_gives_the_same_report_from_either_file(tmp_path):
    rows = chunk_rows(seed=5, scores=True)
    write_results(rows, tmp_path / "chunks.parquet")
    ru.load_results(tmp_path / "chunks.parquet")
    write_results(per_document_frame(ru.load_results(tmp_path / "chunks.parquet").populations), tmp_path / "stats.csv")
    a = ru.interval_report(ru.load_results(tmp_path / "chunks.parquet").population("50w"), boot=500, rng=1)
    b = ru.interval_report(ru.load_results(tmp_path / "stats.csv").population("50w"), boot=500, rng=1)
    assert a.to_dict() == b.to_dict()
    assert ru.diagnostics(ru.load_results(tmp_path / "stats.csv").population("100w")).lag1_autocorr == (
        ru.diagnostics(ru.load_results(tmp_path / "chunks.parquet").population("100w")).lag1_autocorr
    )


def test_the_format_is_what_the_module_documents():
    frame = per_document_frame(results_from_frame(chunk_rows(seed=6, configs=("100w",))).populations)
    assert list(frame.columns) == [
        FORMAT_COLUMN,
        "config",
        "doc_id",
        "chunks",
        "sum_y",
        "sum_y2",
        "sum_y_next",
        "first_y",
        "last_y",
        "doc_type",
    ]
    assert (frame[FORMAT_COLUMN] == 1).all()
    # doc "000" by hand, from its chunk rows in chunk_index order
    rows = chunk_rows(seed=6, configs=("100w",))
    doc = rows[rows.doc_id == "000"].sort_values("chunk_index")["y"].to_numpy(dtype=float)
    got = frame[frame.doc_id == "000"].iloc[0]
    assert (got.chunks, got.sum_y, got.sum_y2) == (doc.size, doc.sum(), (doc**2).sum())
    assert (got.sum_y_next, got.first_y, got.last_y) == ((doc[:-1] * doc[1:]).sum(), doc[0], doc[-1])


# ---------------------------------------------------------------- bad input

GOOD = pd.DataFrame(
    {
        FORMAT_COLUMN: [1, 1, 1, 1],
        "config": ["100w", "100w", "100w", "100w"],
        "doc_id": ["a", "b", "c", "d"],
        "chunks": [3, 2, 1, 4],
        "sum_y": [2.0, 0.0, 1.0, 2.5],
        "sum_y2": [2.0, 0.0, 1.0, 2.0],
        "sum_y_next": [1.0, 0.0, 0.0, 1.0],
        "first_y": [1.0, 0.0, 1.0, 0.5],
        "last_y": [1.0, 0.0, 1.0, 1.0],
        "doc_type": ["x", "x", "y", "y"],
    }
)


def with_cell(column, row, value):
    frame = GOOD.astype(object)
    frame.loc[row - 1, column] = value
    return frame


@pytest.mark.parametrize(
    ("column", "row", "value", "message"),
    [
        ("chunks", 2, -1, r"column 'chunks': 1 row\(s\) that are not whole numbers of at least 1: row 2"),
        ("chunks", 3, 0, r"column 'chunks': 1 row\(s\) that are not whole numbers of at least 1: row 3"),
        ("chunks", 1, 2.5, r"column 'chunks': 1 row\(s\) that are not whole numbers of at least 1: row 1"),
        ("chunks", 1, "three", r"column 'chunks': 1 row\(s\) that are not whole numbers of at least 1: row 1"),
        ("sum_y", 2, 3.0, r"column 'sum_y': 1 row\(s\) above chunks \(more hits than chunks\): row 2"),
        ("sum_y", 4, -0.5, r"column 'sum_y': 1 row\(s\) below 0: row 4"),
        ("sum_y", 4, None, r"column 'sum_y': 1 row\(s\) that are not numbers: row 4"),
        (
            "sum_y2",
            1,
            2.5,
            r"column 'sum_y2': 1 row\(s\) inconsistent with sum_y: for y in \[0, 1\], "
            r"sum_y² / chunks <= sum_y2 <= sum_y: row 1",
        ),
        ("sum_y2", 4, 1.5, r"column 'sum_y2': 1 row\(s\) inconsistent with sum_y"),  # below 2.5² / 4
        ("sum_y_next", 1, 2.5, r"column 'sum_y_next': 1 row\(s\) outside \[0, sum_y2\]: row 1"),
        ("first_y", 3, 1.5, r"column 'first_y': 1 row\(s\) outside \[0, 1\]: row 3"),
        ("last_y", 2, "nan", r"column 'last_y': 1 row\(s\) that are not numbers: row 2"),
        ("doc_id", 3, " ", r"column 'doc_id': 1 row\(s\) with an empty value: row 3"),
        ("doc_id", 3, "a", r"column 'doc_id': 1 row\(s\) repeat a \(config, doc_id\) of an earlier row: row 3"),
        ("config", 2, "", r"column 'config': 1 row\(s\) with an empty value: row 2"),
        ("doc_type", 4, None, r"column 'doc_type': 1 row\(s\) with an empty value: row 4"),
        (
            FORMAT_COLUMN,
            2,
            2,
            r"column 'ragunc_per_document': 1 row\(s\) with a format version other than 1 "
            r"\(this ragunc reads version 1\): row 2",
        ),
    ],
)
def test_each_violation_names_column_and_row(tmp_path, column, row, value, message):
    bad = with_cell(column, row, value)
    bad.to_csv(tmp_path / "stats.csv", index=False)
    with pytest.raises(DataError, match=r"stats\.csv: .*" + message):
        load_results(tmp_path / "stats.csv")
    if not isinstance(value, str) or column in ("doc_id", "config"):  # a frame holds typed columns
        with pytest.raises(DataError, match=message):
            results_from_frame(bad)


def test_the_good_table_loads_and_violations_are_reported_together(tmp_path):
    assert results_from_frame(GOOD).population().n_docs == 4
    bad = GOOD.assign(chunks=[-1, -2, 1, 0], sum_y=[2.0, 0.0, 5.0, 2.5])
    with pytest.raises(DataError) as err:
        results_from_frame(bad, source="stats.parquet")
    text = str(err.value)
    assert "column 'chunks': 3 row(s) that are not whole numbers of at least 1: rows 1, 2, 4" in text
    assert "column 'sum_y': 1 row(s) above chunks (more hits than chunks): row 3" in text
    assert text.endswith("(row numbers count data rows from 1)")


def test_only_the_first_five_rows_are_named():
    many = pd.concat([GOOD] * 3, ignore_index=True).assign(doc_id=[f"d{i}" for i in range(12)], sum_y=-1.0)
    with pytest.raises(DataError, match=r"12 row\(s\) below 0: rows 1, 2, 3, 4, 5 and 7 more"):
        results_from_frame(many)


def test_missing_columns_are_named(tmp_path):
    with pytest.raises(
        DataError,
        match=r"<frame>: per-document statistics \(column 'ragunc_per_document'\) miss "
        r"column\(s\) 'sum_y2'; the file has columns 'ragunc_per_document', ",
    ):
        results_from_frame(GOOD.drop(columns="sum_y2"))
    with pytest.raises(
        DataError, match=r"miss column\(s\) 'last_y' \('sum_y_next', 'first_y', 'last_y' come together\)"
    ):
        results_from_frame(GOOD.drop(columns="last_y"))
    with pytest.raises(DataError, match=r"miss column\(s\) 'doc_id', 'chunks'"):
        results_from_frame(GOOD.drop(columns=["doc_id", "chunks"]))


def test_other_dead_ends(tmp_path):
    with pytest.raises(DataError, match=r"<frame> has no data rows"):
        results_from_frame(GOOD.iloc[:0])
    one_in_z = results_from_frame(with_cell("config", 3, "z"))  # loads: only choosing config 'z' is refused
    assert one_in_z.population("100w").n_docs == 3
    with pytest.raises(DataError, match=r"column 'doc_id' has a single document \('c'\) for config 'z'"):
        one_in_z.population("z")
    with pytest.raises(DataError, match=r"holds per-document statistics .*does not apply"):
        results_from_frame(GOOD, columns={"y": "sum_y"})
    GOOD.to_csv(tmp_path / "stats.csv", index=False)
    assert main(["interval", str(tmp_path / "stats.csv"), "--column", "y=sum_y"]) == 2


def test_validated_sorts_and_types():
    got = validated({c: GOOD[c].to_numpy()[::-1] for c in GOOD}, "x")
    assert got["doc_id"].tolist() == ["a", "b", "c", "d"] and got["chunks"].dtype == np.int64
    masked = np.ma.masked_array(GOOD["sum_y"].to_numpy(), mask=[False, True, False, False])
    with pytest.raises(DataError, match=r"column 'sum_y': 1 row\(s\) that are not numbers: row 2"):
        validated({c: GOOD[c].to_numpy() for c in GOOD} | {"sum_y": masked}, "x")
