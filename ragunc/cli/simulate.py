"""CLI command ``ragunc simulate``: the coverage of every interval, drawing K documents of a population R times."""

from __future__ import annotations

import argparse

from ..stats.coverage import coverage_experiment
from .options import boot_options, load_results_of, results_options
from .output import emit, number_text, rows_text
from .progress import progress_bar


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc simulate``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = "The file is the population of D documents; draw K without replacement R times."
    results_options(parser)
    parser.add_argument("--k", type=int, required=True, help="documents per simulated sample (2 <= K < D)")
    parser.add_argument("--reps", type=int, required=True, help="repetitions R")
    parser.add_argument("--control", choices=("iid",), help="permute y across all chunks first (binomial control)")
    parser.add_argument("--two-stage-fraction", type=float, help="keep this fraction of each drawn document's chunks")
    boot_options(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    population = load_results_of(args).population(args.config)
    with progress_bar("simulate") as progress:
        result = coverage_experiment(
            population,
            k=args.k,
            reps=args.reps,
            boot=args.boot,
            estimator=args.estimator,
            level=args.level,
            control=args.control,
            two_stage_fraction=args.two_stage_fraction,
            rng=args.seed,
            progress=progress,
        )
    emit(result.to_dict(), as_json=args.json, table=_table)
    return 0


def _table(d: dict) -> str:
    pop = d["population"]
    extra = []
    if d["control"]:
        extra.append(f"control {d['control']}")
    if d["two_stage_fraction"]:
        extra.append(f"two-stage fraction {d['two_stage_fraction']}")
    head = (
        f"population {pop['n_docs']} documents, {pop['n_chunks']} chunks, {d['estimator']} value "
        f"{pop['value']:.4f}; K={d['k']}, R={d['reps']}, B={d['boot']}" + ("; " + ", ".join(extra) if extra else "")
    )
    rows = [("method", f"coverage (nominal {d['level']:.0%})", "MC se", "mean se", "mean width", "undefined")]
    for method, c in d["coverage"].items():
        # NaN: undefined in every repetition
        coverage = "undefined" if c is None or c != c else number_text(c, ".3f")
        rows.append(
            (
                method,
                coverage,
                number_text(d["coverage_mcse"][method], ".3f"),
                number_text(d["se_mean"].get(method)),
                number_text(d["width"][method]),
                f"{d['undefined'][method]} of {d['reps']}",
            )
        )
    figures = [
        ("SD of the estimator (empirical)", number_text(d["sd_empirical"])),
        ("SD predicted by linearization", number_text(d["linearization_sd"])),
        ("binomial reference SD", number_text(d["binomial_sd"])),
        (
            "variance ratio (empirical / linearization)",
            f"{number_text(d['variance_ratio'], '.1f')} / {number_text(d['variance_ratio_linearization'], '.1f')}",
        ),
        (
            "Bernoulli-equivalent n (empirical / linearization)",
            f"{number_text(d['bernoulli_n_empirical'], '.1f')} / {number_text(d['bernoulli_n_linearization'], '.1f')}",
        ),
        ("mean chunks per sample", number_text(d["mean_chunks"], ".1f")),
    ]
    return "\n".join([head, "", rows_text(rows), "", rows_text(figures)])
