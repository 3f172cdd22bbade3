"""The one file reader of ragunc: what a file is (kind, gzip, delimiter, header), its rows, and its errors.

Every loader asks :func:`detect` what a file is — per-chunk results (through DuckDB),
runs and qrels, corpora, query files — and so does the dashboard's column peek
(:func:`peek_columns`), so a file one of them reads the others read the same way,
and bad input is one :class:`DataError` wording.

- Kind, from the name first: ``.csv`` and ``.tsv`` are delimited text with a header,
  ``.parquet``/``.pq`` Parquet, ``.jsonl``/``.ndjson``/``.json`` JSON (one record per line,
  or one array of records); ``.gz`` may follow any of them.  The content refines it:
  the Parquet magic number wins over the name, and for the loaders of runs and qrels
  a text file whose first line has no header (a number among its whitespace-separated
  fields, e.g. ``q1 Q0 c3 1 12.5 bm25``) is a TREC file, whatever its suffix.
- gzip, from the magic bytes, not the name.
- Delimiter of delimited text: comma, tab, semicolon or pipe, sniffed from the header
  and the first lines (``.tsv`` breaks ties towards tab), quoted with ``"``.
- Header: the first line's names, trimmed, an empty name given its position (``column0``)
  and a repeated one a suffix (``y_1``), as DuckDB's own sniffer names them; DuckDB is
  then handed these names and the delimiter instead of sniffing its own.
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
_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}
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
    except zlib.error as exc:
        raise DataError(f"{name}: not a readable gzip file ({exc})") from None
    if not out and inflate.eof:
        raise DataError(f"{name} is an empty file")
    return bytes(out), True, inflate.eof or not raw


def read_bytes(source: str | os.PathLike | BinaryIO) -> bytes:
    """The whole content, decompressed when it is gzip."""
    name = source_name(source)
    with _binary(source) as handle:
        raw = _as_bytes(handle.read())
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:  # the last two: a cut or corrupt stream
        raise DataError(f"{name}: not a readable gzip file ({exc})") from None


def read_text(source: str | os.PathLike | BinaryIO, *, replace_invalid: bool = False) -> tuple[str, bool]:
    """The content as UTF-8 text (a byte-order mark dropped) and whether invalid bytes were replaced.

    Invalid UTF-8 is a :class:`DataError` naming the line, unless ``replace_invalid``
    (corpora), where it becomes U+FFFD and the flag says so.
    """
    raw = read_bytes(source)
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
) -> Table:
    """Every row of a file, for the loaders that validate in pandas (runs, qrels, corpora, queries).

    Delimited text and TREC fields stay text (ids like ``007`` or ``NA`` stay ids);
    only a blank field is missing.  JSON values keep their JSON types.  A TREC file
    (allowed when ``trec_columns`` names its columns) must have exactly that many
    whitespace-separated fields.
    """
    name = source_name(source)
    fmt = detect(source, file_type, trec=trec_columns is not None)
    if fmt.kind == "parquet":
        try:
            frame = pd.read_parquet(io.BytesIO(read_bytes(source)))
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise DataError(f"cannot read {name}: {exc}") from None
        return Table(frame, fmt, name)
    text, replaced = read_text(source, replace_invalid=replace_invalid)
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
            what = "a TREC file" if trec else f"{_DELIMITER_NAMES[fmt.delimiter]}-separated text"
            raise DataError(f"{name}: cannot read as {what}: {exc}") from None
        if trec and frame.shape[1] != len(trec_columns):
            raise DataError(
                f"{name}: a TREC file has {len(trec_columns)} whitespace-separated columns "
                f"({' '.join(trec_columns)}), found {frame.shape[1]}"
            )
        if trec:
            frame.columns = list(trec_columns)
    return Table(frame, fmt, name, n_decode_replaced=int(replaced))


def _json_records(text: str, name: str) -> list[dict]:
    """The records of one JSON array, or of JSON values one after another (JSON lines)."""
    try:
        if text.lstrip().startswith("["):
            records = json.loads(text)
        else:
            records = list(_json_values(text))
    except json.JSONDecodeError as exc:
        raise DataError(f"{name}: line {exc.lineno} is not valid JSON ({exc.msg})") from None
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
                raise DataError(f"cannot read {name}: {exc}") from None
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
