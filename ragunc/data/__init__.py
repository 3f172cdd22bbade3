"""The data contract: reading files, per-chunk results, per-document statistics, runs and qrels, JSON serialisation.

Owns the validation boundary: everything above it assumes clean arrays, and every bad
input is a :class:`DataError` naming the file, the column and the rows.  One reader
(:mod:`.reader`) says what every file is, for every loader and the dashboard's column
peek alike; one contract (:mod:`.contract`) says what the columns of per-chunk results
hold.  Chunk rows aggregate to per-document statistics (:mod:`.per_document`, a file
format of its own) in DuckDB (:mod:`.duckdb_sql`; out of core over many files:
:mod:`.aggregate`) or on Spark (:mod:`.spark`, the optional extra ``spark``; pyspark is
imported only there).  :mod:`.results` is the loading API (``load_results`` & co.).
May import ``stats`` (the per-document sample it builds) and nothing else of ragunc.
"""

from .contract import CONTRACT_COLUMNS, OPTIONAL, REQUIRED, ColumnCheck, check_columns
from .per_document import is_per_document
from .reader import (
    RESULT_SUFFIXES,
    DataError,
    FileFormat,
    ReadLimits,
    Table,
    detect,
    infer_file_type,
    peek_columns,
    read_table,
    rows_phrase,
)
from .results import Results, load_results, results_from_frame, write_results
from .runs import (
    Qrels,
    Run,
    load_chunk_map,
    load_qrels,
    load_run,
    load_runs,
    qrels_from_frame,
    query_groups,
    run_from_frame,
    runs_from_frame,
)
from .serialize import json_text, jsonable

__all__ = [
    "CONTRACT_COLUMNS",
    "OPTIONAL",
    "REQUIRED",
    "RESULT_SUFFIXES",
    "ColumnCheck",
    "DataError",
    "FileFormat",
    "Qrels",
    "ReadLimits",
    "Results",
    "Run",
    "Table",
    "check_columns",
    "detect",
    "infer_file_type",
    "is_per_document",
    "json_text",
    "jsonable",
    "load_chunk_map",
    "load_qrels",
    "load_results",
    "load_run",
    "load_runs",
    "peek_columns",
    "qrels_from_frame",
    "query_groups",
    "read_table",
    "results_from_frame",
    "rows_phrase",
    "run_from_frame",
    "runs_from_frame",
    "write_results",
]
