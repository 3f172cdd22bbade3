"""Dashboard server time per rerun after a K slider move, at D = 1,300 and D = 100,000 documents.

Drives the real app (``app.py`` through Streamlit's AppTest) on a synthetic
population (``ragunc.synth.synthesize``), moves the K slider to a new value and
times ``AppTest.run()``: the whole server side of a rerun (script, widgets,
ragunc calls, figures, serialisation) plus AppTest's own harness; "script" is
the script run alone (Streamlit's ScriptRunner._run_script), what a browser
session costs the server.  Printed as p50/p95 in ms beside a reference measured
in the same run: the bare library call the rerun needs (draw K documents +
``interval_report`` with B = 1,000).

Three rows per D:
  analytic     coverage simulation off: what every slider move costs (target <= 100 ms at D = 1,300)
  sim cached   simulation on, K values already simulated: figures served from the cache
  sim new K    simulation on, a K never simulated: includes ``coverage_experiment`` (R = B = 1,000)

    python bench/bench_dashboard.py [--moves 40] [--docs 1300 100000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.testing.v1 import AppTest

from ragunc.data.results import results_from_frame
from ragunc.stats.intervals import interval_report
from ragunc.stats.synthetic import synthesize

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TARGET_MS = 100.0
NEW_K_TARGET_MS = 150.0  # a never-simulated K at the defaults (R = B = 1,000)
SCRIPT_MS: list[float] = []  # one entry per script run, filled by the wrapper below


def _timed(run_script):
    def wrapper(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return run_script(self, *args, **kwargs)
        finally:
            SCRIPT_MS.append(1000 * (time.perf_counter() - t0))

    return wrapper


ScriptRunner._run_script = _timed(ScriptRunner._run_script)


def _app(n_docs: int, simulate: bool) -> AppTest:
    # A wrapper script (no pages/ folder beside it) keeps AppTest's reruns on st.navigation.
    at = AppTest.from_string(f"import runpy; runpy.run_path({APP!r}, run_name='__main__')", default_timeout=900)
    for key, value in {"source": "synthetic", "syn_docs": str(n_docs), "sim": "1" if simulate else "0"}.items():
        at.query_params[key] = value
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return at


def _time_moves(at: AppTest, ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(AppTest.run ms, script-only ms) per move."""
    out = []
    SCRIPT_MS.clear()
    for k in ks:
        at.slider(key="k").set_value(int(k))
        t0 = time.perf_counter()
        at.run()
        out.append(time.perf_counter() - t0)
        if at.exception:
            raise RuntimeError(at.exception[0].message)
    return 1000 * np.array(out), np.array(SCRIPT_MS)


def _reference(n_docs: int, ks: list[int]) -> np.ndarray:
    """The library work of one rerun: draw K documents and interval_report (B = 1,000)."""
    population = results_from_frame(synthesize(n_docs=n_docs, rng=0)).population()
    out = []
    for k in ks:
        t0 = time.perf_counter()
        idx = np.sort(np.random.default_rng(0).permutation(population.n_docs)[:k])
        interval_report(population.subset(idx).with_population(population.n_docs), boot=1000, rng=0)
        out.append(time.perf_counter() - t0)
    return 1000 * np.array(out)


def _row(name: str, timings: tuple[np.ndarray, np.ndarray], ref_p50: float) -> str:
    (p50, p95), (s50, s95) = (np.percentile(ms, [50, 95]) for ms in timings)
    return (
        f"  {name:<11} run p50 {p50:7.1f} p95 {p95:7.1f} ms | script p50 {s50:7.1f} p95 {s95:7.1f} ms"
        f" | script p50 / reference {s50 / ref_p50:6.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40, help="slider moves timed per row")
    parser.add_argument("--docs", type=int, nargs="+", default=[1300, 100_000])
    parser.add_argument("--sim-moves", type=int, default=5, help="moves to never-simulated K values")
    parser.add_argument("--new-k", type=int, default=70, help="the first never-simulated K (then K + 1, ...)")
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    for n_docs in args.docs:
        ks = [int(k) for k in rng.integers(10, 60, args.moves)]
        t0 = time.perf_counter()
        analytic_app = _app(n_docs, simulate=False)
        load_s = time.perf_counter() - t0
        _time_moves(analytic_app, ks[:3])  # warm the interpreter and caches of this shape
        ref = _reference(n_docs, ks)
        analytic = _time_moves(analytic_app, ks)

        sim_app = _app(n_docs, simulate=True)
        seen = [k for k in sorted(set(ks)) if not args.new_k <= k < args.new_k + args.sim_moves][:4]
        _time_moves(sim_app, seen)  # simulate these K once
        cached = _time_moves(sim_app, [seen[i % len(seen)] for i in range(args.moves)])
        fresh = _time_moves(sim_app, [args.new_k + i for i in range(args.sim_moves)])

        ref_p50 = float(np.percentile(ref, 50))
        print(
            f"D = {n_docs:,} documents (first load with data generation {load_s:.1f} s); "
            f"reference p50 {ref_p50:.1f} ms (draw + interval_report, B = 1,000)"
        )
        print(_row("analytic", analytic, ref_p50))
        print(_row("sim cached", cached, ref_p50))
        print(_row("sim new K", fresh, ref_p50))
        p95 = float(np.percentile(analytic[1], 95))
        verdict = "meets" if p95 <= TARGET_MS else "misses"
        print(f"  analytic script p95 {p95:.1f} ms {verdict} the {TARGET_MS:.0f} ms target")
        fresh_p50 = float(np.percentile(fresh[1], 50))
        verdict = "meets" if fresh_p50 <= NEW_K_TARGET_MS else "misses"
        print(
            f"  sim new K script p50 {fresh_p50:.1f} ms {verdict} the {NEW_K_TARGET_MS:.0f} ms target "
            "(no progress bar at these R, B: dashboard.cache.coverage_progress)"
        )


if __name__ == "__main__":
    main()
