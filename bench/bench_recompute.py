"""Recompute latency of the dashboard's sliders.

K: ``interval_report`` (+ diagnostics, B = 1,000) for a new sample of K documents, what the
dashboard does after the K slider moves with the data loaded: draw K of the D = 1,300 documents
and recompute everything.  Prints p50/p95 in ms per K, beside the cost of the draw alone
measured in the same run.  Target: <= 20 ms.

Chunk size: a size the stdlib sample does not bundle, computed as the explorer's slider does
(chunk, BM25 index, one simulated query per chunk, ranks; the corpus read and tokenised once per
session, timed apart).  Prints the best of ``--size-repeat`` runs per size and its ratio to
opening a bundled size (reading ``stdlib_100w.csv.gz``), measured in the same run.  Target: <= 2 s
on a quiet machine (the load average is printed beside).

    python bench/bench_recompute.py [--trials 200] [--boot 1000] [--sizes 25 50 75 400] [--skip-k]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from dashboard import sources
from ragunc.data.results import load_results, results_from_frame
from ragunc.stats.intervals import interval_report
from ragunc.stats.synthetic import synthesize


def best_of(repeat: int, fn, *args, **kwargs) -> tuple[object, float]:
    """Result and the best of ``repeat`` wall times (other load on the machine only adds time)."""
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return out, best


def bench_sizes(sizes: list[int], repeat: int) -> None:
    _, t_bundled = best_of(repeat, lambda: load_results(sources.SAMPLE_DIR / "stdlib_100w.csv.gz").population("100w"))
    tokens, t_tokens = best_of(1, sources._stdlib_tokens)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\nnew chunk size on the stdlib corpus ({len(tokens.corpus)} documents; load average {load}); "
        f"reference: opening the bundled 100-word size, {1e3 * t_bundled:.0f} ms; "
        f"reading + tokenising the corpus once per session: {t_tokens:.2f} s"
    )
    print(f"{'words':>6}  {'chunks':>7}  {'seconds':>7}  {'x bundled':>9}  target <= 2 s")
    for words in sizes:
        sample, seconds = best_of(repeat, sources._stdlib_chunk_sample, tokens, words=words)
        print(
            f"{words:>6}  {sample.n_chunks:>7,}  {seconds:7.2f}  {seconds / t_bundled:9.1f}  "
            f"{'met' if seconds <= 2 else 'MISSED'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--ks", type=int, nargs="+", default=[20, 100, 500, 1300])
    parser.add_argument("--sizes", type=int, nargs="+", default=[25, 50, 75, 400], help="new chunk sizes (words)")
    parser.add_argument("--size-repeat", type=int, default=3)
    parser.add_argument("--skip-k", action="store_true", help="only the chunk-size part")
    args = parser.parse_args()
    if not args.skip_k:
        bench_k(args)
    bench_sizes(args.sizes, args.size_repeat)


def bench_k(args) -> None:
    population = results_from_frame(synthesize(rng=0)).population()
    rng = np.random.default_rng(0)
    print(f"population: {population.n_docs} documents, {population.n_chunks} chunks; B={args.boot}")
    print(f"{'K':>6}  {'p50 ms':>8}  {'p95 ms':>8}  {'draw p50 ms':>11}  target <= 20 ms")
    for k in args.ks:
        interval_report(population.subset(rng.choice(population.n_docs, k, replace=False)), boot=args.boot, rng=0)
        report_ms, draw_ms = [], []
        for trial in range(args.trials):
            t0 = time.perf_counter()
            sample = population.subset(np.sort(rng.choice(population.n_docs, k, replace=False)))
            t1 = time.perf_counter()
            interval_report(sample, boot=args.boot, rng=trial)
            t2 = time.perf_counter()
            draw_ms.append((t1 - t0) * 1e3)
            report_ms.append((t2 - t1) * 1e3)
        p50, p95 = np.percentile(report_ms, [50, 95])
        print(f"{k:>6}  {p50:8.2f}  {p95:8.2f}  {np.median(draw_ms):11.3f}  {'met' if p95 <= 20 else 'MISSED'}")


if __name__ == "__main__":
    main()
