"""Cold start of the command line: ``ragunc interval`` and ``ragunc simulate``, process to process.

Targets (issue 18, deliver 8), on the 33,552-row teaching population
(``sample_data/synthetic_population.csv.gz``, D = 1,300 documents):

- ``ragunc interval FILE`` takes at most 2x ``python -c "import numpy, pandas"``;
- ``ragunc simulate FILE --k 20 --reps 2000 --boot 1000`` takes at most 0.1 s more than
  ``ragunc interval FILE``.

Every command is a fresh process of this interpreter (what a script calling ``ragunc`` in CI
waits for), started ``--runs`` times, the commands taking turns so that the machine's load
falls on each alike; the figures are medians.  One untimed warm-up run of each comes first:
it fills the compiled-kernel cache and the operating system's file cache, which a user's
second call finds filled too.

    python bench/bench_cli.py [--runs 15] [--file sample_data/synthetic_population.csv.gz]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INTERVAL_RATIO = 2.0  # ragunc interval / import numpy, pandas
SIMULATE_EXTRA = 0.1  # seconds of ragunc simulate beyond ragunc interval


def commands(file: str) -> dict[str, list[str]]:
    ragunc = [sys.executable, "-m", "ragunc"]
    return {
        "import numpy, pandas": [sys.executable, "-c", "import numpy, pandas"],
        "ragunc interval": [*ragunc, "interval", file, "--json"],
        "ragunc simulate": [*ragunc, "simulate", file, "--k", "20", "--reps", "2000", "--boot", "1000", "--json"],
    }


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command (default %(default)s)")
    parser.add_argument("--file", default="sample_data/synthetic_population.csv.gz")
    args = parser.parse_args()

    argvs = commands(args.file)
    for argv in argvs.values():
        timed(argv)  # warm-up, untimed
    times: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(args.runs):
        for name, argv in argvs.items():
            times[name].append(timed(argv))
    median = {name: statistics.median(t) for name, t in times.items()}

    load = os.getloadavg()
    print(f"{args.runs} runs each, medians; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    for name, t in times.items():
        print(f"  {name:22s} {median[name]:6.3f} s  (min {min(t):.3f}, max {max(t):.3f})")
    ratio = median["ragunc interval"] / median["import numpy, pandas"]
    extra = median["ragunc simulate"] - median["ragunc interval"]
    print(f"ragunc interval / import numpy, pandas = {ratio:.2f}x  (target <= {INTERVAL_RATIO:g}x: "
          f"{'met' if ratio <= INTERVAL_RATIO else 'NOT met'})")
    print(f"ragunc simulate - ragunc interval = {extra:+.3f} s  (target <= {SIMULATE_EXTRA:g} s: "
          f"{'met' if extra <= SIMULATE_EXTRA else 'NOT met'})")


if __name__ == "__main__":
    main()
