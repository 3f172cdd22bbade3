"""Load per-chunk results (CSV/TSV, Parquet, JSONL; optionally gzip) into per-document sufficient statistics.

The public face of :mod:`ragunc.data`'s loading: :func:`load_results`,
:func:`results_from_frame`, :func:`write_results` and :func:`merge_results`, and
the :class:`Results` they return.  What a file is comes from :mod:`.reader`, what
its columns must hold from :mod:`.contract` (re-exported here), and the SQL that
checks and aggregates the rows from :mod:`.duckdb_sql`; a per-document file
(:mod:`.per_document`) is read as it is.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from ..stats.judged.sample import JudgedSample
from ..stats.linearization import cluster_variance
from ..stats.sample import ClusterStats, finite_population_correction
from . import duckdb_sql, inspect_log, per_document, trec_eval
from .contract import CONTRACT_COLUMNS, OPTIONAL, REQUIRED, ColumnCheck, check_columns
from .per_document import DEFAULT_CONFIG
from .inspect_log import RecordedStderr
from .reader import (
    DataError,
    ReadLimits,
    check_parquet_limits,
    copy_limited,
    detect,
    head_bytes,
    infer_file_type,
    listing,
    peek_columns,
    read_bytes,
    read_text,
    source_name,
)

__all__ = [
    "CONTRACT_COLUMNS",
    "OPTIONAL",
    "REQUIRED",
    "ColumnCheck",
    "DataError",
    "Results",
    "check_columns",
    "infer_file_type",
    "load_results",
    "merge_results",
    "result_columns",
    "results_from_frame",
    "write_results",
]


_TABLE_SUFFIXES = (".parquet", ".pq", ".json", ".jsonl", ".ndjson")  # never a trec_eval -q output


@dataclass(frozen=True)
class Results:
    """What a load returns: one :class:`ClusterStats` per config, in config order.

    Each is the population of that config's documents as loaded: what an interval is computed
    on, and what :func:`~ragunc.stats.sample.draw_sample` draws a sample of K documents from.
    With a judge column (``y_judge``) the populations are the judge's labels, and ``judged``
    holds, per config, the judge's and the audited rows' sums (:class:`JudgedSample`).
    """

    populations: dict[str, ClusterStats]  # config -> sufficient statistics ("default" when no config column)
    n_rows: int
    source: str
    judged: dict[str, JudgedSample] = field(default_factory=dict)  # config -> judged sums; empty without y_judge
    # config -> the standard error the tool that wrote the file recorded (an Inspect log's stderr)
    recorded: dict[str, RecordedStderr] = field(default_factory=dict)

    @property
    def configs(self) -> list[str]:
        return list(self.populations)

    def population(self, config: str | None = None) -> ClusterStats:
        """The config's documents; with None, the only config (DataError listing them when there are several)."""
        if config is None:
            if len(self.populations) != 1:
                raise DataError(
                    f"{self.source} holds several configs ({listing(self.configs)}); choose one of them "
                    "(--config on the command line, the config selector in the app)"
                )
            config = self.configs[0]
        if config not in self.populations:
            raise DataError(f"config {config!r} is not in {self.source}; it holds {listing(self.configs)}")
        population = self.populations[config]
        if population.n_docs < 2:
            # Refused only when chosen: another config of the same file may have many documents.
            where = "" if config == DEFAULT_CONFIG else f" for config {config!r}"
            raise DataError(
                f"{self.source}: column 'doc_id' has a single document ({str(population.cluster_id[0])!r}){where}; "
                "the between-document variance needs at least 2 documents"
            )
        return population

    def recorded_reading(self, config: str, estimator: str = "micro") -> str | None:
        """What the file's writer recorded for ``config`` beside ragunc's cluster SE on all its documents, or None."""
        recorded = self.recorded.get(config)
        if recorded is None:
            return None
        population = self.populations[config]
        fpc = finite_population_correction(population.n_docs, population.population_docs)
        se = float(np.sqrt(cluster_variance(population.sum_y, population.n, estimator, fpc)))
        return recorded.reading(se, estimator=estimator, fpc=population.population_docs is not None)

    def judged_sample(self, config: str | None = None) -> JudgedSample:
        """The config's judged sample (:meth:`population`'s checks, then: a judge column, and an audited row)."""
        sample = self.population(config)
        if not self.judged:
            raise DataError(
                f"{self.source} has no judge column: name it (columns={{'y_judge': ...}}, "
                "--judge-col on the command line)"
            )
        judged = self.judged[sample.config]
        if judged.n_audited == 0:
            where = "" if sample.config == DEFAULT_CONFIG else f" of config {sample.config!r}"
            raise DataError(
                f"{self.source}: column 'y' is empty on every one of the {judged.n_rows:,} rows{where}: with a judge "
                "column ('y_judge'), y holds a person's gold labels on the audited rows, and no row is audited"
            )
        return judged


def merge_results(parts: list[Results], *, source: str | None = None) -> Results:
    """Several loads (e.g. one file per chunk size) as one, config by config; a config in two parts is refused.

    ``source`` names the whole (default: the parts' sources, comma-separated).
    """
    populations: dict[str, ClusterStats] = {}
    for part in parts:
        for config, population in part.populations.items():
            if config in populations:
                raise DataError(f"config {config!r} appears in more than one of {', '.join(p.source for p in parts)}")
            populations[config] = population
    names = source if source is not None else ", ".join(p.source for p in parts)
    judged = {config: j for p in parts for config, j in p.judged.items()}
    recorded = {config: r for p in parts for config, r in p.recorded.items()}
    return Results(
        populations=populations, n_rows=sum(p.n_rows for p in parts), source=names, judged=judged, recorded=recorded
    )


def _results(stats, n_rows: int, source: str) -> Results:
    populations = per_document.populations(stats)
    return Results(
        populations=populations, n_rows=n_rows, source=source, judged=per_document.judged_samples(stats, populations)
    )


def load_results(
    source: str | os.PathLike | BinaryIO,
    *,
    columns: dict[str, str] | None = None,  # contract name -> name in the file, e.g. {"y": "hit1"}
    file_type: str | None = None,  # "csv" | "tsv" | "parquet" | "jsonl"; from the name and content when None
    scorer: str | None = None,  # an Inspect log's scorer, a -q output's measure, giving y (default: the first)
    limits: ReadLimits | None = None,  # caps on what the file unpacks to (a dashboard upload); None: any size
) -> Results:
    """Validate and aggregate a per-chunk results file into one :class:`ClusterStats` per config.

    ``source`` is a path or a binary file-like (e.g. a Streamlit upload, spooled
    to a temporary file); :func:`ragunc.data.reader.detect` says what it is.  An Inspect AI
    log (``.eval`` or ``.json``) is read by :mod:`.inspect_log`, one row per sample and epoch,
    and the stderr Inspect recorded is kept in :attr:`Results.recorded`; trec_eval's and
    ir_measures' per-query output (``-q``) by :mod:`.trec_eval`, one row per query.  Raises
    :class:`DataError` on bad input and ``FileNotFoundError`` when the path does not exist.
    With ``limits`` the file is decompressed as a stream into the temporary file and refused
    the moment it passes them (:class:`~ragunc.data.reader.ReadLimits`).
    """
    name = source_name(source)
    if file_type is None and (hasattr(source, "read") or Path(os.fspath(source)).is_file()):
        head = head_bytes(source)
        if inspect_log.is_inspect_log(head, name):
            log = inspect_log.read_inspect_log(read_bytes(source, limits), name, scorer=scorer, columns=columns)
            results = results_from_frame(log.frame, columns=columns, source=name)
            return replace(results, recorded={log.config: log.recorded} if log.recorded else {})
        if Path(name).suffix.lower() not in _TABLE_SUFFIXES and trec_eval.is_per_query_output(head):
            frame, _, _ = trec_eval.per_query_frame(read_text(source, limits=limits)[0], name, scorer=scorer)
            return results_from_frame(frame, columns=columns, source=name)
    fmt = detect(source, file_type)
    with ExitStack() as stack:
        if limits is not None:
            path = stack.enter_context(_spooled(source, Path(name).name, limits))
            if fmt.kind == "parquet":
                check_parquet_limits(path, name, limits)
            fmt = replace(fmt, gzip=False)
        elif hasattr(source, "read"):
            path = stack.enter_context(_spooled(source, Path(name).name))
        else:
            path = Path(os.fspath(source))
        con = stack.enter_context(duckdb_sql.connection())
        stats, n_rows = duckdb_sql.read_statistics(con, duckdb_sql.relation_sql(con, path, fmt), columns, name)
    return _results(stats, n_rows, name)


def result_columns(source: str | os.PathLike | BinaryIO) -> list[str]:
    """The columns :func:`load_results` maps, for a mapping step (the dashboard's): the file's header,
    or the columns an Inspect log's or a per-query output's rows have (``metadata.<key>`` among them)."""
    name = source_name(source)
    head = head_bytes(source)
    if inspect_log.is_inspect_log(head, name):
        return [c for c in inspect_log.read_inspect_log(read_bytes(source), name).frame.columns if c != "config"]
    if Path(name).suffix.lower() not in _TABLE_SUFFIXES and trec_eval.is_per_query_output(head):
        return ["doc_id", "chunk_id", "y"]
    return peek_columns(source)


def results_from_frame(
    frame: pd.DataFrame, *, columns: dict[str, str] | None = None, source: str = "<frame>"
) -> Results:
    """Same validation and aggregation for an in-memory frame (e.g. chunk-eval output)."""
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    frame = frame.rename(columns=str)
    with duckdb_sql.connection() as con:
        con.register("__ragunc_frame", frame)
        stats, n_rows = duckdb_sql.read_statistics(con, "__ragunc_frame", columns, source)
    return _results(stats, n_rows, source)


def write_results(frame: pd.DataFrame, path: str | os.PathLike, *, file_type: str | None = None) -> str:
    """Write chunk rows in the contract's format for ``path`` (gzip when it ends in ``.gz``); returns the type."""
    kind = infer_file_type(str(path), file_type)
    # mtime 0: the same rows give the same bytes (sample data under version control)
    name = str(path).lower().removesuffix(".gz")
    gz = {"method": "gzip", "mtime": 0} if name != str(path).lower() else None
    if kind == "parquet":
        frame.to_parquet(path, index=False)
    elif kind == "csv":
        frame.to_csv(path, index=False, compression=gz, sep="\t" if name.endswith(".tsv") else ",")
    else:
        frame.to_json(path, orient="records", lines=True, compression=gz)
    return kind


@contextmanager
def _spooled(stream, name: str, limits: ReadLimits | None = None) -> Iterator[Path]:
    """The stream copied to a named temporary file (DuckDB reads paths), removed afterwards; with ``limits``,
    decompressed on the way and refused past them."""
    with tempfile.TemporaryDirectory(prefix="ragunc-upload-") as tmp:
        path = Path(tmp) / (name or "upload")
        with open(path, "wb") as out:
            if limits is not None:
                copy_limited(stream, out, limits)
            else:
                if hasattr(stream, "seek"):
                    stream.seek(0)
                shutil.copyfileobj(stream, out, length=1 << 20)
        yield path
