"""Cold start of the command line: ``ragunc interval`` and ``ragunc simulate``, process to process.

Targets, on the 33,552-row teaching population
(``sample_data/synthetic_population.csv.gz``, D = 1,300 documents):

- ``ragunc interval FILE`` takes at most 2x ``python -c "import numpy, pandas"``;
- ``ragunc simulate FILE --k 20 --reps 2000 --boot 1000`` takes at most 0.1 s more than
  ``ragunc interval FILE``.

Every command is a fresh process of this interpreter (what a script calling ``ragunc`` in CI
waits for), started ``--runs`` times, the commands taking turns so that the machine's load
falls on each alike; the figures are medians of the wall time, with the CPU time each child
used beside them (steadier on a busy machine).  One untimed warm-up run of each comes first:
it fills the compiled-kernel cache, the bytecode cache (``PYTHONDONTWRITEBYTECODE`` is
dropped for the children: ``pip install`` writes the bytecode of an installed ragunc) and the
operating system's file cache, which a user's second call finds filled too.

A third reference, the floor, is what any command that bootstraps pays before ragunc's own
work: numpy and pandas, DuckDB, scipy.special, and numba loading one cached kernel (numba's
first call sets up its compiler and imports scipy.linalg, even for a cached kernel).

``--before DIR`` also times both commands of another checkout (e.g. a worktree of the commit
before a change), in the same run.  Last, one process does what ``ragunc interval`` does, step by
step, and prints the CPU time of each step (median of three).

    python bench/bench_cli.py [--runs 15] [--file sample_data/synthetic_population.csv.gz] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INTERVAL_RATIO = 2.0  # ragunc interval / import numpy, pandas
SIMULATE_EXTRA = 0.1  # seconds of ragunc simulate beyond ragunc interval


# A kernel like ragunc's (nogil, cached), in a module of its own so that numba can cache it.
FLOOR_KERNEL = """
import numba

@numba.njit(nogil=True, cache=True, error_model="numpy")
def total(x):
    s = 0.0
    for i in range(x.size):
        s += x[i]
    return s
"""
FLOOR = "import numpy, pandas, duckdb, scipy.special\nimport floor_kernel\nfloor_kernel.total(numpy.ones(3))\n"


# What ``ragunc interval FILE`` does, step by step, each step's CPU time printed (the process's, all threads).
PHASES = """
import sys, time
last = time.process_time()
def step(name):
    global last
    now = time.process_time()
    print(f"{name}\\t{now - last}")
    last = now
import numpy, pandas
step("import numpy, pandas")
import ragunc.cli.interval
step("import ragunc.cli.interval (scipy.special, DuckDB, pyarrow, ragunc's modules)")
from ragunc.data.results import load_results
sample = load_results(sys.argv[1]).population()
step("load the file (DuckDB)")
import numba
step("import numba")
from ragunc.stats.intervals import interval_report
interval_report(sample, boot=1000, rng=0)
step("first kernel call: numba's set-up, the cached kernel loaded, B = 1,000 replicates")
"""


def phases(file: str) -> dict[str, float]:
    """Median CPU seconds of each step of :data:`PHASES`, over three processes."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", PHASES, str(ROOT / file)],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
            env=environment,
        ).stdout
        runs.append(dict(line.split("\t") for line in out.splitlines()))
    return {name: statistics.median(float(run[name]) for run in runs) for name in runs[0]}


def commands(file: str, floor_dir: str, before: str | None) -> dict[str, tuple[list[str], dict, Path]]:
    """name -> (argv, extra environment, working directory: the checkout whose ragunc runs)."""
    ragunc = [sys.executable, "-m", "ragunc"]
    interval = ["interval", str(ROOT / file), "--json"]
    simulate = ["simulate", str(ROOT / file), "--k", "20", "--reps", "2000", "--boot", "1000", "--json"]
    found = {
        "import numpy, pandas": ([sys.executable, "-c", "import numpy, pandas"], {}, ROOT),
        "floor (see above)": ([sys.executable, "-c", FLOOR], {"PYTHONPATH": floor_dir}, ROOT),
        "ragunc interval": ([*ragunc, *interval], {}, ROOT),
        "ragunc simulate": ([*ragunc, *simulate], {}, ROOT),
    }
    if before:  # python -m ragunc finds the working directory's ragunc first
        found["interval (--before)"] = ([*ragunc, *interval], {}, Path(before))
        found["simulate (--before)"] = ([*ragunc, *simulate], {}, Path(before))
    return found


def timed(argv: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | env
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command (default %(default)s)")
    parser.add_argument("--file", default="sample_data/synthetic_population.csv.gz", help="relative to this checkout")
    parser.add_argument("--before", metavar="DIR", help="another checkout whose commands to time too")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-cli-") as floor_dir:
        (Path(floor_dir) / "floor_kernel.py").write_text(FLOOR_KERNEL)
        argvs = commands(args.file, floor_dir, args.before)
        for argv, env, cwd in argvs.values():
            timed(argv, env, cwd)  # warm-up, untimed
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in argvs}
        for _ in range(args.runs):
            for name, (argv, env, cwd) in argvs.items():
                times[name].append(timed(argv, env, cwd))
    median = {name: statistics.median(w for w, _ in t) for name, t in times.items()}
    cpu = {name: statistics.median(c for _, c in t) for name, t in times.items()}

    load = os.getloadavg()
    print(
        f"{args.runs} runs each, medians; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}"
    )
    reference = "import numpy, pandas"
    print(f"  {'':22s} {'wall':>8s} {'ratio':>6s}   {'CPU':>6s} {'ratio':>6s}")
    for name in times:
        print(
            f"  {name:22s} {median[name]:7.3f}s {median[name] / median[reference]:5.2f}x   "
            f"{cpu[name]:5.3f}s {cpu[name] / cpu[reference]:5.2f}x"
        )
    ratio = median["ragunc interval"] / median[reference]
    extra = median["ragunc simulate"] - median["ragunc interval"]
    print(
        f"ragunc interval / import numpy, pandas = {ratio:.2f}x  (target <= {INTERVAL_RATIO:g}x: "
        f"{'met' if ratio <= INTERVAL_RATIO else 'NOT met'})"
    )
    print(
        f"ragunc simulate - ragunc interval = {extra:+.3f} s  (target <= {SIMULATE_EXTRA:g} s: "
        f"{'met' if extra <= SIMULATE_EXTRA else 'NOT met'})"
    )
    print("ragunc interval, step by step (CPU, median of 3):")
    for name, seconds in phases(args.file).items():
        print(f"  {seconds:5.3f}s  {name}")


if __name__ == "__main__":
    main()
