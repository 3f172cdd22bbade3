"""Speed and memory of ragunc's sparse BM25 against rank-bm25 and bm25s, measured in one run.

The corpus is the embedded stdlib documentation topped up with the standard library's
own source files until it reaches ``--words`` (default ~1.6 million),
chunked at ``--chunk-words``. Targets:

- all queries of the 100-word run (~17k) in <= 5 s on 2 cores, end to end;
- >= 100x faster than rank-bm25 (its per-query time on a subset, extrapolated);
- not slower than bm25s on the same tokens (index + top-100 retrieval for the same queries);
- <= 2 GB peak memory for 100k chunks (a child process, its peak RSS).

Run: ``python bench/bench_bm25.py`` (``--quick`` for a smaller corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ragunc.corpus.loaders import stdlib_corpus
from ragunc.corpus.model import corpus_from_frame
from ragunc.retrieval.bm25 import bm25_index, rank_targets, tokenize
from ragunc.retrieval.pipeline import chunk_eval_parts


def bench_corpus(n_words: int):
    """Stdlib documentation plus stdlib source files (sorted by path) up to ``n_words`` words."""
    docs = stdlib_corpus().to_frame()
    total = int(docs["text"].str.split().str.len().sum())
    base = Path(sysconfig.get_paths()["stdlib"])
    rows = []
    for file in sorted(base.rglob("*.py")):
        if total >= n_words:
            break
        if "site-packages" in file.parts:
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        rows.append((f"src/{file.relative_to(base).as_posix()}", text, "source"))
        total += len(text.split())
    return corpus_from_frame(
        pd.concat([docs, pd.DataFrame(rows, columns=docs.columns)], ignore_index=True), source="stdlib+source"
    )


def timed(fn, *args, repeat: int = 1, **kwargs):
    """Result and the best of ``repeat`` wall times (other load on the machine only adds time)."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return out, best


def speed(args) -> dict:
    corpus = bench_corpus(args.words)
    parts, t_ours = timed(chunk_eval_parts, corpus, chunk_words=args.chunk_words, rng=0, repeat=args.repeat)
    retrieval, queries = parts.retrieval, parts.queries
    n_chunks, n_queries = len(retrieval.chunks), len(queries)
    chunk_tokens = [tokenize(t) for t in retrieval.chunks.texts]
    query_tokens = [t.split() for t in queries.texts]

    # Ours on the same tokens: index, then ranks of every query (what bm25s is timed on below).
    index, t_index = timed(bm25_index, chunk_tokens, repeat=args.repeat)
    matrix = index.query_matrix(query_tokens)
    ranked, t_rank = timed(rank_targets, index, matrix, queries.source, repeat=args.repeat)
    t_score = t_index + t_rank

    # rank-bm25: per-query time on a subset, extrapolated to all queries.
    from rank_bm25 import BM25Okapi

    oracle, t_oracle_build = timed(BM25Okapi, chunk_tokens)
    subset = np.random.default_rng(1).choice(n_queries, size=min(args.rank_bm25_queries, n_queries), replace=False)
    per_query = np.full(len(subset), np.inf)
    for _ in range(args.repeat):
        for j, i in enumerate(subset):
            start = time.perf_counter()
            oracle.get_scores(query_tokens[i])
            per_query[j] = min(per_query[j], time.perf_counter() - start)
    oracle_top = [int(np.argmax(oracle.get_scores(query_tokens[i]))) for i in subset]
    t_oracle_query = float(per_query.mean())
    top1_agree = float(np.mean(np.array(oracle_top) == ranked.top[subset]))
    t_oracle_all = t_oracle_build + t_oracle_query * n_queries

    # bm25s on the same tokens: index + top-100 retrieval of the same queries.
    import bm25s

    def run_bm25s():
        model = bm25s.BM25(k1=1.5, b=0.75, method="robertson")
        model.index(chunk_tokens, show_progress=False)
        return model.retrieve(query_tokens, k=100, show_progress=False, n_threads=args.bm25s_threads)

    _, t_bm25s = timed(run_bm25s)
    frame = parts.results
    return {
        "corpus": {
            "n_docs": len(corpus),
            "n_words": corpus.n_words,
            "chunk_words": args.chunk_words,
            "n_chunks": n_chunks,
            "n_queries": n_queries,
        },
        "hit1": float(frame["y"].mean()),
        "doc_hit1": float(frame["doc_hit1"].mean()),
        "ours_end_to_end_s": t_ours,
        "ours_index_and_rank_s": t_score,
        "ours_index_s": t_index,
        "ours_rank_s": t_rank,
        "ours_per_query_ms": 1000 * t_rank / n_queries,
        "per_query_speedup_vs_rank_bm25": t_oracle_query / (t_rank / n_queries),
        "rank_bm25_per_query_ms": 1000 * t_oracle_query,
        "rank_bm25_extrapolated_s": t_oracle_all,
        "rank_bm25_subset": len(subset),
        "rank_bm25_top1_agreement": top1_agree,
        "speedup_vs_rank_bm25": t_oracle_all / t_score,
        "bm25s_index_and_top100_s": t_bm25s,
        "bm25s_threads": args.bm25s_threads,
        "speedup_vs_bm25s": t_bm25s / t_score,
    }


def memory_child(n_chunks: int) -> None:
    """Runs in a child: chunk_eval over ~``n_chunks`` chunks; prints peak RSS as JSON."""
    corpus = bench_corpus(10**9)  # all of it
    chunk_words = max(10, corpus.n_words // n_chunks)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    parts, seconds = timed(chunk_eval_parts, corpus, chunk_words=chunk_words, rng=0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {
                "n_chunks": len(parts.retrieval.chunks),
                "chunk_words": chunk_words,
                "n_words": corpus.n_words,
                "seconds": seconds,
                "peak_rss_gb": peak / 2**20,
                "before_run_rss_gb": baseline / 2**20,
            }
        )
    )


def memory(n_chunks: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(n_chunks)],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=1_600_000)
    parser.add_argument("--chunk-words", type=int, default=100)
    parser.add_argument("--rank-bm25-queries", type=int, default=30)
    parser.add_argument("--bm25s-threads", type=int, default=0, help="bm25s n_threads (0: its default, one)")
    parser.add_argument("--memory-chunks", type=int, default=100_000)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--quick", action="store_true", help="300k words, 30k-chunk memory run")
    parser.add_argument("--memory-child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many timings for the fast paths")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.memory_child is not None:
        memory_child(args.memory_child)
        return
    if args.quick:
        args.words, args.memory_chunks = 300_000, 30_000
    result = speed(args)
    if not args.skip_memory:
        result["memory"] = memory(args.memory_chunks)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    c = result["corpus"]
    print(
        f"corpus: {c['n_docs']} documents, {c['n_words']:,} words -> {c['n_chunks']:,} chunks of "
        f"{c['chunk_words']} words, {c['n_queries']:,} simulated queries "
        f"(hit@1 {result['hit1']:.3f}, doc_hit1 {result['doc_hit1']:.3f})"
    )
    print(
        f"ragunc chunk_eval, all queries end to end: {result['ours_end_to_end_s']:.2f} s "
        f"(target <= 5 s); index + ranks from tokens: {result['ours_index_and_rank_s']:.2f} s"
    )
    print(
        f"rank-bm25: {result['rank_bm25_per_query_ms']:.1f} ms/query on {result['rank_bm25_subset']} queries "
        f"(ragunc {result['ours_per_query_ms']:.3f} ms/query: {result['per_query_speedup_vs_rank_bm25']:.0f}x) "
        f"-> {result['rank_bm25_extrapolated_s']:.0f} s for all with its index; ragunc (index + ranks) is "
        f"{result['speedup_vs_rank_bm25']:.0f}x faster (target >= 100x); "
        f"top-1 agreement {result['rank_bm25_top1_agreement']:.3f}"
    )
    print(
        f"bm25s (index + top-100, n_threads={result['bm25s_threads']}): {result['bm25s_index_and_top100_s']:.2f} s; "
        f"ragunc is {result['speedup_vs_bm25s']:.2f}x as fast (target >= 1)"
    )
    if "memory" in result:
        m = result["memory"]
        print(
            f"memory: {m['n_chunks']:,} chunks of {m['chunk_words']} words ({m['n_words']:,} words) in "
            f"{m['seconds']:.1f} s, peak RSS {m['peak_rss_gb']:.2f} GB (target <= 2 GB; "
            f"{m['before_run_rss_gb']:.2f} GB before the run)"
        )


if __name__ == "__main__":
    main()
