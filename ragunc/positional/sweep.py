"""Sweeps: one encoder, one corpus, many calibration settings, paired intervals against lambda = 0.

The stock passage and query embeddings are computed once and cached on disk (keyed by model,
texts and settings, see :func:`.encoder.encode_cached`), and so is every calibrated encoding,
so a sweep that is stopped or extended recomputes nothing it already has.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

from ..corpus.loaders import load_corpus
from ..corpus.model import Corpus
from ..retrieval.known_item import QueryModel
from .encoder import DenseEncoder, encode_cached, load_encoder
from .evaluation import PositionalSweep, evaluate_settings
from .passages import POSITION_QUERY_MODEL, position_queries
from .settings import STOCK, Calibration, sweep_settings

Progress = Callable[[int, int], None]


def positional_sweep(
    corpus: Corpus | str | os.PathLike = "stdlib",
    *,
    model: str | os.PathLike | None = None,
    pooling: str | None = None,
    max_seq_length: int | None = None,
    settings: Sequence[Calibration] | None = None,
    n_passages: int = 200,
    min_tokens: int = 440,
    max_tokens: int = 505,
    query_model: QueryModel = POSITION_QUERY_MODEL,
    level: float = 0.95,
    reps: int = 1000,
    seed: int = 0,
    batch_size: int = 16,
    device: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    encoder: DenseEncoder | None = None,
    progress: Progress | None = None,
    language: str | None = None,
) -> PositionalSweep:
    """Position-binned nDCG@10, HM and PSI of every setting on ``corpus``, with paired cluster intervals.

    ``settings`` defaults to :func:`sweep_settings` (stock and the calibration's usual setting, lambda = 0.5,
    B = 128, the last half of the layers); the stock model is always the reference, added first
    if missing.  ``encoder`` reuses a loaded model (then ``model``, ``pooling``,
    ``max_seq_length`` and ``device`` must be left unset).  ``progress(done, total)`` counts
    encoded texts.  ``language`` (detected when None) cuts the passages and picks the query terms.
    """
    started = time.perf_counter()
    settings = tuple(settings) if settings is not None else sweep_settings()
    settings = (STOCK, *(s for s in dict.fromkeys(settings) if not s.is_stock))
    if encoder is None:
        encoder = load_encoder(model, pooling=pooling, max_seq_length=max_seq_length, device=device)
    elif (model, pooling, max_seq_length, device) != (None,) * 4:
        raise ValueError("pass either a loaded encoder or model/pooling/max_seq_length/device, not both")
    corpus = load_corpus(corpus)
    queries = position_queries(
        corpus,
        encoder.tokenizer,
        n_passages=n_passages,
        min_tokens=min_tokens,
        max_tokens=max_tokens,
        max_seq_length=encoder.max_seq_length,
        query_model=query_model,
        rng=seed,
        language=language,
    )
    # Queries shorter than a basket are never calibrated: the stock embeddings are theirs.
    longest_query = int(encoder.content_lengths(queries.texts).max())
    own_queries = [not s.is_stock and longest_query >= s.basket for s in settings]
    n_texts = len(queries) * (1 + sum(own_queries)) + queries.n_passages * len(settings)
    done = 0

    def encoded(texts, calibration):
        nonlocal done
        step = None if progress is None else (lambda d, _t: progress(done + d, n_texts))
        out, _ = encode_cached(encoder, texts, calibration, cache_dir=cache_dir, batch_size=batch_size, progress=step)
        done += len(texts)
        return out

    stock_queries = encoded(queries.texts, STOCK)
    query_embeddings = [encoded(queries.texts, s) if own else stock_queries for s, own in zip(settings, own_queries)]
    passage_embeddings = [encoded(queries.passages, s) for s in settings]
    results = evaluate_settings(
        queries, query_embeddings, passage_embeddings, settings, level=level, reps=reps, rng=seed
    )
    return PositionalSweep(
        encoder=encoder.describe(),
        passages=queries.describe(),
        query_model=query_model.to_dict(),
        settings=results,
        level=level,
        reps=reps,
        seed=seed,
        seconds=time.perf_counter() - started,
    )
