"""Load benchmark: a 10-million-row Parquet file through ``ragunc.load_results``.

Target: <= 10 s and <= 1.5 GB peak RSS.  Each load runs in its own child
process; its peak RSS is that child's ``ru_maxrss`` (``os.wait4``, the per-child
form of ``getrusage(RUSAGE_CHILDREN)``) and its time covers the load only, not
the imports.  The parent stays small (stdlib only; the file is made in a
child too) because exec carries the parent's high-water RSS into the child's.
The reference, measured in the same run on the same file, is
pandas computing the same per-document statistics with the same checks:
``read_parquet`` of every row, duplicate keys, a sort by (config, doc_id,
chunk_index) for the neighbour products, and a groupby.

    python bench/bench_load.py [--rows 10000000] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 10.0
TARGET_RSS_MB = 1536.0
DOCS_PER_BLOCK = 40_000  # ~1M rows: generation memory stays small

# Each child prints: wall seconds, CPU seconds (both of the load alone), rows, documents.
RAGUNC_CHILD = """
import resource, sys, time
from ragunc import load_results
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
start, start_cpu = time.perf_counter(), cpu()
results = load_results(sys.argv[1])
print(time.perf_counter() - start, cpu() - start_cpu, results.n_rows, results.sample().n_docs)
"""

PANDAS_CHILD = """
import resource, sys, time
import pandas as pd
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
start, start_cpu = time.perf_counter(), cpu()
frame = pd.read_parquet(sys.argv[1])
y = frame["y"].astype("float64")
problems = int((y.isna() | (y < 0) | (y > 1)).sum() + frame["doc_id"].isna().sum() + (frame["chunk_index"] < 0).sum())
problems += int(frame.duplicated(["config", "doc_id", "chunk_id"]).sum())
frame = frame.assign(y=y).sort_values(["config", "doc_id", "chunk_index"])
grouped = frame.groupby(["config", "doc_id"], sort=False)
same_doc = grouped.cumcount() > 0
problems += int((same_doc & (frame["chunk_index"] == frame["chunk_index"].shift())).sum())
problems += int((grouped["doc_type"].nunique() > 1).sum())
cross = (frame["y"] * frame["y"].shift(-1)).where(same_doc.shift(-1, fill_value=False), 0.0)
stats = frame.assign(y2=frame["y"] ** 2, cross=cross).groupby(["config", "doc_id"]).agg(
    total=("y", "sum"), size=("y", "size"), sumsq=("y2", "sum"), lag_cross=("cross", "sum"),
    first=("y", "first"), last=("y", "last"), doc_type=("doc_type", "first"))
assert problems == 0
print(time.perf_counter() - start, cpu() - start_cpu, int(stats["size"].sum()), len(stats))
"""


def write_population(path: Path, rows: int, *, shuffle: bool, seed: int = 0) -> None:
    """A synthetic population of about ``rows`` chunk rows, in blocks of documents."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ragunc.stats.synthetic import synthesize

    blocks, total, block = [], 0, 0
    while total < rows:
        frame = synthesize(n_docs=DOCS_PER_BLOCK, rng=[seed, block])
        frame["doc_id"] = f"b{block}-" + frame["doc_id"]  # documents unique across blocks
        frame["chunk_id"] = f"b{block}-" + frame["chunk_id"]
        frame = frame.iloc[: rows - total]
        blocks.append(pa.Table.from_pandas(frame, preserve_index=False))
        total += len(frame)
        block += 1
    table = pa.concat_tables(blocks)
    if shuffle:  # rows in no useful order: the hard case for the per-document sort
        table = table.take(np.random.default_rng(seed).permutation(table.num_rows))
    pq.write_table(table, path, row_group_size=1 << 20)


def measure(code: str, path: Path) -> tuple[float, float, float, list[str]]:
    """(wall s, CPU s, peak RSS MB, counts) of ``code`` run on ``path`` in a fresh process."""
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"benchmark child failed with exit code {child.returncode}")
    rss_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    wall, cpu, *counts = out.split()
    return float(wall), float(cpu), rss_mb, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--keep", type=Path, default=None, help="write the Parquet files here and keep them")
    parser.add_argument("--make", type=Path, default=None, help=argparse.SUPPRESS)  # child: write one file
    parser.add_argument("--shuffle", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make is not None:
        write_population(args.make, args.rows, shuffle=args.shuffle)
        return

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="ragunc-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"load benchmark: {args.rows:,} rows, cpu_count={os.cpu_count()}")
    print("wall and CPU seconds of the load alone; peak RSS of the whole child process")
    print(f"{'file':<22}{'method':<9}{'wall s':>8}{'CPU s':>8}{'peak MB':>9}{'wall/ref':>10}{'CPU/ref':>9}{'RSS/ref':>9}   target")
    try:
        for order in ("document order", "shuffled"):
            path = workdir / f"population_{order.split()[0]}.parquet"
            start = time.perf_counter()
            make = [sys.executable, __file__, "--make", str(path), "--rows", str(args.rows)]
            subprocess.run(make + ["--shuffle"] * (order == "shuffled"), check=True)
            made = time.perf_counter() - start
            label = f"{order} ({path.stat().st_size / 2**20:.0f} MB)"
            ref_s, ref_cpu, ref_mb, ref_counts = measure(PANDAS_CHILD, path)
            s, cpu, mb, counts = measure(RAGUNC_CHILD, path)
            if counts != ref_counts:
                raise SystemExit(f"row/document counts differ: ragunc {counts}, pandas {ref_counts}")
            ok = "ok" if s <= TARGET_SECONDS and mb <= TARGET_RSS_MB else "MISSED"
            print(f"{label:<22}{'pandas':<9}{ref_s:>8.2f}{ref_cpu:>8.2f}{ref_mb:>9.0f}{1:>10.2f}{1:>9.2f}{1:>9.2f}")
            print(
                f"{'':<22}{'ragunc':<9}{s:>8.2f}{cpu:>8.2f}{mb:>9.0f}{s / ref_s:>10.2f}{cpu / ref_cpu:>9.2f}"
                f"{mb / ref_mb:>9.2f}   {ok} (<= {TARGET_SECONDS:.0f} s, <= {TARGET_RSS_MB / 1024:.1f} GB)"
            )
            print(f"{'':<22}({int(counts[0]):,} rows, {int(counts[1]):,} documents; file made in {made:.0f} s)")
            if args.keep is None:
                path.unlink()
    finally:
        if args.keep is None:
            for leftover in workdir.glob("*.parquet"):
                leftover.unlink()
            workdir.rmdir()


if __name__ == "__main__":
    main()
