"""The filters on hand-made cases: a copied question leaks, a question two chunks answer gets both,
a question whose chunk the round trip misses is listed, duplicates and answerable negatives are dropped."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from ragunc.evalset.build import FilterSettings, build_evalset
from ragunc.evalset.filters import candidates, near_duplicate_chunks, round_trip_ranks
from ragunc.evalset.generators import OpenAIGenerator
from ragunc.evalset.store import load_evalset
from tests.support.chat_server import ChatServer, Reply, is_judge, is_rephrase, passage

TWIN = (
    "The frobnicator flushes its spool directory every night at two and keeps seven rotated archives "
    "of the ledger before the quarterly audit begins in the basement vault."
)
DOCS = {
    "spool-guide": TWIN,
    "spool-copy": TWIN + " This copy sits in the operations handbook.",
    "gardening": "Tomatoes need six hours of sun, deep watering twice a week and a stake to climb as they grow tall.",
    "cooking": "A risotto wants warm stock added one ladle at a time, stirring until the rice turns creamy and soft.",
    "sailing": "Reef the mainsail before the wind rises above twenty knots and keep the jib sheet free to release.",
}


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    pd.DataFrame({"doc_id": list(DOCS), "text": list(DOCS.values())}).to_json(path, orient="records", lines=True)
    return path


def generator(server):
    return OpenAIGenerator("scripted", base_url=server.url, retries=0, backoff=0.01)


def rows(folder, name):
    path = folder / ("questions.jsonl" if name == "questions" else f"review/{name}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def by_topic(questions: dict[str, str], rephrased: dict[str, str] | None = None, judge=lambda r: "NO"):
    """Question prompts get ``questions[word]`` for the first word of the dict found in the passage."""

    def reply(table, request):
        text = passage(request)
        return Reply(text=next((q for word, q in table.items() if word in text), "DISCARD"))

    def script(i, request):
        if is_judge(request):
            return Reply(text=judge(request))
        if is_rephrase(request):
            return reply(rephrased or {}, request)
        return reply(questions, request)

    return script


def build(corpus, out, server, **options):
    return build_evalset(
        corpus, out, n=5, chunk_words=50, generator=generator(server), types=["factual"], concurrency=1, **options
    )


def test_a_copied_question_is_a_leak_and_a_reworded_one_is_kept(corpus, tmp_path):
    copied = "Which archives of the ledger does the frobnicator keep before the quarterly audit?"
    questions = {"frobnicator flushes": copied, "Tomatoes": "Tomatoes need how many hours of sun?"}
    rephrased = {
        "frobnicator flushes": "How many backups does the nightly cleanup job retain?",
        "Tomatoes": "Tomatoes need how many hours of sun?",
    }  # the same words again
    with ChatServer(by_topic(questions, rephrased)) as server:
        build(corpus, tmp_path, server, filters=FilterSettings(chunk_similarity=0.99))
    kept = {q["source_doc_id"]: q for q in rows(tmp_path, "questions")}
    leaks = {q["source_doc_id"]: q for q in rows(tmp_path, "leaks")}
    assert kept["spool-guide"]["question"] == rephrased["frobnicator flushes"]
    assert kept["spool-guide"]["scores"]["leakage_before_rephrase"] >= 0.8 > kept["spool-guide"]["scores"]["leakage"]
    assert leaks["gardening"]["leakage"] == 1.0 and leaks["gardening"]["leakage_after_rephrase"] >= 0.8
    assert "gardening" not in kept


def test_a_question_two_chunks_answer_gets_both_by_near_duplicate_text(tmp_path):
    # Without an LLM judge (offline), a top-ranked chunk whose text nearly repeats the source chunk joins it.
    # Each spool document is the twin paragraph, then a paragraph of its own: two chunks, so the offline
    # rephrasing has the document's other chunk to borrow words from.
    docs = {
        **DOCS,
        "spool-guide": TWIN + " Operators rotate the tapes by hand and label them with chalk.",
        "spool-copy": TWIN + " The handbook lists the night shift phone numbers and the fire exits.",
    }
    path = tmp_path / "corpus.jsonl"
    pd.DataFrame({"doc_id": list(docs), "text": list(docs.values())}).to_json(path, orient="records", lines=True)
    result = build_evalset(path, tmp_path / "set", n=20, chunk_words=len(TWIN.split()), types=["factual"])
    twins = [
        q for q in rows(tmp_path / "set", "questions") if q["source_chunk_ids"][0] in ("spool-guide#0", "spool-copy#0")
    ]
    assert twins and all(sorted(q["relevant_chunk_ids"]) == ["spool-copy#0", "spool-guide#0"] for q in twins)
    assert all(sorted(q["relevant_doc_ids"]) == ["spool-copy", "spool-guide"] for q in twins)
    others = [q for q in rows(tmp_path / "set", "questions") if q not in twins]
    assert all(len(q["relevant_chunk_ids"]) == 1 for q in others)
    assert result.manifest["filters"]["uniqueness"]["judge"] == "near-duplicate text"


def test_a_question_two_chunks_answer_keeps_one_when_the_llm_says_no(corpus, tmp_path):
    question = {"frobnicator flushes": "How often is the spool emptied and how many ledger copies stay?"}
    with ChatServer(by_topic(question)) as server:
        build(corpus, tmp_path, server)  # the judge answers NO: the near-duplicate text is not consulted
    kept = [q for q in rows(tmp_path, "questions") if q["source_doc_id"].startswith("spool")]
    assert kept and all(len(q["relevant_chunk_ids"]) == 1 for q in kept)


def test_a_question_two_chunks_answer_gets_both_when_the_llm_judges(corpus, tmp_path):
    question = {"frobnicator flushes": "How often is the spool emptied and how many ledger copies stay?"}
    with ChatServer(by_topic(question, judge=lambda r: "YES" if "frobnicator" in passage(r) else "NO")) as server:
        build(corpus, tmp_path, server)
        judged = sum(is_judge(r) for r in server.requests)
    (kept,) = [q for q in rows(tmp_path, "questions") if q["source_doc_id"].startswith("spool")]
    assert sorted(kept["relevant_doc_ids"]) == ["spool-copy", "spool-guide"] and len(kept["relevant_chunk_ids"]) == 2
    assert kept["scores"]["added_by_uniqueness"] == 1 and judged >= 1


def test_a_question_the_round_trip_misses_is_listed_with_what_came_back(corpus, tmp_path):
    questions = {"risotto": "When should a sailor shorten the mainsail in strong wind?"}  # about another document
    with ChatServer(by_topic(questions)) as server:
        build(corpus, tmp_path, server, filters=FilterSettings(depth=1))
    (failed,) = rows(tmp_path, "round_trip_failures")
    assert failed["source_doc_id"] == "cooking" and failed["retrieved_instead"] == ["sailing#0"]
    assert "top 1" in failed["reason"] and "cooking" not in {q["source_doc_id"] for q in rows(tmp_path, "questions")}


def test_duplicate_questions_keep_the_first(corpus, tmp_path):
    same = "How should a sail be handled when gusts get strong?"
    with ChatServer(by_topic({"mainsail": same, "risotto": same.lower().rstrip("?")})) as server:
        result = build(corpus, tmp_path, server)
    (duplicate,) = rows(tmp_path, "duplicates")
    kept_ids = {q["question_id"] for q in rows(tmp_path, "questions")}
    assert duplicate["duplicate_of"] in kept_ids and result.counts["duplicates"] == 1


def test_a_negative_that_a_chunk_answers_is_dropped(corpus, tmp_path):
    questions = {"mainsail": "When do I reef the mainsail?", "Tomatoes": "Which fertiliser suits orchids best?"}

    def judge(request):
        return "YES" if "mainsail" in passage(request) and "mainsail" in request.prompt.split("Passage:")[0] else "NO"

    with ChatServer(by_topic(questions, judge=judge)) as server:
        build_evalset(
            corpus, tmp_path, n=5, chunk_words=50, generator=generator(server), types=["negative"], concurrency=1
        )
    (answered,) = rows(tmp_path, "negatives_answered")
    assert answered["source_doc_id"] == "sailing" and answered["answered_by"] == ["sailing#0"]
    negatives = rows(tmp_path, "questions")
    assert [q["question"] for q in negatives] == ["Which fertiliser suits orchids best?"]
    assert negatives[0]["relevant_chunk_ids"] == [] and negatives[0]["relevant_doc_ids"] == []


def test_the_round_trip_ranker_is_pluggable_and_recorded(corpus, tmp_path):
    class LastFirst:
        name = "reversed corpus order"

        def __call__(self, questions, depth):
            return np.tile(np.arange(5)[::-1][:depth], (len(questions), 1))

    result = build_evalset(
        corpus, tmp_path, n=5, chunk_words=50, types=["factual"], ranker=LastFirst(), filters=FilterSettings(depth=2)
    )
    assert result.manifest["filters"]["round_trip"] == {"ranker": "reversed corpus order", "depth": 2}
    kept = {q["source_doc_id"] for q in rows(tmp_path, "questions")}
    assert kept <= {"sailing", "cooking"}  # only the two chunks this ranker puts in its top 2


def test_filter_settings_are_checked_where_made_and_recorded_in_the_manifest(corpus, tmp_path):
    with pytest.raises(ValueError, match=r"leakage_threshold must be in \(0, 1\], got 0"):
        FilterSettings(leakage_threshold=0)
    with pytest.raises(ValueError, match="depth must be an integer >= 1, got 0"):
        FilterSettings(depth=0)
    settings = FilterSettings(
        depth=3, leakage_threshold=0.7, candidates=2, chunk_similarity=0.6, question_similarity=0.9
    )
    filters = build_evalset(corpus, tmp_path, n=5, chunk_words=50, types=["factual"], filters=settings).manifest[
        "filters"
    ]
    assert filters["round_trip"]["depth"] == 3 and filters["leakage"]["threshold"] == 0.7
    assert filters["uniqueness"] == {"judge": "near-duplicate text", "candidates": 2, "chunk_similarity": 0.6}
    assert filters["duplicates"] == {"question_similarity": 0.9}
    assert filters["negatives"] == {"judge": "content words >= 0.7 in a chunk", "candidates": 3}


def test_a_set_zips_to_the_files_it_is_read_from(corpus, tmp_path):
    build_evalset(corpus, tmp_path / "set", n=5, chunk_words=50, types=["factual"])
    evalset = load_evalset(tmp_path / "set")
    with zipfile.ZipFile(io.BytesIO(evalset.zip_bytes())) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "unzipped")
    assert "evalset/questions.jsonl" in names and not any("journal" in name for name in names)
    again = load_evalset(tmp_path / "unzipped" / "evalset")
    assert again.questions == evalset.questions and again.manifest == evalset.manifest
    assert all(again.review(name) == evalset.review(name) for name in evalset.manifest["review_lists"])


def test_filter_kernels():
    ranked = np.array([[4, 2, 7, -1], [1, 3, 5, 6]])
    assert round_trip_ranks(ranked, [(7,), (9,)]).tolist()[0] == 3.0 and np.isnan(
        round_trip_ranks(ranked, [(7,), (9,)])[1]
    )
    assert round_trip_ranks(ranked, [(9, 2), (6, 3)]).tolist() == [2.0, 2.0]  # either chunk of a pair counts
    assert [c.tolist() for c in candidates(ranked, [(2,), (1, 3)], 2)] == [[4, 7], [5, 6]]
    assert near_duplicate_chunks([TWIN], [TWIN + " extra words here", DOCS["cooking"]], 0.5).tolist() == [True, False]
