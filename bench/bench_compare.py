"""Many-config comparison: D = 1,300 documents, 6 configs, B = 2,000 max-|t| cluster bootstrap.

``compare_configs`` against a reference measured in the same run: the two-config
``paired_comparison`` with the same B (one config pair's bootstrap).  Target: <= 0.5 s.

    python bench/bench_compare.py [--docs 1300] [--configs 6] [--boot 2000] [--trials 7]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ragunc.stats.multiple import compare_configs
from ragunc.stats.paired import paired_comparison
from ragunc.stats.sample import ClusterStats


def population(docs: int, configs: int, seed: int = 0) -> dict[str, ClusterStats]:
    """Configs sharing documents of unequal size and difficulty; each config shifts every rate a little."""
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 50, docs)
    base = rng.beta(1, 4, docs)
    ids = np.array([f"d{i}" for i in range(docs)])
    out = {}
    for c in range(configs):
        sum_y = rng.binomial(n, np.clip(base + 0.005 * c + rng.normal(0, 0.03, docs), 0, 1)).astype(float)
        out[f"c{c}"] = ClusterStats(ids, sum_y, n, sum_y, config=f"c{c}")
    return out


def timed(fn, trials: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(trials):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1300)
    parser.add_argument("--configs", type=int, default=6)
    parser.add_argument("--boot", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=7)
    args = parser.parse_args()
    samples = population(args.docs, args.configs)
    names = list(samples)
    many = timed(lambda: compare_configs(samples, names[0], boot=args.boot, rng=0), args.trials)
    pairs = timed(lambda: compare_configs(samples, names[0], all_pairs=True, boot=args.boot, rng=0), args.trials)
    ref = timed(lambda: paired_comparison(samples[names[0]], samples[names[1]], boot=args.boot, rng=0), args.trials)
    m = args.configs
    print(f"D={args.docs}, {m} configs, B={args.boot}; median of {args.trials} runs")
    print(f"{'':42}{'seconds':>9}  {'x reference':>11}")
    print(f"{'reference: paired_comparison (2 configs)':42}{ref:9.3f}  {1.0:11.2f}")
    print(
        f"{f'compare_configs, {m - 1} vs baseline':42}{many:9.3f}  {many / ref:11.2f}  "
        f"{'met' if many <= 0.5 else 'MISSED'} (target <= 0.5 s)"
    )
    print(f"{f'compare_configs, all {m * (m - 1) // 2} pairs':42}{pairs:9.3f}  {pairs / ref:11.2f}")


if __name__ == "__main__":
    main()
