"""Queries with known relevant chunks: simulated known-item queries, or a user's file.

The simulation follows Azzopardi, de Rijke & Balog (SIGIR 2007, "Building simulated
queries for known-item topics"): for each chunk (the known item) draw a query length,
then each term from the chunk's term model with probability ``lam`` or from the
collection model otherwise (noise). The chunk's model picks terms by

- ``"popular"``: term frequency in the chunk, ``p(t|d) = tf(t,d) / |d|``;
- ``"discriminative"``: chunk terms weighted by inverse collection probability, ``p(t|d) ∝ 1/p(t)``;
- ``"random"``: uniformly over the chunk's distinct terms.

Everything is vectorised over all chunks at once (one ``searchsorted`` over cumulative
weights), and seeded through ``rng``.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..data.reader import DataError, read_table, rows_phrase
from ..data.runs import load_qrels

SELECTIONS = ("popular", "discriminative", "random")


@dataclass(frozen=True)
class QueryModel:
    """Known-item query simulation settings.

    The defaults give a realistic, non-trivial BM25 hit@1: about 0.24 on the stdlib
    corpus at 50-200 words (``sample_data/stdlib_meta.json``); ``"discriminative"``
    selection or ``lam`` near 1 make queries much easier.
    """

    mean_length: float = 3.0  # Poisson mean of the query length (at least one term)
    selection: str = "popular"  # "popular" | "discriminative" | "random"
    lam: float = 0.7  # probability a term comes from the chunk rather than the collection

    def __post_init__(self) -> None:
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {self.selection!r}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam!r}")
        if not self.mean_length > 0:
            raise ValueError(f"mean_length must be > 0, got {self.mean_length!r}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class QuerySet:
    """Queries over a chunked collection with their relevant chunks.

    Row ``i`` of ``matrix`` (query-term counts over the index vocabulary) is query ``i``;
    ``relevant[i]`` holds the chunk positions relevant to it (the source chunk first).
    """

    query_ids: tuple[str, ...]
    texts: tuple[str, ...]
    matrix: sp.csr_matrix
    relevant: tuple[np.ndarray, ...]

    def __len__(self) -> int:
        return len(self.query_ids)

    @property
    def source(self) -> np.ndarray:
        """First relevant chunk of each query (the known item)."""
        return np.fromiter((r[0] for r in self.relevant), dtype=np.int64, count=len(self.relevant))

    def subset(self, rows: np.ndarray) -> "QuerySet":
        rows = np.asarray(rows, dtype=np.int64)
        return QuerySet(
            query_ids=tuple(self.query_ids[i] for i in rows),
            texts=tuple(self.texts[i] for i in rows),
            matrix=self.matrix[rows],
            relevant=tuple(self.relevant[i] for i in rows),
        )


def _sample_rows(cum: np.ndarray, indptr: np.ndarray, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each draw, an entry of CSR row ``rows[j]`` with probability ∝ its weight (``cum`` = global cumsum)."""
    lo, hi = indptr[rows], indptr[rows + 1]
    base = np.where(lo > 0, cum[np.maximum(lo - 1, 0)], 0.0)
    total = cum[hi - 1] - base
    pos = np.searchsorted(cum, base + u * total, side="right")
    return np.clip(pos, lo, hi - 1)  # rounding at the row's edges


def simulate_known_item(
    tf: sp.csr_matrix,
    model: QueryModel = QueryModel(),
    *,
    rng=None,
) -> tuple[np.ndarray, np.ndarray]:
    """One simulated query per chunk from a (n_chunks, n_terms) term-count matrix.

    Returns ``(rows, term_ids)``: term ``term_ids[j]`` belongs to the query of chunk
    ``rows[j]`` (terms may repeat). Chunks without terms get collection terms only.
    """
    rng = np.random.default_rng(rng)
    tf = tf.tocsr()
    n_chunks = tf.shape[0]
    cf = np.asarray(tf.sum(axis=0)).ravel()
    lengths = np.maximum(1, rng.poisson(model.mean_length, size=n_chunks))
    rows = np.repeat(np.arange(n_chunks), lengths)
    n_draws = len(rows)
    has_terms = np.diff(tf.indptr)[rows] > 0
    from_chunk = (rng.random(n_draws) < model.lam) & has_terms

    if model.selection == "popular":
        weights = tf.data
    elif model.selection == "random":
        weights = np.ones_like(tf.data)
    else:  # discriminative: 1 / p(t) for the terms present in the chunk
        weights = cf.sum() / cf[tf.indices]
    u = rng.random(n_draws)
    picked = np.empty(n_draws, dtype=np.int64)
    chunk_rows = rows[from_chunk]
    entry = _sample_rows(np.cumsum(weights), tf.indptr, chunk_rows, u[from_chunk])
    picked[from_chunk] = tf.indices[entry]
    noise = ~from_chunk
    picked[noise] = np.searchsorted(np.cumsum(cf), u[noise] * cf.sum(), side="right")
    picked = np.minimum(picked, len(cf) - 1)
    return rows, picked


# ------------------------------------------------------------------ user query files


def read_query_file(path: str | os.PathLike, *, relevant: str | os.PathLike | None = None) -> pd.DataFrame:
    """A user's queries: ``query`` and relevant ``chunk_id`` (several separated by ``|``, or a
    JSON list in JSONL), optional ``query_id``. Any table file the reader knows: CSV, TSV, JSON
    lines, Parquet (``.gz`` allowed).  A relevant id may be a ``doc_id``: every chunk of it.

    BEIR's ``queries.jsonl`` (``_id``, ``text``) reads as ``query_id``, ``query``; its relevant
    documents come from ``relevant``, a qrels file (BEIR's ``qrels/test.tsv``, TREC, ranx):
    the queries it judges relevant documents for, the others left out.

    Returns ``query_id, query, chunk_ids`` (a list per row).
    """
    table = read_table(path)
    frame, file = table.frame, table.source
    if "query" not in frame.columns and {"_id", "text"} <= set(frame.columns):  # BEIR
        frame = frame.rename(columns={"_id": "query_id", "text": "query"})
    if relevant is not None:
        qrels = load_qrels(relevant)
        judged = pd.DataFrame({"q": qrels.query_id, "d": qrels.doc_id})[qrels.relevance > 0]
        docs = judged.groupby("q", sort=False)["d"].agg(list)
        if "query_id" not in frame.columns:
            raise DataError(f"{file}: relevant documents from {qrels.source} need the queries' column 'query_id'")
        frame = frame.assign(query_id=frame["query_id"].astype(str))
        frame = frame[frame["query_id"].isin(docs.index)].reset_index(drop=True)
        if frame.empty:
            raise DataError(f"{file}: no query of this file has a relevant document in {qrels.source}")
        frame["chunk_ids"] = [docs[q] for q in frame["query_id"]]
    id_column = next((c for c in ("chunk_id", "chunk_ids", "relevant") if c in frame.columns), None)
    if "query" not in frame.columns or id_column is None:
        raise DataError(
            f"{file}: a queries file needs columns 'query' and 'chunk_id' (columns are {list(map(str, frame.columns))})"
        )

    def ids(value) -> list[str]:
        if isinstance(value, (list, tuple, np.ndarray)):  # a JSON (or Parquet) list
            return [str(v) for v in value]
        if value is None or (isinstance(value, float) and np.isnan(value)):  # a blank field
            return []
        if isinstance(value, str) and value.startswith("["):
            return [str(v) for v in json.loads(value)]
        return [v for v in str(value).split("|") if v]

    chunk_ids = [ids(v) for v in frame[id_column]]
    empty = np.array([not c for c in chunk_ids], dtype=bool)
    if empty.any():
        raise DataError(f"{file}: column {id_column!r} is empty in {rows_phrase(empty)}")
    queries = frame["query"].fillna("").astype(str)
    blank = (queries.str.strip() == "").to_numpy()
    if blank.any():
        raise DataError(f"{file}: column 'query' is empty in {rows_phrase(blank)}")
    if "query_id" in frame.columns:
        query_ids = frame["query_id"].astype(str)
        # A repeated id would merge two queries' ranked lists in a --run file.
        repeated = query_ids.duplicated(keep=False).to_numpy()
        if repeated.any():
            raise DataError(f"{file}: column 'query_id' repeats a value in {rows_phrase(repeated)}")
    else:
        query_ids = [f"q{i}" for i in range(len(frame))]
    return pd.DataFrame({"query_id": list(query_ids), "query": queries.tolist(), "chunk_ids": chunk_ids})
