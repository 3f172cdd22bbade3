"""The one file reader of ragunc: what a file is (kind, gzip, delimiter, header), its rows, and its errors.

Every loader asks :func:`detect` what a file is — per-chunk results (through DuckDB),
runs and qrels, corpora, query files — and so does the dashboard's column peek
(:func:`peek_columns`), so a file one of them reads the others read the same way,
and bad input is one :class:`DataError` wording.

- Kind, from the name first: ``.csv`` and ``.tsv`` are delimited text with a header,
  ``.parquet``/``.pq`` Parquet, ``.jsonl``/``.ndjson``/``.json`` JSON (one record per line,
  or one array of records, or ranx's one object ``{query: {doc: score}}``, read as rows
  ``q_id, doc_id, score``); ``.gz`` may follow any of them.  The content refines it:
  the Parquet magic number wins over the name, and for the loaders of runs and qrels
  a text file whose first line has no header (a number among its whitespace-separated
  fields, e.g. ``q1 Q0 c3 1 12.5 bm25``) is a TREC file, whatever its suffix.
- gzip, from the magic bytes, not the name.
- Delimiter of delimited text: comma, tab, semicolon or pipe, sniffed from the header
  and the first lines (``.tsv`` breaks ties towards tab), quoted with ``"``.
- Header: the first line's names, trimmed, an empty name given its position (``column0``)
  and a repeated one a suffix (``y_1``), as DuckDB's own sniffer names them; DuckDB is
  then handed these names and the delimiter instead of sniffing its own.
- Limits (:class:`ReadLimits`, for a file someone else sent, e.g. a dashboard upload): the
  content is decompressed as a stream and refused as soon as it passes a cap on bytes, rows
  or the length of one line, before it fills memory or disk.  Without limits (the CLI, run by
  the file's owner) a file of any size is read.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json
import os
import re
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa

FILE_TYPES = ("csv", "parquet", "jsonl")  # what ``file_type=`` names; "trec" too for runs and qrels
DELIMITERS = (",", "\t", ";", "|")
SHOWN_ROWS = 5  # row numbers an error message lists before "and N more"

_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
RESULT_SUFFIXES = (*(s.lstrip(".") for s in _SUFFIXES), "gz")  # a per-chunk results file's last suffix
_TEXT_SUFFIXES = (".txt", ".run", ".trec", ".qrels", "")  # TREC or delimited text, told apart by the content
_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_HEAD_BYTES = 1 << 16  # decompressed bytes read to sniff; doubled until the first line is complete
_MAX_HEAD_BYTES = 1 << 24
_SNIFF_LINES = 6  # the header and five rows
_PEEK_RECORDS = 1000  # JSON records whose keys the peek unites
_SPACE = re.compile(r"\s*")
_ARRAY_GAP = re.compile(r"\s*,?\s*")  # between the records of an array
# What text holds rarely: control characters other than whitespace, and bytes that are not UTF-8.
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0e-\x1f\ufffd]")
_NOT_TEXT_SHARE = 0.3  # random bytes are mostly invalid UTF-8; Latin-1 text has only its accented letters


class DataError(ValueError):
    """Bad input: the message names the file, the column and the first offending rows (1-based data rows)."""


@dataclass(frozen=True)
class FileFormat:
    """What :func:`detect` found a file to be."""

    kind: str  # "csv" (delimited text with a header), "parquet", "jsonl" or "trec"
    gzip: bool  # the bytes are gzip-compressed
    delimiter: str | None = None  # csv: the field separator
    header: tuple[str, ...] = ()  # csv: the column names, as every loader names them
    json_array: bool = False  # jsonl: one JSON array of records rather than one record per line


@dataclass(frozen=True)
class ReadLimits:
    """Caps on what a file unpacks to: bytes, rows (lines of a text file, each row at least one) and one line's bytes."""

    max_bytes: int
    max_rows: int
    max_line_bytes: int

    def __post_init__(self) -> None:
        if min(self.max_bytes, self.max_rows, self.max_line_bytes) < 1:
            raise ValueError(f"every limit must be >= 1, got {self}")


@dataclass(frozen=True)
class Table:
    """What :func:`read_table` returns: every column as read (text as ``str``, blanks as missing)."""

    frame: pd.DataFrame
    format: FileFormat
    source: str
    n_decode_replaced: int = 0  # 1 when invalid UTF-8 was replaced by U+FFFD (``replace_invalid=True``)


# ---------------------------------------------------------------- phrases


def source_name(source) -> str:
    """The name errors give a source: its path, or a file-like's ``name`` (``"<upload>"`` without one)."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "") or "<upload>")


def rows_phrase(rows, n: int | None = None) -> str:
    """``"row 3"``, ``"rows 3, 7"`` or ``"rows 3, 7, 9, 12, 15 and 12 more"``.

    ``rows`` holds 1-based data-row numbers (at least the first :data:`SHOWN_ROWS`),
    or labels of rows as text (``"3 (part-1.parquet)"``: rows of several files), or
    is a boolean mask over the data rows; ``n`` is how many rows there are in all
    (default: as many as given).
    """
    rows = np.asarray(rows)
    if rows.dtype == bool:
        rows = np.flatnonzero(rows) + 1
    n = int(rows.size if n is None else n)
    shown = rows[:SHOWN_ROWS]
    more = f" and {n - shown.size} more" if n > shown.size else ""
    labels = (str(r) if rows.dtype.kind in "OUS" else str(int(r)) for r in shown)
    return f"row{'s' if n > 1 else ''} {', '.join(labels)}{more}"


def listing(items) -> str:
    """``'a', 'b'``: names as an error message quotes them."""
    return ", ".join(repr(i) for i in items)


_LINE = re.compile(r"(?:on line|in line|line)[: ]+(\d+)", re.IGNORECASE)
_COUNTS = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
_KIND_WORDS = {"csv": "delimited text with a header", "parquet": "Parquet", "jsonl": "JSON", "trec": "a TREC file"}


def unreadable(name: str, exc: BaseException, kind: str | None = None) -> DataError:
    """What an engine's (DuckDB's, pyarrow's, pandas') failure to read ``name`` means, in our words.

    Nothing of the engine's own text reaches the user: not its wording, nor a temporary path
    it was handed (an upload spooled to disk); only the file's name as the user gave it and,
    where the engine says it, the line.
    """
    # The offending line's own text (DuckDB quotes it) says nothing of the failure: left out.
    text = "\n".join(part for part in str(exc).splitlines() if not part.strip().startswith("Original Line"))
    low = text.lower()
    line = _LINE.search(text)
    at = f"line {line.group(1)}" if line else "a line"
    if "utf-8" in low or "unicode" in low:
        return DataError(f"{name}: {at} is not valid UTF-8 text (save the file as UTF-8)")
    if "gzip" in low or "zlib" in low or "decompress" in low:
        return DataError(f"{name}: not a readable gzip file (cut short or damaged)")
    if kind == "parquet" or "parquet" in low or "footer" in low or "magic" in low:
        return DataError(f"{name}: not a readable Parquet file (cut short, damaged, or not Parquet)")
    counts = _COUNTS.search(text)
    if counts:
        return DataError(f"{name}: {at} has {counts.group(2)} fields where the header has {counts.group(1)}")
    if "quote" in low or "eof inside string" in low:
        return DataError(f"{name}: a quoted field opened near {at} is never closed")
    if "json" in low:
        return DataError(f"{name}: {at} is not valid JSON (a record cut short or damaged)")
    what = _KIND_WORDS.get(kind or "", "a table")
    return DataError(
        f"{name}: cannot be read as {what}{f' ({at})' if line else ''}; the file is damaged or not in this format"
    )


# ---------------------------------------------------------------- kind


def infer_file_type(name: str, file_type: str | None = None) -> str:
    """ "csv", "parquet" or "jsonl" from ``file_type`` or else the name (``.gz`` allowed), for writing a file too."""
    if file_type is not None:
        return _named_kind(file_type, trec=False)
    kind = _suffix_kind(name)
    if kind is None or kind == "text":
        raise _unknown_type(name, trec=False)
    return kind


def _named_kind(file_type: str, *, trec: bool) -> str:
    kind = "trec" if trec and file_type.lower() == "trec" else _SUFFIXES.get("." + file_type.lower().lstrip("."))
    if kind is None:
        kinds = FILE_TYPES + (("trec",) if trec else ())
        raise DataError(f"unknown file type {file_type!r}; use one of {', '.join(kinds)}")
    return kind


def _suffix(name: str) -> str:
    """The name's last suffix before any ``.gz``, lower-cased (``""`` when there is none)."""
    suffixes = [s.lower() for s in Path(name).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _suffix_kind(name: str) -> str | None:
    """The kind the name says, "text" for TREC-or-delimited text, None for a name that says nothing known."""
    suffix = _suffix(name)
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    return "text" if suffix in _TEXT_SUFFIXES else None


def _unknown_type(name: str, *, trec: bool) -> DataError:
    if trec:
        return DataError(
            f"unknown file type for {name!r}; name it .csv, .parquet, .jsonl, .ndjson, .json or .tsv, or a TREC "
            f"file .txt, .run, .trec or .qrels (optionally .gz), or pass file_type= one of "
            f"{', '.join(FILE_TYPES + ('trec',))}"
        )
    return DataError(
        f"unknown file type for {name!r}; name it .csv, .parquet, .jsonl, .ndjson, .json or .tsv "
        f"(optionally .gz), or pass file_type= one of {', '.join(FILE_TYPES)}"
    )


def detect(
    source: str | os.PathLike | BinaryIO,
    file_type: str | None = None,
    *,
    trec: bool = False,
) -> FileFormat:
    """What ``source`` is: kind, gzip, and for delimited text its delimiter and header.

    ``file_type`` (``"csv"``, ``"tsv"``, ``"parquet"``, ``"jsonl"``, ``"json"``, and with
    ``trec=True`` ``"trec"``) overrides the name; ``trec=True`` (runs and qrels) lets a
    headerless text file be a TREC file.  Reads only the first bytes; a file-like is
    rewound.  Raises :class:`DataError` for an unknown or empty file,
    ``FileNotFoundError`` for a missing path.  Bytes that are not text (a NUL, or mostly
    control characters and invalid UTF-8) in a text kind are a :class:`DataError` saying
    the file is not a readable table.
    """
    name = source_name(source)
    kind = _named_kind(file_type, trec=trec) if file_type is not None else _suffix_kind(name)
    if kind == "text" and not trec:
        kind = None
    if not hasattr(source, "read") and not Path(os.fspath(source)).is_file():
        if kind is None:
            raise _unknown_type(name, trec=trec)
        raise FileNotFoundError(f"no such file: {name}")
    head, gzipped, complete = _head(source, name, whole_line=kind in ("csv", "text"))
    if head.startswith(_PARQUET_MAGIC) or kind == "parquet":  # Parquet under any name is Parquet
        return FileFormat("parquet", gzipped)
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if kind is None:  # a name that says nothing: JSON is still recognisable
        if not text.lstrip().startswith(("{", "[")):
            raise _unknown_type(name, trec=trec)
        kind = "jsonl"
    if b"\x00" in head or len(_NOT_TEXT.findall(text)) > _NOT_TEXT_SHARE * len(text):
        # Otherwise its first line would pass for a header of garbage names, and the error ask for missing columns.
        raise DataError(
            f"{name}: not a readable table: its first bytes are binary data, not UTF-8 text "
            "(a table is delimited text with a header, JSON lines or Parquet)"
        )
    if kind == "jsonl":
        return FileFormat("jsonl", gzipped, json_array=text.lstrip().startswith("["))
    if kind == "trec":
        return FileFormat("trec", gzipped)
    lines = _complete_lines(text, complete)
    if trec and file_type is None and _headerless(lines):
        return FileFormat("trec", gzipped)
    tab_first = _suffix(name) == ".tsv" or (file_type or "").lower().lstrip(".") == "tsv"
    delimiter = _sniff_delimiter(lines, "\t" if tab_first else ",")
    header = (_records(lines[:1], delimiter) or [[]])[0]
    return FileFormat("csv", gzipped, delimiter=delimiter, header=_column_names(header))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _headerless(lines: list[str]) -> bool:
    """A TREC line, not a header: some whitespace-separated field of the first line is a number."""
    first = next((line for line in lines if line.strip()), "")
    return any(_is_number(field) for field in first.split())


def _sniff_delimiter(lines: list[str], preferred: str) -> str:
    """Of the candidates that split the header, the one splitting every line read evenly into the most fields.

    A candidate that leaves a quote inside a header field (``a,"b;c"`` split on
    semicolons: the quotes belong to the commas' fields) ranks below every clean one, and one
    that splits the lines unevenly below every even one; ties go to ``preferred`` and
    then to the order of :data:`DELIMITERS`.  A header no candidate splits is one
    column: ``preferred``.
    """
    sample = lines[:_SNIFF_LINES]
    order = [preferred] + [d for d in DELIMITERS if d != preferred]
    best, best_rank = preferred, None
    for position, delimiter in enumerate(order):
        records = _records(sample, delimiter)
        if not records or len(records[0]) < 2:
            continue
        clean = not any('"' in field for field in records[0])
        even = len({len(record) for record in records}) == 1
        rank = (clean, even, len(records[0]), -position)
        if best_rank is None or rank > best_rank:
            best, best_rank = delimiter, rank
    return best


def _records(lines: list[str], delimiter: str) -> list[list[str]]:
    """The non-empty records of ``lines`` split on ``delimiter``, up to the first that the csv module refuses."""
    records = []
    try:
        for record in csv.reader(lines, delimiter=delimiter):
            if record:
                records.append(record)
    except csv.Error:  # a field beyond the csv module's size limit: judge on the records before it
        pass
    return records


def _column_names(header: Sequence[str]) -> tuple[str, ...]:
    """Header names as DuckDB's sniffer gave them: trimmed, an empty one ``column<i>``, a repeat ``<name>_<k>``."""
    names, seen = [], set()
    for i, raw in enumerate(header):
        name = raw.strip() or f"column{i}"
        candidate, k = name, 0
        while candidate in seen:
            k += 1
            candidate = f"{name}_{k}"
        seen.add(candidate)
        names.append(candidate)
    return tuple(names)


def _complete_lines(text: str, complete: bool) -> list[str]:
    """The lines of a head of the file, without the last one when the head may have cut it."""
    lines = text.splitlines()
    if not complete and lines:
        lines.pop()
    return lines


# ---------------------------------------------------------------- bytes


@contextmanager
def _binary(source) -> Iterator[BinaryIO]:
    """A binary handle at the start of ``source``; a file-like is rewound afterwards too."""
    if hasattr(source, "read"):
        if hasattr(source, "seek"):
            source.seek(0)
        try:
            yield source
        finally:
            if hasattr(source, "seek"):
                source.seek(0)
    else:
        with open(source, "rb") as handle:
            yield handle


def _as_bytes(chunk) -> bytes:
    return chunk.encode() if isinstance(chunk, str) else bytes(chunk)


def _head(source, name: str, *, whole_line: bool = False) -> tuple[bytes, bool, bool]:
    """(first decompressed bytes, gzip, whether they are the whole file).

    With ``whole_line``, read further until the first line is complete (a wide header).
    """
    size = _HEAD_BYTES
    while True:
        with _binary(source) as handle:
            head, gzipped, complete = _read_head(handle, size, name)
        if not whole_line or complete or b"\n" in head or size >= _MAX_HEAD_BYTES:
            return head, gzipped, complete
        size *= 4


def _read_head(handle: BinaryIO, size: int, name: str) -> tuple[bytes, bool, bool]:
    raw = _as_bytes(handle.read(size))
    if not raw:
        raise DataError(f"{name} is an empty file")
    if not raw.startswith(_GZIP_MAGIC):
        return raw, False, len(raw) < size
    # A stream cut short still gives its first bytes; the reader's own error then says it is cut.
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = bytearray()
    try:
        while raw and len(out) < size:
            out += inflate.decompress(raw, size - len(out))
            raw = inflate.unconsumed_tail or _as_bytes(handle.read(size))
            if inflate.eof:
                break
    except zlib.error:
        raise DataError(f"{name}: not a readable gzip file (cut short or damaged)") from None
    if not out and inflate.eof:
        raise DataError(f"{name} is an empty file")
    return bytes(out), True, inflate.eof or not raw


def head_bytes(source: str | os.PathLike | BinaryIO) -> bytes:
    """The first decompressed bytes of ``source`` (what :func:`detect` reads), e.g. to tell a tool's log by them."""
    return _head(source, source_name(source))[0]


_CHUNK = 1 << 20  # bytes decompressed at a time under limits


def _size_phrase(n: int) -> str:
    return f"{n / 2**20:,.0f} MB" if n >= 2**20 else f"{n:,} bytes"


def _inflated(handle: BinaryIO, raw: bytes, size: int, name: str) -> Iterator[bytes]:
    """The decompressed pieces (at most ``size`` bytes each) of the gzip stream that ``raw`` starts; concatenated
    members are read one after another, as gzip does."""
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    while True:
        try:
            piece = inflate.decompress(raw, size)
        except zlib.error:
            raise DataError(f"{name}: not a readable gzip file (the stream is corrupt)") from None
        if inflate.eof:
            if piece:
                yield piece
            raw = inflate.unused_data or _as_bytes(handle.read(size))
            if not raw.strip(b"\0"):
                return
            if not raw.startswith(_GZIP_MAGIC):
                raise DataError(f"{name}: not a readable gzip file (data after the end of the stream)")
            inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            continue
        raw = inflate.unconsumed_tail
        if piece:
            yield piece
        if not raw:
            raw = _as_bytes(handle.read(size))
            if not raw and not piece:
                raise DataError(f"{name}: not a readable gzip file (the stream is cut short)")


def _limited_chunks(handle: BinaryIO, name: str, limits: ReadLimits) -> Iterator[bytes]:
    """The decompressed content of ``handle`` in chunks, checked against ``limits`` as they come.

    A :class:`DataError` ends the stream the moment a cap is passed: never more than one
    chunk past it is held.  A chunk is no longer than a line may be, so only the line that
    runs across chunks needs counting.
    """
    size = min(_CHUNK, limits.max_line_bytes)
    raw = _as_bytes(handle.read(size))
    if raw.startswith(_GZIP_MAGIC):
        chunks = _inflated(handle, raw, size, name)
    else:
        chunks = itertools.chain([raw] if raw else [], iter(lambda: _as_bytes(handle.read(size)), b""))
    total = rows = line = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limits.max_bytes:
            raise DataError(
                f"{name}: unpacks to more than {_size_phrase(limits.max_bytes)}, the most this reader takes here"
            )
        first = chunk.find(b"\n")
        if line + (len(chunk) if first < 0 else first) > limits.max_line_bytes:
            raise DataError(
                f"{name}: line {rows + 1:,} is longer than {_size_phrase(limits.max_line_bytes)}, "
                "the most this reader takes here"
            )
        if first >= 0:
            rows += chunk.count(b"\n")
            line = len(chunk) - chunk.rfind(b"\n") - 1
            if rows > limits.max_rows:
                raise DataError(f"{name}: more than {limits.max_rows:,} rows, the most this reader takes here")
        else:
            line += len(chunk)
        yield chunk


def check_limits(source: str | os.PathLike | BinaryIO, limits: ReadLimits) -> None:
    """Read ``source`` through (decompressed as a stream, nothing kept); :class:`DataError` when it passes ``limits``."""
    with _binary(source) as handle:
        for _ in _limited_chunks(handle, source_name(source), limits):
            pass


def copy_limited(source: str | os.PathLike | BinaryIO, out: BinaryIO, limits: ReadLimits) -> None:
    """The decompressed content of ``source`` written to ``out``, refused (:class:`DataError`) past ``limits``."""
    with _binary(source) as handle:
        for chunk in _limited_chunks(handle, source_name(source), limits):
            out.write(chunk)


def read_bytes(source: str | os.PathLike | BinaryIO, limits: ReadLimits | None = None) -> bytes:
    """The whole content, decompressed when it is gzip; with ``limits``, refused as soon as it passes them."""
    name = source_name(source)
    if limits is not None:
        with _binary(source) as handle:
            return b"".join(_limited_chunks(handle, name, limits))
    with _binary(source) as handle:
        raw = _as_bytes(handle.read())
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (gzip.BadGzipFile, EOFError, zlib.error):  # the last two: a cut or corrupt stream
        raise DataError(f"{name}: not a readable gzip file (cut short or damaged)") from None


def read_text(
    source: str | os.PathLike | BinaryIO, *, replace_invalid: bool = False, limits: ReadLimits | None = None
) -> tuple[str, bool]:
    """The content as UTF-8 text (a byte-order mark dropped) and whether invalid bytes were replaced.

    Invalid UTF-8 is a :class:`DataError` naming the line, unless ``replace_invalid``
    (corpora), where it becomes U+FFFD and the flag says so.  ``limits``: see :func:`read_bytes`.
    """
    raw = read_bytes(source, limits)
    try:
        return raw.decode("utf-8-sig"), False
    except UnicodeDecodeError as exc:
        if replace_invalid:
            return raw.decode("utf-8-sig", errors="replace"), True
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"{source_name(source)}: line {line} is not valid UTF-8 text") from None


# ---------------------------------------------------------------- rows


def read_table(
    source: str | os.PathLike | BinaryIO,
    file_type: str | None = None,
    *,
    trec_columns: tuple[str, ...] | None = None,
    replace_invalid: bool = False,
    limits: ReadLimits | None = None,
) -> Table:
    """Every row of a file, for the loaders that validate in pandas (runs, qrels, corpora, queries).

    Delimited text and TREC fields stay text (ids like ``007`` or ``NA`` stay ids);
    only a blank field is missing.  JSON values keep their JSON types.  A TREC file
    (allowed when ``trec_columns`` names its columns) must have exactly that many
    whitespace-separated fields.  ``limits`` caps what the file unpacks to (:class:`ReadLimits`).
    """
    name = source_name(source)
    fmt = detect(source, file_type, trec=trec_columns is not None)
    if fmt.kind == "parquet":
        raw = io.BytesIO(read_bytes(source, limits))
        if limits is not None:
            check_parquet_limits(raw, name, limits)
        try:
            frame = pd.read_parquet(raw)
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise unreadable(name, exc, "parquet") from None
        return Table(frame, fmt, name)
    text, replaced = read_text(source, replace_invalid=replace_invalid, limits=limits)
    if fmt.kind == "jsonl":
        frame = pd.DataFrame(_json_records(text, name), dtype=object)
    else:
        trec = fmt.kind == "trec"
        try:
            frame = pd.read_csv(
                io.StringIO(text),
                sep=r"\s+" if trec else fmt.delimiter,
                header=None if trec else 0,
                names=None if trec else list(fmt.header),
                dtype=str,
                keep_default_na=False,
                na_values=[""],
            )
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise unreadable(name, exc, fmt.kind) from None
        if trec and frame.shape[1] != len(trec_columns):
            raise DataError(
                f"{name}: a TREC file has {len(trec_columns)} whitespace-separated columns "
                f"({' '.join(trec_columns)}), found {frame.shape[1]}"
            )
        if trec:
            frame.columns = list(trec_columns)
    return Table(frame, fmt, name, n_decode_replaced=int(replaced))


def check_parquet_limits(source: str | os.PathLike | BinaryIO, name: str, limits: ReadLimits) -> None:
    """A Parquet file's rows and unpacked bytes, from its footer, against ``limits`` (a column of one repeated
    value packs millions of rows into a few bytes)."""
    with _binary(source) as handle:
        try:
            import pyarrow.parquet as pq  # only when a Parquet file is checked

            meta = pq.ParquetFile(handle).metadata
        except (OSError, pa.ArrowException):
            raise DataError(f"{name}: not a readable Parquet file") from None
    if meta.num_rows > limits.max_rows:
        raise DataError(f"{name}: more than {limits.max_rows:,} rows, the most this reader takes here")
    unpacked = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if unpacked > limits.max_bytes:
        raise DataError(
            f"{name}: unpacks to more than {_size_phrase(limits.max_bytes)}, the most this reader takes here"
        )


def _json_records(text: str, name: str) -> list[dict]:
    """The records of one JSON array, or of JSON values one after another (JSON lines)."""
    try:
        if text.lstrip().startswith("["):
            records = json.loads(text)
        else:
            records = list(_json_values(text))
    except json.JSONDecodeError as exc:
        raise DataError(f"{name}: line {exc.lineno} is not valid JSON ({exc.msg})") from None
    if len(records) == 1 and records[0] and all(isinstance(v, dict) for v in records[0].values()):
        # ranx's Run.save / Qrels.save: one object {query: {doc: score}}, read as ranx's own columns.
        return [{"q_id": q, "doc_id": d, "score": v} for q, docs in records[0].items() for d, v in docs.items()]
    not_objects = np.array([not isinstance(r, dict) for r in records], dtype=bool)
    if not_objects.any():
        raise DataError(f"{name}: a record must be a JSON object; not in {rows_phrase(not_objects)}")
    return records


def _json_values(text: str, *, array: bool = False) -> Iterator:
    """JSON values one after another, or (``array``) the elements of the array that ``text`` opens.

    Decoding stops at the first value that does not parse, so a head of a file cut
    inside a record still yields the records before it.
    """
    decoder = json.JSONDecoder()
    gap = _ARRAY_GAP if array else _SPACE
    position = gap.match(text, text.index("[") + 1 if array else 0).end()
    while position < len(text) and not (array and text[position] == "]"):
        value, position = decoder.raw_decode(text, position)
        yield value
        position = gap.match(text, position).end()


# ---------------------------------------------------------------- header peek


def peek_columns(source: str | os.PathLike | BinaryIO, file_type: str | None = None) -> list[str]:
    """The column names of a per-chunk results file, reading only its head (the dashboard's mapping step).

    The names :func:`ragunc.load_results` finds: the delimited header as :func:`detect`
    splits it, the Parquet schema, or the keys of the first JSON records.  Raises the
    loader's :class:`DataError` for a file it refuses before reading rows (unknown
    type, empty, not gzip after all), and one naming the file when the head cannot be
    parsed.
    """
    name = source_name(source)
    fmt = detect(source, file_type)
    if fmt.kind == "csv":
        return list(fmt.header)
    if fmt.kind == "parquet":
        with _binary(source) as handle:
            try:
                import pyarrow.parquet as pq  # its file-system layer (ssl, S3) only when a Parquet file is peeked

                return list(pq.read_schema(handle).names)
            except (OSError, pa.ArrowException) as exc:
                raise unreadable(name, exc, "parquet") from None
    size = _HEAD_BYTES
    while True:
        with _binary(source) as handle:
            head, _, complete = _read_head(handle, size, name)
        text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
        keys: dict[str, None] = {}
        try:
            for record in itertools.islice(_json_values(text, array=fmt.json_array), _PEEK_RECORDS):
                if isinstance(record, dict):
                    keys.update(dict.fromkeys(map(str, record)))
        except json.JSONDecodeError as exc:
            if complete or (not keys and size >= _MAX_HEAD_BYTES):
                raise DataError(f"{name}: line {exc.lineno} is not valid JSON ({exc.msg})") from None
            if not keys:  # the first record is longer than the head
                size *= 4
                continue
        return list(keys)
