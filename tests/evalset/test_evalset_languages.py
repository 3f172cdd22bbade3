"""The evaluation set in Japanese (and Chinese): prompts, templates, replies, leakage and duplicates by the analyser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from ragunc.cli import main
from ragunc.evalset.build import FilterSettings, build_evalset
from ragunc.evalset.filters import duplicate_of, passage_words
from ragunc.evalset.generators import _TEMPLATES, QUESTION, OfflineGenerator, Task
from ragunc.evalset.parsing import DISCARD, PARSED_QUESTION, UNPARSABLE, parse_question, parse_verdict
from ragunc.evalset.prompts import TEMPLATES, estimate_tokens, question_messages, templates_hash
from ragunc.evalset.text import content_words, leakage, normalized
from ragunc.retrieval.pipeline import prepare_retrieval
from tests.evalset.test_evalset_openai import generator, sequence
from tests.support.chat_server import ChatServer, Reply

JA = Path(__file__).resolve().parents[2] / "sample_data" / "debian_reference_ja.jsonl.gz"
KANA_OR_HAN = re.compile("[\u3040-\u30ff\u4e00-\u9fff]")
PING = "ping はネットワーク上のホストに ICMP ECHO_REQUEST パケットを送り、応答を待つ。"


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    return [t for v in value for t in _texts(v)]


@pytest.mark.parametrize("code", ["ja", "zh"])
def test_every_prompt_of_japanese_and_chinese_is_written_in_it(code):
    for text in _texts(TEMPLATES[code]):
        assert len(KANA_OR_HAN.findall(text)) > len(text) / 3, text
    assert "DISCARD" in TEMPLATES[code]["rules"]
    assert len({templates_hash(c) for c in TEMPLATES}) == len(TEMPLATES)
    messages = question_messages("factual", (PING,), code)
    assert PING in messages[0]["content"] and messages[0]["content"].startswith(TEMPLATES[code]["ask"]["intro"])
    # About one token per CJK character, where English runs four characters to a token.
    assert estimate_tokens(messages) > 0.8 * len(KANA_OR_HAN.findall(messages[0]["content"]))


def test_japanese_content_words_are_the_analysers_nouns_and_verbs_less_question_words():
    assert content_words("パケットをネットワーク上のホストに送るにはどうすればいいですか？", "ja") == [
        "パケット",
        "ネットワーク",
        "ホスト",
        "送る",
    ]
    assert content_words("lsとdirの違いは何ですか？", "ja") == ["ls", "dir"]  # 違い, 何: any question's


def test_japanese_leakage_counts_content_words_found_in_the_passage():
    passage = passage_words([PING], "ja")
    assert leakage("ネットワーク上のホストにパケットを送りますか？", passage, "ja") == 1.0
    assert leakage("ネットワーク上のホストにパケットを送るには？", passage, "ja") == 0.75  # literal: 送る is not 送り
    assert leakage("別のコンピューターが応答するか確かめるには？", passage, "ja") == pytest.approx(1 / 4)  # 応答 only
    assert leakage("別の計算機が生きているか確かめるには？", passage, "ja") == 0.0
    # Character bigrams (no analyser) find pieces of words everywhere: the analyser does not.
    assert leakage("ネットのホスト名を調べるには？", passage, "ja") == 0.25  # ホスト of ネット, ホスト, 名, 調べる


def test_japanese_duplicates_by_content_words_and_voicing_marks_kept():
    questions = [
        "パケットをホストに送るには？",
        "ホストにパケットを送るにはどうすればいいですか？",
        "ファイルを消すには？",
    ]
    assert duplicate_of(questions, "ja", 0.8).tolist() == [-1, 0, -1]
    assert normalized("ファイルが") != normalized("ファイルか") and normalized("Cómo") == "como"


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        (
            "質問：ネットワーク上のホストにパケットを送るにはどうすればいいですか？",
            "ネットワーク上のホストにパケットを送るにはどうすればいいですか?",
        ),
        ("はい、以下が質問です。\nls の出力に色を付けるには？", "ls の出力に色を付けるには?"),
        ("文書によると、apt は何をしますか？", "apt は何をしますか?"),
        ("パッケージを完全に削除するにはどうすればいいですか", "パッケージを完全に削除するにはどうすればいいですか?"),
        ("如何删除一个软件包？", "如何删除一个软件包?"),
    ],
)
def test_japanese_and_chinese_questions_are_read(reply, question):
    parsed = parse_question(reply, "ja" if KANA_OR_HAN.search(reply) and "如何" not in reply else "zh")
    assert (parsed.outcome, parsed.text) == (PARSED_QUESTION, question)


@pytest.mark.parametrize(
    ("reply", "outcome", "why"),
    [
        ("DISCARD", DISCARD, ""),
        ("破棄", DISCARD, ""),
        ("申し訳ありませんが、この文章からは質問を作れません。", UNPARSABLE, "refusal"),
        ("この文章は何について説明していますか？", UNPARSABLE, "points at the passage"),
        ("何？", UNPARSABLE, "words"),  # two morphemes: too short, where a whitespace count says one word
    ],
)
def test_japanese_replies_that_are_not_questions(reply, outcome, why):
    parsed = parse_question(reply, "ja")
    assert parsed.outcome == outcome and why in parsed.note


@pytest.mark.parametrize(
    ("reply", "verdict"), [("はい", True), ("いいえ。", False), ("是的，它回答了。", True), ("否", False)]
)
def test_japanese_and_chinese_verdicts(reply, verdict):
    assert parse_verdict(reply) is verdict


@pytest.fixture(scope="module")
def japanese_retrieval():
    return prepare_retrieval(JA, chunk_words=100)


def test_offline_japanese_questions_are_templates_around_two_chunk_nouns(japanese_retrieval):
    gen = OfflineGenerator(japanese_retrieval)
    chunks = japanese_retrieval.chunks
    words = set(np.asarray(japanese_retrieval.index.vocabulary, dtype=object).tolist())
    for pos in range(0, len(chunks), 37):
        task = Task(QUESTION, "factual", (pos,), (str(chunks.chunk_ids[pos]),), (chunks.texts[pos],), "ja")
        question = gen.complete(task, seed=0)
        if question == "DISCARD":
            continue
        assert any(
            re.fullmatch(re.escape(t).replace(r"\{a\}", "(.+)").replace(r"\{b\}", "(.+)"), question)
            for t in _TEMPLATES["ja"]["factual"]
        ), question
        found = content_words(question, "ja")
        assert set(found) <= words and len(found) >= 2, (question, found)
        # Keyword questions copy their chunk's words: the leakage filter flags them.
        assert leakage(question, passage_words([chunks.texts[pos]], "ja"), "ja") >= 0.8, question


def test_evalset_build_and_eval_in_japanese(tmp_path, capsys):
    out = tmp_path / "set"
    assert (
        main(
            [
                "evalset",
                "build",
                str(JA),
                "--n",
                "30",
                "--generator",
                "offline",
                "--out",
                str(out),
                "--language",
                "ja",
                "--no-progress",
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "Japanese (ja, given); units: morphemes" in table and "chunks of 100m" in table
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["language"]["code"] == "ja" and not manifest["language"]["detected"]
    assert manifest["chunking"]["config"] == "100m" and manifest["chunking"]["unit"] == "morphemes"
    questions = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert questions and all(KANA_OR_HAN.search(q["question"]) for q in questions)
    assert all(all(c.split("#")[0] in q["relevant_doc_ids"] for c in q["relevant_chunk_ids"]) for q in questions)
    assert main(["evalset", "eval", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["language"]["code"] == "ja" and report["retriever"] == "ragunc BM25 over 100m chunks"
    assert report["recall"]["recall"] > 0.3


def test_a_japanese_corpus_gets_japanese_prompts_and_its_replies_are_kept(tmp_path):
    replies = sequence(Reply(text="はい、質問です：シェルのプロンプトを変えるにはどうすればいいですか？"))
    with ChatServer(replies) as server:
        result = build_evalset(
            JA,
            tmp_path,
            n=4,
            generator=generator(server),
            types=["factual"],
            concurrency=1,
            filters=FilterSettings(candidates=1),
        )
        prompts = [r.prompt for r in server.requests]
    assert result.language == "ja" and result.manifest["language"]["detected"]
    question_prompts = [p for p in prompts if p.startswith("あなたは社内ドキュメント")]
    assert len(question_prompts) == 4 and all("文章:" in p and "DISCARD" in p for p in question_prompts)
    assert result.funnel["parsed"] == 4  # the Japanese reply is one question of enough morphemes
