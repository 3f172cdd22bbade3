"""The recommended interval's weak corner (docs/weak_corner.md): what was tried there, and why none of it is enough.

The corner is the battery's ``sparse_pareto_*`` populations: most documents without a hit and Pareto
sizes of tail index 1.2, 1.0 and 0.8, so a few documents hold most chunks.  Micro estimator, nominal
95%, K = 10, 20, 50 as in bench/study_small_k.py; coverage % and mean width as a ratio to R survey's
Korn–Graubard (KG) on the same draws.

1. Variants of the recommended interval (KG with Bell–McCaffrey df) on every cell of the small-K
   study: the same df with the bias-reduced (CR2) variance; the Satterthwaite df of the CR2 variance
   under chunks correlated inside a document with the sample's ICC (:func:`icc_working_df`, after
   Imbens & Kolesár 2016) rather than independent, with either variance; and data-driven
   switches that keep the recommended interval except on the samples
   :func:`ragunc.stats.recommend.weak_corner` flags.  With it, how often the flag is raised and the
   recommended interval's coverage on the flagged and the other samples.
2. Realizations: each corner law with its rates drawn again (``battery_population(name, seed)``,
   the same sizes), to separate what belongs to the law from what belongs to the battery's draw.
3. Twins: each corner population beside its twin, whose longest document has hits on a third of its
   chunks.  The two give the same sample unless it holds that document (probability K/D).
4. Design: the K documents drawn with probability proportional to their chunks (with replacement);
   the mean of their rates estimates the chunk rate, and KG on those rates (ragunc's macro interval,
   no FPC) is its interval.

    python bench/study_weak_corner.py [--reps 10000] [--boot 1000] [--realizations 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from study_small_k import (
    KS,
    NOMINAL,
    cr2_variance,
    markdown_table,
    pct,
    populations,
    summarise,
)

from ragunc.stats.battery import SPARSE_PARETO_TAIL, battery_population
from ragunc.stats.coverage import interval_coverage, random_subsets
from ragunc.stats.intervals import interval_arrays
from ragunc.stats.linearization import bell_mccaffrey_df, linearize
from ragunc.stats.proportion import korn_graubard_interval
from ragunc.stats.recommend import SPAN_METHOD, recommended_methods, weak_corner
from ragunc.stats.wild import span
from ragunc.stats.sample import ClusterStats

BATCH = 2000  # repetitions per batch: the ICC df holds a K x K matrix per repetition
CORNER = tuple(SPARSE_PARETO_TAIL)
ANALYTIC = ("korn_graubard", "recommended", "bm_cr2", "icc_df", "icc_df_cr2", "jackknife", "wild_restricted")
VARIANTS = (*ANALYTIC, "switch_bm_cr2", "switch_icc_df_cr2", "switch_bootstrap_t_logit", "recommended_by_leverage")
LABELS = {
    "korn_graubard": "KG, df K − 1 (R survey)",
    "recommended": "KG, Bell–McCaffrey df (the default)",
    "jackknife": "jackknife (CV3), t(K − 1)",
    "wild_restricted": "wild cluster bootstrap (WCR)",
    "recommended_by_leverage": "recommended: span of the default and WCR where stats.recommend.wild_evidence",
    "bm_cr2": "KG, BM df, CR2 variance",
    "icc_df": "KG, ICC df",
    "icc_df_cr2": "KG, ICC df, CR2 variance",
    "switch_bm_cr2": "recommended; CR2 variance where flagged",
    "switch_icc_df_cr2": "recommended; ICC df + CR2 where flagged",
    "switch_bootstrap_t_logit": "recommended; bootstrap-t logit where flagged",
}


def icc_working_df(n, icc):
    """Satterthwaite df of the micro ratio's CR2 variance when chunks of a document correlate by ``icc``, batch-wise.

    The CR2 variance is ``y' G y`` with ``G = sum_d c_d g_d g_d' / N^2``, ``g_d`` the indicator of
    document d's chunks minus ``pi_d = m_d / N`` on every chunk, ``c_d = 1 / (1 - pi_d)``.  With
    chunk covariance ``Omega`` (variance 1, correlation ``icc`` within a document) its df is
    ``tr(G Omega)^2 / tr((G Omega)^2)``, where ``g_d' Omega g_e = w_d [d = e] - pi_e w_d - pi_d w_e
    + pi_d pi_e W``, ``w_d = m_d (1 + icc (m_d - 1))`` and ``W = sum w``.  At ``icc = 0`` this is
    :func:`~ragunc.stats.linearization.bell_mccaffrey_df`; as ``icc`` grows a long document weighs
    as m_d^2 rather than m_d and the df falls.
    """
    n = np.asarray(n, dtype=float)
    share = n / n.sum(-1, keepdims=True)
    w = n * (1 + np.asarray(icc, dtype=float)[..., None] * (n - 1))
    s = (
        share[..., :, None] * share[..., None, :] * w.sum(-1)[..., None, None]
        - share[..., None, :] * w[..., :, None]
        - share[..., :, None] * w[..., None, :]
    )
    s += np.eye(n.shape[-1]) * w[..., None, :]
    c = 1 / (1 - share)
    trace = (c * np.diagonal(s, axis1=-2, axis2=-1)).sum(-1)
    return trace**2 / (c[..., :, None] * c[..., None, :] * s**2).sum((-2, -1))


def binary_icc(sum_y, n):
    """ANOVA intraclass correlation of 0/1 chunks, batch-wise, clipped to [0, 1] (1 where it is undefined)."""
    k, n_chunks = sum_y.shape[-1], n.sum(-1)
    between = ((sum_y**2 / n).sum(-1) - sum_y.sum(-1) ** 2 / n_chunks) / (k - 1)
    within = (sum_y - sum_y**2 / n).sum(-1) / (n_chunks - k)
    m0 = (n_chunks - (n**2).sum(-1) / n_chunks) / (k - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        icc = (between - within) / (between + (m0 - 1) * within)
    return np.clip(np.nan_to_num(icc, nan=1.0), 0.0, 1.0)


def variant_bounds(y, m, fpc: float, boot: int, rng) -> tuple[dict[str, tuple], np.ndarray]:
    """Every variant's (lower, upper) on a batch of draws, and which draws ``weak_corner`` flags."""
    lin = linearize(y, m, fpc=fpc)
    p, k, n = lin.estimate, y.shape[-1], lin.n_chunks
    cr2 = cr2_variance(y, m, fpc)
    bm, icc_df = bell_mccaffrey_df(m), icc_working_df(m, binary_icc(y, m))
    out = {
        "korn_graubard": korn_graubard_interval(p, lin.cluster_variance, n, k, NOMINAL),
        "recommended": korn_graubard_interval(p, lin.cluster_variance, n, k, NOMINAL, bm),
        "bm_cr2": korn_graubard_interval(p, cr2, n, k, NOMINAL, bm),
        "icc_df": korn_graubard_interval(p, lin.cluster_variance, n, k, NOMINAL, icc_df),
        "icc_df_cr2": korn_graubard_interval(p, cr2, n, k, NOMINAL, icc_df),
    }
    arr = interval_arrays(y, m, methods=["jackknife", "wild_restricted"], fpc=fpc, rng=rng)
    for name in ("jackknife", "wild_restricted"):
        out[name] = (arr.lower[name], arr.upper[name])
    both = recommended_methods(y, m) == SPAN_METHOD
    spans = span(*out["recommended"], *out["wild_restricted"])
    out["recommended_by_leverage"] = tuple(np.where(both, w, r) for w, r in zip(spans, out["recommended"]))
    flagged = weak_corner(y, m)
    for wider in ("bm_cr2", "icc_df_cr2"):
        out[f"switch_{wider}"] = tuple(np.where(flagged, w, r) for w, r in zip(out[wider], out["recommended"]))
    if boot:
        lower, upper = (b.copy() for b in out["recommended"])
        if flagged.any():
            arr = interval_arrays(y[flagged], m[flagged], methods=["bootstrap_t_logit"], reps=boot, rng=rng)
            lower[flagged], upper[flagged] = arr.lower["bootstrap_t_logit"], arr.upper["bootstrap_t_logit"]
        out["switch_bootstrap_t_logit"] = (lower, upper)
    return out, flagged


def run_cell(pop: ClusterStats, k: int, reps: int, boot: int, rng) -> dict:
    """Coverage, mean width and undefined count of every variant over ``reps`` draws of K of the D documents.

    Also the share of draws ``weak_corner`` flags and the recommended interval's coverage on those and the others.
    """
    value = pop.sum_y.sum() / pop.n.sum()
    parts, flags = [], []
    for start in range(0, reps, BATCH):
        idx = random_subsets(rng, pop.n_docs, k, min(BATCH, reps - start))
        bounds, flagged = variant_bounds(pop.sum_y[idx], pop.n[idx], 1 - k / pop.n_docs, boot, rng)
        parts.append(bounds)
        flags.append(flagged)
    flagged = np.concatenate(flags)
    out = {"coverage": {}, "width": {}, "undefined": {}}
    for name in parts[0]:
        lower, upper = (np.concatenate([b[name][i] for b in parts]) for i in (0, 1))
        out["coverage"][name], _, out["undefined"][name], out["width"][name] = interval_coverage(lower, upper, value)
        if name == "recommended":
            held = (lower <= value) & (value <= upper)
            out["flagged"] = (
                float(flagged.mean()),
                float(held[flagged].mean()) if flagged.any() else np.nan,
                float(held[~flagged].mean()) if not flagged.all() else np.nan,
            )
    return out


def twin(pop: ClusterStats) -> ClusterStats:
    """``pop`` with its longest document's hits set to a third of its chunks."""
    sum_y = pop.sum_y.copy()
    longest = int(np.argmax(pop.n))
    sum_y[longest] = np.round(pop.n[longest] / 3)
    return ClusterStats(pop.cluster_id, sum_y, pop.n, sum_y, config=f"{pop.config} twin")


def proportional_cell(pop: ClusterStats, k: int, reps: int, rng) -> tuple[float, float]:
    """Coverage and mean width of KG on the rates of K documents drawn with probability ∝ chunks (with replacement)."""
    value = pop.sum_y.sum() / pop.n.sum()
    idx = rng.choice(pop.n_docs, size=(reps, k), p=pop.n / pop.n.sum())
    arr = interval_arrays(pop.sum_y[idx], pop.n[idx], estimator="macro", methods=["korn_graubard"])
    coverage, _, _, width = interval_coverage(arr.lower["korn_graubard"], arr.upper["korn_graubard"], value)
    return coverage, width


def _ratio(c: dict, name: str) -> str:
    return f"{pct(c['coverage'][name])} / {c['width'][name] / c['width']['korn_graubard']:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10000, help="repetitions per cell (default %(default)s)")
    parser.add_argument(
        "--boot",
        type=int,
        default=1000,
        help="bootstrap replicates for the bootstrap switch; 0 skips it (default %(default)s)",
    )
    parser.add_argument("--realizations", type=int, default=20, help="rate draws per corner law (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    t0 = time.perf_counter()

    def progress(what: str) -> None:
        print(f"\r{what} ({time.perf_counter() - t0:.0f} s)" + " " * 20, end="", file=sys.stderr)

    pops = populations()
    print(
        f"# The weak corner: micro estimator, nominal 95%, R = {args.reps} repetitions per cell (MC SE about "
        f"{100 * np.sqrt(0.9 * 0.1 / args.reps):.1f} points at 90%), B = {args.boot}\n"
    )
    cells = []
    for cell, (name, k) in enumerate((n, k) for n in pops for k in KS):
        progress(f"1. {name} K={k}")
        cells.append(
            (name, k, run_cell(pops[name], k, args.reps, args.boot, np.random.default_rng([args.seed, 2000 + cell])))
        )
    variants = [v for v in VARIANTS if v in cells[0][2]["coverage"]]
    print("## 1. Variants on every cell: coverage % / mean width ÷ KG's\n")
    print(
        markdown_table(
            ["population", "K", *variants], [[name, str(k), *(_ratio(c, v) for v in variants)] for name, k, c in cells]
        )
    )
    rows = []
    for label, subset in (
        ("all", cells),
        ("corner", [c for c in cells if c[0] in CORNER]),
        ("outside the corner", [c for c in cells if c[0] not in CORNER]),
    ):
        summary = summarise(subset, variants)
        keys = list(summary[variants[0]])
        rows += [[LABELS[v], f"{label} ({len(subset)})", *(f"{summary[v][key]:.2f}" for key in keys)] for v in variants]
    print("\n" + markdown_table(["variant", "cells", *keys], rows))
    print(
        "\nThe warning (`weak_corner`): share of samples flagged (the recommended interval's coverage % on "
        "the flagged / the other samples)\n"
    )
    print(
        markdown_table(
            ["population", *(f"K = {k}" for k in KS)],
            [
                [
                    name,
                    *(
                        f"{100 * c['flagged'][0]:.0f}% ({pct(c['flagged'][1])} / {pct(c['flagged'][2])})"
                        for n, _, c in cells
                        if n == name
                    ),
                ]
                for name in pops
            ],
            left=1,
        )
    )

    print(
        f"\n## 2. Realizations: {args.realizations} draws of each corner law's rates, the same sizes, "
        f"R = {args.reps // 4} per cell: coverage % lowest / median, median width ÷ KG's\n"
    )
    rows = []
    for name in CORNER:
        for k in KS:
            progress(f"2. {name} K={k}")
            drawn = [battery_population(name, seed) for seed in range(args.realizations)]
            runs = [
                run_cell(pop, k, args.reps // 4, 0, np.random.default_rng([args.seed, 3000 + seed, k]))
                for seed, pop in enumerate(drawn)
            ]
            row = [name, str(k)]
            for v in ANALYTIC:
                cov = np.array([100 * r["coverage"][v] for r in runs])
                ratio = np.median([r["width"][v] / r["width"]["korn_graubard"] for r in runs])
                row.append(f"{cov.min():.1f} / {np.median(cov):.1f} / {ratio:.2f}")
            longest_hit = [pop.sum_y[np.argmax(pop.n)] > 0 for pop in drawn]
            row.append(
                ", ".join(
                    f"{100 * r['coverage']['recommended']:.0f}" if hit else "·"
                    for r, hit in sorted(zip(runs, longest_hit), key=lambda x: x[0]["coverage"]["recommended"])
                )
            )
            rows.append(row)
    print(
        markdown_table(
            ["population", "K", *ANALYTIC, "recommended, lowest first (·: longest document without hits)"], rows
        )
    )

    print(
        "\n## 3. Twins: the battery's population (A) and its twin (B), whose longest document has hits on a "
        "third of its chunks; the same draws for both. Coverage % on A / B\n"
    )
    rows = []
    recommended_width = {(name, k): c["width"]["recommended"] for name, k, c in cells}
    for name in CORNER:
        a, b = pops[name], twin(pops[name])
        values = " / ".join(f"{t.sum_y.sum() / t.n.sum():.4f}" for t in (a, b))
        for k in KS:
            progress(f"3. {name} K={k}")
            ca, cb = (run_cell(t, k, args.reps, 0, np.random.default_rng([args.seed, 4000, k])) for t in (a, b))
            recommended_width[f"{name} twin", k] = cb["width"]["recommended"]
            rows.append(
                [
                    name,
                    str(k),
                    f"{100 * a.n.max() / a.n.sum():.0f}%",
                    f"{100 * k / a.n_docs:.1f}%",
                    values,
                    *(f"{pct(ca['coverage'][v])} / {pct(cb['coverage'][v])}" for v in ANALYTIC),
                ]
            )
    print(markdown_table(["population", "K", "longest doc's chunks", "P(in sample)", "value A / B", *ANALYTIC], rows))

    print(
        "\n## 4. Design: K documents drawn with probability ∝ chunks, KG on their rates: coverage % / mean "
        "width ÷ the recommended interval's on equal-probability draws (sections 1 and 3)\n"
    )
    rows = []
    designs = pops | {f"{name} twin": twin(pops[name]) for name in CORNER}
    for cell, (name, pop) in enumerate(designs.items()):
        row = [name]
        for k in KS:
            progress(f"4. {name} K={k}")
            coverage, width = proportional_cell(pop, k, args.reps, np.random.default_rng([args.seed, 5000 + cell, k]))
            row.append(f"{pct(coverage)} / {width / recommended_width[name, k]:.2f}")
        rows.append(row)
    print(markdown_table(["population", *(f"K = {k}" for k in KS)], rows, left=1))
    print(f"\r{time.perf_counter() - t0:.0f} s" + " " * 40, file=sys.stderr)


if __name__ == "__main__":
    main()
