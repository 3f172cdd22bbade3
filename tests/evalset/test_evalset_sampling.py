"""Which chunks questions come from: seeded, spread over the corpus (never the first N), capped, weighted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragunc.corpus.model import corpus_from_frame
from ragunc.evalset.sampling import (
    DEFAULT_MIX,
    parse_mix,
    read_popularity,
    sample_chunks,
    type_counts,
)
from ragunc.retrieval.chunking import chunk_corpus


def chunks_of(sizes: list[int], chunk_words: int = 10):
    """A corpus of documents d0, d1, ... of ``sizes`` words each, chunked at ``chunk_words``."""
    frame = pd.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(len(sizes))],
            "text": [" ".join(f"w{i}_{j}" for j in range(n)) for i, n in enumerate(sizes)],
        }
    )
    return chunk_corpus(corpus_from_frame(frame), chunk_words)


def test_the_same_seed_draws_the_same_chunks_and_types():
    chunks = chunks_of([40, 30, 50, 20, 60])
    a, b = sample_chunks(chunks, 8, seed=4), sample_chunks(chunks, 8, seed=4)
    assert a.positions.tolist() == b.positions.tolist() and a.types == b.types
    assert sample_chunks(chunks, 8, seed=5).positions.tolist() != a.positions.tolist()


def test_every_chunk_is_equally_likely_never_the_first_n():
    chunks = chunks_of([100, 50, 30, 70, 50])  # 30 chunks
    n, reps = 6, 600
    counts = np.zeros(len(chunks))
    for seed in range(reps):
        drawn = sample_chunks(chunks, n, seed=seed, mix={"factual": 1}).positions
        assert len(set(drawn.tolist())) == n
        counts[drawn] += 1
    assert counts.min() > 0  # late chunks are drawn too
    # Inclusion probability n / N for each chunk: a chi-square test of the counts.
    expected = reps * n / len(chunks)
    assert stats.chisquare(counts, np.full(len(chunks), expected)).pvalue > 1e-3


def test_popularity_weights_draw_a_single_chunk_in_proportion():
    chunks = chunks_of([10, 10, 10, 10])  # one chunk per document
    weights = {"d0": 5.0, "d1": 1.0, "d2": 0.0}  # d3 keeps weight 1; d2 is never drawn
    reps = 3000
    counts = np.bincount(
        [sample_chunks(chunks, 1, seed=s, popularity=weights).positions[0] for s in range(reps)], minlength=4
    )
    assert counts[2] == 0
    expected = reps * np.array([5, 1, 0, 1]) / 7
    keep = [0, 1, 3]
    assert stats.chisquare(counts[keep], expected[keep]).pvalue > 1e-3


def test_the_cap_per_document_holds_and_short_tails_are_not_drawn():
    chunks = chunks_of([100, 12, 100])  # d1 is one full chunk and a 2-word tail
    sample = sample_chunks(chunks, 30, seed=0, max_per_doc=3)
    docs = chunks.doc_pos[sample.positions]
    assert np.bincount(docs).max() <= 3 and len(sample) == 3 + 1 + 3  # d1 gives one: its tail is too short
    assert sample.requested == 30 and sample.eligible == len(chunks) - 1


def test_types_follow_the_mix_and_two_chunk_questions_get_the_next_chunk():
    chunks = chunks_of([60, 60, 60, 60])
    sample = sample_chunks(chunks, 20, seed=1)
    counts = {t: sample.types.count(t) for t in DEFAULT_MIX}
    assert counts == type_counts(DEFAULT_MIX, 20) == {"factual": 10, "two_chunk": 3, "procedural": 4, "negative": 3}
    for pos, qtype, partner in zip(sample.positions, sample.types, sample.partners):
        if qtype == "two_chunk":
            assert partner == pos + 1 and chunks.doc_pos[partner] == chunks.doc_pos[pos]
        else:
            assert partner == -1


def test_two_chunk_questions_without_neighbours_become_factual():
    chunks = chunks_of([10, 10, 10, 10, 10])  # single-chunk documents
    sample = sample_chunks(chunks, 5, seed=0, mix={"two_chunk": 1})
    assert sample.types == ("factual",) * 5 and sample.shortfall == {"two_chunk": 5}


def test_mix_parsing():
    assert parse_mix(["factual=3", "negative=1"]) == {"factual": 0.75, "negative": 0.25}
    assert parse_mix(["factual,procedural"]) == {"factual": 0.5, "procedural": 0.5}
    with pytest.raises(ValueError, match="unknown question type 'trivia'"):
        parse_mix(["trivia=1"])
    with pytest.raises(ValueError, match="not a number"):
        parse_mix(["factual=lots"])
    with pytest.raises(ValueError, match="positive weight"):
        parse_mix(["factual=0"])


def test_bad_sampling_inputs_are_named():
    chunks = chunks_of([40, 40])
    with pytest.raises(ValueError, match="n must be a positive integer"):
        sample_chunks(chunks, 0)
    with pytest.raises(ValueError, match=r"not documents of the corpus, e.g. \['nope'\]"):
        sample_chunks(chunks, 2, popularity={"nope": 2.0})
    with pytest.raises(ValueError, match="max_per_doc"):
        sample_chunks(chunks, 2, max_per_doc=0)


def test_popularity_files(tmp_path):
    plain = tmp_path / "popular.txt"
    plain.write_text("# our top pages\nguide/install.md 5\nfaq.md\t2.5\n")
    assert read_popularity(plain) == {"guide/install.md": 5.0, "faq.md": 2.5}
    table = tmp_path / "popular.csv"
    table.write_text("doc_id,weight\nfaq.md,3\n")
    assert read_popularity(table) == {"faq.md": 3.0}
    bad = tmp_path / "bad.txt"
    bad.write_text("faq.md many\n")
    with pytest.raises(ValueError, match="the weight of 'faq.md' is not a number"):
        read_popularity(bad)
    negative = tmp_path / "negative.txt"
    negative.write_text("faq.md -1\n")
    with pytest.raises(ValueError, match=">= 0"):
        read_popularity(negative)
