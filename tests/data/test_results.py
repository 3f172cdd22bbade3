"""ragunc.io: nothing lost (against an independent pandas groupby), every DataError message."""

from __future__ import annotations

import gzip
import io as stdio

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragunc.data.results import (
    CONTRACT_COLUMNS,
    OPTIONAL,
    REQUIRED,
    DataError,
    check_columns,
    infer_file_type,
    load_results,
    results_from_frame,
    write_results,
)


def chunk_rows(seed=0, n_docs=40, configs=("100w",), scores=False) -> pd.DataFrame:
    """Chunk rows in shuffled order: uneven sizes, doc ids that look numeric, gaps-free positions."""
    rng = np.random.default_rng(seed)
    parts = []
    for config in configs:
        sizes = rng.integers(1, 12, n_docs)
        doc = np.repeat([f"{d:03d}" for d in range(n_docs)], sizes)
        index = np.concatenate([np.arange(m) for m in sizes])
        y = rng.random(doc.size) if scores else (rng.random(doc.size) < 0.3).astype(int)
        types = np.array(["law", "memo", "report"])[np.repeat(rng.integers(0, 3, n_docs), sizes)]
        parts.append(
            pd.DataFrame(
                {
                    "doc_id": doc,
                    "chunk_id": [f"{d}-{i}" for d, i in zip(doc, index)],
                    "chunk_index": index,
                    "config": config,
                    "doc_type": types,
                    "y": y,
                }
            )
        )
    frame = pd.concat(parts, ignore_index=True)
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def expected_stats(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-(config, doc) sufficient statistics the slow, obvious way."""
    frame = frame.copy()
    if "config" not in frame:
        frame["config"] = "default"
    y = frame["y"].astype(float)
    frame = frame.assign(y=y, y2=y**2)
    out = frame.groupby(["config", "doc_id"]).agg(sum_y=("y", "sum"), n=("y", "size"), sum_y2=("y2", "sum"))
    if "chunk_index" in frame:
        ordered = frame.sort_values(["config", "doc_id", "chunk_index"])
        nxt = ordered.groupby(["config", "doc_id"])["y"].shift(-1)
        ordered = ordered.assign(cross=ordered["y"] * nxt.fillna(0))
        grouped = ordered.groupby(["config", "doc_id"])
        out["sum_y_next"] = grouped["cross"].sum()
        out["first_y"] = grouped["y"].first()
        out["last_y"] = grouped["y"].last()
    if "doc_type" in frame:
        out["doc_type"] = frame.groupby(["config", "doc_id"])["doc_type"].first()
    return out.reset_index()


def assert_same(results, frame):
    expected = expected_stats(frame)
    assert results.n_rows == len(frame)
    assert sorted(results.configs) == sorted(expected["config"].unique())
    for config, want in expected.groupby("config"):
        got = results.population(config)
        assert got.config == config
        order = np.argsort(got.cluster_id)
        want = want.sort_values("doc_id")
        np.testing.assert_array_equal(got.cluster_id[order], want["doc_id"].to_numpy())
        np.testing.assert_array_equal(got.n[order], want["n"].to_numpy())
        np.testing.assert_allclose(got.sum_y[order], want["sum_y"].to_numpy())
        np.testing.assert_allclose(got.sum_y2[order], want["sum_y2"].to_numpy())
        for name in ("sum_y_next", "first_y", "last_y"):
            if name in want:
                np.testing.assert_allclose(getattr(got, name)[order], want[name].to_numpy())
            else:
                assert getattr(got, name) is None
        if "doc_type" in want:
            np.testing.assert_array_equal(got.label[order], want["doc_type"].to_numpy())
        else:
            assert got.label is None
        in_config = frame["config"] == config if "config" in frame else slice(None)
        assert got.binary == bool(frame.loc[in_config, "y"].astype(float).isin([0.0, 1.0]).all())


# ---------------------------------------------------------------- nothing lost

FORMATS = ["data.csv", "data.csv.gz", "data.tsv", "data.parquet", "data.jsonl", "data.jsonl.gz", "data.ndjson"]


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_keeps_every_row(tmp_path, name):
    frame = chunk_rows(seed=1, configs=("100w", "50w"))
    path = tmp_path / name
    write_results(frame, path)
    if name.endswith(".tsv"):
        assert path.read_text().startswith("doc_id\tchunk_id\t")
    assert_same(load_results(path), frame)


@pytest.mark.parametrize(
    "keep",
    [
        ["doc_id", "y"],
        ["doc_id", "y", "chunk_index"],
        ["doc_id", "y", "doc_type"],
        ["doc_id", "y", "chunk_id", "config"],
    ],
)
@pytest.mark.parametrize("name", ["data.csv", "data.parquet", "data.jsonl"])
def test_optional_columns_are_optional(tmp_path, keep, name):
    frame = chunk_rows(seed=2)[keep]
    write_results(frame, tmp_path / name)
    results = load_results(tmp_path / name)
    assert_same(results, frame)
    if "config" not in keep:
        assert results.configs == ["default"]


def test_column_mapping_renames_file_columns(tmp_path):
    frame = chunk_rows(seed=3)
    renamed = frame.rename(columns={"y": "hit@1", "doc_id": "document", "chunk_index": "pos"})
    write_results(renamed, tmp_path / "r.parquet")
    mapping = {"y": "hit@1", "doc_id": "document", "chunk_index": "pos"}
    assert_same(load_results(tmp_path / "r.parquet", columns=mapping), frame)
    assert_same(results_from_frame(renamed, columns=mapping), frame)


def test_frame_scores_and_booleans():
    scores = chunk_rows(seed=4, scores=True)
    got = results_from_frame(scores).population()
    assert not got.binary
    assert_same(results_from_frame(scores), scores)
    hits = chunk_rows(seed=5)
    as_bool = hits.assign(y=hits["y"].astype(bool))
    assert_same(results_from_frame(as_bool), hits)
    as_text = hits.assign(y=hits["y"].map({1: "True", 0: "false"}))
    assert_same(results_from_frame(as_text), hits)


def test_doc_ids_keep_their_text_across_formats(tmp_path):
    frame = pd.DataFrame({"doc_id": ["007", "007", "7", "7.0"], "y": [1, 0, 1, 0]})
    frame.to_csv(tmp_path / "ids.csv", index=False)
    assert sorted(load_results(tmp_path / "ids.csv").population().cluster_id) == ["007", "7", "7.0"]


def test_file_like_upload_is_spooled(tmp_path):
    frame = chunk_rows(seed=6)
    write_results(frame, tmp_path / "up.csv.gz")
    upload = stdio.BytesIO((tmp_path / "up.csv.gz").read_bytes())
    upload.name = "results.csv.gz"  # what a Streamlit UploadedFile carries
    assert_same(load_results(upload), frame)
    nameless = stdio.BytesIO((tmp_path / "up.csv.gz").read_bytes())
    assert_same(load_results(nameless, file_type="csv"), frame)  # gzip found from the bytes


def test_json_array_of_records(tmp_path):
    frame = chunk_rows(seed=10)
    frame.to_json(tmp_path / "records.json", orient="records")  # one array, not JSON lines
    assert_same(load_results(tmp_path / "records.json"), frame)


def test_explicit_file_type_overrides_the_name(tmp_path):
    frame = chunk_rows(seed=7)
    frame.to_json(tmp_path / "export.dat", orient="records", lines=True)
    assert_same(load_results(tmp_path / "export.dat", file_type="ndjson"), frame)
    assert infer_file_type("x.PARQUET") == "parquet"
    assert infer_file_type("a.b.jsonl.gz") == "jsonl"


def test_neighbours_follow_chunk_index_not_file_order():
    # doc a in chunk_index order is 1, 1, 0, 1 -> one neighbouring pair of hits, first 1, last 1
    frame = pd.DataFrame({"doc_id": ["a"] * 4 + ["b"] * 2, "chunk_index": [3, 0, 2, 1, 1, 0], "y": [1, 1, 0, 1, 0, 1]})
    got = results_from_frame(frame).population()
    assert got.sum_y_next.tolist() == [1.0, 0.0]
    assert got.first_y.tolist() == [1.0, 1.0]
    assert got.last_y.tolist() == [1.0, 0.0]


def test_results_population_picks_a_config():
    results = results_from_frame(chunk_rows(seed=8, configs=("100w", "50w")))
    assert results.population("50w").config == "50w"
    with pytest.raises(DataError, match=r"several configs \('100w', '50w'\|'50w', '100w'\)|several configs"):
        results.population()
    with pytest.raises(DataError, match=r"config '20w' is not in <frame>; it holds"):
        results.population("20w")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(1, 6), min_size=2, max_size=8),
    data=st.data(),
)
def test_aggregation_is_invariant_to_row_order(sizes, data):
    n = sum(sizes)
    y = data.draw(st.lists(st.sampled_from([0.0, 1.0, 0.25, 0.5]), min_size=n, max_size=n))
    frame = pd.DataFrame(
        {
            "doc_id": np.repeat([f"d{i}" for i in range(len(sizes))], sizes),
            "chunk_index": np.concatenate([np.arange(m) for m in sizes]),
            "y": y,
        }
    )
    perm = data.draw(st.permutations(range(n)))
    shuffled = frame.iloc[list(perm)].reset_index(drop=True)
    a, b = results_from_frame(frame).population(), results_from_frame(shuffled).population()
    for name in ("sum_y", "n", "sum_y2", "sum_y_next", "first_y", "last_y"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name))
    assert_same(results_from_frame(shuffled), frame)


# ---------------------------------------------------------------- bad input

GOOD = pd.DataFrame(
    {
        "doc_id": ["a", "a", "a", "b", "b", "c"],
        "chunk_id": ["a0", "a1", "a2", "b0", "b1", "c0"],
        "chunk_index": [0, 1, 2, 0, 1, 0],
        "doc_type": ["x", "x", "x", "y", "y", "y"],
        "y": [1, 0, 1, 0, 0, 1],
    }
)


def with_cell(column, row, value):
    """GOOD with one cell replaced (row is the 1-based data row)."""
    frame = GOOD.astype(object)
    frame.loc[row - 1, column] = value
    return frame


def csv_of(frame, tmp_path, name="bad.csv"):
    frame.to_csv(tmp_path / name, index=False)
    return tmp_path / name


@pytest.mark.parametrize(
    ("column", "row", "value", "message"),
    [
        ("y", 3, "yes", r"column 'y': 1 row\(s\) that are not numbers: row 3"),
        ("y", 2, None, r"column 'y': 1 row\(s\) with an empty or NaN value: row 2"),
        ("y", 2, "NaN", r"column 'y': 1 row\(s\) with an empty or NaN value: row 2"),
        ("y", 6, 1.5, r"column 'y': 1 row\(s\) outside \[0, 1\]: row 6"),
        ("y", 1, -0.1, r"column 'y': 1 row\(s\) outside \[0, 1\]: row 1"),
        ("doc_id", 4, None, r"column 'doc_id': 1 row\(s\) with an empty value: row 4"),
        ("doc_id", 4, "  ", r"column 'doc_id': 1 row\(s\) with an empty value: row 4"),
        ("chunk_index", 2, 1.5, r"column 'chunk_index': 1 row\(s\) that are not non-negative integers: row 2"),
        ("chunk_index", 5, -1, r"column 'chunk_index': 1 row\(s\) that are not non-negative integers: row 5"),
        ("chunk_index", 5, "first", r"column 'chunk_index': 1 row\(s\) that are not non-negative integers: row 5"),
        ("chunk_index", 3, None, r"column 'chunk_index': 1 row\(s\) that are not non-negative integers: row 3"),
        (
            "chunk_index",
            3,
            1,
            r"column 'chunk_index': 1 row\(s\) repeat a chunk_index of an earlier row of the same "
            r"document: row 3",
        ),
        (
            "chunk_id",
            2,
            "a0",
            r"column 'chunk_id': 1 row\(s\) repeat a \(config, doc_id, chunk_id\) of an earlier "
            r"row: row 2",
        ),
        (
            "doc_type",
            5,
            "z",
            r"column 'doc_type': 1 row\(s\) give their document a different doc_type than its "
            r"first row: row 5",
        ),
        ("doc_type", 1, None, r"column 'doc_type': 1 row\(s\) with an empty value: row 1"),
    ],
)
def test_each_violation_names_column_and_row(tmp_path, column, row, value, message):
    bad = with_cell(column, row, value)
    with pytest.raises(DataError, match=message):
        load_results(csv_of(bad, tmp_path))
    if not (column in ("y", "chunk_index") and isinstance(value, str)):  # a frame holds typed columns
        with pytest.raises(DataError, match=message):
            results_from_frame(bad)


def test_empty_config_and_chunk_id(tmp_path):
    bad = GOOD.assign(config=["a", "a", "", "b", "b", "b"]).astype(object)
    bad.loc[4, "chunk_id"] = None
    with pytest.raises(
        DataError,
        match=r"column 'config': 1 row\(s\) with an empty value: row 3; "
        r"column 'chunk_id': 1 row\(s\) with an empty value: row 5 "
        r"\(row numbers count data rows from 1\)",
    ):
        results_from_frame(bad)


def test_violations_are_all_reported_with_the_first_five_rows(tmp_path):
    # Big enough that DuckDB reads it in parallel chunks: row numbers must still be file rows.
    n = 60_000
    frame = pd.DataFrame({"doc_id": (np.arange(n) % 500).astype(str), "chunk_id": np.arange(n), "y": np.zeros(n)})
    bad_rows = [7, 20_000, 30_001, 41_000, 50_000, 59_999, 60_000]
    frame.loc[[r - 1 for r in bad_rows], "y"] = 2.0
    frame.loc[99, "doc_id"] = ""
    frame.loc[600, "chunk_id"] = frame.loc[100, "chunk_id"]  # both in doc "100"
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(DataError) as err:
        load_results(path)
    text = str(err.value)
    assert "column 'y': 7 row(s) outside [0, 1]: rows 7, 20000, 30001, 41000, 50000 and 2 more" in text
    assert "column 'doc_id': 1 row(s) with an empty value: row 100" in text
    assert "column 'chunk_id': 1 row(s) repeat a (config, doc_id, chunk_id) of an earlier row: row 601" in text
    frame.to_parquet(tmp_path / "big.parquet")
    with pytest.raises(DataError, match=r"rows 7, 20000, 30001, 41000, 50000 and 2 more"):
        load_results(tmp_path / "big.parquet")


def test_duplicates_are_per_config_and_document():
    frame = pd.DataFrame(
        {
            "config": ["a", "b", "a", "b"],
            "doc_id": ["d", "d", "e", "e"],
            "chunk_id": ["1", "1", "1", "1"],
            "y": [1, 0, 1, 0],
        }
    )
    assert results_from_frame(frame).configs == ["a", "b"]  # the same chunk_id in other docs/configs is fine


def test_mapped_column_is_named_in_the_message(tmp_path):
    bad = with_cell("y", 4, 3).rename(columns={"y": "hit1"})
    with pytest.raises(DataError, match=r"column 'y' \(file column 'hit1'\): 1 row\(s\) outside \[0, 1\]: row 4"):
        results_from_frame(bad, columns={"y": "hit1"})


def test_missing_required_column_lists_columns_and_suggests_a_mapping(tmp_path):
    path = csv_of(GOOD.rename(columns={"y": "hit1"}), tmp_path)
    with pytest.raises(
        DataError,
        match=r"missing column\(s\) 'y'; the file has columns 'doc_id', 'chunk_id', 'chunk_index', 'doc_type', "
        r"'hit1'\. Map yours with columns=, e.g. columns=\{'y': 'hit1'\}",
    ):
        load_results(path)
    with pytest.raises(DataError, match=r"\{'y': 'hit1'\} \(command line: --column y=hit1\)$"):
        load_results(path)
    (tmp_path / "spaced.csv").write_text("my doc,hit\na,1\nb,0\n")
    with pytest.raises(DataError, match=r"\(command line: --column 'doc_id=my doc' --column y=hit\)$"):
        load_results(tmp_path / "spaced.csv")
    with pytest.raises(DataError, match=r"missing column\(s\) 'doc_id' \(mapped to 'document'\)"):
        load_results(path, columns={"doc_id": "document", "y": "hit1"})
    with pytest.raises(DataError, match=r"columns= maps unknown contract name\(s\) 'hit'"):
        load_results(path, columns={"hit": "hit1"})


def test_the_contract_check_the_dashboard_asks_is_the_loaders(tmp_path):
    header = ["doc", "hit1", "chunk_id"]
    check = check_columns(header)
    assert check.missing == ("doc_id", "y") and check.resolved == {"chunk_id": "chunk_id"}
    assert check.message == "missing column(s) 'doc_id', 'y'; the file has columns 'doc', 'hit1', 'chunk_id'"
    check = check_columns(header, {"doc_id": "doc", "y": "hit1", "chunk_index": "pos"})
    assert check.missing == ("chunk_index",) and check.resolved == {
        "doc_id": "doc",
        "y": "hit1",
        "chunk_id": "chunk_id",
    }
    assert check.message.startswith("missing column(s) 'chunk_index' (mapped to 'pos');")
    complete = check_columns(header, {"doc_id": "doc", "y": "hit1"})
    assert complete.missing == () and complete.message == ""
    assert check_columns([]).message == "missing column(s) 'doc_id', 'y'; the file has no columns"
    with pytest.raises(DataError, match=r"unknown contract name\(s\) 'hit'"):
        check_columns(header, {"hit": "hit1"})
    assert CONTRACT_COLUMNS == REQUIRED + OPTIONAL and REQUIRED == ("doc_id", "y")
    # the loader says the same, then how to map from code and from the command line
    (tmp_path / "r.csv").write_text("doc,hit1,chunk_id\na,1,0\nb,0,0\n")
    with pytest.raises(DataError) as err:
        load_results(tmp_path / "r.csv")
    assert str(err.value).startswith(f"{tmp_path / 'r.csv'}: {check_columns(header).message}. Map yours with columns=")


def test_empty_inputs(tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    with pytest.raises(DataError, match=r"empty\.csv is an empty file"):
        load_results(tmp_path / "empty.csv")
    (tmp_path / "header.csv").write_text("doc_id,y\n")
    with pytest.raises(DataError, match=r"header\.csv has no data rows"):
        load_results(tmp_path / "header.csv")
    with pytest.raises(DataError, match=r"<frame> has no data rows"):
        results_from_frame(GOOD.iloc[:0])


def test_a_single_document_cannot_give_a_variance():
    with pytest.raises(DataError, match=r"column 'doc_id' has a single document \('a'\); .* at least 2 documents"):
        results_from_frame(GOOD.iloc[:3]).population()
    two_configs = pd.concat([GOOD.assign(config="100w"), GOOD.iloc[:3].assign(config="50w")])
    results = results_from_frame(two_configs)  # the file loads: only choosing '50w' is refused
    assert results.population("100w").n_docs == GOOD["doc_id"].nunique()
    with pytest.raises(DataError, match=r"single document \('a'\) for config '50w'"):
        results.population("50w")
    with pytest.raises(DataError, match=r"several configs \('100w', '50w'\).*--config"):
        results.population()


def test_unknown_file_types_and_missing_files(tmp_path):
    with pytest.raises(DataError, match=r"unknown file type for '.*results\.xlsx'; name it \.csv, \.parquet"):
        load_results(tmp_path / "results.xlsx")
    with pytest.raises(DataError, match=r"unknown file type 'excel'; use one of csv, parquet, jsonl"):
        load_results(tmp_path / "results.csv", file_type="excel")
    with pytest.raises(FileNotFoundError, match=r"no such file"):
        load_results(tmp_path / "results.csv")
    with pytest.raises(DataError, match=r"expected a pandas DataFrame, got dict"):
        results_from_frame({"doc_id": ["a"], "y": [1]})


def test_unreadable_content_is_a_data_error(tmp_path):
    (tmp_path / "broken.parquet").write_bytes(b"not a parquet file at all")
    with pytest.raises(DataError, match=r"^[^:]*broken\.parquet: not a readable Parquet file \(cut short, damaged"):
        load_results(tmp_path / "broken.parquet")
    with gzip.open(tmp_path / "broken.jsonl.gz", "wt") as fh:
        fh.write('{"doc_id": "a", "y": 1}\n{"doc_id": "b", "y": \n')
    with pytest.raises(
        DataError, match=r"broken\.jsonl\.gz: line 3 is not valid JSON \(a record cut short or damaged\)$"
    ):
        load_results(tmp_path / "broken.jsonl.gz")


def test_a_csv_error_says_what_is_wrong_in_our_words(tmp_path):
    # DuckDB's wording, its suggested fixes and the offending line's text stay out; the line stays in.
    (tmp_path / "latin1.csv").write_bytes("doc_id,y\ncafé,1\nb,0\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"latin1\.csv: line 2 is not valid UTF-8 text") as err:
        load_results(tmp_path / "latin1.csv")
    assert "Original Line" not in str(err.value) and "CSV Error" not in str(err.value)
    ragged = "doc_id,y\n" + "".join(f"d{i},1\n" for i in range(30_000)) + "x,1,3\n"
    (tmp_path / "ragged.csv").write_text(ragged)
    with pytest.raises(DataError, match=r"ragged\.csv: line 30002 has 3 fields where the header has 2$"):
        load_results(tmp_path / "ragged.csv")
    (tmp_path / "cut.csv.gz").write_bytes(gzip.compress(b"doc_id,y\na,1\nb,0\n" * 50)[:40])
    with pytest.raises(DataError, match=r"cut\.csv\.gz: not a readable gzip file \(cut short or damaged\)$"):
        load_results(tmp_path / "cut.csv.gz")
    (tmp_path / "quote.csv").write_text('doc_id,y\nd1,1\nd2,"0\nd3,1\n')
    with pytest.raises(DataError, match=r"quote\.csv: a quoted field opened near line 3 is never closed$"):
        load_results(tmp_path / "quote.csv")


def test_an_upload_is_named_as_given_never_by_its_temporary_path():
    upload = stdio.BytesIO(b"doc_id,y\nd1,1,5\nd2,0\n")
    upload.name = "mine.csv"
    with pytest.raises(DataError) as err:
        load_results(upload)
    assert str(err.value) == "mine.csv: line 2 has 3 fields where the header has 2"


def test_rows_that_cannot_be_split_are_not_called_missing_columns(tmp_path):
    (tmp_path / "ragged.csv").write_text("doc_id,text,y\na,hello, world,1\nb,x,0\n")
    # The header fixes the delimiter and the columns, so the row that does not fit is named, not a column.
    with pytest.raises(DataError, match=r"ragged\.csv: line 2 has 4 fields where the header has 3$") as err:
        load_results(tmp_path / "ragged.csv")
    assert "missing column" not in str(err.value)


def test_hash_collisions_fall_back_to_exact_paths(monkeypatch):
    import ragunc.data.duckdb_sql as rio

    frame = chunk_rows(seed=9, configs=("100w", "50w"))
    monkeypatch.setattr(rio, "_keys_collide", lambda keys: True)  # as if two documents shared a 64-bit hash
    assert_same(results_from_frame(frame), frame)
    # A hashed duplicate count that was only a collision: the exact pass finds nothing and lets the load go on.
    with rio.connection() as con:
        con.register("clean", frame)
        resolved = {c: c for c in frame.columns}
        assert rio._raise_on_violations(con, "clean", resolved, {"cid_dup": 1}, "<frame>") is None
