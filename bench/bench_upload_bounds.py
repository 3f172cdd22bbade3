"""Upload bounds: the dashboard's peak RSS through hostile uploads, against the same app given a small valid file.

Target: every case stays under 1.5 GB peak RSS (``TARGET_MB``) and ends with a message, not a load:
an 8 GB gzip bomb of valid-looking rows into the results uploader and into the corpus uploader, and a
100 MB CSV of one line into both.  Each case is its own child process running app.py through
Streamlit's AppTest (the server's own code path: sidebar, cache, loader); its peak is the child's
``ru_maxrss`` (``os.wait4``), so the parent's memory never counts.  The bomb is one small gzip member
of rows repeated (gzip allows concatenated members), made in the child: about 8 GB unpacked from
tens of MB.  The reference, in the same run, is the same app given a 1 MB upload of valid rows;
the printed ratio is each case's peak over it.

    python bench/bench_upload_bounds.py [--unpacked-gb 8] [--line-mb 100]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MB = 1536.0

CHILD = r"""
import gzip, json, sys, time
from streamlit.testing.v1 import AppTest

kind, uploader, size = sys.argv[1], sys.argv[2], float(sys.argv[3])
results = uploader == "upload_file"
header = b"doc_id,y\n" if results else b"doc_id,text\n"
# A block of rows repeating with a short period: valid-looking rows, compressing near deflate's 1000:1.
row = (b"doc%d,%d\n" if results else b"doc%d,words of a document number %d\n")
block = b"".join(row % (i % 7, i % 2) for i in range(7)) * 40_000
if kind == "bomb":
    member = gzip.compress(block, compresslevel=9)
    data, name = gzip.compress(header) + member * int(size * 2**30 // len(block)), "bomb.csv.gz"
elif kind == "line":  # raw into the results uploader; gzip into the corpus one, whose upload limit is smaller
    data, name = header.rstrip(b"\n") + b"," + b"x" * int(size * 2**20), "line.csv"
    if not results:
        data, name = gzip.compress(data), "line.csv.gz"
else:
    data, name = header + block[: int(size * 2**20)].rpartition(b"\n")[0] + b"\n", "small.csv"
app = f"import runpy; runpy.run_path({sys.argv[4]!r}, run_name='__main__')"
at = AppTest.from_string(app, default_timeout=900)
at.query_params["source"] = "upload" if results else "corpus"
at.query_params["sim"] = "0"
at.run()
start = time.perf_counter()
at.file_uploader(key=uploader).set_value((name, data, "application/octet-stream")).run()
seconds = time.perf_counter() - start
errors = [e.value for e in at.error]
print(json.dumps({"seconds": seconds, "upload_mb": len(data) / 2**20, "error": errors[0] if errors else None}))
"""


def run(kind: str, uploader: str, size: float) -> dict:
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, uploader, str(size), str(ROOT / "app.py")],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    result = json.loads(out.strip().splitlines()[-1]) if status == 0 else {"error": f"exit status {status}"}
    return {**result, "peak_mb": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--unpacked-gb", type=float, default=8.0)
    parser.add_argument("--line-mb", type=float, default=100.0)
    args = parser.parse_args()
    cases = [
        ("reference: 1 MB of valid rows", "small", "upload_file", 1.0),
        (f"gzip bomb, {args.unpacked_gb:g} GB of rows -> results", "bomb", "upload_file", args.unpacked_gb),
        (f"gzip bomb, {args.unpacked_gb:g} GB of rows -> corpus", "bomb", "corpus_file", args.unpacked_gb),
        # One that fits the corpus uploader's smaller upload limit, so its unpacking is what refuses it.
        ("gzip bomb, 4 GB of rows -> corpus", "bomb", "corpus_file", 4.0),
        (f"{args.line_mb:g} MB single-line CSV -> results", "line", "upload_file", args.line_mb),
        (f"{args.line_mb:g} MB single-line CSV -> corpus", "line", "corpus_file", args.line_mb),
    ]
    reference = None
    print(f"{'case':<42} {'upload MB':>9} {'peak MB':>8} {'x ref':>6} {'s':>6}  message")
    for label, kind, uploader, size in cases:
        r = run(kind, uploader, size)
        reference = reference or r["peak_mb"]
        ok = "ok" if r["peak_mb"] <= TARGET_MB else "OVER"
        print(
            f"{label:<42} {r.get('upload_mb', 0):>9.1f} {r['peak_mb']:>8.0f} {r['peak_mb'] / reference:>6.2f} "
            f"{r.get('seconds', 0):>6.1f}  [{ok}] {r['error']}"
        )


if __name__ == "__main__":
    main()
