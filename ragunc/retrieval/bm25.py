"""BM25 Okapi over sparse matrices, returning what ``rank_bm25.BM25Okapi`` returns.

Scores are the product ``Q @ W``: ``Q`` holds query-term counts (terms repeated in a
query count with multiplicity, as in rank-bm25), ``W[t, c]`` the BM25 weight of term
``t`` in chunk ``c``. :func:`rank_targets` forms only the scores that can matter (MaxScore
pruning) and :func:`top_k` whole rows, in batches so memory stays bounded.
Ties are broken by the lower chunk position, as ``numpy.argmax`` over rank-bm25 scores does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..corpus.language import STOPWORDS, TOKEN_PATTERN
from ..corpus.language import spaced_terms as tokenize  # the default tokenizer

__all__ = ["STOPWORDS", "BM25Index", "Tokenizer", "bm25_index", "tokenize", "top_k"]


def _load_stemmer(language: str) -> Callable[[str], str]:
    """A word stemmer from PyStemmer or NLTK's Snowball, whichever is installed."""
    names = {"en": "english", "pt": "portuguese", "es": "spanish"}
    name = names.get(language, language)
    try:
        import Stemmer  # PyStemmer

        return Stemmer.Stemmer(name).stemWord
    except ImportError:
        pass
    try:
        from nltk.stem.snowball import SnowballStemmer

        return SnowballStemmer(name).stem
    except ImportError:
        raise ValueError(f"stemming needs PyStemmer or nltk installed (neither is) for language {language!r}") from None


@dataclass(frozen=True)
class Tokenizer:
    """Lowercase, ``\\w+`` (Unicode), optional stopword removal and stemming.

    ``stopwords``: ``None``, a language code (``"en"``, ``"pt"``, ``"es"``) or a set of words.
    ``stemmer``: ``None``, a language code (needs PyStemmer or nltk) or a ``str -> str`` callable.
    """

    lowercase: bool = True
    stopwords: str | frozenset[str] | None = None
    stemmer: str | Callable[[str], str] | None = None
    _stop: frozenset[str] = field(init=False, repr=False, compare=False)
    _stem: Callable[[str], str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.stopwords, str):
            if self.stopwords not in STOPWORDS:
                raise ValueError(f"stopwords: unknown language {self.stopwords!r} (known: {sorted(STOPWORDS)})")
            stop = STOPWORDS[self.stopwords]
        else:
            stop = frozenset(self.stopwords or ())
        stem = _load_stemmer(self.stemmer) if isinstance(self.stemmer, str) else self.stemmer
        object.__setattr__(self, "_stop", stop)
        object.__setattr__(self, "_stem", stem)

    def __call__(self, text: str) -> list[str]:
        tokens = TOKEN_PATTERN.findall(text.lower() if self.lowercase else text)
        if self._stop:
            tokens = [t for t in tokens if t not in self._stop]
        if self._stem is not None:
            tokens = [self._stem(t) for t in tokens]
        return tokens


@dataclass(frozen=True)
class BM25Index:
    """BM25 Okapi weights of a tokenised collection (rank-bm25's ``BM25Okapi``, sparse).

    ``weights`` is terms x chunks: ``idf[t] * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))``.
    """

    vocabulary: pd.Index  # term -> term id (its position)
    weights: sp.csr_matrix  # (n_terms, n_chunks) float64
    idf: np.ndarray  # per term, after rank-bm25's epsilon floor for negative idf
    doc_len: np.ndarray  # tokens per chunk
    avgdl: float
    k1: float
    b: float
    epsilon: float

    @property
    def n_chunks(self) -> int:
        return self.weights.shape[1]

    def query_matrix(self, queries: Iterable[Sequence[str]]) -> sp.csr_matrix:
        """Queries (token lists) as a (n_queries, n_terms) count matrix."""
        queries = [list(q) for q in queries]
        lengths = np.fromiter((len(q) for q in queries), dtype=np.int64, count=len(queries))
        ids = self.vocabulary.get_indexer([tok for q in queries for tok in q])
        rows = np.repeat(np.arange(len(queries)), lengths)
        known = ids >= 0  # unknown tokens score 0, as in rank-bm25
        return query_matrix_from_ids(rows[known], ids[known], n_queries=len(queries), n_terms=len(self.vocabulary))

    def get_scores(self, tokens: Sequence[str]) -> np.ndarray:
        """Scores of every chunk for one query, as ``BM25Okapi.get_scores``."""
        return np.asarray((self.query_matrix([tokens]) @ self.weights).todense()).ravel()


def query_matrix_from_ids(rows: np.ndarray, term_ids: np.ndarray, *, n_queries: int, n_terms: int) -> sp.csr_matrix:
    """A count matrix from (query row, term id) pairs; repeated pairs add up."""
    data = np.ones(len(term_ids), dtype=np.float64)
    matrix = sp.csr_matrix((data, (rows, term_ids)), shape=(n_queries, n_terms))
    matrix.sum_duplicates()
    return matrix


def encode(token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Flatten token lists into ``(term ids, offsets, vocabulary)``; list ``i`` is ``ids[offsets[i]:offsets[i+1]]``."""
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    flat = np.fromiter((tok for tokens in token_lists for tok in tokens), dtype=object, count=int(offsets[-1]))
    codes, vocabulary = pd.factorize(flat)
    return codes.astype(np.int64), offsets, pd.Index(vocabulary)


def term_frequencies(term_ids: np.ndarray, offsets: np.ndarray, n_terms: int) -> sp.csr_matrix:
    """(n_chunks, n_terms) term-count matrix of an encoded collection."""
    n_chunks = len(offsets) - 1
    chunk = np.repeat(np.arange(n_chunks, dtype=np.int64), np.diff(offsets))
    tf = sp.csr_matrix((np.ones(len(term_ids)), (chunk, term_ids)), shape=(n_chunks, n_terms))
    tf.sum_duplicates()
    return tf


def build_index(
    term_ids: np.ndarray,
    offsets: np.ndarray,
    vocabulary: pd.Index,
    *,
    k1: float = 1.5,
    b: float = 0.75,
    epsilon: float = 0.25,
) -> BM25Index:
    """BM25 Okapi weights for an encoded collection (see :func:`encode`)."""
    n_chunks = len(offsets) - 1
    if n_chunks < 1:
        raise ValueError("BM25 needs at least one chunk")
    tf = term_frequencies(term_ids, offsets, len(vocabulary)).tocsc()
    doc_len = np.diff(offsets).astype(np.float64)
    avgdl = float(doc_len.sum() / n_chunks)
    df = np.diff(tf.indptr).astype(np.float64)
    idf = np.log(n_chunks - df + 0.5) - np.log(df + 0.5)
    # rank-bm25: idf below zero becomes epsilon * (mean idf over the vocabulary).
    average_idf = float(idf.sum() / len(idf)) if len(idf) else 0.0
    idf = np.where(idf < 0, epsilon * average_idf, idf)
    # Column c of tf.T is chunk c: weights are terms x chunks.
    weights = tf.T.tocsr()
    cols = weights.indices
    rows = np.repeat(np.arange(weights.shape[0]), np.diff(weights.indptr))
    freq = weights.data
    norm = k1 * (1 - b + b * doc_len[cols] / avgdl)
    weights.data = idf[rows] * (freq * (k1 + 1) / (freq + norm))
    return BM25Index(
        vocabulary=vocabulary,
        weights=weights,
        idf=idf,
        doc_len=doc_len,
        avgdl=avgdl,
        k1=k1,
        b=b,
        epsilon=epsilon,
    )


def bm25_index(
    token_lists: Sequence[Sequence[str]], *, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25
) -> BM25Index:
    """BM25 Okapi over tokenised chunks (as ``BM25Okapi(token_lists, k1, b, epsilon)``)."""
    term_ids, offsets, vocabulary = encode(token_lists)
    return build_index(term_ids, offsets, vocabulary, k1=k1, b=b, epsilon=epsilon)


@dataclass(frozen=True)
class RankResult:
    """Per query: the 1-based rank of its target chunk (capped) and the top-ranked chunk."""

    rank: np.ndarray  # float64; NaN where the target ranks beyond the cutoff
    top: np.ndarray  # int64 chunk position of the top-1 chunk
    target_score: np.ndarray  # float64


def _batch_size(n_chunks: int, max_entries: int) -> int:
    return max(1, max_entries // max(n_chunks, 1))


def _row_ids(indptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))


# A query is scored on its candidate chunks when its essential terms list at most this share of the
# chunks, otherwise densely: past that, the bookkeeping per candidate costs more than a dense row.
PRUNED_SHARE = 1 / 32
# Terms in at least this share of the chunks keep a dense row of weights (looked up, not searched).
FREQUENT_SHARE = 1 / 64
# Sums of upper bounds this much below a target's score stay below it despite rounding.
_PRUNE_MARGIN = 1 + 1e-9


def rank_targets(
    index: BM25Index,
    queries: sp.csr_matrix,
    targets: np.ndarray,
    *,
    cutoff: int = 100,
    max_entries: int = 16_000_000,
    progress: Callable[[int, int], None] | None = None,
) -> RankResult:
    """Rank of chunk ``targets[i]`` for query row ``i``, and each query's top-1 chunk.

    Rank = 1 + chunks scoring higher + chunks tying at a lower position; ranks above
    ``cutoff`` are NaN. Chunks no query term matches score exactly 0 (as in rank-bm25).
    ``max_entries`` bounds the score entries of one batch (memory).

    Exact, and pruned as MaxScore prunes (Turtle & Flood, 1995): with nonnegative weights, set
    aside a query's terms of smallest upper bound ``q_t · max_c W[t, c]`` while those bounds sum
    to less than the target's score; a chunk holding none of the other (*essential*) terms
    scores below the target, so it neither beats nor ties it and is not the top chunk. A query
    whose essential terms list few chunks is scored on those chunks only, any other densely
    over all chunks. Every score is the sum ``Q @ W`` forms, term by term in the query row's
    stored order, so equal scores tie exactly as in the product.
    """
    targets = np.asarray(targets, dtype=np.int64)
    queries = sp.csr_matrix(queries)
    n_queries, n_chunks = queries.shape[0], index.n_chunks
    if len(targets) != n_queries:
        raise ValueError(f"{len(targets)} targets for {n_queries} queries")
    weights = _Weights.of(index, max_entries=max_entries // 2)
    target_score = weights.scores(queries, np.arange(n_queries), targets)
    essential, work = _essential_terms(queries, weights.matrix, target_score)
    pruned = work <= n_chunks * PRUNED_SHARE
    # Copies: eliminate_zeros works in place on the arrays it was given.
    candidates = sp.csr_matrix(
        (essential.astype(np.float64), queries.indices.copy(), queries.indptr.copy()), shape=queries.shape
    )
    candidates.eliminate_zeros()
    rank = np.empty(n_queries, dtype=np.float64)
    top = np.empty(n_queries, dtype=np.int64)
    done = 0
    for rows in _batches(pruned, work, np.diff(queries.indptr), n_chunks, max_entries):
        if pruned[rows[0]]:
            rank[rows], top[rows] = _rank_pruned(
                queries, weights, candidates[rows] @ weights.matrix, rows, targets[rows], target_score[rows]
            )
        else:
            rank[rows], top[rows] = _rank_dense(queries, weights, rows, targets[rows])
        done += len(rows)
        if progress is not None:
            progress(done, n_queries)
    rank[rank > cutoff] = np.nan
    return RankResult(rank=rank, top=top, target_score=target_score)


@dataclass(frozen=True)
class _Weights:
    """An index's weights (terms x chunks) arranged for lookups: a key per entry, dense rows of frequent terms."""

    matrix: sp.csr_matrix  # columns sorted within rows
    keys: np.ndarray  # term * n_chunks + chunk per stored entry, ascending
    row_of: np.ndarray  # per term, its row in ``dense`` or -1
    dense: np.ndarray  # (frequent terms, n_chunks)

    @classmethod
    def of(cls, index: BM25Index, *, max_entries: int) -> "_Weights":
        matrix = index.weights if index.weights.has_sorted_indices else index.weights.sorted_indices()
        n_terms, n_chunks = matrix.shape
        df = np.diff(matrix.indptr)
        frequent = np.argsort(-df, kind="stable")[: _batch_size(n_chunks, max_entries)]
        frequent = np.sort(frequent[df[frequent] >= n_chunks * FREQUENT_SHARE])
        row_of = np.full(n_terms, -1, dtype=np.int64)
        row_of[frequent] = np.arange(len(frequent))
        return cls(matrix, _row_ids(matrix.indptr) * n_chunks + matrix.indices, row_of, matrix[frequent].toarray())

    def at(self, terms: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        """``W[terms[i], chunks[i]]``, 0 where the chunk lacks the term."""
        n_chunks = self.matrix.shape[1]
        row = self.row_of[terms]
        value = (
            self.dense.reshape(-1)[np.maximum(row, 0) * n_chunks + chunks] if len(self.dense) else np.zeros(len(terms))
        )
        rare = np.flatnonzero(row < 0)
        if len(rare):
            wanted = terms[rare].astype(np.int64) * n_chunks + chunks[rare]
            pos = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
            value[rare] = np.where(self.keys[pos] == wanted, self.matrix.data[pos], 0.0)
        return value

    def scores(self, queries: sp.csr_matrix, rows: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        """Score of chunk ``chunks[i]`` for query row ``rows[i]``, added up term by term as ``Q @ W`` does."""
        start, lengths = queries.indptr[rows], np.diff(queries.indptr)[rows]
        score = np.zeros(len(rows))
        for slot in range(int(lengths.max(initial=0))):
            live = np.flatnonzero(lengths > slot)
            pos = start[live] + slot
            score[live] += queries.data[pos] * self.at(queries.indices[pos], chunks[live])
        return score


def _essential_terms(queries: sp.csr_matrix, matrix: sp.csr_matrix, target_score: np.ndarray):
    """Which stored query entries are essential, and per query the postings they list (``inf``: score
    densely, as for a target scoring <= 0, or negative weights or counts, where nothing can be set aside)."""
    n_queries = queries.shape[0]
    if matrix.data.min(initial=0.0) < 0 or queries.data.min(initial=1.0) <= 0:
        return np.ones(queries.nnz, dtype=bool), np.full(n_queries, np.inf)
    rows = _row_ids(queries.indptr)
    bound = queries.data * matrix.max(axis=1).toarray().ravel()[queries.indices]
    order = np.lexsort((bound, rows))  # rows kept in place; within each, smallest bound first
    lengths = np.diff(queries.indptr)
    running, cumulative = np.zeros(n_queries), np.empty(queries.nnz)
    for slot in range(int(lengths.max(initial=0))):
        live = np.flatnonzero(lengths > slot)
        pos = queries.indptr[live] + slot
        running[live] += bound[order[pos]]
        cumulative[order[pos]] = running[live]
    essential = ~(cumulative * _PRUNE_MARGIN < target_score[rows])
    postings = np.diff(matrix.indptr)[queries.indices]
    work = np.bincount(rows, weights=np.where(essential, postings, 0), minlength=n_queries).astype(np.float64)
    work[target_score <= 0] = np.inf
    return essential, work


def _batches(pruned: np.ndarray, work: np.ndarray, lengths: np.ndarray, n_chunks: int, max_entries: int):
    """Row batches, each all dense or all pruned (of about ``max_entries`` candidates, longest queries first)."""
    dense = np.flatnonzero(~pruned)
    step = _batch_size(n_chunks, max_entries)
    yield from (dense[i : i + step] for i in range(0, len(dense), step))
    light = np.flatnonzero(pruned)
    light = light[np.argsort(-lengths[light], kind="stable")]
    batch = np.cumsum(work[light]) // max_entries
    yield from (part for part in np.split(light, np.flatnonzero(np.diff(batch)) + 1) if len(part))


def _rank_pruned(queries, weights: _Weights, candidates: sp.csr_matrix, rows, targets, target_score):
    """Ranks and top-1 from each query's candidate chunks (its target among them, scoring > 0);
    ``rows`` longest query first, so the candidates still adding a term at each slot are a prefix."""
    indptr, cols = candidates.indptr, candidates.indices
    local = _row_ids(indptr)
    lengths = np.diff(queries.indptr)[rows]
    start = queries.indptr[rows][local]
    score = np.zeros(len(cols))
    for slot in range(int(lengths.max(initial=0))):
        live = indptr[np.count_nonzero(lengths > slot)]
        pos = start[:live] + slot
        score[:live] += queries.data[pos] * weights.at(queries.indices[pos], cols[:live])
    v = target_score[local]
    higher = np.bincount(local, weights=score > v, minlength=len(rows))
    tie_below = np.bincount(local, weights=(score == v) & (cols < targets[local]), minlength=len(rows))
    best = np.maximum.reduceat(score, indptr[:-1])
    top = np.minimum.reduceat(np.where(score == best[local], cols, weights.matrix.shape[1]), indptr[:-1])
    return 1 + higher + tie_below, top


def _rank_dense(queries, weights: _Weights, rows, targets):
    """Ranks and top-1 from the dense score rows of ``rows`` (unmatched chunks score 0).

    One query at a time: its score row stays in cache, where a batch of rows would spill it.
    """
    matrix = weights.matrix
    n_chunks = matrix.shape[1]
    rank, top = np.empty(len(rows)), np.empty(len(rows), dtype=np.int64)
    score, term_score = np.empty(n_chunks), np.empty(n_chunks)
    for i, (row, target) in enumerate(zip(rows.tolist(), targets.tolist())):
        score.fill(0.0)
        for pos in range(queries.indptr[row], queries.indptr[row + 1]):
            term, count = queries.indices[pos], queries.data[pos]
            if weights.row_of[term] >= 0:
                score += np.multiply(weights.dense[weights.row_of[term]], count, out=term_score)
            else:
                first, last = matrix.indptr[term], matrix.indptr[term + 1]
                score[matrix.indices[first:last]] += count * matrix.data[first:last]
        v = score[target]
        rank[i] = 1 + np.count_nonzero(score > v) + np.count_nonzero(score[:target] == v)
        top[i] = score.argmax()
    return rank, top


def top_k(
    index: BM25Index,
    queries: sp.csr_matrix,
    k: int = 10,
    *,
    max_entries: int = 16_000_000,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best chunks per query: ``(positions, scores)``, each (n_queries, k).

    Ordered by score, ties by the lower position (chunks no query term matches score 0).
    """
    n_queries, n_chunks = queries.shape[0], index.n_chunks
    k = min(int(k), n_chunks)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    batch = _batch_size(n_chunks, max_entries)
    positions = np.empty((n_queries, k), dtype=np.int64)
    best = np.empty((n_queries, k), dtype=np.float64)
    for start in range(0, n_queries, batch):
        stop = min(start + batch, n_queries)
        dense = (queries[start:stop] @ index.weights).toarray()
        # A stable sort keeps the lower position first among equal scores.
        order = np.argsort(-dense, axis=1, kind="stable")[:, :k]
        positions[start:stop] = order
        best[start:stop] = np.take_along_axis(dense, order, axis=1)
        if progress is not None:
            progress(stop, n_queries)
    return positions, best
