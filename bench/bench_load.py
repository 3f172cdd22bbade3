"""Load benchmark: 10 M chunk rows through ``ragunc.load_results``; 100 M over 10 files through ``ragunc aggregate``.

Targets: one 10-million-row Parquet file loads in <= 5 s with <= 0.5 GB peak RSS;
100 million rows in 10 Parquet files aggregate to one per-document file
(``ragunc aggregate``) in <= 60 s with <= 1.5 GB.  Each run is its own child
process; its peak RSS is that child's ``ru_maxrss`` (``os.wait4``, the per-child
form of ``getrusage(RUSAGE_CHILDREN)``) and its time covers the work only, not
the imports.  The parent stays small (stdlib only; the files are made in
children too) because exec carries the parent's high-water RSS into the child's.
The reference, measured in the same run on the same file, is pandas computing
the same per-document statistics with the same checks: ``read_parquet`` of every
row, duplicate keys, a sort by (config, doc_id, chunk_index) for the neighbour
products, and a groupby.  100 M rows do not fit pandas in this machine's memory
(its peak for 10 M is in the printed table), so its 100 M figure is one of the 10
files times 10.

    python bench/bench_load.py [--rows 10000000] [--files 10] [--only 10m|100m] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS = {"10m": (5.0, 512.0), "100m": (60.0, 1536.0)}  # (seconds, peak RSS MB)
DOCS_PER_BLOCK = 40_000  # ~1M rows: generation memory stays small

# Each child prints: wall seconds, CPU seconds (both of the work alone), rows, documents.
RAGUNC_CHILD = """
import resource, sys, time
from ragunc import load_results
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
start, start_cpu = time.perf_counter(), cpu()
results = load_results(sys.argv[1])
print(time.perf_counter() - start, cpu() - start_cpu, results.n_rows, results.population().n_docs)
"""

AGGREGATE_CHILD = """
import contextlib, io, json, resource, sys, time
from ragunc.cli import main
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
out = io.StringIO()
start, start_cpu = time.perf_counter(), cpu()
with contextlib.redirect_stdout(out):
    status = main(["aggregate", *sys.argv[1:-1], "--out", sys.argv[-1], "--json"])
wall, used = time.perf_counter() - start, cpu() - start_cpu
summary = json.loads(out.getvalue())
print(wall, used, summary["rows"], summary["documents"])
raise SystemExit(status)
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
    chunks=("y", "size"), sum_y=("y", "sum"), sum_y2=("y2", "sum"), sum_y_next=("cross", "sum"),
    first_y=("y", "first"), last_y=("y", "last"), doc_type=("doc_type", "first"))
assert problems == 0
print(time.perf_counter() - start, cpu() - start_cpu, int(stats["chunks"].sum()), len(stats))
"""


def write_population(path: Path, rows: int, *, shuffle: bool, seed: int = 0, prefix: str = "") -> None:
    """A synthetic population of about ``rows`` chunk rows, in blocks of documents (ids start with ``prefix``)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ragunc.stats.synthetic import synthesize

    blocks, total, block = [], 0, 0
    while total < rows:
        frame = synthesize(n_docs=DOCS_PER_BLOCK, rng=[seed, block])
        frame["doc_id"] = f"{prefix}b{block}-" + frame["doc_id"]  # documents unique across blocks
        frame["chunk_id"] = f"{prefix}b{block}-" + frame["chunk_id"]
        frame = frame.iloc[: rows - total]
        blocks.append(pa.Table.from_pandas(frame, preserve_index=False))
        total += len(frame)
        block += 1
    table = pa.concat_tables(blocks)
    if shuffle:  # rows in no useful order: the hard case for the per-document sort
        table = table.take(np.random.default_rng(seed).permutation(table.num_rows))
    pq.write_table(table, path, row_group_size=1 << 20)


def measure(code: str, args: list[Path]) -> tuple[float, float, float, list[str]]:
    """(wall s, CPU s, peak RSS MB, counts) of ``code`` run on ``args`` in a fresh process."""
    child = subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"benchmark child failed with exit code {child.returncode}")
    rss_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    wall, cpu, *counts = out.split()
    return float(wall), float(cpu), rss_mb, counts


def make(path: Path, rows: int, *, shuffle: bool = False, prefix: str = "") -> None:
    command = [sys.executable, __file__, "--make", str(path), "--rows", str(rows), "--prefix", prefix]
    subprocess.run(command + ["--shuffle"] * shuffle, check=True)


def report(
    label: str, reference: tuple, measured: tuple, target: tuple[float, float], ref_name: str = "pandas"
) -> None:
    (ref_s, ref_cpu, ref_mb, ref_counts), (s, cpu, mb, counts) = reference, measured
    if counts != ref_counts:
        raise SystemExit(f"row/document counts differ: ragunc {counts}, pandas {ref_counts}")
    seconds, rss = target
    ok = "ok" if s <= seconds and mb <= rss else "MISSED"
    print(f"{label:<26}{ref_name:<12}{ref_s:>8.2f}{ref_cpu:>8.2f}{ref_mb:>9.0f}{1:>10.2f}{1:>9.2f}{1:>9.2f}")
    print(
        f"{'':<26}{'ragunc':<12}{s:>8.2f}{cpu:>8.2f}{mb:>9.0f}{s / ref_s:>10.2f}{cpu / ref_cpu:>9.2f}"
        f"{mb / ref_mb:>9.2f}   {ok} (<= {seconds:.0f} s, <= {rss / 1024:.1f} GB)"
    )
    print(f"{'':<26}({int(counts[0]):,} rows, {int(counts[1]):,} documents)")


def one_file(workdir: Path, rows: int) -> None:
    for order in ("document order", "shuffled"):
        path = workdir / f"population_{order.split()[0]}.parquet"
        make(path, rows, shuffle=order == "shuffled")
        label = f"{order} ({path.stat().st_size / 2**20:.0f} MB)"
        report(label, measure(PANDAS_CHILD, [path]), measure(RAGUNC_CHILD, [path]), TARGETS["10m"])
        path.unlink()


def many_files(workdir: Path, rows: int, files: int) -> None:
    """``files`` Parquet files of ``rows`` rows each (distinct documents) through ``ragunc aggregate``."""
    folder = workdir / "chunk_results"
    folder.mkdir()
    paths = [folder / f"part-{i:05d}.parquet" for i in range(files)]
    for i, path in enumerate(paths):
        make(path, rows, prefix=f"f{i}-")  # the same rows under other doc ids: pandas on one file, x files, is exact
    out = workdir / "per_document.parquet"
    ref_s, ref_cpu, ref_mb, (ref_rows, ref_docs) = measure(PANDAS_CHILD, [paths[0]])
    reference = (ref_s * files, ref_cpu * files, ref_mb, [str(int(ref_rows) * files), str(int(ref_docs) * files)])
    size = sum(p.stat().st_size for p in paths) / 2**20
    measured = measure(AGGREGATE_CHILD, [folder, out])
    report(f"{files} files ({size:.0f} MB)", reference, measured, TARGETS["100m"], ref_name=f"pandas 1/{files}×{files}")
    print(
        f"{'':<26}(per-document file {out.stat().st_size / 2**20:.0f} MB; "
        "pandas RSS is that of one file: all would not fit)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows per file")
    parser.add_argument("--files", type=int, default=10, help="files aggregated together")
    parser.add_argument("--only", choices=("10m", "100m"), help="run one case")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep what is written")
    parser.add_argument("--make", type=Path, default=None, help=argparse.SUPPRESS)  # child: write one file
    parser.add_argument("--shuffle", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make is not None:
        write_population(args.make, args.rows, shuffle=args.shuffle, prefix=args.prefix)
        return

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="ragunc-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"load benchmark: {args.rows:,} rows per file, cpu_count={os.cpu_count()}")
    print("wall and CPU seconds of the work alone; peak RSS of the whole child process")
    print(
        f"{'file':<26}{'method':<12}{'wall s':>8}{'CPU s':>8}{'peak MB':>9}{'wall/ref':>10}{'CPU/ref':>9}"
        f"{'RSS/ref':>9}   target"
    )
    try:
        if args.only in (None, "10m"):
            one_file(workdir, args.rows)
        if args.only in (None, "100m"):
            many_files(workdir, args.rows, args.files)
    finally:
        if args.keep is None:
            for leftover in sorted(workdir.rglob("*"), reverse=True):
                leftover.rmdir() if leftover.is_dir() else leftover.unlink()
            workdir.rmdir()


if __name__ == "__main__":
    main()
