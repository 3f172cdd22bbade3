"""Chunking, BM25 and simulated queries in each language: spaced ones unchanged, Japanese by morphemes."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rank_bm25 import BM25Okapi

from ragunc.cli import main
from ragunc.corpus.language import language
from ragunc.corpus.loaders import load_corpus
from ragunc.corpus.model import corpus_from_frame
from ragunc.retrieval.bm25 import Tokenizer, top_k
from ragunc.retrieval.chunking import chunk_corpus
from ragunc.retrieval.pipeline import chunk_eval, prepare_retrieval
from ragunc.retrieval.tokens import tokenize_corpus

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
JA = SAMPLE / "debian_reference_ja.jsonl.gz"
PORTUGUESE = (
    "A válvula fecha sozinha quando o sensor detecta um vazamento no cano e não mostra os avisos. "
    "O painel registra cada evento com a hora, e o técnico confere os dados pela manhã. "
)
SPANISH = (
    "La válvula se cierra sola cuando el sensor detecta una fuga en la tubería y los avisos del panel. "
    "El técnico revisa los datos por la mañana y anota cada evento con su hora. "
)


@pytest.fixture(scope="module")
def japanese():
    return load_corpus(JA)


def test_the_bundled_spaced_sample_is_reproduced_byte_for_byte(tmp_path):
    # The alike-documents sample (sample_data/make_debian_copyright.py) from its bundled corpus, as it was made.
    meta = json.loads((SAMPLE / "debian_copyright_meta.json").read_text())
    info = meta["configs"]["200w"]
    out = tmp_path / info["file"]
    assert (
        main(
            [
                "chunk-eval",
                str(SAMPLE / meta["corpus"]["file"]),
                "--chunk-words",
                "200",
                "--seed",
                "0",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    assert gzip.decompress(out.read_bytes()) == gzip.decompress((SAMPLE / info["file"]).read_bytes())


@pytest.mark.parametrize(("text", "code"), [(PORTUGUESE, "pt"), (SPANISH, "es")])
def test_portuguese_and_spanish_are_chunked_and_ranked_as_words(text, code):
    words = text.split()
    frame = pd.DataFrame(
        {"doc_id": [f"d{i}" for i in range(6)], "text": [" ".join(np.roll(words, 7 * i)) * (i + 1) for i in range(6)]}
    )
    corpus = corpus_from_frame(frame)
    detected = chunk_eval(corpus, chunk_words=12, rng=1)
    assert detected.attrs["summary"]["language"]["code"] == code
    assert detected.attrs["summary"]["n_units"] == sum(len(t.split()) for t in corpus.texts)
    pd.testing.assert_frame_equal(detected, chunk_eval(corpus, chunk_words=12, rng=1, language="en"))
    chunks = chunk_corpus(corpus, 12)
    assert chunks.config == "12w" and list(chunks.texts[:2]) == [" ".join(words[:12]), " ".join(words[12:24])]


def test_a_100_morpheme_chunk_of_japanese_holds_about_as_much_text_as_100_english_words(japanese):
    chunks = chunk_corpus(japanese, 100)
    assert chunks.config == "100m" and chunks.language.code == "ja" and chunks.language.detected
    full = np.array([len(t) for t, n in zip(chunks.texts, chunks.n_words) if n == 100])
    assert 150 <= np.median(full) <= 300
    clauses = chunk_corpus(japanese, 100, language="en")  # whitespace runs: whole clauses
    assert np.median([len(t) for t, n in zip(clauses.texts, clauses.n_words) if n == 100]) > 2.5 * np.median(full)


def test_japanese_chunks_are_the_texts_units_in_order(japanese):
    tokens = tokenize_corpus(japanese)
    for overlap in (0, 30):
        chunks = chunk_corpus(tokens, 100, overlap)
        assert chunks.n_units == tokens.n_units
        first_doc = [t for t, d in zip(chunks.texts, chunks.doc_pos) if d == 0]
        step = 100 - overlap
        units = [japanese.texts[0][a:b] for a, b in zip(*(s[: tokens.doc_words[1]] for s in tokens.spans))]
        assert "".join(first_doc[0].split()) == "".join(units[:100])
        assert "".join(first_doc[1].split()) == "".join(units[step : step + 100])


def test_japanese_ranks_agree_with_rank_bm25_over_the_same_morphemes(japanese):
    # The pruned ranking (MaxScore) is exact over any terms: rank-bm25 scores the same term lists.
    tokens = tokenize_corpus(japanese)
    results = chunk_eval(tokens, chunk_words=100, rng=5)
    retrieval = prepare_retrieval(tokens, chunk_words=100)
    ids, offsets, vocabulary = tokens.chunk_terms(retrieval.chunks)
    terms = np.asarray(vocabulary, dtype=object)
    oracle = BM25Okapi([list(terms[ids[offsets[i] : offsets[i + 1]]]) for i in range(len(offsets) - 1)])
    known = set(vocabulary)
    for row in np.random.default_rng(0).choice(len(results), size=60, replace=False):
        query = results["query"].iloc[row]
        assert set(query.split()) <= known  # a query is morphemes of the corpus, space-separated
        scores = oracle.get_scores(query.split())
        rank = 1 + int((scores > scores[row]).sum()) + int((scores[:row] == scores[row]).sum())
        got = results["rank"].iloc[row]
        assert (got == rank) if rank <= 100 else (got is pd.NA)
    pd.testing.assert_frame_equal(results, chunk_eval(japanese, chunk_words=100, rng=5))  # analysed once or not


def test_bm25_over_morphemes_finds_a_section_from_its_titles_content_words_far_more_often(japanese):
    # A query a reader would type, the content words of a section's title ("シェル プロンプト"), against the
    # sections without their titles: BM25 over morphemes, and over whitespace runs (the clause is one token).
    titles, bodies = zip(*(text.split("\n", 1) for text in japanese.texts))
    analyser = language("ja").analyser()
    queries = [" ".join(analyser.content_terms(title.split(" ", 1)[1])) for title in titles]
    corpus = corpus_from_frame(pd.DataFrame({"doc_id": japanese.doc_ids, "text": bodies}))
    found = {}
    for code in ("ja", "en"):
        retrieval = prepare_retrieval(corpus, chunk_words=100, language=code)
        positions, _ = top_k(retrieval.index, retrieval.encode_queries(queries), 10)
        found[code] = (retrieval.chunks.doc_pos[positions] == np.arange(len(queries))[:, None]).any(axis=1).mean()
    assert found["ja"] >= 0.75 and found["ja"] >= 1.5 * found["en"], found


def test_stopwords_apply_to_spaced_languages_only(japanese):
    with pytest.raises(ValueError, match="a Japanese corpus is indexed by its analyser's morphemes"):
        prepare_retrieval(japanese, chunk_words=100, tokenizer=Tokenizer(stopwords="en"))


def test_chunk_eval_cli_detects_the_language_and_takes_language(tmp_path, capsys):
    assert main(["chunk-eval", str(JA), "--chunk-words", "60", "--json", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["config"] == "60m" and summary["n_units"] > summary["n_words"]
    assert summary["language"]["code"] == "ja" and summary["language"]["detected"]
    assert summary["language"]["unit"] == "morphemes" and "MeCab" in summary["language"]["analyser"]
    assert main(["chunk-eval", str(JA), "--chunk-words", "60", "--language", "en", "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "at 60w" in table and "English (en, given); units: words" in table and "--language en" in table


def test_chunk_eval_cli_names_the_missing_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "fugashi", None)  # as if ragunc[ja] were not installed
    language("ja").analyser.cache_clear()  # forget the analyser loaded so far
    assert main(["chunk-eval", str(JA), "--no-progress"]) == 2
    assert (
        "is segmented by fugashi with unidic-lite, which is not installed: pip install 'ragunc[ja]'"
        in capsys.readouterr().err
    )
