"""Split documents into consecutive windows of N whitespace-separated words."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..corpus.model import Corpus

MIN_CHUNK_WORDS = 10


@dataclass(frozen=True)
class Chunks:
    """Every chunk of a corpus, in corpus order (document, then ``chunk_index``).

    ``doc_pos`` indexes the corpus' documents; ``chunk_id`` is ``f"{doc_id}#{chunk_index}"``.
    """

    doc_pos: np.ndarray  # int64, position of the chunk's document in the corpus
    chunk_index: np.ndarray  # int64, 0-based within its document
    n_words: np.ndarray  # int64
    texts: tuple[str, ...]
    chunk_words: int
    overlap: int
    corpus: Corpus

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def doc_ids(self) -> np.ndarray:
        return np.asarray(self.corpus.doc_ids, dtype=object)[self.doc_pos]

    @property
    def chunk_ids(self) -> np.ndarray:
        return np.array([f"{d}#{i}" for d, i in zip(self.doc_ids, self.chunk_index.tolist())], dtype=object)

    @property
    def config(self) -> str:
        """The results' ``config`` label: ``"{N}w"`` (``"{N}w{W}o"`` with overlap)."""
        return f"{self.chunk_words}w" + (f"{self.overlap}o" if self.overlap else "")

    def to_frame(self) -> pd.DataFrame:
        doc_types = np.asarray(self.corpus.doc_types, dtype=object)[self.doc_pos]
        return pd.DataFrame(
            {
                "doc_id": self.doc_ids,
                "chunk_id": self.chunk_ids,
                "chunk_index": self.chunk_index,
                "n_words": self.n_words,
                "doc_type": doc_types,
                "text": self.texts,
            }
        )


def _check(chunk_words: int, overlap: int) -> None:
    if int(chunk_words) != chunk_words or chunk_words < MIN_CHUNK_WORDS:
        raise ValueError(f"chunk_words must be an integer >= {MIN_CHUNK_WORDS}, got {chunk_words!r}")
    if int(overlap) != overlap or not 0 <= overlap < chunk_words:
        raise ValueError(f"overlap must be an integer in [0, chunk_words={chunk_words}), got {overlap!r}")


def window_starts(n_words: int, chunk_words: int, overlap: int = 0) -> np.ndarray:
    """Start word of each window: every ``chunk_words - overlap`` words until a window reaches the end.

    A document shorter than one window is one chunk; the last window may be shorter.
    """
    step = chunk_words - overlap
    n_chunks = 1 + max(0, -(-(n_words - chunk_words) // step))
    return np.arange(n_chunks, dtype=np.int64) * step


def chunk_text(text: str, chunk_words: int, overlap: int = 0) -> list[str]:
    """The windows of one text, each joined with single spaces."""
    _check(chunk_words, overlap)
    words = text.split()
    return [" ".join(words[s : s + chunk_words]) for s in window_starts(len(words), chunk_words, overlap)]


def chunk_corpus(corpus: Corpus, chunk_words: int, overlap: int = 0) -> Chunks:
    """All chunks of ``corpus`` at ``chunk_words`` words with ``overlap`` words shared by neighbours."""
    _check(chunk_words, overlap)
    doc_pos, chunk_index, n_words, texts = [], [], [], []
    for pos, text in enumerate(corpus.texts):
        words = text.split()
        starts = window_starts(len(words), chunk_words, overlap)
        doc_pos.append(np.full(len(starts), pos, dtype=np.int64))
        chunk_index.append(np.arange(len(starts), dtype=np.int64))
        n_words.append(np.minimum(len(words) - starts, chunk_words))
        texts.extend(" ".join(words[s : s + chunk_words]) for s in starts.tolist())
    return Chunks(
        doc_pos=np.concatenate(doc_pos),
        chunk_index=np.concatenate(chunk_index),
        n_words=np.concatenate(n_words).astype(np.int64),
        texts=tuple(texts),
        chunk_words=int(chunk_words),
        overlap=int(overlap),
        corpus=corpus,
    )
