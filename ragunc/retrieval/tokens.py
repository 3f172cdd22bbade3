"""A corpus analysed once for every chunk size: its units (what a chunk size counts) and their index terms.

The language's analyser (:mod:`ragunc.corpus.language`) cuts each document into units and gives
them terms. Chunks are windows of whole units, so a chunk's terms are its units' terms in order
and the vocabulary in order of first appearance is the corpus's: what analysing each chunk on
its own gives for spaced scripts, and what keeps a morpheme cut at a chunk's edge from being
segmented differently for an unspaced one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..corpus.language import TOKEN_PATTERN, LanguageChoice, choose_language
from ..corpus.loaders import load_corpus
from ..corpus.model import Corpus

# The spaced analyser's terms, and a mark after every word: a spaced corpus is tokenised in one pass per document.
_TERMS_AND_WORD_ENDS = re.compile(TOKEN_PATTERN.pattern + "| ", re.UNICODE)


@dataclass(frozen=True)
class CorpusTokens:
    """A corpus cut into units, with their terms (see the module docstring).

    ``spans`` holds each unit's characters in its document (``text[start:end]``) for unspaced
    languages, whose chunk texts are cut from them; spaced ones cut at whitespace and keep None.
    """

    corpus: Corpus
    language: LanguageChoice
    term_ids: np.ndarray  # every term of the corpus, documents in order
    vocabulary: pd.Index  # term -> id, in order of first appearance
    word_tokens: np.ndarray  # offset of each unit's first term in term_ids (all units, then the end)
    doc_words: np.ndarray  # offset of each document's first unit (then the end)
    spans: tuple[np.ndarray, np.ndarray] | None = None  # (starts, ends) of every unit, unspaced languages only

    @property
    def n_units(self) -> int:
        return int(self.doc_words[-1])

    def chunk_terms(self, chunks) -> tuple[np.ndarray, np.ndarray, pd.Index]:
        """``(term ids, offsets, vocabulary)`` of ``chunks`` (as :func:`~ragunc.retrieval.bm25.encode` gives)."""
        start = self.doc_words[chunks.doc_pos] + chunks.chunk_index * (chunks.chunk_words - chunks.overlap)
        end = np.minimum(start + chunks.chunk_words, self.doc_words[chunks.doc_pos + 1])
        first, lengths = self.word_tokens[start], self.word_tokens[end] - self.word_tokens[start]
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        positions = np.repeat(first - offsets[:-1], lengths) + np.arange(offsets[-1])
        return self.term_ids[positions], offsets, self.vocabulary


def tokenize_corpus(
    corpus: Corpus | str | os.PathLike | pd.DataFrame, language: str | LanguageChoice | None = None
) -> CorpusTokens:
    """The corpus cut into units with their terms by ``language``'s analyser (detected when None),
    for :func:`~ragunc.retrieval.pipeline.prepare_retrieval` at any chunk size."""
    corpus = load_corpus(corpus)
    choice = choose_language(corpus.texts, language)
    if choice.language.spaced:
        return _spaced(corpus, choice)
    analyser = choice.language.analyser()
    analyses = [analyser.analyse(text) for text in corpus.texts]
    units = np.array([len(a) for a in analyses], dtype=np.int64)
    doc_words = np.concatenate([[0], np.cumsum(units)])
    term_units = np.concatenate(
        [a.term_units + first for a, first in zip(analyses, doc_words[:-1].tolist())] + [np.empty(0, np.int64)]
    )
    codes, vocabulary = pd.factorize(np.concatenate([a.terms for a in analyses]))
    return CorpusTokens(
        corpus=corpus,
        language=choice,
        term_ids=codes.astype(np.int64),
        vocabulary=pd.Index(vocabulary),
        word_tokens=np.searchsorted(term_units, np.arange(doc_words[-1] + 1)).astype(np.int64),
        doc_words=doc_words,
        spans=(np.concatenate([a.starts for a in analyses]), np.concatenate([a.ends for a in analyses])),
    )


def _spaced(corpus: Corpus, choice: LanguageChoice) -> CorpusTokens:
    """Whitespace-separated words, and their terms from one regex pass over each document."""
    tokens, per_word = [], []
    for text in corpus.texts:
        words = text.split()
        items = np.array(_TERMS_AND_WORD_ENDS.findall(" ".join(words).lower()), dtype=object)
        word_end = items == " "
        per_word.append(np.bincount(np.cumsum(word_end)[~word_end], minlength=len(words)))
        tokens.append(items[~word_end])
    codes, vocabulary = pd.factorize(np.concatenate(tokens))
    word_counts = np.array([len(w) for w in per_word], dtype=np.int64)
    return CorpusTokens(
        corpus=corpus,
        language=choice,
        term_ids=codes.astype(np.int64),
        vocabulary=pd.Index(vocabulary),
        word_tokens=np.concatenate([[0], np.cumsum(np.concatenate(per_word))]).astype(np.int64),
        doc_words=np.concatenate([[0], np.cumsum(word_counts)]),
    )
