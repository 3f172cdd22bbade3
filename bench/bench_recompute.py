"""Recompute latency: ``interval_report`` (+ diagnostics, B = 1,000) for a new sample of K documents.

What the dashboard does after a slider move, data already loaded: draw K of the
D = 1,300 documents and recompute everything.  Prints p50/p95 in ms per K,
beside the cost of the draw alone measured in the same run.  Target: <= 20 ms.

    python bench/bench_recompute.py [--trials 200] [--boot 1000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ragunc.data.results import results_from_frame
from ragunc.stats.intervals import interval_report
from ragunc.stats.synthetic import synthesize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--ks", type=int, nargs="+", default=[20, 100, 500, 1300])
    args = parser.parse_args()

    population = results_from_frame(synthesize(rng=0)).sample()
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
