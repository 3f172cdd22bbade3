"""Split documents into consecutive windows of N units: whitespace-separated words, or the
analyser's morphemes for a language written without spaces (:mod:`ragunc.corpus.language`).

A chunk's text is its units' stretch of the document with whitespace runs made single spaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..corpus.language import LanguageChoice, choose_language
from ..corpus.model import Corpus
from .tokens import CorpusTokens, tokenize_corpus

MIN_CHUNK_WORDS = 10


@dataclass(frozen=True)
class Chunks:
    """Every chunk of a corpus, in corpus order (document, then ``chunk_index``).

    ``doc_pos`` indexes the corpus' documents; ``chunk_id`` is ``f"{doc_id}#{chunk_index}"``.
    Sizes count the language's units (``language.language.unit``: words, morphemes).
    """

    doc_pos: np.ndarray  # int64, position of the chunk's document in the corpus
    chunk_index: np.ndarray  # int64, 0-based within its document
    n_words: np.ndarray  # int64, units in the chunk
    texts: tuple[str, ...]
    chunk_words: int  # units per chunk
    overlap: int
    corpus: Corpus
    language: LanguageChoice

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
        """The results' ``config`` label: ``"{N}w"`` for words (``"{N}w{W}o"`` with overlap), ``"{N}m"``
        for morphemes: the letter is the unit's (:meth:`ragunc.corpus.language.Language.config`)."""
        return self.language.language.config(self.chunk_words, self.overlap)

    @property
    def n_units(self) -> int:
        """Units in the corpus: each document's last chunk ends at its last unit."""
        last = np.flatnonzero(np.diff(np.append(self.doc_pos, -1)) != 0)
        return int((self.chunk_index[last] * (self.chunk_words - self.overlap) + self.n_words[last]).sum())

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


def chunk_corpus(
    corpus: Corpus | CorpusTokens, chunk_words: int, overlap: int = 0, *, language: str | LanguageChoice | None = None
) -> Chunks:
    """All chunks of ``corpus`` at ``chunk_words`` units with ``overlap`` units shared by neighbours.

    Units are the words of a spaced language and the analyser's morphemes of an unspaced one;
    ``language`` is detected when None (a :class:`~ragunc.retrieval.tokens.CorpusTokens` knows its own).
    """
    _check(chunk_words, overlap)
    if isinstance(corpus, CorpusTokens):
        tokens, choice = corpus, corpus.language
    else:
        tokens, choice = None, choose_language(corpus.texts, language)
    if not choice.language.spaced:
        return _chunk_units(tokens or tokenize_corpus(corpus, choice), chunk_words, overlap)
    corpus = tokens.corpus if tokens is not None else corpus
    return _windows(corpus, chunk_words, overlap, choice, _word_documents(corpus.texts))


def _windows(corpus: Corpus, chunk_words: int, overlap: int, language: LanguageChoice, documents) -> Chunks:
    """The windows of every document; ``documents`` yields, in corpus order, each document's number of
    units and its cutter: ``cut(starts, lengths)`` gives the texts of the windows starting at those units."""
    doc_pos, chunk_index, n_words, texts = [], [], [], []
    for pos, (n_units, cut) in enumerate(documents):
        starts = window_starts(n_units, chunk_words, overlap)
        lengths = np.minimum(n_units - starts, chunk_words)
        doc_pos.append(np.full(len(starts), pos, dtype=np.int64))
        chunk_index.append(np.arange(len(starts), dtype=np.int64))
        n_words.append(lengths)
        texts.extend(cut(starts, lengths))
    return Chunks(
        doc_pos=np.concatenate(doc_pos),
        chunk_index=np.concatenate(chunk_index),
        n_words=np.concatenate(n_words).astype(np.int64),
        texts=tuple(texts),
        chunk_words=int(chunk_words),
        overlap=int(overlap),
        corpus=corpus,
        language=language,
    )


def _word_documents(texts):
    """Each text's number of words and its cutter (a text is split once)."""
    for text in texts:
        words = text.split()
        yield len(words), partial(_join_words, words)


def _join_words(words: list[str], starts: np.ndarray, lengths: np.ndarray) -> list[str]:
    return [" ".join(words[s : s + n]) for s, n in zip(starts.tolist(), lengths.tolist())]


def _chunk_units(tokens: CorpusTokens, chunk_words: int, overlap: int) -> Chunks:
    """Windows over the analysed units of an unspaced language, cut from the text by the units' spans."""
    unit_start, unit_end = tokens.spans
    bounds = tokens.doc_words

    def documents():
        for pos, text in enumerate(tokens.corpus.texts):
            first = int(bounds[pos])
            yield int(bounds[pos + 1]) - first, partial(_cut_spans, text, unit_start[first:], unit_end[first:])

    return _windows(tokens.corpus, chunk_words, overlap, tokens.language, documents())


def _cut_spans(text: str, unit_start: np.ndarray, unit_end: np.ndarray, starts: np.ndarray, lengths: np.ndarray):
    # Every document has a unit: the corpus holds no blank text.
    begin, end = unit_start[starts], unit_end[starts + lengths - 1]
    return [" ".join(text[b:e].split()) for b, e in zip(begin.tolist(), end.tolist())]
