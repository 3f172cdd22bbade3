"""Nothing paid for is lost: a build killed with SIGKILL, interrupted, stopped or torn resumes from its journal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from ragunc.evalset.build import build_evalset
from ragunc.evalset.generators import OpenAIGenerator
from ragunc.evalset.journal import read_journal
from tests.support.chat_server import ChatServer, Reply, echo_question
from tests.support.cli import ROOT, run_cli

MODEL = "scripted"


def cli_args(corpus: Path, out: Path, server: ChatServer, *extra: str) -> list[str]:
    return [
        "evalset",
        "build",
        str(corpus),
        "--n",
        "12",
        "--generator",
        "openai",
        "--base-url",
        server.url,
        "--model",
        MODEL,
        "--seed",
        "3",
        "--concurrency",
        "2",
        "--no-progress",
        "--out",
        str(out),
        *extra,
    ]


def library_build(corpus: Path, out: Path, server: ChatServer, **options):
    generator = OpenAIGenerator(MODEL, base_url=server.url, retries=3)
    return build_evalset(corpus, out, n=12, seed=3, concurrency=2, generator=generator, **options)


def set_files(out: Path) -> dict[str, str]:
    return {
        p.relative_to(out).as_posix(): p.read_text() for p in [out / "questions.jsonl", *(out / "review").glob("*")]
    }


def test_a_build_killed_with_sigkill_resumes_without_repeating_a_finished_call(small_corpus, tmp_path):
    out = tmp_path / "killed"
    with ChatServer() as server:
        reached = threading.Event()
        server.on_request = lambda count: reached.set() if count >= 15 else None
        process = subprocess.Popen(
            [sys.executable, "-m", "ragunc", *cli_args(small_corpus, out, server)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert reached.wait(120), "the build never got going"
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(30) == -signal.SIGKILL
    journaled, torn = read_journal(out / "journal.jsonl")
    assert len(journaled) >= 10 and torn == 0
    assert not (out / "questions.jsonl").exists()  # killed mid-way, before the set was written

    with ChatServer() as server:
        resumed = run_cli(*cli_args(small_corpus, out, server, "--json"))
        asked = [r.prompt_hash for r in server.requests]
    assert resumed.returncode == 0, resumed.stderr
    assert not set(asked) & {key[2] for key in journaled}  # no finished call asked again
    assert json.loads(resumed.stdout)["calls"]["from_journal"] >= len(journaled)

    with ChatServer() as server:  # the same build, never interrupted
        library_build(small_corpus, tmp_path / "whole", server)
    assert set_files(out) == set_files(tmp_path / "whole")

    with ChatServer() as server:  # a finished build run again makes no call at all
        again = library_build(small_corpus, out, server)
        assert server.requests == []
    assert again.calls["made"] == 0 and set_files(out) == set_files(tmp_path / "whole")


def test_an_interruption_keeps_every_reply_received_and_the_journal_finishes_the_set(small_corpus, tmp_path):
    class Rerun(Exception):  # what Streamlit raises in a page when its stop button is pressed
        pass

    def progress(done, total):
        if done >= 6:
            raise Rerun

    with ChatServer() as server:
        with pytest.raises(Rerun):
            library_build(small_corpus, tmp_path, server, progress=progress)
        served = len(server.requests)
    journaled, _ = read_journal(tmp_path / "journal.jsonl")
    assert served >= 6 and len(journaled) == served  # the calls in flight finished and were journaled

    with ChatServer() as server:
        partial = library_build(small_corpus, tmp_path, server, max_calls=0)
        assert server.requests == []
    assert not partial.complete and partial.calls["from_journal"] == served
    assert partial.manifest["complete"] is False and (tmp_path / "questions.jsonl").exists()


def test_a_stop_requested_by_the_caller_ends_the_asking(small_corpus, tmp_path):
    with ChatServer() as server:
        result = library_build(small_corpus, tmp_path, server, stop=lambda: len(server.requests) >= 4)
        assert len(server.requests) <= 4 + 2  # at most the calls already in flight
    assert result.calls["stopped"] == "stopped by the user" and result.exit_status != 4 and not result.complete


def test_a_torn_last_line_is_skipped_and_its_call_made_again(small_corpus, tmp_path):
    with ChatServer() as server:
        library_build(small_corpus, tmp_path, server)
    journal = tmp_path / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # killed inside a write
    with ChatServer() as server:
        result = library_build(small_corpus, tmp_path, server)
        assert len(server.requests) == 1
    assert result.calls["journal_torn_lines"] == 1 and result.complete
    assert read_journal(journal)[1] == 1 and len(read_journal(journal)[0]) == len(lines)


def test_the_api_key_appears_in_no_file_log_or_output(small_corpus, tmp_path):
    canary = f"sk-canary-{uuid.uuid4().hex}"
    leaky_500 = Reply(status=500, body=f'{{"error": {{"message": "upstream saw key {canary}"}}}}'.encode())
    leaky_400 = Reply(status=400, body={"error": {"message": f"Invalid request for key {canary}"}})

    def script(i, request):
        if i == 1:
            return leaky_500  # retried: the message lands nowhere
        if i == 4:
            return leaky_400  # not retried: the failures list holds its redacted message
        return echo_question(request)

    env = {"RAGUNC_CANARY_KEY": canary, "OPENAI_LOG": "debug"}  # the client's own debug log on stderr too
    out = tmp_path / "set"
    with ChatServer(script) as server:
        outputs = [
            run_cli(*cli_args(small_corpus, out, server, "--api-key-env", "RAGUNC_CANARY_KEY", *extra), env=env)
            for extra in ((), ("--dry-run", "--json"))
        ]
        sent = {r.authorization for r in server.requests}
    assert sent == {f"Bearer {canary}"}  # the key was really used
    assert [o.returncode for o in outputs] == [0, 0], [o.stderr for o in outputs]
    assert "[redacted]" in (out / "review" / "failures.jsonl").read_text()
    rejected = Reply(
        status=401, body={"error": {"message": f"Incorrect API key provided: {canary}", "code": "invalid_api_key"}}
    )
    with ChatServer(lambda i, r: rejected) as server:
        outputs.append(
            run_cli(
                *cli_args(small_corpus, tmp_path / "rejected", server, "--api-key-env", "RAGUNC_CANARY_KEY"), env=env
            )
        )
    assert outputs[-1].returncode == 4 and "[redacted]" in outputs[-1].stderr
    for output in outputs:
        assert canary not in output.stdout and canary not in output.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 10
    for path in written:
        assert canary.encode() not in path.read_bytes(), path
