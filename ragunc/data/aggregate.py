"""Chunk rows in any number of files to one per-document statistics file, out of core (``ragunc aggregate``).

The same validation and aggregation as :func:`ragunc.data.results.load_results`,
run through DuckDB over many files at once (names, glob patterns, folders such as
a partitioned Parquet data set, ``key=value`` folders read as columns), with DuckDB
spilling to disk beyond its memory limit: memory stays flat however many rows.
The per-document table never passes through Python; DuckDB writes it in the
format of :mod:`ragunc.data.per_document`, which every command then reads.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from . import per_document
from .duckdb_sql import (
    DOCUMENTS,
    aggregate_chunk_rows,
    columns_of,
    connection,
    first_line,
    quote,
    relation_sql,
)
from .reader import DataError, FileFormat, detect, infer_file_type, listing, unreadable

# DuckDB's share of the memory: the per-document table never enters Python, so it may have
# most of it (peak RSS per input size: bench/bench_load.py).
MEMORY_LIMIT = "1GB"


@dataclass(frozen=True)
class AggregateSummary:
    """What :func:`aggregate` wrote: where, from how many files and rows, and the documents per config."""

    out: str
    file_type: str
    files: int
    rows: int
    documents: dict[str, int]  # config -> documents

    def to_dict(self) -> dict:
        return {
            "out": self.out,
            "file_type": self.file_type,
            "format_version": per_document.FORMAT_VERSION,
            "files": self.files,
            "rows": self.rows,
            "documents": sum(self.documents.values()),
            "configs": dict(self.documents),
        }


def expand_inputs(inputs: Sequence[str | os.PathLike]) -> list[Path]:
    """The files INPUTS name: files as given, glob patterns (``**`` recursive), folders as every data file below.

    Sorted and without repeats; a DataError when an input names nothing.
    """
    if not inputs:
        raise DataError("no input files given")
    found: set[Path] = set()
    for given in inputs:
        text = os.fspath(given)
        path = Path(text)
        if path.is_dir():
            matches = [p for p in path.rglob("*") if p.is_file() and _is_data_file(p)]
            what = "a folder with no .csv, .tsv, .parquet, .jsonl, .ndjson or .json file (optionally .gz) below it"
        elif any(ch in text for ch in "*?["):
            matches = [Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file()]
            what = "a pattern that matches no file"
        else:
            if not path.is_file():
                raise FileNotFoundError(f"no such file: {text}")
            matches = [path]
        if not matches:
            raise DataError(f"{text!r} is {what}")
        found.update(matches)
    return sorted(found)


def aggregate(
    inputs: Sequence[str | os.PathLike],
    out: str | os.PathLike,
    *,
    columns: dict[str, str] | None = None,  # contract name -> name in the files, as for load_results
    file_type: str | None = None,  # of the inputs; inferred from their names when None
    progress: Callable[[int, int], None] | None = None,
) -> AggregateSummary:
    """Validate and aggregate the chunk rows of every input file into the per-document file ``out``.

    ``out`` is written as Parquet, CSV/TSV or JSON lines by its name (``.gz`` allowed),
    and only once everything is checked: a bad input leaves no file behind.
    Raises :class:`DataError` naming column, rows and file, as ``load_results`` does.
    """
    files = expand_inputs(inputs)
    formats = {p: detect(p, file_type) for p in files}  # the one reader's kind, gzip and delimiter of each
    kinds = {p: f.kind for p, f in formats.items()}
    if len(set(kinds.values())) > 1:
        by_kind = {k: [p.name for p, v in kinds.items() if v == k][:2] for k in sorted(set(kinds.values()))}
        raise DataError(
            "the inputs mix file types ("
            + "; ".join(f"{k}: {listing(v)}" for k, v in by_kind.items())
            + "); aggregate one type at a time"
        )
    out_kind = infer_file_type(str(out))
    name = str(files[0]) if len(files) == 1 else f"{len(files)} files ({files[0]}, …)"
    with connection(memory_limit=MEMORY_LIMIT) as con:
        if len(files) == 1 and not _hive(files):  # exactly as load_results reads it
            relation = relation_sql(con, files[0], formats[files[0]])
        else:
            relation = _files_relation(con, files, formats)
        n_rows = aggregate_chunk_rows(con, relation, columns, name, by_file=len(files) > 1, progress=progress)
        try:
            documents = con.execute(
                f"SELECT config, count(*) FROM {DOCUMENTS} GROUP BY config ORDER BY config"
            ).fetchall()
        except duckdb.Error as exc:
            raise unreadable(name, exc) from None
        try:
            _write(con, Path(out), out_kind)
        except duckdb.Error as exc:
            raise OSError(f"cannot write {out}: {first_line(exc)}") from None
    return AggregateSummary(
        out=str(out),
        file_type=out_kind,
        files=len(files),
        rows=n_rows,
        documents={config: int(n) for config, n in documents},
    )


def _is_data_file(path: Path) -> bool:
    if path.name.startswith((".", "_")):  # a writer's markers and checksums (_SUCCESS, .part-0.crc)
        return False
    try:
        infer_file_type(path.name)
    except DataError:
        return False
    return True


def _hive(files: list[Path]) -> bool:
    """Whether the files sit in folders named key=value (a partitioned data set: key is a column)."""
    return any("=" in part for p in files for part in p.parent.parts)


def _files_relation(con: duckdb.DuckDBPyConnection, files: list[Path], formats: dict[Path, FileFormat]) -> str:
    """One relation over every file, columns matched by name (a file may lack an optional column)."""
    where = "[" + ", ".join(quote(str(p)) for p in files) + "]"
    common = f"union_by_name = true, hive_partitioning = {str(_hive(files)).lower()}"
    kind = formats[files[0]].kind
    if kind == "parquet":
        return f"read_parquet({where}, {common})"
    gzipped = {f.gzip for f in formats.values()}
    if len(gzipped) == 1:  # the reader's finding from the bytes; DuckDB would go by the names
        common += f", compression = {quote('gzip' if gzipped.pop() else 'none')}"
    if kind == "csv":
        delimiters = {f.delimiter for f in formats.values()}
        if len(delimiters) > 1:
            raise DataError(f"the inputs mix delimiters ({listing(sorted(delimiters))}); aggregate one at a time")
        # The reader's delimiter, as for one file; text for every column: doc ids keep their zeros
        # and y is checked by us.
        return (
            f"read_csv({where}, header = true, all_varchar = true, delim = {quote(delimiters.pop())}, "
            f"quote = '\"', escape = '\"', {common})"
        )
    names = columns_of(con, f"read_json({where}, format = 'auto', {common})", files[0])
    spec = ", ".join(f"{quote(n)}: 'VARCHAR'" for n in names)
    return f"read_json({where}, format = 'auto', {common}, columns = {{{spec}}})"


def _write(con: duckdb.DuckDBPyConnection, out: Path, kind: str) -> None:
    """COPY the per-document view to ``out`` in document order, through a temporary name replaced at the end."""
    lower = out.name.lower()
    gzip = lower.endswith(".gz")
    options = {
        "parquet": "FORMAT parquet",
        "csv": "FORMAT csv, HEADER true" + (", DELIMITER '\t'" if lower.removesuffix(".gz").endswith(".tsv") else ""),
        "jsonl": "FORMAT json",
    }[kind] + (", COMPRESSION gzip" if gzip and kind != "parquet" else "")
    partial = out.with_name(f".{out.name}.partial")
    con.execute("SET preserve_insertion_order = true")  # rows in (config, doc_id) order: the same bytes each run
    try:
        con.execute(
            f"COPY (SELECT {per_document.FORMAT_VERSION} AS {per_document.FORMAT_COLUMN}, * FROM {DOCUMENTS} "
            f"ORDER BY config, doc_id) TO {quote(str(partial))} ({options})"
        )
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
