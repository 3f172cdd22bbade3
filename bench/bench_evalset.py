"""ragunc's own overhead per question when building an evaluation set, measured in one run.

A 200-question build of the stdlib corpus (100-word chunks) against a local chat-completions
server that answers at once (``tests/evalset/chat_server.py``, a real HTTP server on
127.0.0.1), through the official ``openai`` client, with the round-trip BM25 and every
filter. What the endpoint costs is taken out: each call's time is in the journal. Printed:

- the build's wall time, its calls and the time spent inside them;
- ragunc's overhead per question (sampling, prompts, journal, parsing, filters, writing),
  without and with the corpus' chunking and BM25 index (measured alone in the same run);
- the same build run again (every reply from the journal: ragunc alone, no call);
- the offline generator's build, for comparison;
- the reference: one bare ``client.chat.completions.create`` round trip to the same server.

Run: ``PYTHONPATH=. python bench/bench_evalset.py`` (``--n`` to change the size, ``--concurrency`` for calls in flight).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import openai

from ragunc.corpus.loaders import stdlib_corpus
from ragunc.evalset.build import build_evalset
from ragunc.evalset.generators import OpenAIGenerator
from ragunc.evalset.prompts import question_messages
from ragunc.retrieval.pipeline import prepare_retrieval
from tests.support.chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[1]


def journal_seconds(folder: Path) -> float:
    return sum(json.loads(line)["seconds"] for line in (folder / "journal.jsonl").read_text().splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=1, help="1 keeps call time and ragunc time apart")
    args = parser.parse_args()

    corpus = stdlib_corpus()
    started = time.perf_counter()
    retrieval = prepare_retrieval(corpus, chunk_words=100)
    prepare = time.perf_counter() - started
    print(
        f"corpus        stdlib: {len(corpus)} documents, {len(retrieval.chunks)} chunks of 100 words; "
        f"chunking + BM25 index {prepare * 1000:.0f} ms"
    )

    with ChatServer() as server, tempfile.TemporaryDirectory() as tmp:
        client = openai.OpenAI(api_key="bench", base_url=server.url, max_retries=0, timeout=10)
        messages = question_messages("factual", (retrieval.chunks.texts[0],), "en")
        client.chat.completions.create(model="bench", messages=messages)  # warm the connection
        reps = 200
        started = time.perf_counter()
        for _ in range(reps):
            client.chat.completions.create(model="bench", messages=messages, temperature=0.7, seed=0)
        bare = (time.perf_counter() - started) / reps

        out = Path(tmp) / "set"
        generator = OpenAIGenerator("bench", base_url=server.url, timeout=10)
        started = time.perf_counter()
        result = build_evalset(corpus, out, n=args.n, generator=generator, concurrency=args.concurrency)
        wall = time.perf_counter() - started
        calls, in_calls = result.calls["made"], journal_seconds(out)
        started = time.perf_counter()
        again = build_evalset(corpus, out, n=args.n, generator=generator, concurrency=args.concurrency)
        rerun = time.perf_counter() - started
        assert again.calls["made"] == 0

        started = time.perf_counter()
        offline = build_evalset(corpus, Path(tmp) / "offline", n=args.n)
        offline_wall = time.perf_counter() - started

    n = args.n
    overhead = (wall - in_calls - prepare) / n
    print(f"reference     one bare chat-completions round trip to the local server: {bare * 1000:.2f} ms")
    print(
        f"build         {n} questions, {calls} calls (questions, rephrasings, judgments), kept {result.kept}: "
        f"{wall:.2f} s wall, {in_calls:.2f} s inside the calls ({in_calls / calls * 1000:.2f} ms per call, "
        f"{in_calls / calls / bare:.2f}x a bare round trip)"
    )
    print(
        f"overhead      ragunc per question, filters included: {overhead * 1000:.2f} ms "
        f"({overhead / bare:.2f}x a bare round trip); with the chunking + index: "
        f"{(overhead + prepare / n) * 1000:.2f} ms"
    )
    print(
        f"rerun         the finished build again (all {calls} replies from the journal, no call): "
        f"{rerun:.2f} s = {(rerun - prepare) / n * 1000:.2f} ms per question besides the index"
    )
    print(
        f"offline       the offline generator's build: {offline_wall:.2f} s, kept {offline.kept} of {n} "
        f"({(offline_wall - prepare) / n * 1000:.2f} ms per question besides the index)"
    )


if __name__ == "__main__":
    main()
