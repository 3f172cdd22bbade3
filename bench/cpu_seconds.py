"""CPU seconds (all threads) of the calls bench_coverage.py and bench_compare.py time: the best of 7 each.

On a shared machine wall time swings with other people's jobs; CPU time much less.  To compare
two checkouts, run this from each in turn, several rounds, in the same minutes:

    PYTHONPATH=<checkout> python <checkout>/bench/cpu_seconds.py
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_compare import population as configs  # noqa: E402

from ragunc.data.results import results_from_frame  # noqa: E402
from ragunc.stats.coverage import coverage_experiment  # noqa: E402
from ragunc.stats.multiple import compare_configs  # noqa: E402
from ragunc.stats.paired import paired_comparison  # noqa: E402
from ragunc.stats.synthetic import synthesize  # noqa: E402


def best(fn, n: int = 7) -> float:
    fn()  # warm-up (kernels loaded)
    times = []
    for _ in range(n):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    population = results_from_frame(synthesize(rng=0)).population()
    samples = configs(1300, 6)
    a, b = list(samples)[:2]
    rows = {
        "coverage K=20 R=2000 B=1000, percentile + BCa": lambda: coverage_experiment(
            population, k=20, reps=2000, boot=1000, rng=0, studentized=False
        ),
        "coverage K=20 R=2000 B=1000, default run": lambda: coverage_experiment(
            population, k=20, reps=2000, boot=1000, rng=0
        ),
        "coverage macro K=20 R=1000 B=1000, default run": lambda: coverage_experiment(
            population, k=20, reps=1000, boot=1000, rng=0, estimator="macro"
        ),
        "paired_comparison D=1300 B=2000": lambda: paired_comparison(samples[a], samples[b], boot=2000, rng=0),
        "compare_configs 6 configs, 5 vs baseline": lambda: compare_configs(samples, a, boot=2000, rng=0),
        "compare_configs 6 configs, all 15 pairs": lambda: compare_configs(
            samples, a, all_pairs=True, boot=2000, rng=0
        ),
    }
    for name, fn in rows.items():
        print(f"{name:48}{best(fn):8.3f} s CPU")


if __name__ == "__main__":
    main()
