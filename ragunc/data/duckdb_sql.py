"""The DuckDB engine: the SQL that validates per-chunk results and aggregates them into per-document statistics.

Rows are aggregated once into per-(config, document) sums, counting every
violation of :data:`ragunc.data.contract.CHECKS` on the way; passes over hashed
keys look for repeated chunk_index and chunk_id, and with ``chunk_index`` one more
pass pairs each chunk with the next for the neighbour products.  Only when a count
is nonzero does a slower, single-threaded pass look up the offending row numbers.
The sums are the per-document statistics of :mod:`ragunc.data.per_document`; a
table already in that format is read as it is.  Aggregation streams: rows are
never all held in pandas, and DuckDB spills to disk beyond its memory limit.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import numpy as np

from . import per_document
from .contract import CHECKS, JUDGE, resolve_columns
from .per_document import DEFAULT_CONFIG
from .reader import SHOWN_ROWS, DataError, FileFormat, rows_phrase, unreadable

# DuckDB spills to disk beyond its memory limit.  A load keeps its arrays in Python as
# well, so it gives DuckDB little, enough to keep a 10M-row load under bench/bench_load.py's
# 0.5 GB target.  ``ragunc aggregate`` keeps nothing in Python and gives more.
_MEMORY_LIMIT = "256MB"
_ROW = "__ragunc_row"  # 1-based data-row number, only on the error path


@contextmanager
def connection(memory_limit: str = _MEMORY_LIMIT) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection that spills to a temporary folder beyond ``memory_limit`` and prints nothing."""
    with (
        tempfile.TemporaryDirectory(prefix="ragunc-duckdb-") as spill,
        duckdb.connect(
            config={
                "threads": min(os.cpu_count() or 1, 4),  # more threads buy little here and each wants buffer memory
                "memory_limit": memory_limit,
                "temp_directory": spill,
                "preserve_insertion_order": False,  # the fast pass never needs row order
            }
        ) as con,
    ):
        con.execute("SET enable_progress_bar = false")  # it would print into stdout, e.g. into the CLI's JSON
        yield con


def quote(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def relation_sql(con: duckdb.DuckDBPyConnection, path: Path, fmt: FileFormat) -> str:
    """The ``read_*`` table function that reads the file at ``path`` as :func:`ragunc.data.reader.detect` found it."""
    compression = "'gzip'" if fmt.gzip else "'none'"
    where = quote(str(path))
    if fmt.kind == "parquet":
        return f"read_parquet({where})"
    if fmt.kind == "csv":
        # The reader's delimiter and header, not DuckDB's own sniffing, so that the dashboard's
        # peek and this load see the same columns.  Text for every column: doc ids like "007"
        # keep their zeros and y is parsed (and checked) by us.
        spec = ", ".join(f"{quote(n)}: 'VARCHAR'" for n in fmt.header)
        return (
            f"read_csv({where}, header = true, auto_detect = false, delim = {quote(fmt.delimiter)}, "
            f"quote = '\"', escape = '\"', compression = {compression}, columns = {{{spec}}})"
        )
    auto = f"read_json({where}, format = 'auto', compression = {compression})"
    names = columns_of(con, auto, path)
    # As text, so a key holding mixed JSON types is still one column we check ourselves.
    spec = ", ".join(f"{quote(n)}: 'VARCHAR'" for n in names)
    return f"read_json({where}, format = 'auto', compression = {compression}, columns = {{{spec}}})"


def columns_of(con: duckdb.DuckDBPyConnection, relation: str, name) -> dict[str, str]:
    """Column name -> DuckDB type of ``relation``; a DataError naming ``name`` when DuckDB cannot read it."""
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
    except duckdb.Error as exc:
        raise unreadable(name, exc) from None
    return {row[0]: row[1] for row in described}


def first_line(exc: Exception) -> str:
    """DuckDB's headline, plus the line saying why when one follows (e.g. "This file is not utf-8 encoded.").

    A CSV error's headline only gives the line number; the reason comes after the
    offending line's text, before the suggested fixes and the sniffer's settings.
    """
    lines = [line.strip() for line in str(exc).strip().splitlines()]
    block = lines[1 : lines.index("")] if "" in lines else lines[1:]  # a blank line ends the message proper
    reason = next((line for line in block[:2] if not line.startswith("Original Line")), "")
    if not reason or reason.startswith(("Possible", "LINE ")):  # fixes to try, or the SQL we ran
        return lines[0]
    return f"{lines[0]}: {reason}"


def _text(col: str, typ: str) -> str:
    return col if typ == "VARCHAR" else f"CAST({col} AS VARCHAR)"


def _empty(col: str, typ: str) -> str:
    if typ != "VARCHAR":  # only text can be blank
        return f"({col} IS NULL)"
    # trim only strings that sort below '!' (empty or starting with a space): trimming every value is costly
    return f"({col} IS NULL OR CASE WHEN {col} < '!' THEN trim({col}) = '' ELSE false END)"


def _label(column: str, typ: str, alias: str, flag: str, *, optional: bool = False) -> list[str]:
    """A label column parsed as ``alias`` (DOUBLE) with its ``{flag}_empty``, ``_text`` and ``_range`` flags.

    ``optional``: an empty value is NULL and no violation (the gold label of a row not audited).
    """
    if typ == "VARCHAR":
        # true/false are hits too (e.g. a boolean column written to CSV/JSON)
        num = f"CASE lower(trim({column})) WHEN 'true' THEN 1.0 WHEN 'false' THEN 0.0 ELSE TRY_CAST({column} AS DOUBLE) END"
    else:
        num = f"TRY_CAST({column} AS DOUBLE)"
    empty = f"({_empty(column, typ)} OR coalesce(isnan({num}), false))"
    return [
        f"CASE WHEN {empty} THEN NULL ELSE {num} END AS {alias}" if optional else f"{num} AS {alias}",
        f"{'false' if optional else empty} AS {flag}_empty",
        f"NOT {_empty(column, typ)} AND {num} IS NULL AS {flag}_text",
        f"NOT coalesce(isnan({num}), true) AND ({num} < 0 OR {num} > 1) AS {flag}_range",
    ]


def _typed_rows(resolved: dict[str, str], types: dict[str, str], relation: str, keep: tuple[str, ...] = ()) -> str:
    """SELECT of contract columns with parsed values and per-row violation flags (plus ``keep`` as is)."""

    def col(contract):
        return _ident(resolved[contract])

    def typ(contract):
        return types[resolved[contract]]

    if JUDGE in resolved:  # y is the judge's label; the person's, where audited, is gold
        select = [
            *map(_ident, keep),
            *_label(col(JUDGE), typ(JUDGE), "y", "judge"),
            *_label(col("y"), typ("y"), "gold", "y", optional=True),
        ]
    else:
        select = [*map(_ident, keep), *_label(col("y"), typ("y"), "y", "y")]
    select += [
        f"{_text(col('doc_id'), typ('doc_id'))} AS doc_id",
        f"{_empty(col('doc_id'), typ('doc_id'))} AS doc_empty",
    ]
    if "config" in resolved:
        select += [
            f"{_text(col('config'), typ('config'))} AS config",
            f"{_empty(col('config'), typ('config'))} AS config_empty",
        ]
    else:
        select += [f"{quote(DEFAULT_CONFIG)} AS config", "false AS config_empty"]
    if "doc_type" in resolved:
        select += [
            f"{_text(col('doc_type'), typ('doc_type'))} AS doc_type",
            f"{_empty(col('doc_type'), typ('doc_type'))} AS type_empty",
        ]
    if "chunk_id" in resolved:
        select += [
            f"{_text(col('chunk_id'), typ('chunk_id'))} AS chunk_id",
            f"{_empty(col('chunk_id'), typ('chunk_id'))} AS cid_empty",
        ]
    if "chunk_index" in resolved:
        ci = f"TRY_CAST({col('chunk_index')} AS DOUBLE)"
        select += [
            f"CASE WHEN {ci} >= 0 AND {ci} = floor({ci}) THEN CAST({ci} AS BIGINT) END AS chunk_index",
            f"coalesce(NOT ({ci} >= 0 AND {ci} = floor({ci}) AND {ci} < 9.2e18), true) AS ci_bad",
        ]
    return f"SELECT {', '.join(select)} FROM {relation}"


def read_statistics(
    con: duckdb.DuckDBPyConnection, relation: str, columns: dict[str, str] | None, name: str
) -> tuple[dict[str, np.ndarray], int]:
    """The per-document statistics of ``relation`` as arrays, and the number of chunk rows they sum.

    A per-document table (:mod:`ragunc.data.per_document`) is read as it is and checked;
    chunk rows are validated and aggregated (:func:`aggregate_chunk_rows`).
    """
    types = columns_of(con, relation, name)
    # ---- per-document statistics (ragunc/data/per_document.py) are read as they are, not aggregated
    if per_document.is_per_document(types):
        con.execute("SET preserve_insertion_order = true")  # file order: row numbers in messages
        try:
            raw = con.execute(f"SELECT * FROM {relation}").fetchnumpy()
        except duckdb.Error as exc:
            raise unreadable(name, exc) from None
        stats = per_document.validated(raw, name, mapping=columns)
        return stats, int(stats["chunks"].sum())
    # ---- chunk rows
    n_rows = aggregate_chunk_rows(con, relation, columns, name, types=types)
    try:
        per_doc = con.execute(f"SELECT * FROM {DOCUMENTS} ORDER BY config, doc_id").fetchnumpy()
    except duckdb.Error as exc:
        raise unreadable(name, exc) from None
    return per_doc, n_rows


DOCUMENTS = "__ragunc_documents"  # the view aggregate_chunk_rows leaves: per-document statistics
_SPAN_BITS = 64  # documents whose chunk_index spans at most this many: repeats found from the bits of an integer


def aggregate_chunk_rows(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    columns: dict[str, str] | None,
    name: str,
    *,
    types: dict[str, str] | None = None,
    by_file: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Validate chunk rows and aggregate them into the temporary view ``DOCUMENTS``; returns the row count.

    The view has the columns of :mod:`ragunc.data.per_document` (less its version
    marker), one row per (config, doc_id).  Everything stays in DuckDB, which spills
    to disk beyond its memory limit, so the rows may be any number of files.
    ``by_file``: the relation reads several files, and row numbers in messages count
    each file's rows.  ``progress(done, total)`` follows the passes over the rows.
    """
    types = types if types is not None else columns_of(con, relation, name)
    resolved = resolve_columns(types, columns, name)
    rows = _typed_rows(resolved, types, relation)
    has_ci, has_cid, has_type = ("chunk_index" in resolved), ("chunk_id" in resolved), ("doc_type" in resolved)
    passes = _Passes(con, progress, 1 + has_ci + has_cid)

    # Per-row checks, counted together (the error pass counts each exactly); chunk_id's is
    # counted in its own pass, which reads that column anyway (it is the widest to read).
    flags = [key for key, *_ in CHECKS if key in _flag_columns(resolved) - {"cid_empty"}]
    aggs = [
        "hash(config, doc_id) AS key",
        "count(*) AS chunks",
        "sum(y) AS sum_y",
        "sum(y * y) AS sum_y2",
        f"count(*) FILTER (WHERE {' OR '.join(flags)}) AS violations",
    ]
    if has_ci:
        aggs += [
            "arg_min(y, chunk_index) AS first_y",
            "arg_max(y, chunk_index) AS last_y",
            "max(chunk_index) - min(chunk_index) + 1 AS index_span",
            # Within a span of at most 64 indices, chunk_index mod 64 is one bit per distinct
            # index: fewer bits than chunks means a repeated chunk_index, exactly.  (A fixed-size
            # state: DuckDB spills it, unlike bitstring_agg's, which ran out of memory on
            # shuffled rows.)
            f"bit_count(bit_or(CAST(1 AS UBIGINT) << CAST(chunk_index % {_SPAN_BITS} AS UBIGINT))) AS index_distinct",
        ]
    if has_type:
        aggs += ["min(doc_type) AS doc_type", "max(doc_type) AS doc_type_max"]
    judged = JUDGE in resolved
    if judged:  # y is the judge's; the audit's sums (per_document.JUDGED)
        aggs += [
            "count(gold) AS audited",
            "coalesce(sum(gold), 0) AS sum_gold",
            "coalesce(sum(gold * gold), 0) AS sum_gold2",
            "coalesce(sum(y) FILTER (WHERE gold IS NOT NULL), 0) AS sum_judge_audited",
            "coalesce(sum(y * y) FILTER (WHERE gold IS NOT NULL), 0) AS sum_judge2_audited",
            "coalesce(sum(gold * y), 0) AS sum_gold_judge",
        ]
    try:
        passes.run(
            f"CREATE OR REPLACE TEMP TABLE __ragunc_sums AS "
            f"SELECT config, doc_id, {', '.join(aggs)} FROM ({rows}) GROUP BY config, doc_id"
        )
        n_rows, violations, type_varies, gaps, ci_dup, long_spans = con.execute(
            "SELECT coalesce(sum(chunks), 0), coalesce(sum(violations), 0), "
            + ("count(*) FILTER (WHERE doc_type <> doc_type_max), " if has_type else "0, ")
            + (
                f"count(*) FILTER (WHERE index_span <> chunks), "
                f"coalesce(sum(chunks - index_distinct) FILTER (WHERE index_span <= {_SPAN_BITS}), 0), "
                f"count(*) FILTER (WHERE index_span > {_SPAN_BITS}) "
                if has_ci
                else "0, 0, 0 "
            )
            + "FROM __ragunc_sums"
        ).fetchone()
        if n_rows == 0:
            raise DataError(f"{name} has no data rows")
        counts = {key: int(violations) for key in flags} | {"type_varies": int(type_varies), "ci_dup": int(ci_dup)}
        # Repeated hashes of (config, doc_id, chunk_id), and of (config, doc_id, chunk_index) in
        # documents whose span the bits above do not cover.  Equal keys hash equal, so zero is
        # exact; a rare 64-bit collision only sends us to the exact error pass, which then finds
        # nothing.  Sorting the hashes is cheaper than grouping on them, and both far cheaper
        # than counting distinct strings.
        if long_spans:
            passes.n += 1
            repeats, _ = passes.run(
                _repeated_hashes_sql(
                    rows, "chunk_index", only=f"SELECT key FROM __ragunc_sums WHERE index_span > {_SPAN_BITS}"
                )
            ).fetchone()
            counts["ci_dup"] += repeats
        if has_cid:
            counts["cid_dup"], counts["cid_empty"] = passes.run(_repeated_hashes_sql(rows, "chunk_id")).fetchone()
        if any(counts.values()):
            (threads,) = con.execute("SELECT current_setting('threads')").fetchone()
            _raise_on_violations(con, relation, resolved, counts, name, by_file=by_file)
            # Back only after a hash collision: the error pass's single thread is not kept.
            con.execute(f"SET threads = {int(threads)}")
            con.execute("SET preserve_insertion_order = false")
        exact = has_ci and _keys_collide(con)
        if has_ci:
            passes.run(_neighbours_sql(rows, exact=exact, contiguous=gaps == 0))
    except duckdb.Error as exc:
        raise unreadable(name, exc) from None

    kept = ["config", "doc_id", "chunks", "sum_y", "sum_y2"]
    kept += ["coalesce(sum_y_next, 0) AS sum_y_next", "first_y", "last_y"] * has_ci + ["doc_type"] * has_type
    kept += list(per_document.JUDGED) * judged
    joined = (
        f"__ragunc_sums LEFT JOIN __ragunc_neighbours USING ({'config, doc_id' if exact else 'key'})"
        if has_ci
        else "__ragunc_sums"
    )
    con.execute(f"CREATE OR REPLACE TEMP VIEW {DOCUMENTS} AS SELECT {', '.join(kept)} FROM {joined}")
    return int(n_rows)


def _keys_collide(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether two documents share the 64-bit hash of (config, doc_id)."""
    (distinct, total) = con.execute("SELECT count(DISTINCT key), count(*) FROM __ragunc_sums").fetchone()
    return distinct < total


def _repeated_hashes_sql(rows: str, column: str, *, only: str | None = None) -> str:
    """Rows that repeat the hash of (config, doc_id, ``column``) of another row, and rows where it is empty.

    The hashes are sorted, each beside the next; ``only``: a query of the document
    keys to look at.
    """
    where = f" WHERE hash(config, doc_id) IN ({only})" if only else ""
    empty = {"chunk_id": "cid_empty", "chunk_index": "ci_bad"}[column]
    # An empty value gets no hash: the NULLs are the empty rows (a second column in the sort costs more).
    return (
        "SELECT count(*) FILTER (WHERE h = h_next), count(*) FILTER (WHERE h IS NULL) "
        "FROM (SELECT h, lead(h) OVER (ORDER BY h) AS h_next FROM (SELECT CASE WHEN "
        f"NOT {empty} THEN hash(config, doc_id, {column}) END AS h FROM ({rows}){where}))"
    )


def _neighbours_sql(rows: str, *, exact: bool, contiguous: bool) -> str:
    """The table of sum_y_next, Σ y_i·y_(i+1) over chunks that follow each other in chunk_index order.

    Runs on checked rows (no repeated chunk_index).  When every document's
    chunk_index runs without gaps (``contiguous``, the usual case), a chunk's
    successor is the chunk at chunk_index + 1: a hash join of the rows with y != 0
    (for 0/1 results, the hits alone) replaces the sort.  Otherwise all rows are
    sorted by (document, chunk_index) and each is paired with the next.  The
    document is the 64-bit hash of (config, doc_id); should two documents share
    a hash (``exact``), their chunks would mix, so then the strings are used.
    """
    part = "config, doc_id" if exact else "key"
    select = "config, doc_id" if exact else "hash(config, doc_id) AS key"
    if contiguous:
        nonzero = f"SELECT {select}, chunk_index, y FROM ({rows}) WHERE y <> 0"
        same_document = " AND ".join(f"a.{c} = b.{c}" for c in part.split(", "))
        return (
            f"CREATE OR REPLACE TEMP TABLE __ragunc_neighbours AS SELECT {', '.join(f'a.{c}' for c in part.split(', '))}, "
            f"sum(a.y * b.y) AS sum_y_next FROM ({nonzero}) a JOIN ({nonzero}) b "
            f"ON {same_document} AND a.chunk_index = b.chunk_index - 1 GROUP BY ALL"
        )
    same = "config_next = config AND doc_next = doc_id" if exact else "key_next = key"
    successors = (
        "lead(config) OVER w AS config_next, lead(doc_id) OVER w AS doc_next"
        if exact
        else "lead(key) OVER w AS key_next"
    )
    return (
        f"CREATE OR REPLACE TEMP TABLE __ragunc_neighbours AS SELECT {part}, "
        f"sum(y * y_next) FILTER (WHERE {same}) AS sum_y_next "
        f"FROM (SELECT {part}, y, chunk_index, {successors}, lead(y) OVER w AS y_next "
        f"FROM (SELECT {select}, y, chunk_index FROM ({rows})) WINDOW w AS (ORDER BY {part}, chunk_index)) "
        f"GROUP BY {part}"
    )


class _Passes:
    """Runs the passes over the rows, reporting ``progress(done, total)`` from DuckDB's own progress."""

    def __init__(self, con: duckdb.DuckDBPyConnection, progress: Callable[[int, int], None] | None, n: int):
        self.con, self.progress, self.n, self.done = con, progress, n, 0

    def run(self, sql: str) -> duckdb.DuckDBPyConnection:
        if self.progress is None:
            return self.con.execute(sql)
        # DuckDB measures a running query's progress, read from another thread (it never prints it here).
        self.con.execute("SET enable_progress_bar = true")
        self.con.execute("SET enable_progress_bar_print = false")
        finished = threading.Event()

        def poll() -> None:
            while not finished.wait(0.25):
                percent = self.con.query_progress()
                if percent >= 0:
                    self.progress(100 * self.done + int(percent), 100 * self.n)

        watcher = threading.Thread(target=poll, daemon=True)
        watcher.start()
        try:
            return self.con.execute(sql)
        finally:
            finished.set()
            watcher.join()
            self.done += 1
            self.progress(100 * self.done, 100 * self.n)


def _flag_columns(resolved: dict[str, str]) -> set[str]:
    flags = {"y_empty", "y_text", "y_range", "doc_empty", "config_empty"}
    if JUDGE in resolved:  # y may be empty (a row not audited); the judge's label may not
        flags = flags - {"y_empty"} | {"judge_empty", "judge_text", "judge_range"}
    if "doc_type" in resolved:
        flags.add("type_empty")
    if "chunk_id" in resolved:
        flags.add("cid_empty")
    if "chunk_index" in resolved:
        flags.add("ci_bad")
    return flags


# ---------------------------------------------------------------- error path


def _raise_on_violations(con, relation, resolved, counts, name, *, by_file: bool = False) -> None:
    """Second pass, single-threaded so row_number() follows file order: find the offending rows.

    ``by_file``: the relation reads several files; a row is then named by its number
    in its file and the file's name.  Returns quietly only when the fast pass's hashed
    duplicate count was a collision.
    """
    con.execute("SET threads = 1")
    con.execute("SET preserve_insertion_order = true")
    file_column = ", filename AS __ragunc_file" if by_file else ""
    numbered = f"(SELECT row_number() OVER () AS {_ROW}{file_column}, * FROM {relation})"
    keep = (_ROW, "__ragunc_file") if by_file else (_ROW,)
    rows = _typed_rows(resolved, columns_of(con, numbered, name), numbered, keep=keep)
    label = (
        (
            f"CAST(row_number() OVER (PARTITION BY __ragunc_file ORDER BY {_ROW}) AS VARCHAR) "
            "|| ' (' || __ragunc_file || ')'"
        )
        if by_file
        else _ROW
    )
    ranked = (
        f"SELECT *, {label} AS __ragunc_label, "
        f"row_number() OVER (PARTITION BY config, doc_id, "
        f"{'chunk_id' if 'chunk_id' in resolved else 'NULL'} ORDER BY {_ROW}) AS cid_rank, "
        f"row_number() OVER (PARTITION BY config, doc_id, "
        f"{'chunk_index' if 'chunk_index' in resolved else 'NULL'} ORDER BY {_ROW}) AS ci_rank, "
        f"first_value({'doc_type' if 'doc_type' in resolved else 'NULL'} IGNORE NULLS) OVER (PARTITION BY config, doc_id "
        f"ORDER BY {_ROW} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS first_type "
        f"FROM ({rows})"
    )
    predicates = {
        "cid_dup": "chunk_id IS NOT NULL AND cid_rank > 1",
        "ci_dup": "chunk_index IS NOT NULL AND ci_rank > 1",
        "type_varies": "doc_type IS DISTINCT FROM first_type AND NOT type_empty",
    }
    found = [(key, contract, message) for key, contract, message in CHECKS if counts.get(key)]
    selects = ", ".join(
        f"count(*) FILTER (WHERE {predicates.get(key, key)}), "
        f"list(__ragunc_label ORDER BY {_ROW}) FILTER (WHERE {predicates.get(key, key)})[1:{SHOWN_ROWS}]"
        for key, *_ in found
    )
    located = con.execute(f"SELECT {selects} FROM ({ranked})").fetchone()
    lines = []
    for (key, contract, message), n, first in zip(found, located[::2], located[1::2]):
        if not n:
            continue
        column = repr(contract)
        if resolved[contract] != contract:
            column += f" (file column {resolved[contract]!r})"
        lines.append(f"column {column}: {message.format(n=n)}: {rows_phrase(first, n)}")
    if lines:
        counted = "each file's data rows" if by_file else "data rows"
        raise DataError(f"{name}: " + "; ".join(lines) + f" (row numbers count {counted} from 1)")
