"""The filters that turn raw question–chunk pairs into data; each result names what it dropped and why.

- **round trip**: the question's source chunk (either chunk of a two-chunk question) must
  come back in the top ``depth`` of a ranker run on the question (default: ragunc's BM25,
  an independent retriever);
- **uniqueness**: other top-ranked chunks that answer the question too join its relevant set
  (judged by the LLM when there is one, else by near-duplicate text with a source chunk);
- **lexical leakage**: the share of the question's content words found literally in its
  source chunk(s);
- **duplicates**: questions equal up to case, accents and punctuation, or sharing most of
  their content words, keep only the first.

A ranker is any callable ``ranker(questions, depth) -> (n, depth) chunk positions``, best
first; its ``name`` attribute (or its repr) goes into the manifest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..retrieval.bm25 import top_k
from ..retrieval.pipeline import Retrieval
from .text import content_words, jaccard, leakage, normalized, pairwise_jaccard, shingles, tokens


@dataclass(frozen=True)
class BM25Ranker:
    """ragunc's BM25 over every chunk of ``retrieval``: the default, independent round-trip retriever."""

    retrieval: Retrieval

    @property
    def name(self) -> str:
        index = self.retrieval.index
        return f"ragunc BM25 Okapi (k1={index.k1:g}, b={index.b:g}) over {self.retrieval.chunks.config} chunks"

    def __call__(self, questions: Sequence[str], depth: int) -> np.ndarray:
        if not len(questions):
            return np.empty((0, depth), dtype=np.int64)
        positions, _ = top_k(self.retrieval.index, self.retrieval.encode_queries(list(questions)), depth)
        return positions


def ranker_name(ranker) -> str:
    return str(getattr(ranker, "name", None) or repr(ranker))


def ranked_lists(ranker, questions: Sequence[str], depth: int, n_chunks: int) -> np.ndarray:
    """The ranker's lists as an (n, depth) int array (shorter lists padded with -1), checked once."""
    ranked = np.asarray(ranker(list(questions), depth))
    if ranked.ndim != 2 or ranked.shape[0] != len(questions):
        raise ValueError(
            f"ranker {ranker_name(ranker)} returned shape {ranked.shape} for {len(questions)} "
            f"questions; expected ({len(questions)}, <= {depth}) chunk positions"
        )
    if ranked.size and (ranked.min() < -1 or ranked.max() >= n_chunks):
        raise ValueError(f"ranker {ranker_name(ranker)} returned chunk positions outside [0, {n_chunks})")
    padded = np.full((len(questions), depth), -1, dtype=np.int64)
    padded[:, : min(depth, ranked.shape[1])] = ranked[:, :depth]
    return padded


def round_trip_ranks(ranked: np.ndarray, sources: Sequence[Sequence[int]]) -> np.ndarray:
    """Best 1-based rank of each question's source chunks in its list; NaN when none is there.

    A two-chunk question passes when either of its chunks comes back: its neighbours share
    a document, and the metrics count documents.
    """
    best = np.full(len(sources), np.nan)
    for i, chunks in enumerate(sources):
        hits = np.flatnonzero(np.isin(ranked[i], chunks))
        if hits.size:
            best[i] = hits[0] + 1
    return best


def candidates(ranked: np.ndarray, sources: Sequence[Sequence[int]], n: int) -> list[np.ndarray]:
    """The first ``n`` chunks of each list that are not the question's source chunks."""
    out = []
    for row, chunks in zip(ranked, sources):
        row = row[(row >= 0) & ~np.isin(row, chunks)]
        out.append(row[:n])
    return out


def near_duplicate_chunks(
    source_texts: Sequence[str], candidate_texts: Sequence[str], threshold: float, language: str | None = None
) -> np.ndarray:
    """For each candidate, True when its word 3-shingles overlap a source chunk's by Jaccard >= ``threshold``."""
    sources = [shingles(t, language=language) for t in source_texts]
    return np.array(
        [any(jaccard(shingles(c, language=language), s) >= threshold for s in sources) for c in candidate_texts],
        dtype=bool,
    )


def passage_words(texts: Sequence[str], language: str | None = None) -> set[str]:
    """Every token of the source chunk(s): what a question's content words are looked up in."""
    words: set[str] = set()
    for text in texts:
        words.update(tokens(text, language))
    return words


def leakage_scores(questions: Sequence[str], passages: Sequence[set[str]], language: str) -> np.ndarray:
    """:func:`ragunc.evalset.text.leakage` of each question against its passage words."""
    return np.array([leakage(q, p, language) for q, p in zip(questions, passages)], dtype=float)


def duplicate_of(questions: Sequence[str], language: str, threshold: float) -> np.ndarray:
    """For each question, the index of the earlier question it repeats (-1: none).

    Exact: equal after :func:`~ragunc.evalset.text.normalized`. Near: content-word sets with
    Jaccard >= ``threshold``. The first of a group is kept; every later one points at it.
    """
    n = len(questions)
    first_of: dict[str, int] = {}
    parent = np.full(n, -1, dtype=np.int64)
    for i, q in enumerate(questions):
        key = normalized(q)
        if key in first_of:
            parent[i] = first_of[key]
        else:
            first_of[key] = i
    similar = pairwise_jaccard([content_words(q, language) for q in questions]).tocoo()
    close = similar.data >= threshold
    for i, j in sorted(zip(similar.row[close].tolist(), similar.col[close].tolist()), key=lambda p: (p[1], p[0])):
        if parent[j] < 0 and parent[i] < 0:  # j repeats i, the earliest kept question it is close to
            parent[j] = i
    return parent
