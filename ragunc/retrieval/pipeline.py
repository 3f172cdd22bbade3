"""From a corpus to per-chunk retrieval results: chunk, index with BM25, query, rank.

:func:`chunk_eval` returns the data contract ``ragunc.data`` loads: one row per query
(one simulated query per chunk by default), columns ``doc_id, chunk_id, chunk_index,
n_words, config, doc_type, y, doc_hit1, rank`` (+ ``query``), where ``y`` is hit@1
(the top chunk is the source chunk), ``doc_hit1`` says the top chunk belongs to the
source document, and ``rank`` is the source chunk's rank up to ``cutoff`` (empty beyond),
so hit@k for any ``k <= cutoff`` is ``rank <= k``.

With a user's queries file the rows are queries, not chunks: they lead with
``query_id`` and name their first relevant chunk ``relevant_chunk_id`` /
``relevant_chunk_index``, so that several questions about one chunk stay a valid
file (queries clustered by the document of their relevant chunk).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..corpus.language import LanguageChoice
from ..corpus.loaders import load_corpus
from ..corpus.model import Corpus
from .bm25 import (
    BM25Index,
    Tokenizer,
    build_index,
    encode,
    query_matrix_from_ids,
    rank_targets,
    term_frequencies,
    top_k,
)
from .chunking import Chunks, chunk_corpus
from .known_item import QueryModel, QuerySet, read_query_file, simulate_known_item
from .tokens import CorpusTokens, tokenize_corpus

RESULT_COLUMNS = ("doc_id", "chunk_id", "chunk_index", "n_words", "config", "doc_type", "y", "doc_hit1", "rank")
RUN_COLUMNS = ("query_id", "rank", "score", "chunk_id", "doc_id")
QRELS_COLUMNS = ("query_id", "doc_id", "chunk_id", "relevance")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Retrieval:
    """A chunked corpus with its BM25 index (token ids kept for query simulation)."""

    chunks: Chunks
    index: BM25Index
    tf: sp.csr_matrix  # (n_chunks, n_terms) term counts
    tokenizer: Callable[[str], list[str]]

    @property
    def chunk_ids(self) -> np.ndarray:
        return self.chunks.chunk_ids

    def encode_queries(self, texts: list[str]) -> sp.csr_matrix:
        return self.index.query_matrix(self.tokenizer(t) for t in texts)


def prepare_retrieval(
    corpus: CorpusTokens | Corpus | str | os.PathLike | pd.DataFrame,
    *,
    chunk_words: int = 100,
    overlap: int = 0,
    tokenizer: Callable[[str], list[str]] | None = None,
    language: str | LanguageChoice | None = None,
    k1: float = 1.5,
    b: float = 0.75,
    epsilon: float = 0.25,
) -> Retrieval:
    """Chunk ``corpus`` at ``chunk_words`` units and build the BM25 index over all chunks.

    Terms are those of ``language``'s analyser (detected when None; :mod:`ragunc.corpus.language`),
    unless ``tokenizer`` (e.g. a :class:`~ragunc.retrieval.bm25.Tokenizer` with stopwords) tokenises
    each chunk's text instead. A :class:`CorpusTokens` (from :func:`tokenize_corpus`) is analysed already.
    """
    if isinstance(corpus, CorpusTokens):
        source = corpus
    elif tokenizer is None:
        source = tokenize_corpus(corpus, language)  # the analyser's terms, taken chunk by chunk below
    else:
        source = load_corpus(corpus)
    chunks = chunk_corpus(source, chunk_words, overlap, language=language)
    lang = chunks.language.language
    if isinstance(tokenizer, Tokenizer) and not lang.spaced:
        raise ValueError(
            f"stopwords and stemming work on the words of spaced languages; a {lang.label} corpus "
            f"is indexed by its analyser's {lang.unit}"
        )
    if tokenizer is None:
        tokenizer = lang.analyser().terms
        term_ids, offsets, vocabulary = source.chunk_terms(chunks)
    else:
        term_ids, offsets, vocabulary = encode([tokenizer(text) for text in chunks.texts])
    index = build_index(term_ids, offsets, vocabulary, k1=k1, b=b, epsilon=epsilon)
    tf = term_frequencies(term_ids, offsets, len(vocabulary))
    return Retrieval(chunks=chunks, index=index, tf=tf, tokenizer=tokenizer)


def simulated_queries(retrieval: Retrieval, model: QueryModel | None = None, *, rng=0) -> QuerySet:
    """One known-item query per chunk (see :mod:`ragunc.retrieval.known_item`); query ids are the chunk ids."""
    model = model or QueryModel()
    rows, term_ids = simulate_known_item(retrieval.tf, model, rng=rng)
    n = len(retrieval.chunks)
    matrix = query_matrix_from_ids(rows, term_ids, n_queries=n, n_terms=len(retrieval.index.vocabulary))
    terms = np.asarray(retrieval.index.vocabulary, dtype=object)[term_ids]
    bounds = np.searchsorted(rows, np.arange(n + 1))
    texts = tuple(" ".join(terms[bounds[i] : bounds[i + 1]]) for i in range(n))
    chunk_ids = retrieval.chunk_ids
    return QuerySet(
        query_ids=tuple(chunk_ids),
        texts=texts,
        matrix=matrix,
        relevant=tuple(np.array([i]) for i in range(n)),
    )


def user_queries(retrieval: Retrieval, source: str | os.PathLike | pd.DataFrame) -> QuerySet:
    """A user's queries (file or frame with ``query_id, query, chunk_ids``) against this chunking."""
    frame = source if isinstance(source, pd.DataFrame) else read_query_file(source)
    position = pd.Index(retrieval.chunk_ids)
    of_doc = pd.Series(np.arange(len(position))).groupby(retrieval.chunks.doc_ids).agg(list)
    relevant, unknown = [], []
    for ids in frame["chunk_ids"]:
        pos = position.get_indexer(list(ids))
        found = [pos[pos >= 0]]
        for i in np.asarray(ids, dtype=object)[pos < 0]:
            chunks = of_doc.get(i)  # a document id: every chunk of it
            if chunks is None:
                unknown.append(i)
            else:
                found.append(np.asarray(chunks))
        relevant.append(np.unique(np.concatenate(found)).astype(np.int64))
    if unknown:
        raise ValueError(
            f"queries: {len(unknown)} relevant chunk_id(s) are not chunks of this corpus at "
            f"{retrieval.chunks.chunk_words} {retrieval.chunks.language.language.unit}, e.g. {unknown[:3]} "
            "(chunk ids are 'doc_id#chunk_index'; a doc_id stands for every chunk of it)"
        )
    return QuerySet(
        query_ids=tuple(frame["query_id"].astype(str)),
        texts=tuple(frame["query"]),
        matrix=retrieval.encode_queries(list(frame["query"])),
        relevant=tuple(relevant),
    )


def per_query_results(
    retrieval: Retrieval, queries: QuerySet, *, cutoff: int = 100, progress: Progress | None = None
) -> pd.DataFrame:
    """Per-query results in the data contract (see the module docstring)."""
    if cutoff < 1:
        raise ValueError(f"cutoff must be >= 1, got {cutoff}")
    n_relevant = np.fromiter((len(r) for r in queries.relevant), dtype=np.int64, count=len(queries))
    pair_query = np.repeat(np.arange(len(queries)), n_relevant)
    pair_target = np.concatenate(queries.relevant) if len(queries) else np.empty(0, np.int64)
    one_each = np.array_equal(pair_query, np.arange(len(queries)))
    matrix = queries.matrix if one_each else queries.matrix[pair_query]
    ranked = rank_targets(retrieval.index, matrix, pair_target, cutoff=cutoff, progress=progress)
    # Several relevant chunks: the best one counts; the top chunk is the same for each pair.
    rank = np.full(len(queries), np.inf)
    np.minimum.at(rank, pair_query, np.nan_to_num(ranked.rank, nan=np.inf))
    top = np.empty(len(queries), dtype=np.int64)
    top[pair_query] = ranked.top
    doc_pos = retrieval.chunks.doc_pos
    doc_hit = np.zeros(len(queries), dtype=bool)
    np.logical_or.at(doc_hit, pair_query, doc_pos[pair_target] == doc_pos[top[pair_query]])

    chunks = retrieval.chunks
    source = queries.source
    frame = chunks.to_frame().drop(columns="text").iloc[source].reset_index(drop=True)
    frame.insert(4, "config", chunks.config)
    frame["y"] = (rank == 1).astype(np.int8)
    frame["doc_hit1"] = doc_hit.astype(np.int8)
    frame["rank"] = pd.array(np.where(np.isfinite(rank), rank, np.nan), dtype="Int64")
    frame["query"] = list(queries.texts)
    if queries.query_ids != tuple(frame["chunk_id"]):
        frame = frame.rename(columns={"chunk_id": "relevant_chunk_id", "chunk_index": "relevant_chunk_index"})
        frame.insert(0, "query_id", list(queries.query_ids))
    return frame


def chunk_eval(corpus: CorpusTokens | Corpus | str | os.PathLike | pd.DataFrame, **options) -> pd.DataFrame:
    """Per-chunk BM25 results of ``corpus`` in the data contract (:func:`chunk_eval_parts`' ``results``).

    Takes the keyword options of :func:`chunk_eval_parts`, which declares them once.
    """
    return chunk_eval_parts(corpus, **options).results


@dataclass(frozen=True)
class ChunkEval:
    """What :func:`chunk_eval_parts` computed, kept for follow-up work (runs, qrels)."""

    results: pd.DataFrame
    retrieval: Retrieval
    queries: QuerySet


def chunk_eval_parts(
    corpus: CorpusTokens | Corpus | str | os.PathLike | pd.DataFrame,
    *,
    chunk_words: int = 100,
    overlap: int = 0,
    queries: str | os.PathLike | pd.DataFrame | None = None,
    query_model: QueryModel | None = None,
    tokenizer: Callable[[str], list[str]] | None = None,
    language: str | LanguageChoice | None = None,
    k1: float = 1.5,
    b: float = 0.75,
    epsilon: float = 0.25,
    cutoff: int = 100,
    rng=0,
    progress: Progress | None = None,
) -> ChunkEval:
    """Per-chunk BM25 results of ``corpus`` at ``chunk_words`` units, with the index and queries used.

    Units and terms are ``language``'s (detected when None; see :func:`prepare_retrieval`).
    With ``queries=None`` every chunk gets one simulated known-item query (seeded by
    ``rng``); otherwise a user's queries file (``query``, relevant ``chunk_id``).
    ``progress(done, total)`` is called as query batches finish. The results
    frame's ``attrs["summary"]`` holds counts, hit rates, parameters and the
    elapsed seconds.
    """
    started = time.perf_counter()
    if progress is not None:
        progress(0, 1)
    retrieval = prepare_retrieval(
        corpus,
        chunk_words=chunk_words,
        overlap=overlap,
        tokenizer=tokenizer,
        language=language,
        k1=k1,
        b=b,
        epsilon=epsilon,
    )
    query_set = (
        simulated_queries(retrieval, query_model, rng=rng) if queries is None else user_queries(retrieval, queries)
    )
    frame = per_query_results(retrieval, query_set, cutoff=cutoff, progress=progress)
    chunks = retrieval.chunks
    frame.attrs["summary"] = {
        **chunks.corpus.to_dict(),
        "language": chunks.language.to_dict(),
        "n_units": chunks.n_units,
        "config": chunks.config,
        "chunk_words": int(chunk_words),
        "overlap": int(overlap),
        "n_chunks": len(chunks),
        "n_queries": len(query_set),
        "queries": (
            "simulated" if queries is None else "<frame>" if isinstance(queries, pd.DataFrame) else str(queries)
        ),
        "query_model": (query_model or QueryModel()).to_dict() if queries is None else None,
        "seed": rng if isinstance(rng, (int, type(None))) else "<Generator>",
        "bm25": {"k1": k1, "b": b, "epsilon": epsilon},
        "cutoff": int(cutoff),
        "hit1": float(frame["y"].mean()),
        "doc_hit1": float(frame["doc_hit1"].mean()),
        "seconds": time.perf_counter() - started,
    }
    return ChunkEval(results=frame, retrieval=retrieval, queries=query_set)


def top_k_run(
    retrieval: Retrieval, queries: QuerySet, *, k: int = 20, progress: Progress | None = None
) -> pd.DataFrame:
    """The ranked run ``query_id, rank, score, chunk_id, doc_id``: the top ``k`` chunks per query."""
    positions, scores = top_k(retrieval.index, queries.matrix, k, progress=progress)
    n, k = positions.shape
    flat = positions.ravel()
    return pd.DataFrame(
        {
            "query_id": np.repeat(np.asarray(queries.query_ids, dtype=object), k),
            "rank": np.tile(np.arange(1, k + 1), n),
            "score": scores.ravel(),
            "chunk_id": retrieval.chunk_ids[flat],
            "doc_id": retrieval.chunks.doc_ids[flat],
        }
    )


def qrels(retrieval: Retrieval, queries: QuerySet) -> pd.DataFrame:
    """Relevance judgements ``query_id, doc_id, chunk_id, relevance`` (1 for every relevant chunk)."""
    n_relevant = [len(r) for r in queries.relevant]
    pos = np.concatenate(queries.relevant) if len(queries) else np.empty(0, np.int64)
    return pd.DataFrame(
        {
            "query_id": np.repeat(np.asarray(queries.query_ids, dtype=object), n_relevant),
            "doc_id": retrieval.chunks.doc_ids[pos],
            "chunk_id": retrieval.chunk_ids[pos],
            "relevance": np.ones(len(pos), dtype=np.int64),
        }
    )
