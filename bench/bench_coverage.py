"""Coverage experiment speed: the seed's setting (D = 1,300 documents, ~33.5k chunks, K = 20, R = 2,000, B = 1,000).

Prints ragunc's time beside a per-repetition Python loop around
``scipy.stats.bootstrap(method="percentile", vectorized statistic)`` measured in
the same run (timed on a subset of repetitions and extrapolated), and the
seed's figures read off the result.  Targets: <= 0.5 s and >= 8x the loop (which
computes percentile intervals only: compared with ragunc's percentile + BCa run;
the default run adds the studentized bootstrap and is timed beside it).

    python bench/bench_coverage.py [--reps 2000] [--boot 1000] [--loop-reps 40]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy import stats

from ragunc.data.results import results_from_frame
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.synthetic import synthesize


def ratio(y, m, axis=-1):
    return y.sum(axis=axis) / m.sum(axis=axis)


def scipy_loop(population, k: int, reps: int, boot: int, rng: np.random.Generator) -> None:
    """The obvious implementation: one scipy bootstrap per simulated sample."""
    for _ in range(reps):
        idx = rng.choice(population.n_docs, k, replace=False)
        stats.bootstrap(
            (population.total[idx], population.size[idx].astype(float)), ratio, paired=True,
            vectorized=True, n_resamples=boot, method="percentile", rng=rng,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--loop-reps", type=int, default=40, help="repetitions timed for the scipy loop")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each (best reported: least disturbed)")
    args = parser.parse_args()

    population = results_from_frame(synthesize(rng=0)).sample()
    print(f"population: {population.n_docs} documents, {population.n_chunks} chunks, "
          f"sizes CV {population.size.std() / population.size.mean():.2f}, max {population.size.max()}")
    print(f"K={args.k}, R={args.reps}, B={args.boot}: {args.reps * args.boot:,} bootstrap replicates")

    def best(studentized: bool):
        coverage_experiment(population, k=args.k, reps=50, boot=args.boot, rng=99)  # warm-up
        times = []
        for i in range(args.repeat):
            t0 = time.perf_counter()
            result = coverage_experiment(population, k=args.k, reps=args.reps, boot=args.boot, rng=i,
                                         studentized=studentized)
            times.append(time.perf_counter() - t0)
        return min(times), statistics.median(times), result

    ours, ours_median, _ = best(studentized=False)
    full, full_median, result = best(studentized=True)

    loops = []
    for i in range(args.repeat):
        t0 = time.perf_counter()
        scipy_loop(population, args.k, args.loop_reps, args.boot, np.random.default_rng(i))
        loops.append((time.perf_counter() - t0) / args.loop_reps * args.reps)
    loop = min(loops)

    print(f"ragunc, percentile + BCa        {ours:8.3f} s  (best of {args.repeat}; median {ours_median:.3f} s)"
          f"   target <= 0.5 s: {'met' if ours <= 0.5 else 'MISSED'}")
    print(f"ragunc, + studentized (default) {full:8.3f} s  (best of {args.repeat}; median {full_median:.3f} s)"
          f"   target <= 0.5 s: {'met' if full <= 0.5 else 'MISSED'}")
    print(f"scipy.stats.bootstrap loop      {loop:8.3f} s  (best of {args.repeat}, each extrapolated from "
          f"{args.loop_reps} repetitions; median {statistics.median(loops):.3f} s)")
    print(f"speed-up, percentile + BCa      {loop / ours:8.1f} x   target >= 8x: {'met' if loop / ours >= 8 else 'MISSED'}")
    print(f"speed-up, with studentized      {loop / full:8.1f} x   (three more resampled sums per replicate)")
    print()
    print("coverage (nominal 95%):  " + "  ".join(f"{m} {c:.3f}" for m, c in result.coverage.items()))
    print(f"SD empirical {result.sd_empirical:.4f}, linearization {result.linearization_sd:.4f}, "
          f"binomial {result.binomial_sd:.4f}; variance ratio {result.variance_ratio:.1f} (empirical) / "
          f"{result.variance_ratio_linearization:.1f} (linearization); Bernoulli-equivalent n "
          f"{result.bernoulli_n_empirical:.1f} / {result.bernoulli_n_linearization:.1f}; "
          f"mean chunks {result.mean_chunks:.0f}")


if __name__ == "__main__":
    main()
