"""Which interval to report at small K: coverage and width of every method on ragunc's battery, K = 5, 10, 20, 50.

The battery is :mod:`ragunc.stats.battery` (nine synthetic populations of 1,200 documents) plus the
real stdlib sample (``sample_data/stdlib_100w.csv.gz``, 507 documents).  Each cell draws K of the D
documents without replacement R times (``coverage_experiment``, FPC 1 - K/D for the analytic
intervals) and prints, for every method, the coverage with its Monte Carlo SE and the mean width as
a ratio to R survey's Korn–Graubard (``korn_graubard``), then the recorded R survey references
(``svyciprop`` "beta" and "logit" on 1,000 draws per cell, bench/study_small_k_r.json) beside
ragunc's kernels on the same draws, and the targets for the recommended interval.

The "recommended" column is the interval ``stats.recommend`` picks for each drawn sample (the default,
Korn–Graubard with Bell–McCaffrey df, or its span with the wild cluster bootstrap where the sample's G* says so).

    python bench/study_small_k.py [--reps 4000] [--boot 1000] [--estimator micro|macro]
    python bench/study_small_k.py --export-draws DIR   # then: Rscript bench/study_small_k_r.R DIR > bench/study_small_k_r.json
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

from ragunc.data.results import load_results
from ragunc.stats.battery import POPULATIONS, SPARSE_PARETO_TAIL, battery_population
from ragunc.stats.coverage import coverage_experiment, random_subsets
from ragunc.stats.intervals import interval_arrays
from ragunc.stats.linearization import bell_mccaffrey_df
from ragunc.stats.methods import METHOD_NAMES
from ragunc.stats.proportion import korn_graubard_interval
from ragunc.stats.recommend import RECOMMENDED_METHOD

ROOT = pathlib.Path(__file__).resolve().parents[1]
R_REFERENCES = ROOT / "bench" / "study_small_k_r.json"
KS = (5, 10, 20, 50)
R_KS = (10, 20, 50)  # the K of R's recorded references
R_DRAWS = 1000
NOMINAL = 0.95
# Columns of the condensed table (the one bench/RESULTS.md keeps per run), in order.
HEADLINE = (
    "recommended",
    RECOMMENDED_METHOD,
    "jackknife",
    "wild_restricted",
    "korn_graubard",
    "logit",
    "bootstrap_t",
    "bootstrap_t_logit",
)
TARGETS = {"mean distance from 95": 1.5, "lowest cell": 90.0}
# Populations whose rate hangs on one document a sample of K holds with probability K/D (docs/weak_corner.md).
UNSEEN = ("half_in_one",)
# Where the default already covers this much, the recommended interval's median width stays within WIDTH_TARGET of its.
WIDTH_COVERED, WIDTH_TARGET = 0.93, 1.3


def populations() -> dict:
    """The battery and the stdlib sample in the order they joined the study.

    Each cell's random streams are keyed by its number (populations in this order, then K), so a
    population added at the end leaves every earlier cell's draws, and R's recorded references, as they were.
    """
    stdlib = load_results(ROOT / "sample_data" / "stdlib_100w.csv.gz").population()
    first = POPULATIONS[: POPULATIONS.index("zero_inflated_pareto") + 1]
    pops = {name: battery_population(name) for name in first} | {"stdlib_100w": stdlib}
    return pops | {name: battery_population(name) for name in POPULATIONS if name not in first}


def populations_order() -> tuple[str, ...]:
    """The populations in the order they joined the study (:func:`populations`)."""
    first = POPULATIONS[: POPULATIONS.index("zero_inflated_pareto") + 1]
    return (*first, "stdlib_100w", *(n for n in POPULATIONS if n not in first))


# The cells of R's recorded references, in their order: their numbers key their random streams; a cell
# added later (K = 5, a new population) gets a number after them, so the earlier cells keep their draws.
R_CELLS = [(n, k) for n in populations_order()[: populations_order().index("sparse_pareto_0.8") + 1] for k in R_KS]


def cell_number(name: str, k: int) -> int:
    if (name, k) in R_CELLS:
        return R_CELLS.index((name, k))
    return 1000 + populations_order().index(name) * len(KS) + KS.index(k)


def r_draws(pop, k: int, cell: int, seed: int) -> np.ndarray:
    """The draws R's svyciprop was run on: their own stream, so they do not depend on R or B."""
    return random_subsets(np.random.default_rng([seed, 1000 + cell]), pop.n_docs, k, R_DRAWS)


def run_cell(pop, k: int, args, cell: int) -> dict:
    result = coverage_experiment(
        pop, k=k, reps=args.reps, boot=args.boot, estimator=args.estimator, rng=[args.seed, cell], methods=METHOD_NAMES
    )
    d = result.to_dict()  # the recommended interval's figures repeated under "recommended"
    bounds = {name: (m.lower, m.upper) for name, m in result.methods.items()}
    if result.recommended_choice is not None:
        bounds["recommended"] = (result.recommended_choice.lower, result.recommended_choice.upper)
    median = {name: float(np.nanmedian(hi - lo)) for name, (lo, hi) in bounds.items()}
    return {
        "coverage": d["coverage"],
        "mcse": d["coverage_mcse"],
        "width": d["width"],
        "median_width": median,
        "undefined": d["undefined"],
    }


def cr2_variance(sum_y, n, fpc):
    """The micro ratio's bias-reduced (CR2) cluster variance ``fpc sum_d (Y_d - p m_d)^2 / (1 - m_d/N) / N^2``, batch-wise."""
    n_chunks = np.sum(n, axis=-1, keepdims=True)
    resid = sum_y - sum_y.sum(-1, keepdims=True) / n_chunks * n
    return fpc * (resid**2 / (1 - n / n_chunks)).sum(-1) / n_chunks[..., 0] ** 2


def same_draws(pop, k: int, idx: np.ndarray, estimator: str) -> dict:
    """ragunc's kernels on R's draws: held / defined / mean width per method (as the R script records them).

    ``korn_graubard`` keeps to the draws R defines (an estimate strictly inside (0, 1): R's n_eff is
    0/0 at 0 or 1), so that it is R's figure exactly; ``korn_graubard_all`` adds the draws where
    ragunc falls back to one trial per document.
    """
    y, m = pop.sum_y[idx], pop.n[idx]
    arr = interval_arrays(y, m, estimator=estimator, fpc=1 - k / pop.n_docs)
    value = pop.sum_y.sum() / pop.n.sum() if estimator == "micro" else np.mean(pop.sum_y / pop.n)
    interior = (arr.estimate > 0) & (arr.estimate < 1)
    kg = (arr.lower["korn_graubard"], arr.upper["korn_graubard"])
    bounds = {"korn_graubard": tuple(np.where(interior, b, np.nan) for b in kg), "korn_graubard_all": kg}
    bounds |= {name: (arr.lower[name], arr.upper[name]) for name in ("logit", RECOMMENDED_METHOD)}
    if estimator == "micro":  # the fully bias-reduced alternative (not adopted): CR2 variance, the same df
        bounds["korn_graubard_brl"] = korn_graubard_interval(
            arr.estimate, cr2_variance(y, m, 1 - k / pop.n_docs), arr.n_chunks, k, NOMINAL, bell_mccaffrey_df(m)
        )
    out = {}
    for name, (lo, hi) in bounds.items():
        defined = np.isfinite(lo) & np.isfinite(hi)
        out[name] = {
            "defined": int(defined.sum()),
            "held": int((defined & (lo <= value) & (value <= hi)).sum()),
            "mean_width": float(np.mean((hi - lo)[defined])),
        }
    return out


def export_draws(pops: dict, directory: pathlib.Path, seed: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    rows = ["population,k,draws"]
    for name, pop in pops.items():
        np.savetxt(
            directory / f"{name}.csv",
            np.column_stack([pop.sum_y, pop.n]),
            fmt="%d",
            delimiter=",",
            header="sum_y,n",
            comments="",
        )
    for cell, (name, k) in enumerate(R_CELLS):
        np.savetxt(directory / f"{name}_k{k}.csv", r_draws(pops[name], k, cell, seed) + 1, fmt="%d", delimiter=",")
        rows.append(f"{name},{k},{name}_k{k}.csv")
    (directory / "cells.csv").write_text("\n".join(rows) + "\n")
    print(
        f"wrote {len(rows) - 1} cells of {R_DRAWS} draws to {directory}; now run\n"
        f"  Rscript bench/study_small_k_r.R {directory} > {R_REFERENCES.relative_to(ROOT)}"
    )


def pct(x: float) -> str:
    return "—" if np.isnan(x) else f"{100 * x:.1f}"


def markdown_table(header: list[str], rows: list[list[str]], left: int = 2) -> str:
    """A markdown table, the first ``left`` columns left-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return (
            "| "
            + " | ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
            + " |"
        )

    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def summarise(cells: list[tuple[str, int, dict]], methods: list[str]) -> dict:
    out = {}
    for method in methods:
        cov = np.array([100 * c["coverage"][method] for *_, c in cells])
        ratio = np.array([c["width"][method] / c["width"]["korn_graubard"] for *_, c in cells])
        out[method] = {
            "mean distance from 95": float(np.mean(np.abs(cov - 95))),
            "lowest cell": float(cov.min()),
            "cells below 90": int((cov < 90).sum()),
            "mean width / KG": float(ratio.mean()),
            "widest cell / KG": float(ratio.max()),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000, help="repetitions per cell (default %(default)s)")
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default %(default)s)")
    parser.add_argument("--estimator", choices=("micro", "macro"), default="micro")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--export-draws", type=pathlib.Path, metavar="DIR", help="write the draws R's svyciprop is run on, and stop"
    )
    args = parser.parse_args()
    pops = populations()
    if args.export_draws:
        export_draws(pops, args.export_draws, args.seed)
        return

    reference = json.loads(R_REFERENCES.read_text()) if R_REFERENCES.exists() else None
    cells, r_rows = [], []
    t0 = time.perf_counter()
    grid = [(n, k) for n in pops for k in KS]
    for i, (name, k) in enumerate(grid):
        print(f"\r[{i + 1}/{len(grid)}] {name} K={k} ({time.perf_counter() - t0:.0f} s)", end="", file=sys.stderr)
        cell = cell_number(name, k)
        cells.append((name, k, run_cell(pops[name], k, args, cell)))
        if reference is not None and cell < len(reference["cells"]):
            recorded = reference["cells"][cell]
            idx = r_draws(pops[name], k, cell, args.seed)
            if (recorded["population"], recorded["k"], recorded["index_sum"]) != (name, k, int((idx + 1).sum())):
                raise SystemExit(
                    f"{R_REFERENCES.name} was made on other draws (cell {name} K={k}); re-run the R script"
                )
            r_rows.append((name, k, recorded[args.estimator], same_draws(pops[name], k, idx, args.estimator)))
    print(f"\r{len(grid)} cells in {time.perf_counter() - t0:.0f} s" + " " * 30, file=sys.stderr)

    methods = list(cells[0][2]["coverage"])
    print(
        f"# {args.estimator} estimator, nominal 95%: R = {args.reps} repetitions per cell (MC SE about "
        f"{100 * np.sqrt(0.95 * 0.05 / args.reps):.1f} points at 95%), B = {args.boot}; "
        f"recommended = {RECOMMENDED_METHOD}\n"
    )
    print("## Coverage % ± Monte Carlo SE\n")
    print(
        markdown_table(
            ["population", "K", *methods],
            [
                [name, str(k), *(f"{pct(c['coverage'][m])}±{pct(c['mcse'][m])}" for m in methods)]
                for name, k, c in cells
            ],
        )
    )
    print("\n## Mean width: Korn–Graubard's, and every method's as a ratio to it (undefined intervals left out)\n")
    print(
        markdown_table(
            ["population", "K", "KG width", *methods],
            [
                [
                    name,
                    str(k),
                    f"{c['width']['korn_graubard']:.4f}",
                    *(
                        f"{c['width'][m] / c['width']['korn_graubard']:.2f}"
                        + (f" ({c['undefined'][m]} u)" if c["undefined"][m] else "")
                        for m in methods
                    ),
                ]
                for name, k, c in cells
            ],
        )
    )

    summary = summarise(cells, methods)
    print("\n## Over the cells\n")
    keys = list(next(iter(summary.values())))
    print(
        markdown_table(["method", *keys], [[m, *(f"{summary[m][key]:.2f}" for key in keys)] for m in methods], left=1)
    )

    print("\n## Headline: coverage % / width ÷ KG's\n")
    head = [f"{m}" for m in HEADLINE]
    rows = []
    recorded = {(name, k): ref for name, k, ref, _ in r_rows}
    for name, k, c in cells:
        row = [
            name,
            str(k),
            *(f"{pct(c['coverage'][m])} / {c['width'][m] / c['width']['korn_graubard']:.2f}" for m in HEADLINE),
        ]
        if r_rows:
            ref = recorded.get((name, k))
            row += [pct(ref[m]["held"] / ref[m]["defined"]) if ref else "" for m in ("korn_graubard", "logit")]
        rows.append(row)
    print(markdown_table(["population", "K", *head, *(["R KG", "R logit"] if r_rows else [])], rows))

    if r_rows:
        print(
            f"\n## R survey {reference['survey_version']} on {R_DRAWS} draws per cell "
            "(recorded), and ragunc's kernels on the same draws\n"
        )
        print(
            "Coverage over the draws each method defines (u: undefined draws) and mean width (w). R's KG is "
            "undefined without hits (or misses); its logit is a sliver of width ~1e-11 there (a miss). The last "
            "columns: coverage / mean width ÷ ragunc's KG on all draws.\n"
        )
        rows = []
        for name, k, ref, ours in r_rows:
            row = [name, str(k)]
            for r, o in ((ref["korn_graubard"], ours["korn_graubard"]), (ref["logit"], ours["logit"])):
                row += [
                    f"{pct(r['held'] / r['defined'])} ({R_DRAWS - r['defined']} u) w {r['mean_width']:.4f}",
                    f"{pct(o['held'] / o['defined'])} ({R_DRAWS - o['defined']} u) w {o['mean_width']:.4f}",
                ]
            kg_width = ours["korn_graubard_all"]["mean_width"]
            for method in ("korn_graubard_all", RECOMMENDED_METHOD, "korn_graubard_brl"):
                if method in ours:
                    o = ours[method]
                    row.append(f"{pct(o['held'] / o['defined'])} / {o['mean_width'] / kg_width:.2f}")
            rows.append(row)
        extra = ["ragunc KG, all draws", "KG-BM (recommended) ÷ KG"]
        extra += ["KG-BRL (CR2, not adopted) ÷ KG"] if args.estimator == "micro" else []
        print(markdown_table(["population", "K", "R KG", "ragunc KG", "R logit", "ragunc logit", *extra], rows))

    print("\n## Targets for the recommended interval\n")
    outside = [c for c in cells if c[0] not in SPARSE_PARETO_TAIL]
    possible = [c for c in cells if c[0] not in UNSEEN]
    for label, subset in (
        (f"all {len(cells)} cells", cells),
        (f"the {len(outside)} cells outside the weak corner (docs/weak_corner.md)", outside),
        (f"the {len(possible)} cells without {' and '.join(UNSEEN)}", possible),
    ):
        rec = summarise(subset, ["recommended"])["recommended"]
        print(f"{label}:")
        for key, target in TARGETS.items():
            ok = rec[key] >= target if key == "lowest cell" else rec[key] <= target
            print(
                f"  {key}: {rec[key]:.2f} (target {'≥' if key == 'lowest cell' else '≤'} {target}) "
                f"{'met' if ok else 'MISSED'}"
            )
        covered = [c for *_, c in subset if c["coverage"][RECOMMENDED_METHOD] >= WIDTH_COVERED]
        ratios = [c["median_width"]["recommended"] / c["median_width"][RECOMMENDED_METHOD] for c in covered]
        if ratios:
            print(
                f"  median width / {RECOMMENDED_METHOD}'s where it covers >= {WIDTH_COVERED:.0%} ({len(ratios)} cells): "
                f"largest {max(ratios):.2f} (target ≤ {WIDTH_TARGET}) {'met' if max(ratios) <= WIDTH_TARGET else 'MISSED'}"
            )
    below = [(n, k, 100 * c["coverage"]["recommended"]) for n, k, c in cells if c["coverage"]["recommended"] < 0.9]
    print(
        "\ncells where the recommended interval covers below 90%: "
        + (", ".join(f"{n} K={k} ({v:.1f})" for n, k, v in below) or "none")
    )


if __name__ == "__main__":
    main()
