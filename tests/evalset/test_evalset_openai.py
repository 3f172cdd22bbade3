"""The OpenAI-compatible generator against a real local HTTP server: retries, Retry-After, quota, timeouts.

Nothing is mocked: the official client sends every request over a socket to ``ChatServer``,
which answers from a script.
"""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest

from ragunc.evalset.build import build_evalset, plan_evalset
from ragunc.evalset.generators import (
    CallFailed,
    GenerationStopped,
    OpenAIGenerator,
    Task,
)
from ragunc.evalset.journal import read_journal
from tests.support.chat_server import (
    ChatServer,
    Reply,
    echo_question,
    is_judge,
    is_rephrase,
    quota_error,
)

KEY_ENV = "RAGUNC_TEST_KEY"
TASK = Task("question", "factual", (0,), ("heapq#0",), ("The heapq module merges sorted inputs lazily.",), "en")


def generator(server: ChatServer, *, timeout: float = 2.0, retries: int = 2) -> OpenAIGenerator:
    return OpenAIGenerator(
        "scripted-model", base_url=server.url, api_key_env=KEY_ENV, timeout=timeout, retries=retries, backoff=0.01
    )


def ask(gen: OpenAIGenerator, stopping: threading.Event | None = None) -> str:
    return gen.complete(TASK, seed=7, stopping=stopping or threading.Event())


def sequence(*replies: Reply):
    """Reply i to request i (the last one repeats)."""
    return lambda i, request: replies[min(i, len(replies) - 1)]


def test_a_reply_is_returned_and_the_request_is_what_was_configured(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-1234")
    with ChatServer(sequence(Reply(text="How are sorted inputs merged?"))) as server:
        assert ask(generator(server)) == "How are sorted inputs merged?"
        (request,) = server.requests
    assert request.body["model"] == "scripted-model" and request.body["temperature"] == 0.7
    assert request.body["seed"] == 7 and request.messages == TASK.messages
    assert request.authorization == "Bearer sk-test-1234"


def test_a_local_server_without_a_key_works(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with ChatServer(sequence(Reply(text="How?"))) as server:
        gen = generator(server)
        assert ask(gen) == "How?" and not gen.describe()["api_key_set"]


@pytest.mark.parametrize(
    "first",
    [
        Reply(body=b"{not json"),  # malformed JSON body
        Reply(body=b"<html>Bad gateway</html>"),
        Reply(body={"id": "x", "object": "chat.completion"}),  # JSON, but no choices
        Reply(status=500, body={"error": {"message": "boom"}}),
        Reply(status=503, body=b"overloaded"),
        Reply(drop=True),  # the connection drops without an answer
        Reply(text="too late", delay=1.0),  # slower than the 0.3 s timeout
    ],
)
def test_transient_failures_are_retried(first):
    with ChatServer(sequence(first, Reply(text="Second time lucky?"))) as server:
        assert ask(generator(server, timeout=0.3)) == "Second time lucky?"
        assert len(server.requests) == 2


def test_429_waits_as_long_as_retry_after_says():
    limited = Reply(
        status=429,
        headers={"Retry-After": "1"},
        body={"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}},
    )
    with ChatServer(sequence(limited, Reply(text="Now?"))) as server:
        assert ask(generator(server)) == "Now?"
        first, second = server.requests
    assert second.at - first.at >= 0.9  # the backoff alone would have waited 0.01 s


def test_429_with_retry_after_ms():
    limited = Reply(status=429, headers={"retry-after-ms": "300"}, body={"error": {"message": "slow down"}})
    with ChatServer(sequence(limited, Reply(text="Now?"))) as server:
        ask(generator(server))
        first, second = server.requests
    assert 0.28 <= second.at - first.at < 2


def test_a_call_that_keeps_failing_raises_after_its_retries():
    with ChatServer(sequence(Reply(status=500, body={"error": {"message": "boom"}}))) as server:
        with pytest.raises(CallFailed, match="HTTP 500") as caught:
            ask(generator(server, retries=2))
        assert len(server.requests) == 3 and caught.value.attempts == 3


def test_a_timeout_that_persists_says_so():
    with ChatServer(sequence(Reply(text="late", delay=0.8))) as server:
        with pytest.raises(CallFailed, match="no reply within the 0.2 s timeout"):
            ask(generator(server, timeout=0.2, retries=1))


def test_a_bad_request_is_not_retried():
    with ChatServer(sequence(Reply(status=400, body={"error": {"message": "context too long"}}))) as server:
        with pytest.raises(CallFailed, match="HTTP 400"):
            ask(generator(server))
        assert len(server.requests) == 1


def test_a_quota_error_stops_at_once():
    with ChatServer(sequence(quota_error())) as server:
        with pytest.raises(GenerationStopped, match="quota exhausted"):
            ask(generator(server))
        assert len(server.requests) == 1


def test_a_rejected_key_stops_and_its_echo_is_redacted(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-canary-0042")
    rejected = Reply(
        status=401,
        body={
            "error": {
                "message": "Incorrect API key provided: sk-canary-0042",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        },
    )
    with ChatServer(sequence(rejected)) as server:
        gen = generator(server)
        with pytest.raises(GenerationStopped) as caught:
            ask(gen)
    assert "sk-canary-0042" not in str(caught.value) and "[redacted]" in str(caught.value)
    assert "sk-canary-0042" not in repr(gen) and "sk-canary-0042" not in json.dumps(gen.describe())


def test_a_stop_interrupts_a_long_retry_wait():
    stopping = threading.Event()
    limited = Reply(status=429, headers={"Retry-After": "60"}, body={"error": {"message": "slow down"}})
    with ChatServer(sequence(limited)) as server:
        server.on_request = lambda count: stopping.set()  # the stop comes once the 429 is answered
        started = time.monotonic()
        with pytest.raises(CallFailed, match="stopped while waiting"):
            ask(generator(server), stopping)
    assert time.monotonic() - started < 5


# ------------------------------------------------------------------ builds against the server


def questions_then(replies: list[str]):
    """The i-th question prompt gets ``replies[i]`` (then echo); rephrase and judge prompts get the echo."""
    seen = []
    lock = threading.Lock()

    def script(i, request):
        if is_judge(request) or is_rephrase(request):
            return echo_question(request)
        with lock:
            seen.append(request.prompt_hash)
            index = len(seen) - 1
        return Reply(text=replies[index]) if index < len(replies) else echo_question(request)

    return script


def build(corpus, out, server, **options):
    options = {"n": 12, "seed": 3, "concurrency": 1, **options}
    return build_evalset(corpus, out, generator=generator(server), **options)


def test_discards_preambles_and_unparsable_replies_land_in_their_lists(small_corpus, tmp_path):
    replies = [
        "DISCARD",
        "descartar.",
        "**Discard**",
        "DISCARD - a table of contents",
        "I'm sorry, I cannot write a question for this?",
        "What does the passage say?",
        "Here is a question:\nHow do I merge sorted heaps in order?",
    ]
    with ChatServer(questions_then(replies)) as server:
        result = build(small_corpus, tmp_path, server, types=["factual"])
    lists = {
        name: [json.loads(line) for line in (tmp_path / "review" / f"{name}.jsonl").read_text().splitlines()]
        for name in ("discards", "unparsable")
    }
    assert result.counts["discarded"] == len(lists["discards"]) == 4
    assert result.counts["unparsable"] == len(lists["unparsable"]) == 2
    assert all(row["reply"] for row in lists["discards"] + lists["unparsable"])
    kept = [json.loads(line)["question"] for line in (tmp_path / "questions.jsonl").read_text().splitlines()]
    leaks = [json.loads(line) for line in (tmp_path / "review" / "leaks.jsonl").read_text().splitlines()]
    every_question = kept + [row["question"] for row in leaks]
    assert not any(q.startswith("Here is") for q in every_question)
    assert result.funnel["parsed"] == 12 - 6


def test_a_quota_error_mid_build_stops_it_and_keeps_what_was_paid_for(small_corpus, tmp_path):
    healthy = questions_then([])
    with ChatServer(lambda i, r: quota_error() if i == 3 else healthy(i, r)) as server:
        result = build(small_corpus, tmp_path, server)
        assert len(server.requests) == 4  # three answered, the fourth refused: nothing after it
    assert result.exit_status == 4 and "quota" in result.calls["stopped"] and not result.complete
    journaled = read_journal(tmp_path / "journal.jsonl")[0]
    assert len(journaled) == 3
    not_asked = [json.loads(line) for line in (tmp_path / "review" / "not_asked.jsonl").read_text().splitlines()]
    assert sum(row["call"] == "question" for row in not_asked) == 12 - 3
    with ChatServer(questions_then([])) as server:
        resumed = build(small_corpus, tmp_path, server)
        asked_again = {r.prompt_hash for r in server.requests}
    assert resumed.exit_status == 0 and resumed.complete
    assert not asked_again & {key[2] for key in journaled}  # no paid-for prompt asked twice


def test_the_concurrency_limit_holds(small_corpus, tmp_path):
    lock, state = threading.Lock(), {"now": 0, "most": 0}

    def slow(i, request):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return echo_question(request)

    with ChatServer(slow) as server:
        build(small_corpus, tmp_path, server, concurrency=3)
    assert state["most"] == 3


def test_the_call_budget_holds_and_a_rerun_continues(small_corpus, tmp_path):
    with ChatServer(questions_then([])) as server:
        first = build(small_corpus, tmp_path, server, max_calls=5)
        assert len(server.requests) == 5
    assert first.calls["budget_reached"] and not first.complete and first.exit_status in (0, 3)
    with ChatServer(questions_then([])) as server:
        plan = plan_evalset(small_corpus, tmp_path, n=12, seed=3, generator=generator(server))
        assert server.requests == []  # a dry run calls nothing
        second = build(small_corpus, tmp_path, server)
        hashes = [r.prompt_hash for r in server.requests]
    assert plan.question_calls == 12 - 5 and plan.journaled == 5 and plan.prompt_tokens > 0
    assert len(hashes) <= plan.calls_max
    assert second.complete and second.calls["from_journal"] >= 5 and len(hashes) == len(set(hashes))


def test_a_call_that_fails_goes_to_the_failures_list_and_the_build_goes_on(small_corpus, tmp_path):
    healthy = questions_then([])
    failing = {}

    def script(i, request):
        if not failing and not (is_judge(request) or is_rephrase(request)):
            failing[request.prompt_hash] = True
        if request.prompt_hash in failing:
            return Reply(status=500, body={"error": {"message": "internal error"}})
        return healthy(i, request)

    with ChatServer(script) as server:
        result = build(small_corpus, tmp_path, server)
    (row,) = [json.loads(line) for line in (tmp_path / "review" / "failures.jsonl").read_text().splitlines()]
    assert row["call"] == "question" and "HTTP 500" in row["reason"] and row["attempts"] == 3
    assert result.counts["failed"] == 1 and result.funnel["answered"] == 11 and result.exit_status == 0


def test_a_spanish_corpus_gets_spanish_prompts(spanish_corpus, tmp_path):
    with ChatServer(sequence(Reply(text="DESCARTAR."))) as server:
        result = build_evalset(
            spanish_corpus, tmp_path, n=3, chunk_words=20, generator=generator(server), types=["factual"], concurrency=1
        )
        prompts = [r.prompt for r in server.requests]
    assert result.language == "es" and result.manifest["language"]["code"] == "es"
    assert result.manifest["language"]["detected"] and result.manifest["language"]["unit"] == "words"
    assert all("Fragmento:" in p and "DESCARTAR" in p and "no ha leído" in p for p in prompts)
    assert result.counts["discarded"] == 3 and result.kept == 0 and result.exit_status == 3


def test_credentials_in_the_base_url_stay_out_of_the_manifest_and_messages():
    gen = OpenAIGenerator("m", base_url="http://user:pa55word@127.0.0.1:9/v1?api-key=q5ecret", api_key_env=KEY_ENV)
    assert gen.describe()["base_url"].rstrip("/") == "http://127.0.0.1:9/v1"  # no user, password or query
    assert gen.redact("refused user:pa55word and q5ecret") == "refused [redacted] and [redacted]"


def test_a_key_in_the_environment_goes_only_where_its_variable_is_named(monkeypatch):
    canary = f"sk-canary-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    with ChatServer(sequence(Reply(text="How?"))) as server:
        gen = OpenAIGenerator("m", base_url=server.url, retries=0)  # a URL the caller did not choose
        assert ask(gen) == "How?"
        assert canary not in (server.requests[0].authorization or "")
        assert not gen.describe()["api_key_set"]
        named = OpenAIGenerator("m", base_url=server.url, api_key_env="OPENAI_API_KEY", retries=0)
        ask(named)
        assert server.requests[1].authorization == f"Bearer {canary}"
    with pytest.raises(ValueError, match="not both"):
        OpenAIGenerator("m", api_key="k", api_key_env="OPENAI_API_KEY")
