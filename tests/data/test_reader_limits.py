"""Reading a file someone else sent under ReadLimits: a gzip bomb, a long line, too many rows and a packed Parquet
are refused as the stream passes the cap, with memory that never grows towards what the file unpacks to."""

from __future__ import annotations

import gzip
import io
import tracemalloc
import zipfile

import pandas as pd
import pytest

from ragunc.corpus import load_corpus
from ragunc.data import DataError, ReadLimits, load_results
from ragunc.data.reader import check_limits, read_bytes

MB = 2**20
ROWS = b"".join(b"doc%d,%d\n" % (i % 997, i % 2) for i in range(40_000))  # valid chunk rows, ~0.3 MB


def bomb(unpacked_mb: int) -> bytes:
    """A gzip file of valid rows unpacking to about ``unpacked_mb`` MB: one small member repeated (as gzip allows)."""
    member = gzip.compress(ROWS, compresslevel=9)
    return gzip.compress(b"doc_id,y\n") + member * (unpacked_mb * MB // len(ROWS))


def upload(name: str, data: bytes) -> io.BytesIO:
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def test_unlimited_and_limited_reads_agree_on_a_file_within_the_limits():
    data = bomb(1)
    limits = ReadLimits(max_bytes=4 * MB, max_rows=10**6, max_line_bytes=1000)
    assert read_bytes(upload("r.csv.gz", data), limits) == read_bytes(upload("r.csv.gz", data)) == gzip.decompress(data)
    limited = load_results(upload("r.csv.gz", data), limits=limits)
    whole = load_results(upload("r.csv.gz", data))
    assert limited.n_rows == whole.n_rows == gzip.decompress(data).count(b"\n") - 1


def test_a_gzip_bomb_is_refused_before_memory_grows():
    data = bomb(200)  # 200 MB of rows in about 0.2 MB
    limits = ReadLimits(max_bytes=32 * MB, max_rows=10**9, max_line_bytes=MB)
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match=r"r\.csv\.gz: unpacks to more than 32 MB"):
            load_results(upload("r.csv.gz", data), limits=limits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MB, peak  # a few chunks at a time, never the 32 MB cap, let alone the 200 MB


def test_rows_and_line_caps_name_the_row_and_line():
    data = b"doc_id,y\n" + b"a,1\n" * 500
    with pytest.raises(DataError, match="more than 100 rows"):
        check_limits(upload("r.csv", data), ReadLimits(MB, 100, 100))
    long_line = b"doc_id,y\na,1\n" + b"x" * 5000 + b",1\n"
    with pytest.raises(DataError, match="line 3 is longer than 1,000 bytes"):
        check_limits(upload("r.csv", long_line), ReadLimits(MB, 100, 1000))
    single = gzip.compress(b"doc_id,y," + b"x" * (3 * MB))  # one line, no newline at all
    with pytest.raises(DataError, match="line 1 is longer than 1 MB"):
        load_results(upload("r.csv.gz", single), limits=ReadLimits(64 * MB, 100, MB))


def test_a_cut_or_corrupt_gzip_is_refused_by_name():
    data = gzip.compress(b"doc_id,y\na,1\n")
    limits = ReadLimits(MB, 100, 1000)
    for broken, reason in (
        (data[:-8], "cut short"),
        (data + b"junk", "after the end"),
        (data[:12] + b"!!" + data[14:], ""),
    ):
        with pytest.raises(DataError, match=f"r.csv.gz: not a readable gzip file.*{reason}"):
            check_limits(upload("r.csv.gz", broken), limits)


def test_a_parquet_file_packing_many_rows_is_refused_from_its_footer():
    buffer = io.BytesIO()
    pd.DataFrame({"doc_id": ["d"] * 200_000, "y": [1] * 200_000}).to_parquet(buffer)
    assert len(buffer.getvalue()) < 50_000  # the rows pack into a few kilobytes
    with pytest.raises(DataError, match="more than 1,000 rows"):
        load_results(upload("r.parquet", buffer.getvalue()), limits=ReadLimits(MB, 1000, MB))


def test_the_corpus_loader_takes_the_same_limits(tmp_path):
    path = tmp_path / "docs.jsonl.gz"
    line = b'{"doc_id": "d%d", "text": "some words of text here"}\n'
    path.write_bytes(gzip.compress(b"".join(line % i for i in range(50_000))))
    with pytest.raises(DataError, match="unpacks to more than 1 MB"):
        load_corpus(path, limits=ReadLimits(MB, 10**6, 1000))
    assert len(load_corpus(path)) == 50_000  # the owner's own file, without limits: any size


def test_a_zip_corpus_is_refused_past_its_files_limit(tmp_path):
    path = tmp_path / "docs.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(3):
            archive.writestr(f"d{i}.txt", f"document {i} words")
    with pytest.raises(DataError, match=r"docs\.zip: 3 files; at most 2 documents are read"):
        load_corpus(path, limits=ReadLimits(MB, 2, MB))
    assert len(load_corpus(path)) == 3


def test_a_zip_corpus_upload_lying_about_its_size_is_refused(monkeypatch):
    from dashboard import sources

    monkeypatch.setattr(sources, "CORPUS_LIMITS", ReadLimits(MB, 10**6, MB))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", "word " * 1000)
        archive.writestr("b.txt", b"z" * (5 * MB))
    with pytest.raises(DataError, match=r"docs\.zip: the archive unpacks to more than 1 MB"):
        sources.uploaded_corpus("docs.zip", buffer.getvalue())
