"""Load ranked runs and relevance judgments (qrels): delimited tables with a header, JSON, Parquet, or TREC.

The validation boundary of the ranking metrics: a :class:`Run` holds, per query,
its retrieved chunks in rank order with the document each chunk belongs to; a
:class:`Qrels` holds graded judgments at document (and optionally chunk) level.
Files are read by :mod:`.reader`: a TREC file is told from a table by its content
(no header), whatever its suffix, or by ``file_type="trec"``.  Errors are
:class:`DataError` naming the column and the first offending rows (1-based data rows
of the file).

The files other tools write are read as they are: BEIR's qrels TSV (``query-id corpus-id
score``), ranx's ``Run.save``/``Qrels.save`` JSON (``{query: {doc: score}}``) and Parquet
(``q_id, doc_id, score``).  Their column names are aliases of the contract's, used when the
contract's own name is absent; ``columns={"query_id": "qid"}`` maps any other name.  A
document-level run (``doc_id`` and no ``chunk_id``) ranks documents: each is its own chunk.

Ties: without ranks, chunks are ordered by descending score and equal scores by descending
``chunk_id`` (code-point order): trec_eval's rule, which ir_measures and pytrec_eval share.
ranx orders equal scores by numba's quicksort, which keeps a list's order only below 16
entries, so ranx has no rule of its own to follow; on untied runs the two agree exactly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import pandas as pd

from .reader import SHOWN_ROWS, DataError, listing, read_table, rows_phrase, source_name

TREC_RUN_COLUMNS = ("query_id", "q0", "chunk_id", "rank", "score", "tag")
TREC_QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "relevance")
RUN_NAME_COLUMNS = ("tag", "run")
# Other tools' names of contract columns (BEIR qrels, ranx DataFrames and Parquet), used when the contract's is absent.
RUN_ALIASES = {"query_id": ("q_id", "query-id", "qid")}
QRELS_ALIASES = {
    "query_id": ("q_id", "query-id", "qid"),
    "doc_id": ("corpus-id", "docno"),
    "relevance": ("score", "rel"),
}  # columns that name a row's run: several values mean several runs in one table


@dataclass(frozen=True)
class Run:
    """Ranked chunks per query. Row arrays (N,) are sorted by query, then rank."""

    query_id: np.ndarray  # (Q,) str, queries in first-seen order
    qidx: np.ndarray  # (N,) int64 index into query_id
    position: np.ndarray  # (N,) int64, 0-based position in the query's ranked list
    chunk_id: np.ndarray  # (N,) str
    doc_id: np.ndarray  # (N,) str
    query_attrs: pd.DataFrame  # one row per query (index query_id): extra columns constant within a query
    source: str = "<run>"

    @property
    def n_queries(self) -> int:
        return int(self.query_id.size)

    def to_frame(self) -> pd.DataFrame:
        """Rows ``query_id, rank (1-based), chunk_id, doc_id``."""
        return pd.DataFrame(
            {
                "query_id": self.query_id[self.qidx],
                "rank": self.position + 1,
                "chunk_id": self.chunk_id,
                "doc_id": self.doc_id,
            }
        )


@dataclass(frozen=True)
class Qrels:
    """Judgments, one row per (query, document[, chunk]); relevance > 0 means relevant."""

    query_id: np.ndarray  # (M,) str
    doc_id: np.ndarray  # (M,) str
    chunk_id: np.ndarray | None  # (M,) object (str, or None for a document-level row); None without chunk judgments
    relevance: np.ndarray  # (M,) float64
    query_attrs: pd.DataFrame  # one row per query (index query_id): extra columns constant within a query
    source: str = "<qrels>"

    @property
    def has_chunks(self) -> bool:
        return self.chunk_id is not None


# -- reading ---------------------------------------------------------------------------------------------------


def _require(frame: pd.DataFrame, columns: tuple[str, ...], name: str, hint: str = "") -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{name}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(found: {', '.join(map(str, frame.columns)) or 'none'}){hint}"
        )


def _no_blanks(frame: pd.DataFrame, columns: tuple[str, ...], name: str) -> None:
    for col in columns:
        blank = frame[col].isna().to_numpy() | (frame[col].astype(str).str.strip() == "").to_numpy()
        if blank.any():
            raise DataError(f"{name}: column {col} is empty in {rows_phrase(blank)}")


def _numbers(frame: pd.DataFrame, col: str, name: str) -> np.ndarray:
    values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        raise DataError(f"{name}: column {col} is not a number in {rows_phrase(bad)}")
    return values


def _query_attrs(frame: pd.DataFrame, used: tuple[str, ...]) -> pd.DataFrame:
    """Extra columns that are constant within every query (candidate group columns)."""
    extra = [c for c in frame.columns if c not in used]
    grouped = frame.groupby("query_id", sort=False)
    keep = [c for c in extra if (grouped[c].nunique(dropna=False) <= 1).all()]
    return (
        grouped[keep].first() if keep else pd.DataFrame(index=pd.Index(pd.unique(frame["query_id"]), name="query_id"))
    )


def with_columns(
    frame: pd.DataFrame, columns: Mapping[str, str] | None, aliases: Mapping[str, tuple[str, ...]], name: str
) -> pd.DataFrame:
    """``frame`` with contract names: ``columns`` (contract name -> the file's column) first, then the aliases."""
    rename = {}
    for contract, given in (columns or {}).items():
        if given in frame.columns and given != contract:
            rename[given] = contract
    for contract, others in aliases.items():
        if contract in frame.columns or contract in rename.values():
            continue
        found = next((a for a in others if a in frame.columns and a not in rename), None)
        if found is not None:
            rename[found] = contract
    clash = [c for c in rename.values() if c in frame.columns and c not in rename]
    if clash:
        raise DataError(
            f"{name}: column {clash[0]} is in the file and also mapped from {next(k for k, v in rename.items() if v == clash[0])}"
        )
    return frame.rename(columns=rename)


# -- chunk map -------------------------------------------------------------------------------------------------


def load_chunk_map(
    source: str | os.PathLike | BinaryIO, *, file_type: str | None = None, columns: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A chunk -> document mapping from a table (CSV, TSV, JSONL, Parquet) with columns ``chunk_id, doc_id``."""
    name = source_name(source)
    frame = with_columns(read_table(source, file_type).frame, columns, {}, name)
    _require(frame, ("chunk_id", "doc_id"), name)
    _no_blanks(frame, ("chunk_id", "doc_id"), name)
    chunks = frame["chunk_id"].astype(str).to_numpy()
    docs = frame["doc_id"].astype(str).to_numpy()
    first_doc = pd.Series(docs).groupby(chunks).transform("first").to_numpy()
    clash = first_doc != docs
    if clash.any():
        raise DataError(f"{name}: a chunk_id maps to two different doc_id values in {rows_phrase(clash)}")
    return dict(zip(chunks, docs))


def _map_chunks(chunks: np.ndarray, chunk_map: dict[str, str], name: str) -> np.ndarray:
    docs = pd.Series(chunks).map(chunk_map)
    unknown = docs.isna().to_numpy()
    if unknown.any():
        ids = ", ".join(pd.unique(chunks[unknown])[:SHOWN_ROWS])
        raise DataError(f"{name}: chunk_id not in the chunk map ({ids}) in {rows_phrase(unknown)}")
    return docs.to_numpy(dtype=object).astype(str)


# -- run -------------------------------------------------------------------------------------------------------


def run_from_frame(frame: pd.DataFrame, *, chunk_map: dict[str, str] | None = None, source: str = "<run>") -> Run:
    """Validate a run table (``query_id``, ``rank`` or ``score``, ``chunk_id``, ``doc_id`` or a chunk map).

    Ranks must be integers; without ranks, chunks are ordered by descending score, equal
    scores by descending chunk_id (trec_eval's rule).  Equal ranks are broken the same way
    when scores are given, and are an error without them.
    """
    name = source
    frame = frame.reset_index(drop=True)
    for col in RUN_NAME_COLUMNS:
        if col in frame.columns and frame[col].nunique() > 1:
            names = pd.unique(frame[col].astype(str))
            raise DataError(
                f"{name}: column {col} names {names.size} runs ({listing(names[:SHOWN_ROWS])}"
                f"{', ...' if names.size > SHOWN_ROWS else ''}); load them as several runs "
                f"(load_runs(..., runs_col={col!r}); CLI: --runs-col {col})"
            )
    hint = "" if chunk_map is not None else "; without doc_id, give a chunk map (chunk_id -> doc_id)"
    _require(frame, ("query_id",) + (() if "doc_id" in frame.columns else ("chunk_id",)), name)
    if "chunk_id" not in frame.columns:  # a document-level run: documents are ranked
        frame = frame.assign(chunk_id=frame["doc_id"])
        if chunk_map is not None:  # the ranked ids are chunks whose documents the map gives
            frame = frame.drop(columns="doc_id")
    if "rank" not in frame.columns and "score" not in frame.columns:
        raise DataError(f"{name}: missing column rank or score (one is needed to order the chunks)")
    if chunk_map is None:
        _require(frame, ("doc_id",), name, hint)
    _no_blanks(frame, ("query_id", "chunk_id") + (() if chunk_map is not None else ("doc_id",)), name)
    query = frame["query_id"].astype(str).to_numpy()
    chunks = frame["chunk_id"].astype(str).to_numpy()
    if chunk_map is not None:
        docs = _map_chunks(chunks, chunk_map, name)
        if "doc_id" in frame.columns:
            given = frame["doc_id"].astype(str).to_numpy()
            clash = frame["doc_id"].notna().to_numpy() & (given != docs)
            if clash.any():
                raise DataError(f"{name}: column doc_id disagrees with the chunk map in {rows_phrase(clash)}")
    else:
        docs = frame["doc_id"].astype(str).to_numpy()

    codes, query_ids = pd.factorize(query)
    has_rank = "rank" in frame.columns
    score = _numbers(frame, "score", name) if "score" in frame.columns else None
    if has_rank:
        rank = _numbers(frame, "rank", name)
        bad = (rank != np.round(rank)) | (rank < 1)
        if bad.any():
            raise DataError(f"{name}: column rank must be a positive integer; not in {rows_phrase(bad)}")
        primary = rank
    else:
        primary = -score
    secondary = -score if (has_rank and score is not None) else np.zeros(len(frame))
    if score is None:  # equal ranks and no score: nothing orders them
        order = np.lexsort((primary, codes))
        same = (codes[order][1:] == codes[order][:-1]) & (primary[order][1:] == primary[order][:-1])
        if same.any():
            tied = np.zeros(len(frame), dtype=bool)
            tied[order[1:][same]] = tied[order[:-1][same]] = True
            raise DataError(
                f"{name}: ties without scores: equal rank within a query in {rows_phrase(tied)}; "
                "the order of these chunks is undefined"
            )
    else:  # trec_eval's rule: equal scores by descending chunk id
        _, by_id = np.unique(chunks, return_inverse=True)
        order = np.lexsort((-by_id, secondary, primary, codes))
    dup = pd.DataFrame({"q": codes, "c": chunks}).duplicated(keep=False).to_numpy()
    if dup.any():
        raise DataError(f"{name}: the same chunk_id appears twice in one query's list in {rows_phrase(dup)}")

    qidx = codes[order].astype(np.int64)
    starts = np.searchsorted(qidx, np.arange(query_ids.size))
    position = np.arange(qidx.size, dtype=np.int64) - starts[qidx]
    used = ("query_id", "rank", "score", "chunk_id", "doc_id", "q0", "tag")
    attrs = _query_attrs(frame.assign(query_id=query), used)
    return Run(
        query_id=np.asarray(query_ids, dtype=str),
        qidx=qidx,
        position=position,
        chunk_id=chunks[order],
        doc_id=docs[order],
        query_attrs=attrs,
        source=name,
    )


def load_run(
    source: str | os.PathLike | BinaryIO,
    *,
    chunk_map: dict[str, str] | str | os.PathLike | BinaryIO | None = None,
    file_type: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> Run:
    """Load a run from a table (``query_id, rank|score, chunk_id, doc_id``) or a TREC run file.

    A TREC run (``qid Q0 docno rank score tag``, no header) is recognised by its content
    whatever its suffix, or named by ``file_type="trec"``; ``docno`` is the chunk id and the
    document comes from ``chunk_map`` (a dict or a table file ``chunk_id, doc_id``).
    """
    if chunk_map is not None and not isinstance(chunk_map, dict):
        chunk_map = load_chunk_map(chunk_map)
    frame = read_table(source, file_type, trec_columns=TREC_RUN_COLUMNS).frame
    frame = with_columns(frame, columns, RUN_ALIASES, source_name(source))
    return run_from_frame(frame, chunk_map=chunk_map, source=source_name(source))


def runs_from_frame(
    frame: pd.DataFrame, runs_col: str, *, chunk_map: dict[str, str] | None = None, source: str = "<run>"
) -> dict[str, Run]:
    """Several runs in one table, told apart by ``runs_col`` (a TREC run's ``tag``, or e.g. ``run``).

    Each run (in first-seen order) is validated by :func:`run_from_frame`; its errors name the
    run, and their row numbers count that run's rows.
    """
    _require(frame, (runs_col,), source, hint=f" (runs_col {runs_col!r}: the column naming each row's run)")
    frame = frame.reset_index(drop=True)
    _no_blanks(frame, (runs_col,), source)
    labels = frame[runs_col].astype(str)
    return {
        str(name): run_from_frame(
            part.drop(columns=runs_col), chunk_map=chunk_map, source=f"{source} [run {name!r}, rows of that run]"
        )
        for name, part in frame.groupby(labels, sort=False)
    }


def run_name(source: str | os.PathLike | BinaryIO) -> str:
    """The name a run file gives its run: the file name without directory, ``.gz`` and its type suffix.

    ``runs/bm25_k1.2.csv.gz``: ``bm25_k1.2``.
    """
    base = os.path.basename(source_name(source))
    stem = base[:-3] if base.lower().endswith(".gz") else base
    return os.path.splitext(stem)[0] or base


def load_runs(
    sources,
    *,
    runs_col: str | None = None,
    chunk_map: dict[str, str] | str | os.PathLike | BinaryIO | None = None,
    file_type: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> dict[str, Run]:
    """Runs by name from one or several files (a path or file-like, or a sequence of them).

    Without ``runs_col`` every file is one run named by :func:`run_name`; with it, every file is
    split by that column (:func:`runs_from_frame`).  Names must be unique across the files.
    """
    if isinstance(sources, (str, os.PathLike)) or hasattr(sources, "read"):
        sources = [sources]
    if chunk_map is not None and not isinstance(chunk_map, dict):
        chunk_map = load_chunk_map(chunk_map)
    runs: dict[str, Run] = {}
    origin: dict[str, str] = {}
    for source in sources:
        name = source_name(source)
        frame = with_columns(
            read_table(source, file_type, trec_columns=TREC_RUN_COLUMNS).frame, columns, RUN_ALIASES, name
        )
        found = (
            runs_from_frame(frame, runs_col, chunk_map=chunk_map, source=name)
            if runs_col
            else {run_name(source): run_from_frame(frame, chunk_map=chunk_map, source=name)}
        )
        for run, value in found.items():
            if run in runs:
                raise DataError(
                    f"run {run!r} of {name} is also in {origin[run]}: run names must be unique "
                    + (f"(the {runs_col} values)" if runs_col else "(the file names without suffixes)")
                )
            runs[run], origin[run] = value, name
    if not runs:
        raise DataError("no run to load: give at least one run file")
    return runs


# -- qrels -----------------------------------------------------------------------------------------------------


def qrels_from_frame(frame: pd.DataFrame, *, chunk_map: dict[str, str] | None = None, source: str = "<qrels>") -> Qrels:
    """Validate judgments: ``query_id``, ``doc_id`` and/or ``chunk_id``, ``relevance`` (a number; > 0 is relevant).

    Chunk-level rows without ``doc_id`` take their document from ``chunk_map``.
    """
    name = source
    frame = frame.reset_index(drop=True)
    _require(frame, ("query_id", "relevance"), name)
    if "doc_id" not in frame.columns and "chunk_id" not in frame.columns:
        raise DataError(f"{name}: missing column doc_id or chunk_id (which item each judgment is about)")
    _no_blanks(frame, ("query_id",), name)
    relevance = _numbers(frame, "relevance", name)
    chunks = None
    if "chunk_id" in frame.columns:
        has_chunk = frame["chunk_id"].notna().to_numpy() & (frame["chunk_id"].astype(str).str.strip() != "").to_numpy()
        chunks = np.where(has_chunk, frame["chunk_id"].astype(str).to_numpy(), None).astype(object)
    if "doc_id" in frame.columns:
        has_doc = frame["doc_id"].notna().to_numpy() & (frame["doc_id"].astype(str).str.strip() != "").to_numpy()
        docs = frame["doc_id"].astype(str).to_numpy().astype(object)
    else:
        has_doc = np.zeros(len(frame), dtype=bool)
        docs = np.full(len(frame), None, dtype=object)
    need_map = ~has_doc
    if need_map.any():
        no_chunk = need_map if chunks is None else need_map & (chunks == None)  # noqa: E711
        if no_chunk.any():
            raise DataError(f"{name}: neither doc_id nor chunk_id in {rows_phrase(no_chunk)}")
        if chunk_map is None:
            raise DataError(f"{name}: column doc_id is empty in {rows_phrase(need_map)}; give a chunk map to derive it")
        docs[need_map] = _map_chunks(chunks[need_map].astype(str), chunk_map, name)
    query = frame["query_id"].astype(str).to_numpy()
    # doc_id stays a candidate group column: in known-item qrels it is the question's source document.
    used = ("query_id", "relevance", "iteration")
    if chunks is not None and not np.any(chunks != None):  # noqa: E711
        chunks = None  # a chunk_id column with no values judges nothing at chunk level
    return Qrels(
        query_id=query,
        doc_id=docs.astype(str),
        chunk_id=chunks,
        relevance=relevance,
        query_attrs=_query_attrs(frame.assign(query_id=query), used),
        source=name,
    )


def load_qrels(
    source: str | os.PathLike | BinaryIO,
    *,
    chunk_map: dict[str, str] | str | os.PathLike | BinaryIO | None = None,
    file_type: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> Qrels:
    """Load judgments from a table or a TREC qrels file (``qid iter docno rel``, no header; ``docno`` a document id)."""
    if chunk_map is not None and not isinstance(chunk_map, dict):
        chunk_map = load_chunk_map(chunk_map)
    frame = read_table(source, file_type, trec_columns=TREC_QRELS_COLUMNS).frame
    frame = with_columns(frame, columns, QRELS_ALIASES, source_name(source))
    return qrels_from_frame(frame, chunk_map=chunk_map, source=source_name(source))


def query_groups(run: Run, qrels: Qrels, column: str, query_id: np.ndarray) -> np.ndarray:
    """Group label of each query in ``query_id`` from ``column``, looked up in the qrels, then the run.

    The column must be constant within each query (e.g. the source document of a
    generated question); a query with relevant documents that it does not cover is an
    error. Queries without relevant documents are excluded from every mean, so they
    need no group: one the column misses is labelled with its own query_id.
    """
    query_id = np.asarray(query_id, dtype=str)
    judged = np.isin(query_id, qrels.query_id[qrels.relevance > 0])
    for where, attrs in (("qrels", qrels.query_attrs), ("run", run.query_attrs)):
        if column in attrs.columns:
            labels = attrs[column].reindex(query_id)
            missing = labels.isna().to_numpy()
            if (missing & judged).any():
                ids = ", ".join(query_id[missing & judged][:SHOWN_ROWS])
                raise DataError(f"group column {column!r} ({where}) has no value for queries {ids}")
            return np.where(missing, query_id, labels.astype(str).to_numpy())
    raise DataError(
        f"group column {column!r} is not a column constant within each query of the qrels or the run "
        f"(qrels: {', '.join(qrels.query_attrs.columns) or 'none'}; run: {', '.join(run.query_attrs.columns) or 'none'})"
    )
