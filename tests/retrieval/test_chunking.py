"""Chunker: windows of N words, overlap, ids and word counts, by hand and as invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragunc.corpus.model import corpus_from_frame
from ragunc.retrieval.chunking import chunk_corpus, chunk_text, window_starts


def _corpus(*texts: str):
    return corpus_from_frame(pd.DataFrame({"doc_id": [f"d{i}" for i in range(len(texts))], "text": texts}))


def _words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def test_windows_by_hand():
    chunks = chunk_text(_words(25), 10)
    assert [c.split() for c in chunks] == [[f"w{i}" for i in range(a, min(a + 10, 25))] for a in (0, 10, 20)]
    # Overlap 4 -> step 6: starts 0, 6, 12, 18 (the window at 18 reaches the end, word 24).
    assert window_starts(25, 10, 4).tolist() == [0, 6, 12, 18]
    assert window_starts(10, 10, 4).tolist() == [0]
    assert window_starts(3, 10).tolist() == [0]
    assert window_starts(20, 10).tolist() == [0, 10]


def test_chunk_corpus_columns():
    chunks = chunk_corpus(_corpus(_words(25), "  one   two\nthree " + _words(8)), 10)
    frame = chunks.to_frame()
    assert frame["chunk_id"].tolist() == ["d0#0", "d0#1", "d0#2", "d1#0", "d1#1"]
    assert frame["chunk_index"].tolist() == [0, 1, 2, 0, 1]
    assert frame["n_words"].tolist() == [10, 10, 5, 10, 1]
    assert frame["text"].iloc[3] == "one two three w0 w1 w2 w3 w4 w5 w6"
    assert chunks.config == "10w"
    assert chunk_corpus(_corpus(_words(25), _words(3)), 10, overlap=2).config == "10w2o"


def test_very_large_document():
    chunks = chunk_corpus(_corpus(_words(200_003), "short doc"), 100)
    assert len(chunks) == 2001 + 1
    assert chunks.n_words[:2001].sum() == 200_003 and chunks.n_words[2000] == 3


@pytest.mark.parametrize(
    "words, overlap, message",
    [
        (9, 0, "chunk_words must be an integer >= 10"),
        (10, 10, r"overlap must be an integer in \[0, chunk_words=10\)"),
        (10, -1, "overlap must be"),
    ],
)
def test_bad_sizes(words, overlap, message):
    with pytest.raises(ValueError, match=message):
        chunk_text("a b c", words, overlap)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 400), size=st.integers(10, 60), data=st.data())
def test_windows_cover_every_word_in_order(n, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    words = [f"t{i}" for i in range(n)]
    chunks = [c.split() for c in chunk_text(" ".join(words), size, overlap)]
    step = size - overlap
    assert all(len(c) <= size for c in chunks)
    # Window j starts at j * step; together they cover every word; the last one reaches the end.
    for j, c in enumerate(chunks):
        assert c == words[j * step : j * step + size]
    assert chunks[-1][-1:] == words[-1:]
    if overlap == 0:
        assert sum(chunks, []) == words
    assert len(chunks) == max(1, int(np.ceil(max(n - size, 0) / step)) + 1)
