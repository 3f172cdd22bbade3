"""Words of questions: tokens (with unspaced scripts), content words per language, leakage, duplicates.

Detection is the corpus layer's (tests/corpus/test_language.py); Japanese and Chinese words are the
analyser's (tests/evalset/test_evalset_languages.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ragunc.evalset.filters import duplicate_of
from ragunc.evalset.text import (
    content_words,
    leakage,
    normalized,
    pairwise_jaccard,
    tokens,
)


def test_tokens_casefold_and_split_unspaced_scripts_into_bigrams():
    assert tokens("Ünïcode STRASSE, café") == ["ünïcode", "strasse", "café"]
    assert tokens("東京都に住む") == ["東京", "京都", "都に", "に住", "住む"]
    assert tokens("Python の使い方") == ["python", "の使", "使い", "い方"]
    assert tokens("ภาษา") == ["ภา", "าษ", "ษา"]  # Thai has no spaces between words either
    assert tokens("字") == ["字"]


@pytest.mark.parametrize(
    ("language", "question", "expected"),
    [
        ("en", "How do I open a gzip file?", ["open", "gzip", "file"]),
        ("es", "¿Cómo puedo abrir un archivo gzip?", ["abrir", "archivo", "gzip"]),
        ("pt", "Como posso abrir um arquivo gzip?", ["abrir", "arquivo", "gzip"]),
        ("en", "What is the difference between a list and a tuple?", ["list", "tuple"]),
    ],
)
def test_content_words_drop_stopwords_and_question_words_of_the_language(language, question, expected):
    assert content_words(question, language) == expected


def test_leakage_is_the_share_of_content_words_found_in_the_passage():
    passage = set(tokens("The gzip module reads and writes compressed files with an mtime header."))
    assert leakage("How does gzip writes the mtime header?", passage, "en") == 1.0
    assert leakage("How does gzip write the mtime header?", passage, "en") == 0.75  # literal: write != writes
    assert leakage("How do I shrink a log before archiving it?", passage, "en") == 0.0
    assert leakage("How do I compress files for archiving?", passage, "en") == pytest.approx(1 / 3)
    assert leakage("How is it done?", passage, "en") == 0.0  # no content word: nothing can leak


def test_leakage_of_a_language_without_spaces():
    passage = set(tokens("東京都の図書館は月曜日に休館します"))
    assert leakage("東京都の図書館は月曜日に休館しますか", passage) > 0.9  # copied
    assert leakage("美術館はいつ閉まりますか", passage) < 0.3  # another question


def test_normalized_ignores_case_accents_and_punctuation():
    assert normalized("¿Cómo   abro un ARCHIVO?") == normalized("como abro un archivo")


def test_duplicates_exact_up_to_form_and_near_by_content_words():
    questions = [
        "How do I open a gzip file?",
        "how do i open a GZIP file",  # exact after normalisation
        "How can I open a gzip file?",  # near: the same content words
        "How do I read a CSV file?",
    ]
    assert duplicate_of(questions, "en", 0.8).tolist() == [-1, 0, 0, -1]
    assert duplicate_of(questions[2:], "en", 0.8).tolist() == [-1, -1]


def test_pairwise_jaccard_matches_a_brute_force_count():
    rng = np.random.default_rng(3)
    sets = [set(rng.choice(12, size=rng.integers(0, 6), replace=False).astype(str)) for _ in range(25)]
    matrix = pairwise_jaccard(sets).toarray()
    for i, j in itertools.combinations(range(len(sets)), 2):
        union = len(sets[i] | sets[j])
        expected = len(sets[i] & sets[j]) / union if union else 0.0
        assert matrix[i, j] == pytest.approx(expected)
        assert matrix[j, i] == 0.0  # upper triangle only
