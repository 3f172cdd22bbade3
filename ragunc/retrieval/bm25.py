"""BM25 Okapi over sparse matrices, returning what ``rank_bm25.BM25Okapi`` returns.

Scores are one sparse product ``Q @ W``: ``Q`` holds query-term counts (terms repeated
in a query count with multiplicity, as in rank-bm25), ``W[t, c]`` the BM25 weight of
term ``t`` in chunk ``c``. Queries go in batches so the product's memory stays bounded.
Ties are broken by the lower chunk position, as ``numpy.argmax`` over rank-bm25 scores does.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

TOKEN_PATTERN = re.compile(r"\w+", re.UNICODE)

STOPWORDS = {
    "en": frozenset(
        "a about above after again against all am an and any are as at be because been before being "
        "below between both but by can could did do does doing down during each few for from further "
        "had has have having he her here hers herself him himself his how i if in into is it its "
        "itself just me more most my myself no nor not now of off on once only or other our ours "
        "ourselves out over own same she should so some such than that the their theirs them "
        "themselves then there these they this those through to too under until up very was we were "
        "what when where which while who whom why will with would you your yours yourself yourselves".split()
    ),
    "pt": frozenset(
        "a ao aos aquela aquelas aquele aqueles aquilo as até com como da das de dela delas dele deles "
        "depois do dos e ela elas ele eles em entre era eram essa essas esse esses esta estas este "
        "estes eu foi foram há isso isto já lhe lhes mais mas me mesmo meu meus minha minhas muito na "
        "nas nem no nos nós num numa o os ou para pela pelas pelo pelos por qual quando que quem se "
        "sem ser seu seus só sua suas também te tem têm tu tua tuas um uma umas uns você vocês vos".split()
    ),
    "es": frozenset(
        "a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante "
        "e el ella ellas ellos en entre era eran es esa esas ese eso esos esta estas este esto estos "
        "fue fueron ha han hay la las le les lo los más me mi mis mucho muy nada ni no nos nosotros o "
        "os otra otros para pero poco por porque que quien se sea ser si sin sobre su sus también "
        "te tiene tu tus un una uno unos y ya yo".split()
    ),
}


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
        raise ValueError(
            f"stemming needs PyStemmer or nltk installed (neither is) for language {language!r}"
        ) from None


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


def tokenize(text: str) -> list[str]:
    """The default tokenizer: lowercase ``\\w+`` tokens, nothing removed."""
    return TOKEN_PATTERN.findall(text.lower())


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
        vocabulary=vocabulary, weights=weights, idf=idf, doc_len=doc_len,
        avgdl=avgdl, k1=k1, b=b, epsilon=epsilon,
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
    """
    targets = np.asarray(targets, dtype=np.int64)
    n_queries, n_chunks = queries.shape[0], index.n_chunks
    if len(targets) != n_queries:
        raise ValueError(f"{len(targets)} targets for {n_queries} queries")
    batch = _batch_size(n_chunks, max_entries)
    rank = np.empty(n_queries, dtype=np.float64)
    top = np.empty(n_queries, dtype=np.int64)
    target_score = np.empty(n_queries, dtype=np.float64)
    weights = index.weights
    for start in range(0, n_queries, batch):
        stop = min(start + batch, n_queries)
        scores = (queries[start:stop] @ weights).tocsr()
        r, t, v = _rank_batch(scores, targets[start:stop], n_chunks)
        rank[start:stop], top[start:stop], target_score[start:stop] = r, t, v
        if progress is not None:
            progress(stop, n_queries)
    rank[rank > cutoff] = np.nan
    return RankResult(rank=rank, top=top, target_score=target_score)


def _segment_rows(indptr: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Row of each entry position in a CSR layout."""
    return np.searchsorted(indptr, positions, side="right") - 1


def _rank_batch(scores: sp.csr_matrix, targets: np.ndarray, n_chunks: int):
    """Ranks and top-1 of one batch of sparse score rows (implicit entries score 0).

    Full passes over the entries are few and elementwise; per-entry work beyond them is
    limited to the entries that beat or tie the target (few when ranks are small).
    """
    n = scores.shape[0]
    indptr, cols, vals = scores.indptr, scores.indices, scores.data
    nnz = np.diff(indptr)
    implicit = n_chunks - nnz  # chunks with score exactly 0
    # Target score: its explicit entry, or 0.
    found = np.flatnonzero(cols == np.repeat(targets.astype(cols.dtype), nnz))
    v = np.zeros(n)
    v[_segment_rows(indptr, found)] = vals[found]
    v_rep = np.repeat(v, nnz)
    win = np.flatnonzero(vals > v_rep)  # entries scoring above their row's target
    win_rows = _segment_rows(indptr, win)
    higher = np.bincount(win_rows, minlength=n) + np.where(v < 0, implicit, 0)
    tied = np.flatnonzero(vals == v_rep)
    tied_rows = _segment_rows(indptr, tied)
    tied_below = cols[tied] < targets[tied_rows]
    tie_below = np.bincount(tied_rows, weights=tied_below, minlength=n).astype(np.int64)
    zero = np.flatnonzero(v == 0)
    if len(zero):
        # A target scoring 0 also ties with every implicit chunk before it.
        in_zero = np.flatnonzero(np.repeat(v == 0, nnz))
        zero_rows = _segment_rows(indptr, in_zero)
        explicit_below = np.bincount(zero_rows, weights=cols[in_zero] < targets[zero_rows], minlength=n)
        tie_below[zero] += targets[zero] - explicit_below[zero].astype(np.int64)
    rank = (1 + higher + tie_below).astype(np.float64)

    # Top-1: the best of the entries above the target, lowest column among equals;
    # with none above, the lowest column tying the target (the target itself at most).
    top = targets.copy()
    if len(tied):
        first_tie = np.full(n, n_chunks, dtype=np.int64)
        np.minimum.at(first_tie, tied_rows, cols[tied])
        has_tie = first_tie < n_chunks
        top[has_tie] = np.minimum(top[has_tie], first_tie[has_tie])
    best = v.copy()
    if len(win):
        starts = np.flatnonzero(np.diff(win_rows, prepend=-1))
        seg_rows = win_rows[starts]
        seg_max = np.maximum.reduceat(vals[win], starts)
        at_max = np.where(vals[win] == np.repeat(seg_max, np.diff(np.append(starts, len(win)))), cols[win], n_chunks)
        top[seg_rows] = np.minimum.reduceat(at_max, starts)
        best[seg_rows] = seg_max
    for i in np.flatnonzero((implicit > 0) & (best <= 0)):
        # Only with non-positive scores (negative idf): an implicit zero may win; use the dense row.
        dense = np.zeros(n_chunks)
        dense[cols[indptr[i] : indptr[i + 1]]] = vals[indptr[i] : indptr[i + 1]]
        top[i] = int(np.argmax(dense))
    return rank, top, v


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
