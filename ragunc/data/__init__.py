"""The data contract: reading files, per-chunk results, per-document statistics, runs and qrels, JSON serialisation.

Owns the validation boundary: everything above it assumes clean arrays, and every bad
input is a :class:`DataError` naming the file, the column and the rows.  One reader
(:mod:`.reader`) says what every file is, for every loader and the dashboard's column
peek alike.  Chunk rows aggregate to per-document statistics (:mod:`.per_document`, a
file format of its own) in DuckDB (:mod:`.results`, out of core over many files:
:mod:`.aggregate`) or on Spark (:mod:`.spark`, the optional extra ``spark``; pyspark is
imported only there).  May import ``stats`` (the per-document sample it builds) and
nothing else of ragunc.
"""

from .per_document import is_per_document
from .reader import RESULT_SUFFIXES, DataError, FileFormat, Table, detect, peek_columns, read_table, rows_phrase
from .results import (
    CONTRACT_COLUMNS,
    OPTIONAL,
    REQUIRED,
    ColumnCheck,
    Results,
    check_columns,
    infer_file_type,
    load_results,
    results_from_frame,
    write_results,
)
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
    "CONTRACT_COLUMNS", "OPTIONAL", "REQUIRED", "RESULT_SUFFIXES", "ColumnCheck", "DataError", "FileFormat",
    "Qrels", "Results", "Run", "Table", "check_columns", "detect", "infer_file_type", "is_per_document", "json_text",
    "jsonable", "load_chunk_map", "load_qrels", "load_results", "load_run", "load_runs", "peek_columns",
    "qrels_from_frame", "query_groups", "read_table", "results_from_frame", "rows_phrase", "run_from_frame",
    "runs_from_frame", "write_results",
]
