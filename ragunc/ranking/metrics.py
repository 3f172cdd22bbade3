"""Ranking metrics that count each document once, one score per query (ranx-style).

A run lists chunks; several chunks can come from one document. Document-level
metrics map chunks to documents and count only the first occurrence of each
document, in one of two orders:

``truncate-dedup`` (default)
    cut the chunk list at k, then deduplicate: the documents a k-chunk context
    really holds.
``dedup-truncate``
    deduplicate the whole list (first-seen order of documents), then cut at k
    documents: a document first seen at chunk rank > k can count, although a
    k-chunk context never contained it.

:func:`naive_recall_sum` is the per-chunk sum that can pass 1, kept only to show
what it does. Every other score lies in [0, 1]; a query without relevant
documents scores NaN (excluded from means, reported as excluded); a query with
relevant documents but no retrieved chunks scores 0.

Definitions (R = relevant documents of the query, rel > 0; "counted" = first
occurrences kept by the order at cutoff k; slot = chunk position for
truncate-dedup, document rank for dedup-truncate):

- recall@k = |counted ∩ R| / |R|
- hit@k = 1 if counted ∩ R is non-empty
- precision@k = |counted ∩ R| / k (a context slot holding a repeated document brings nothing new)
- RR(@k) = 1 / (1-based slot of the first relevant counted document), 0 when none
- nDCG@k = sum over counted of rel / log2(slot + 1) / the ideal DCG@k of the qrels' grades (linear gain, as trec_eval)
- chunk recall@k = |relevant chunks in the top-k chunks| / |relevant chunks| (needs chunk-level qrels)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.runs import Qrels, Run

TRUNCATE_DEDUP = "truncate-dedup"
DEDUP_TRUNCATE = "dedup-truncate"
ORDERS = (TRUNCATE_DEDUP, DEDUP_TRUNCATE)


@dataclass(frozen=True)
class MatchedRun:
    """A run aligned with its qrels: per-row gains plus per-query relevant counts.

    Row arrays (N,) are sorted by query, then chunk position. Queries are the run's,
    then those only in the qrels (an empty result list).
    """

    query_id: np.ndarray  # (Q,) str
    qidx: np.ndarray  # (N,) int64
    position: np.ndarray  # (N,) int64, 0-based chunk position
    doc_id: np.ndarray  # (N,) str
    chunk_id: np.ndarray  # (N,) str
    doc_gain: np.ndarray  # (N,) float64: graded relevance of the row's document for its query (0: not relevant)
    first_doc: np.ndarray  # (N,) bool: first occurrence of the document in the query's list
    doc_rank: np.ndarray  # (N,) int64: 0-based rank of the row's document in first-seen order
    n_relevant: np.ndarray  # (Q,) int64: relevant documents
    ideal_gain: np.ndarray  # (Q, G) float64: relevant grades sorted descending, zero-padded
    chunk_gain: np.ndarray | None  # (N,) float64, None without chunk-level qrels
    n_relevant_chunks: np.ndarray | None  # (Q,) int64, None without chunk-level qrels

    @property
    def n_queries(self) -> int:
        return int(self.query_id.size)

    @property
    def longest_list(self) -> int:
        """Chunks in the longest result list (1 when no query retrieved anything, so k = 1 stays a cutoff)."""
        return int(self.position.max(initial=0)) + 1


def match_qrels(run: Run, qrels: Qrels) -> MatchedRun:
    """Align ``run`` with ``qrels`` once; every metric below reads the result."""
    query_id = np.concatenate([run.query_id, np.setdiff1d(pd.unique(qrels.query_id), run.query_id)]).astype(str)
    qcode = pd.Index(query_id).get_indexer(qrels.query_id)
    positive = qrels.relevance > 0
    docs = (
        pd.DataFrame({"q": qcode[positive], "d": qrels.doc_id[positive], "g": qrels.relevance[positive]})
        .groupby(["q", "d"], sort=False)["g"]
        .max()
    )
    rows = pd.MultiIndex.from_arrays([run.qidx, run.doc_id])
    doc_gain = docs.reindex(rows).fillna(0.0).to_numpy(dtype=float)
    Q = query_id.size
    n_relevant = np.bincount(docs.index.get_level_values(0), minlength=Q).astype(np.int64)

    ideal = docs.sort_values(ascending=False, kind="stable").reset_index()
    ideal = ideal.sort_values("q", kind="stable")
    slot = ideal.groupby("q").cumcount().to_numpy()
    ideal_gain = np.zeros((Q, max(int(n_relevant.max(initial=0)), 1)))
    ideal_gain[ideal["q"].to_numpy(), slot] = ideal["g"].to_numpy()

    frame = pd.DataFrame({"q": run.qidx, "d": run.doc_id})
    first_doc = ~frame.duplicated().to_numpy()
    doc_rank = (np.cumsum(first_doc) - 1) - _query_starts_count(run.qidx, first_doc)
    doc_rank = pd.Series(doc_rank).where(first_doc).groupby([run.qidx, run.doc_id]).transform("first")

    chunk_gain = n_relevant_chunks = None
    if qrels.has_chunks:
        at_chunk = qrels.chunk_id != None  # noqa: E711 (object array: None marks a document-level row)
        keep = at_chunk & positive
        chunks = (
            pd.DataFrame({"q": qcode[keep], "c": qrels.chunk_id[keep].astype(str), "g": qrels.relevance[keep]})
            .groupby(["q", "c"], sort=False)["g"]
            .max()
        )
        chunk_gain = chunks.reindex(pd.MultiIndex.from_arrays([run.qidx, run.chunk_id])).fillna(0.0).to_numpy(float)
        n_relevant_chunks = np.bincount(chunks.index.get_level_values(0), minlength=Q).astype(np.int64)
    return MatchedRun(
        query_id=query_id,
        qidx=run.qidx,
        position=run.position,
        doc_id=run.doc_id,
        chunk_id=run.chunk_id,
        doc_gain=doc_gain,
        first_doc=first_doc,
        doc_rank=doc_rank.to_numpy(dtype=np.int64),
        n_relevant=n_relevant,
        ideal_gain=ideal_gain,
        chunk_gain=chunk_gain,
        n_relevant_chunks=n_relevant_chunks,
    )


def _query_starts_count(qidx: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """For each row, how many flags precede its query's first row (turns a global cumsum into a per-query one)."""
    before = np.concatenate([[0], np.cumsum(flags)])
    starts = np.searchsorted(qidx, qidx, side="left")
    return before[starts]


# -- low-level kernels -----------------------------------------------------------------------------------------


def _check_k(k) -> int:
    if isinstance(k, bool) or not float(k).is_integer() or k < 1:
        raise ValueError(f"k must be a positive integer (a cutoff of at least one chunk), got {k!r}")
    return int(k)


def _check_order(order: str) -> str:
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    return order


def _counted(j: MatchedRun, k: int, order: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows that count at cutoff k (first occurrences kept by the order) and their 0-based slot."""
    if order == TRUNCATE_DEDUP:
        # The first occurrence has the smallest position, so "first in the top k" == "first overall and < k".
        return j.first_doc & (j.position < k), j.position
    return j.first_doc & (j.doc_rank < k), j.doc_rank


def _per_query(j: MatchedRun, weights: np.ndarray) -> np.ndarray:
    return np.bincount(j.qidx, weights=weights, minlength=j.n_queries)


def _undefined_without_relevant(values: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
    return np.where(n_relevant > 0, values, np.nan)


def _relevant_found(j: MatchedRun, k: int, order: str) -> np.ndarray:
    counted, _ = _counted(j, _check_k(k), _check_order(order))
    return _per_query(j, (counted & (j.doc_gain > 0)).astype(float))


# -- high-level functions: one score per query -----------------------------------------------------------------


def recall(j: MatchedRun, k: int, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
    """Document-level Recall@k per query: relevant documents counted / relevant documents."""
    found = _relevant_found(j, k, order)
    return _undefined_without_relevant(found / np.maximum(j.n_relevant, 1), j.n_relevant)


def naive_recall_sum(j: MatchedRun, k: int) -> np.ndarray:
    """The per-chunk sum: +1 for every top-k chunk of a relevant document, / relevant documents. Can pass 1."""
    hits = (j.position < _check_k(k)) & (j.doc_gain > 0)
    return _undefined_without_relevant(_per_query(j, hits.astype(float)) / np.maximum(j.n_relevant, 1), j.n_relevant)


def hit_rate(j: MatchedRun, k: int, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
    """Hit@k per query: 1 when at least one relevant document is counted."""
    return _undefined_without_relevant((_relevant_found(j, k, order) > 0).astype(float), j.n_relevant)


def precision(j: MatchedRun, k: int, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
    """Precision@k per query: distinct relevant documents counted / k."""
    return _undefined_without_relevant(_relevant_found(j, k, order) / _check_k(k), j.n_relevant)


def reciprocal_rank(j: MatchedRun, k: int | None = None, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
    """RR(@k) per query; without k, the whole list. The slot is the chunk rank (truncate-dedup) or document rank."""
    _check_order(order)
    cutoff = np.iinfo(np.int64).max if k is None else _check_k(k)
    counted, slot = _counted(j, cutoff, order)
    relevant = np.flatnonzero(counted & (j.doc_gain > 0))
    # Rows are sorted by query then position, so a query's first relevant row has its smallest slot.
    queries, first = np.unique(j.qidx[relevant], return_index=True)
    rr = np.zeros(j.n_queries)
    rr[queries] = 1.0 / (slot[relevant[first]] + 1)
    return _undefined_without_relevant(rr, j.n_relevant)


def ndcg(j: MatchedRun, k: int, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
    """nDCG@k per query with linear gains; repeated documents gain nothing and (truncate-dedup) still use a slot."""
    k = _check_k(k)
    counted, slot = _counted(j, k, _check_order(order))
    dcg = _per_query(j, np.where(counted, j.doc_gain / np.log2(slot + 2.0), 0.0))
    width = min(k, j.ideal_gain.shape[1])
    idcg = j.ideal_gain[:, :width] @ (1.0 / np.log2(np.arange(width) + 2.0))
    return _undefined_without_relevant(dcg / np.where(idcg > 0, idcg, 1.0), j.n_relevant)


def chunk_recall(j: MatchedRun, k: int) -> np.ndarray:
    """Chunk-level Recall@k per query: relevant chunks in the top k / relevant chunks (needs chunk-level qrels)."""
    if j.chunk_gain is None:
        raise ValueError("chunk-level recall needs qrels with a chunk_id column (judgments of individual chunks)")
    hits = (j.position < _check_k(k)) & (j.chunk_gain > 0)
    found = _per_query(j, hits.astype(float))
    return _undefined_without_relevant(found / np.maximum(j.n_relevant_chunks, 1), j.n_relevant_chunks)


@dataclass(frozen=True)
class RankingMetric:
    """One per-query ranking metric: what readers need to know of it."""

    name: str  # its key: --metric, a column of metric_table, the JSON
    label: str  # what tables, figures, the CLI and the pages call it, at a cutoff: :meth:`at`
    kernel: Callable[..., np.ndarray]  # (MatchedRun, k[, order=...]) -> one score per query (NaN: excluded)
    ordered: bool = True  # it counts documents in an order (truncate-dedup / dedup-truncate); else chunks

    def at(self, k: int | str) -> str:
        """The label at cutoff ``k``: "Recall@10" (or "Recall@k")."""
        return f"{self.label}@{k}"

    def scores(self, j: MatchedRun, k: int, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
        """One score per query at cutoff ``k`` (``order`` only for an ordered metric)."""
        return self.kernel(j, k, order=order) if self.ordered else self.kernel(j, k)


METRIC_REGISTRY: tuple[RankingMetric, ...] = (
    RankingMetric("recall", "Recall", recall),
    RankingMetric("hit", "Hit", hit_rate),
    RankingMetric("precision", "Precision", precision),
    RankingMetric("rr", "MRR", reciprocal_rank),
    RankingMetric("ndcg", "nDCG", ndcg),
    RankingMetric("chunk_recall", "chunk Recall", chunk_recall, ordered=False),
)
METRICS: tuple[str, ...] = tuple(m.name for m in METRIC_REGISTRY)  # by name (columns of ``metric_table``)
NAIVE_SUM_LABEL = "naive per-chunk sum"  # naive_recall_sum: shown beside the metrics, never compared


def ranking_metric(name: str) -> RankingMetric:
    """The registered metric called ``name``."""
    for m in METRIC_REGISTRY:
        if m.name == name:
            return m
    raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {name!r}")


def metric_scores(j: MatchedRun, metric: str, k: int, *, order: str = TRUNCATE_DEDUP) -> np.ndarray:
    """One metric of :data:`METRICS` per query at cutoff ``k`` (``chunk_recall`` has no order)."""
    return ranking_metric(metric).scores(j, k, order=order)


def metric_table(j: MatchedRun, k: int, *, order: str = TRUNCATE_DEDUP) -> pd.DataFrame:
    """Every metric per query (NaN where a query has no relevant items), one row per query."""
    table = {"query_id": j.query_id, "n_relevant": j.n_relevant}
    for name in METRICS:
        if name != "chunk_recall" or j.chunk_gain is not None:
            table[name] = metric_scores(j, name, k, order=order)
    table["naive_sum"] = naive_recall_sum(j, k)
    return pd.DataFrame(table)


def mean_defined(scores: np.ndarray) -> tuple[float, int, int]:
    """Mean over queries with a defined score, how many were used and how many excluded (NaN)."""
    defined = ~np.isnan(scores)
    used = int(defined.sum())
    return (float(scores[defined].mean()) if used else float("nan")), used, int(scores.size - used)


def order_differences(j: MatchedRun, k: int) -> pd.DataFrame:
    """Per query, the three Recall@k numbers side by side and why they differ.

    Columns ``query_id, n_relevant, truncate_dedup, dedup_truncate, naive_sum, differs, why``.
    """
    k = _check_k(k)
    relevant = j.doc_gain > 0
    # A relevant document first seen below the cutoff that dedup-truncate promotes into the top k documents.
    promoted = relevant & j.first_doc & (j.position >= k) & (j.doc_rank < k)
    top = relevant & (j.position < k)
    copies = pd.DataFrame({"q": j.qidx[top], "d": j.doc_id[top]}).value_counts(sort=False)
    copies = copies[copies > 1].reset_index(name="n")
    events = pd.concat(
        [
            pd.DataFrame(
                {
                    "q": j.qidx[promoted],
                    "text": [
                        f"{d} entered only after dedup: first at chunk rank {p + 1}"
                        for d, p in zip(j.doc_id[promoted], j.position[promoted])
                    ],
                }
            ),
            pd.DataFrame(
                {
                    "q": copies["q"].to_numpy(dtype=np.int64),
                    "text": [
                        f"{d} counted {n}x by the naive sum ({n} of its chunks in the top {k})"
                        for d, n in zip(copies["d"], copies["n"])
                    ],
                }
            ),
        ]
    )
    why = events.groupby("q")["text"].agg("; ".join).astype(object).reindex(np.arange(j.n_queries), fill_value="")
    table = pd.DataFrame(
        {
            "query_id": j.query_id,
            "n_relevant": j.n_relevant,
            "truncate_dedup": recall(j, k, order=TRUNCATE_DEDUP),
            "dedup_truncate": recall(j, k, order=DEDUP_TRUNCATE),
            "naive_sum": naive_recall_sum(j, k),
        }
    )
    table["differs"] = (table["truncate_dedup"] != table["dedup_truncate"]) | (
        table["truncate_dedup"] != table["naive_sum"]
    )
    table.loc[table["n_relevant"] == 0, "differs"] = False
    table["why"] = np.where(table["n_relevant"] == 0, "no relevant documents: excluded", why.to_numpy())
    return table


def ranked_list(j: MatchedRun, query_id: str) -> pd.DataFrame:
    """One query's result list, chunk by chunk: where each document is first seen and what it is worth.

    Columns ``chunk_rank, chunk_id, doc_id, relevance, first_seen, doc_rank`` (ranks 1-based;
    ``doc_rank`` in first-seen order of documents, the ranks dedup-truncate cuts at).
    """
    found = np.flatnonzero(j.query_id == str(query_id))
    if not found.size:
        raise ValueError(f"query {query_id!r} is not in the run or the qrels")
    rows = j.qidx == found[0]
    return pd.DataFrame(
        {
            "chunk_rank": j.position[rows] + 1,
            "chunk_id": j.chunk_id[rows],
            "doc_id": j.doc_id[rows],
            "relevance": j.doc_gain[rows],
            "first_seen": j.first_doc[rows],
            "doc_rank": j.doc_rank[rows] + 1,
        }
    )
