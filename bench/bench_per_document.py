"""The dashboard on a pre-aggregated file of 1,000,000 documents: server time of a K-slider move.

Builds the file as a user would (chunk rows of 1 M synthetic documents, about 26 M
rows in Parquet files, through ``ragunc aggregate``), loads it with
``load_results`` and times what a move of K to a new value computes in the
Uncertainty explorer (pages/uncertainty_explorer.py through pages/_cache.py),
called as library functions rather than through Streamlit, because the app layer
is being restructured: draw K documents without replacement from the loaded
population (the seeded permutation, ``ClusterSample.subset``, the population size
for the FPC), ``interval_report`` on them (B = 1,000) and the population value
``estimate`` the interval figure marks; the draw is timed as the page does it
today and, beside it, as an O(K) draw.  Streamlit's own share of a rerun is
measured by ``bench_dashboard.py`` (about 25 ms at D = 1,300).  The coverage
simulation of a never-simulated K is not included (issue 13's coverage work).
The reference, measured in the same run, is the same calls on the 1,300-document
teaching population.  Target: p95 <= 100 ms.

    python bench/bench_per_document.py [--docs 1000000] [--moves 40]
"""
from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from ragunc.data.aggregate import aggregate
from ragunc.data.results import load_results, results_from_frame
from ragunc.stats.intervals import interval_report
from ragunc.stats.linearization import estimate
from ragunc.stats.synthetic import synthesize

TARGET_MS = 100.0
DOCS_PER_FILE = 40_000


def write_chunk_rows(folder: Path, n_docs: int) -> int:
    """Chunk rows of ``n_docs`` synthetic documents, one Parquet file per block; returns the rows written."""
    rows = 0
    for block, start in enumerate(range(0, n_docs, DOCS_PER_FILE)):
        frame = synthesize(n_docs=min(DOCS_PER_FILE, n_docs - start), rng=[1, block])
        frame["doc_id"] = f"b{block}-" + frame["doc_id"]
        frame["chunk_id"] = f"b{block}-" + frame["chunk_id"]
        frame.to_parquet(folder / f"part-{block:05d}.parquet", index=False)
        rows += len(frame)
    return rows


def k_move(population, k: int, seed: int = 0, *, draw: str = "permutation") -> tuple[float, float]:
    """Milliseconds of what a move to K computes: (drawing the K documents, everything after).

    ``draw``: "permutation" is how pages/_cache.py draws today (a seeded permutation
    of all D documents, cut to K: O(D)); "choice" is ``Generator.choice(D, K,
    replace=False)``, O(K), which draws other documents for the same seed.
    """
    t0 = time.perf_counter()
    generator = np.random.default_rng(seed)
    if draw == "permutation":
        order = generator.permutation(population.n_docs)[:k]
    else:
        order = generator.choice(population.n_docs, k, replace=False)
    sample = population.subset(np.sort(order)).with_population(population.n_docs)
    t1 = time.perf_counter()
    interval_report(sample, boot=1000, rng=seed)
    estimate(population, "micro")
    return 1000 * (t1 - t0), 1000 * (time.perf_counter() - t1)


def timings(population, ks: list[int], draw: str) -> np.ndarray:
    """(moves, 2) milliseconds: drawing, and the rest."""
    for k in ks[:3]:  # warm the interpreter and caches of this shape
        k_move(population, k, draw=draw)
    return np.array([k_move(population, k, seed, draw=draw) for seed, k in enumerate(ks)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ragunc-bench-") as tmp:
        folder, out = Path(tmp) / "chunk_results", Path(tmp) / "per_document.parquet"
        folder.mkdir()
        t0 = time.perf_counter()
        rows = write_chunk_rows(folder, args.docs)
        t1 = time.perf_counter()
        aggregate([folder], out)
        t2 = time.perf_counter()
        population = load_results(out).sample()
        t3 = time.perf_counter()
        size_mb = out.stat().st_size / 2**20
    print(f"{rows:,} chunk rows of {population.n_docs:,} documents written in {t1 - t0:.0f} s; "
          f"ragunc aggregate {t2 - t1:.1f} s -> {size_mb:.1f} MB per-document file; load_results {t3 - t2:.2f} s; "
          f"peak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")

    reference = results_from_frame(synthesize(n_docs=1300, rng=0)).sample()
    ks = [int(k) for k in np.random.default_rng(1).integers(10, 60, args.moves)]
    ref_p50 = float(np.percentile(timings(reference, ks, "permutation").sum(axis=1), 50))
    print("K move: draw K documents + interval_report (B = 1,000) + population estimate; ms, p50 / p95")
    print(f"  reference D = {reference.n_docs:,}, the page's draw: total p50 {ref_p50:.1f}")
    for draw in ("permutation", "choice"):
        ms = timings(population, ks, draw)
        (d50, d95), (r50, r95), (t50, t95) = (np.percentile(x, [50, 95]) for x in (ms[:, 0], ms[:, 1], ms.sum(axis=1)))
        verdict = "meets" if t95 <= TARGET_MS else "misses"
        print(f"  D = {population.n_docs:,}, draw by {draw:<11}: draw {d50:6.1f} / {d95:6.1f}, rest {r50:5.1f} / {r95:5.1f}, "
              f"total {t50:6.1f} / {t95:6.1f} ({t50 / ref_p50:.1f}x the reference); {verdict} the "
              f"{TARGET_MS:.0f} ms target")


if __name__ == "__main__":
    main()
