"""ragunc.data.reader: kind, gzip, delimiter and header detection, the header peek, rows, and one error wording."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest

from ragunc.data import (
    DataError,
    detect,
    load_results,
    peek_columns,
    read_table,
    rows_phrase,
)

ROWS = pd.DataFrame({"doc_id": ["a", "a", "b", "b", "c"], "chunk_id": ["0", "1", "0", "1", "0"], "y": [1, 0, 0, 1, 1]})
COLUMNS = ["doc_id", "chunk_id", "y"]


def named(data: bytes, name: str) -> io.BytesIO:
    """An upload as Streamlit hands it over: bytes with a name."""
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(DataError) as err:
        call(*args, **kwargs)
    return str(err.value)


# ---------------------------------------------------------------- kind, gzip, delimiter, header


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_the_delimiter_is_sniffed_from_the_header_and_first_lines(tmp_path, sep):
    path = tmp_path / "r.csv"
    path.write_text(ROWS.to_csv(index=False, sep=sep))
    fmt = detect(path)
    assert (fmt.kind, fmt.delimiter, fmt.header, fmt.gzip) == ("csv", sep, tuple(COLUMNS), False)


def test_a_quoted_delimiter_does_not_split_and_ties_follow_the_name(tmp_path):
    (tmp_path / "q.csv").write_text('doc_id,"a;b;c;d",y\nx,"1;2;3;4",1\n')
    assert detect(tmp_path / "q.csv").header == ("doc_id", "a;b;c;d", "y")
    # one comma and one tab in every line: the name breaks the tie
    (tmp_path / "t.tsv").write_text("doc_id\tchunk,id\ny\t1,2\n")
    (tmp_path / "t.csv").write_text("doc_id\tchunk,id\ny\t1,2\n")
    assert detect(tmp_path / "t.tsv").delimiter == "\t" and detect(tmp_path / "t.csv").delimiter == ","
    # a delimiter that splits the rows unevenly loses to one that splits them evenly
    (tmp_path / "u.csv").write_text("doc_id;y,z\na;1\nb;0,5,6\n")
    assert detect(tmp_path / "u.csv").delimiter == ";"


def test_header_names_are_made_unique_as_duckdb_names_them(tmp_path):
    (tmp_path / "h.csv").write_text(",doc_id , y,y\n0,a,1,1\n1,b,0,0\n")
    assert detect(tmp_path / "h.csv").header == ("column0", "doc_id", "y", "y_1")
    assert load_results(tmp_path / "h.csv").n_rows == 2


def test_gzip_is_told_from_the_bytes_not_the_name(tmp_path):
    text = ROWS.to_csv(index=False, sep="\t").encode()
    (tmp_path / "r.tsv.gz").write_bytes(gzip.compress(text))
    (tmp_path / "plain.tsv.gz").write_bytes(text)  # e.g. saved by a browser that already inflated it
    (tmp_path / "packed.tsv").write_bytes(gzip.compress(text))
    for name, gzipped in (("r.tsv.gz", True), ("plain.tsv.gz", False), ("packed.tsv", True)):
        fmt = detect(tmp_path / name)
        assert (fmt.gzip, fmt.delimiter, fmt.header) == (gzipped, "\t", tuple(COLUMNS))
        assert load_results(tmp_path / name).n_rows == len(ROWS)
    (tmp_path / "junk.csv.gz").write_bytes(b"\x1f\x8b not a deflate stream")
    assert "junk.csv.gz: not a readable gzip file" in error_of(detect, tmp_path / "junk.csv.gz")


def test_parquet_magic_wins_over_the_name_and_json_layout_is_read_from_the_content(tmp_path):
    ROWS.to_parquet(tmp_path / "really_parquet.csv")
    assert detect(tmp_path / "really_parquet.csv").kind == "parquet"
    assert load_results(tmp_path / "really_parquet.csv").n_rows == len(ROWS)
    (tmp_path / "a.json").write_text(ROWS.to_json(orient="records"))
    (tmp_path / "l.json").write_text(ROWS.to_json(orient="records", lines=True))
    assert detect(tmp_path / "a.json").json_array and not detect(tmp_path / "l.json").json_array
    # a name that says nothing: JSON is still recognisable, other text is refused
    (tmp_path / "export.dat").write_text(ROWS.to_json(orient="records", lines=True))
    assert detect(tmp_path / "export.dat").kind == "jsonl"
    (tmp_path / "export.txt").write_text(ROWS.to_csv(index=False))
    assert "unknown file type for" in error_of(detect, tmp_path / "export.txt")


def test_a_header_wider_than_the_first_read_is_read_whole(tmp_path):
    names = [f"column_with_a_long_name_{i}" for i in range(6000)]  # a header line of ~170 kB
    (tmp_path / "wide.csv").write_text(",".join(names) + "\n" + ",".join("1" for _ in names) + "\n")
    assert detect(tmp_path / "wide.csv").header == tuple(names)


# ---------------------------------------------------------------- TREC or a table


def test_a_headerless_text_file_is_trec_for_runs_only_and_a_header_makes_a_table(tmp_path):
    (tmp_path / "run.tsv").write_text("q1\tQ0\tc3\t1\t12.5\tbm25\n")
    (tmp_path / "table.tsv").write_text("query_id\trank\tchunk_id\tdoc_id\nq1\t1\tc3\tD\n")
    (tmp_path / "qrels").write_text("q1 0 D 1\n")
    assert detect(tmp_path / "run.tsv", trec=True).kind == "trec"
    assert detect(tmp_path / "qrels", trec=True).kind == "trec"
    assert detect(tmp_path / "table.tsv", trec=True).kind == "csv"
    assert detect(tmp_path / "run.tsv").kind == "csv"  # the results loader knows no TREC
    assert detect(tmp_path / "run.tsv", "tsv", trec=True).kind == "csv"  # a table, as named
    assert detect(tmp_path / "table.tsv", "trec", trec=True).kind == "trec"  # TREC, as named
    assert "unknown file type 'trec'; use one of csv, parquet, jsonl" in error_of(detect, tmp_path / "run.tsv", "trec")


def test_read_table_keeps_ids_as_text_and_only_blanks_missing(tmp_path):
    (tmp_path / "t.csv").write_text("id;value\n007;NA\n;null\n")
    frame = read_table(tmp_path / "t.csv").frame
    assert frame["id"].tolist()[0] == "007" and frame["value"].tolist() == ["NA", "null"]
    assert pd.isna(frame["id"].tolist()[1])
    (tmp_path / "t.jsonl").write_text('{"id": 7, "ids": ["a", "b"]}\n\n{"id": null}\n')
    frame = read_table(tmp_path / "t.jsonl").frame
    assert frame["id"].tolist() == [7, None] and frame["ids"].tolist()[0] == ["a", "b"]


def test_read_table_errors_name_the_file_and_the_line(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"id": 1}\n{"id": 2}\n{oops\n')
    assert error_of(read_table, tmp_path / "bad.jsonl").startswith(
        f"{tmp_path / 'bad.jsonl'}: line 3 is not valid JSON (Expecting property name"
    )
    (tmp_path / "list.json").write_text('[{"id": 1}, 2, 3]')
    assert "a record must be a JSON object; not in rows 2, 3" in error_of(read_table, tmp_path / "list.json")
    (tmp_path / "latin1.csv").write_bytes("id\nok\ncafé\n".encode("latin-1"))
    assert error_of(read_table, tmp_path / "latin1.csv").endswith("latin1.csv: line 3 is not valid UTF-8 text")
    text, replaced = read_table(tmp_path / "latin1.csv", replace_invalid=True).frame["id"].tolist(), True
    assert text == ["ok", "caf\ufffd"] and replaced


# ---------------------------------------------------------------- the header peek


def test_peek_reads_what_the_loader_reads_for_a_path_and_for_an_upload(tmp_path):
    files = {
        "semicolon.csv": ROWS.to_csv(index=False, sep=";").encode(),
        "r.tsv.gz": gzip.compress(ROWS.to_csv(index=False, sep="\t").encode()),
        "one_line.json": ROWS.to_json(orient="records").encode(),
        "r.jsonl": ROWS.to_json(orient="records", lines=True).encode(),
    }
    buffer = io.BytesIO()
    ROWS.to_parquet(buffer)
    files["r.parquet"] = buffer.getvalue()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        assert peek_columns(tmp_path / name) == COLUMNS, name
        upload = named(data, name)
        assert peek_columns(upload) == COLUMNS, name
        assert upload.tell() == 0  # rewound for the loader
        assert load_results(upload).n_rows == len(ROWS)


def test_peek_unites_the_keys_of_the_first_json_records_even_in_a_cut_head():
    records = [{"doc_id": f"d{i}", "y": 1, **({"chunk_index": i} if i == 3 else {})} for i in range(20_000)]
    data = json.dumps(records).encode()  # one line, larger than the part the peek reads
    assert len(data) > 1 << 16
    assert peek_columns(named(data, "r.json")) == ["doc_id", "y", "chunk_index"]
    first = {"doc_id": "d", "y": 1, "text": "x" * 300_000}  # a first record longer than the first read
    assert peek_columns(named((json.dumps(first) + "\n").encode() * 2, "r.jsonl")) == ["doc_id", "y", "text"]


@pytest.mark.parametrize(
    "name, data",
    [
        ("r.xlsx", b"doc_id,y\nd,1\n"),
        ("empty.csv", b""),
        ("broken.csv.gz", b"\x1f\x8b not a deflate stream"),
    ],
)
def test_peek_refuses_what_the_loader_refuses_in_the_same_words(name, data):
    assert error_of(peek_columns, named(data, name)) == error_of(load_results, named(data, name))


def test_peek_of_broken_json_or_parquet_names_the_file():
    assert error_of(peek_columns, named(b'{"doc_id": "a", "y": }\n', "bad.jsonl")).startswith("bad.jsonl: line 1")
    assert error_of(peek_columns, named(b"PAR1 not really", "bad.parquet")).startswith(
        "bad.parquet: not a readable Parquet file"
    )


# ---------------------------------------------------------------- rows


def test_rows_phrase():
    assert rows_phrase([3]) == "row 3"
    assert rows_phrase([3, 7]) == "rows 3, 7"
    assert rows_phrase([1, 2, 3, 4, 5], 17) == "rows 1, 2, 3, 4, 5 and 12 more"
    assert rows_phrase(list(range(1, 10))) == "rows 1, 2, 3, 4, 5 and 4 more"
    assert rows_phrase(np.array([False, True, False, True])) == "rows 2, 4"


# ---------------------------------------------------------------- bytes that are no table


RANDOM_BYTES = np.random.default_rng(17).integers(0, 256, 3000, dtype=np.uint8).tobytes()


@pytest.mark.parametrize(
    "name, data",
    [
        ("random.csv", RANDOM_BYTES),
        ("random.tsv.gz", gzip.compress(RANDOM_BYTES)),
        ("random.jsonl", RANDOM_BYTES),
        ("random.txt", RANDOM_BYTES),  # a run or qrels file's name
        ("utf16.csv", "doc_id,y\nd1,1\n".encode("utf-16")),  # text, but not the UTF-8 every loader reads
    ],
)
def test_binary_bytes_are_not_a_readable_table_whatever_the_name(name, data):
    # Random bytes named .csv used to pass as a header of garbage columns ('\x1bѻ…'), so the loader
    # asked for the missing doc_id and y, and the dashboard offered to map them.
    expected = f"{name}: not a readable table: its first bytes are binary data, not UTF-8 text"
    if not name.endswith(".txt"):  # what the results loader and the dashboard's peek take
        assert error_of(peek_columns, named(data, name)).startswith(expected)
        assert error_of(load_results, named(data, name)).startswith(expected)
    assert error_of(read_table, named(data, name), trec_columns=("a",) * 6).startswith(expected)


def test_text_with_a_few_invalid_bytes_is_still_text(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(("doc_id,y,title\n" + "d1,1,café crème\n" * 50).encode("latin-1"))
    assert peek_columns(path) == ["doc_id", "y", "title"]
    assert load_results(path).n_rows == 50
