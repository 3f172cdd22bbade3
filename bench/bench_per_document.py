"""The dashboard on a pre-aggregated file of 1,000,000 documents: server time of a K-slider move.

Builds the file as a user would (chunk rows of 1 M synthetic documents, about 26 M
rows in Parquet files, through ``ragunc aggregate``), loads it with
``load_results`` and times a move of K to a new value in the Uncertainty explorer
two ways:

- the app: the file uploaded in the sidebar of the real dashboard (``app.py``
  through Streamlit's AppTest, coverage simulation off), the K slider moved, the
  script's server time per rerun (as ``bench_dashboard.py`` measures it);
- the library calls the page makes: ``draw_sample`` (K of the D documents, O(K)),
  ``interval_report`` (B = 1,000) and the population value ``estimate``; beside them
  the O(D) draw ``draw_sample`` avoids, a seeded permutation of all D documents.

The reference, measured in the same run, is the same library calls on the
1,300-document teaching population.  The coverage simulation of a never-simulated
K is not included.  Target: p95 <= 100 ms.

    python bench/bench_per_document.py [--docs 1000000] [--moves 40]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_dashboard import APP, SCRIPT_MS, _time_moves  # the app's timing harness, beside this script
from streamlit.testing.v1 import AppTest

from ragunc.data.aggregate import aggregate
from ragunc.data.results import load_results, results_from_frame
from ragunc.stats.intervals import interval_report
from ragunc.stats.linearization import estimate
from ragunc.stats.sample import draw_sample
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


def _permutation_draw(population, k: int, rng: int):
    """The O(D) alternative to ``draw_sample``: a seeded permutation of all D documents, cut to K."""
    order = np.random.default_rng(rng).permutation(population.n_docs)[:k]
    return population.subset(np.sort(order)).with_population(population.n_docs)


DRAWS = {"draw_sample": draw_sample, "permutation": _permutation_draw}


def k_move(population, k: int, seed: int = 0, *, draw: str = "draw_sample") -> tuple[float, float]:
    """Milliseconds of what a move to K computes: (drawing the K documents, everything after)."""
    t0 = time.perf_counter()
    sample = DRAWS[draw](population, k, rng=seed)
    t1 = time.perf_counter()
    interval_report(sample, boot=1000, rng=seed)
    estimate(population, "micro")
    return 1000 * (t1 - t0), 1000 * (time.perf_counter() - t1)


def app_moves(path: Path, n_docs: int, ks: list[int]) -> np.ndarray:
    """Script milliseconds of each K move in the dashboard with ``path`` (``n_docs`` documents) uploaded."""
    at = AppTest.from_string(f"import runpy; runpy.run_path({APP!r}, run_name='__main__')", default_timeout=900)
    at.query_params["source"], at.query_params["sim"] = "upload", "0"
    at.run()
    at.file_uploader(key="upload_file").set_value((path.name, path.read_bytes(), "application/octet-stream"))
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    if at.error:
        raise RuntimeError(at.error[0].value)
    if at.slider(key="k").max != n_docs:  # the K slider runs to D: the page is on the uploaded file
        raise RuntimeError(f"the explorer shows {at.slider(key='k').max} documents, not the upload's {n_docs}")
    _time_moves(at, ks[:3])  # warm the interpreter and caches of this shape
    SCRIPT_MS.clear()
    _, script_ms = _time_moves(at, ks)
    return script_ms


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

    reference = results_from_frame(synthesize(n_docs=1300, rng=0)).population()
    ks = [int(k) for k in np.random.default_rng(1).integers(10, 60, args.moves)]
    with tempfile.TemporaryDirectory(prefix="ragunc-bench-") as tmp:
        folder, out = Path(tmp) / "chunk_results", Path(tmp) / "per_document.parquet"
        folder.mkdir()
        t0 = time.perf_counter()
        rows = write_chunk_rows(folder, args.docs)
        t1 = time.perf_counter()
        aggregate([folder], out)
        t2 = time.perf_counter()
        population = load_results(out).population()
        t3 = time.perf_counter()
        size_mb = out.stat().st_size / 2**20
        print(
            f"{rows:,} chunk rows of {population.n_docs:,} documents written in {t1 - t0:.0f} s; "
            f"ragunc aggregate {t2 - t1:.1f} s -> {size_mb:.1f} MB per-document file; "
            f"load_results {t3 - t2:.2f} s; peak RSS of this process "
            f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
        )
        app_ms = app_moves(out, population.n_docs, ks)

    ref_p50 = float(np.percentile(timings(reference, ks, "draw_sample").sum(axis=1), 50))
    print("K move: draw K documents + interval_report (B = 1,000) + population estimate; ms, p50 / p95")
    print(f"  reference D = {reference.n_docs:,}, library calls with draw_sample: total p50 {ref_p50:.1f}")
    for draw in DRAWS:
        ms = timings(population, ks, draw)
        (d50, d95), (r50, r95), (t50, t95) = (np.percentile(x, [50, 95]) for x in (ms[:, 0], ms[:, 1], ms.sum(axis=1)))
        print(
            f"  D = {population.n_docs:,}, library, draw by {draw:<11}: draw {d50:6.1f} / {d95:6.1f}, "
            f"rest {r50:5.1f} / {r95:5.1f}, total {t50:6.1f} / {t95:6.1f} ({t50 / ref_p50:.1f}x the reference)"
        )
    a50, a95 = np.percentile(app_ms, [50, 95])
    verdict = "meets" if a95 <= TARGET_MS else "misses"
    print(
        f"  D = {population.n_docs:,}, the dashboard (upload, simulation off), script server time: "
        f"{a50:6.1f} / {a95:6.1f} ({a50 / ref_p50:.1f}x the reference); {verdict} the {TARGET_MS:.0f} ms target"
    )


if __name__ == "__main__":
    main()
