"""Options several commands share, spelled and explained once: the results file, the bootstrap, comparisons;
and the texts their tables share.

``interval``, ``simulate``, ``plan`` and ``compare`` read per-chunk results (:func:`results_options`,
:func:`load_results_of`); ``compare`` and ``recall`` compare several configs or runs with one baseline
(:func:`comparison_options`, :func:`comparison_flags_need_baseline`).
"""

from __future__ import annotations

import argparse
import dataclasses

from ..data.contract import JUDGE
from ..data.reader import DataError
from ..data.results import Results, load_results, merge_results
from ..stats.judged.sample import JudgedSample
from ..stats.linearization import ESTIMATORS
from ..stats.methods import interval_method
from ..stats.multiple import ADJUSTMENTS, adjustment
from ..stats.sample import ClusterStats
from .output import seed_arg

DEFAULT_ADJUSTMENT = "maxt"
# Flags of a comparison with a baseline (dest -> flag): without --baseline they are an error, not ignored.
COMPARISON_FLAGS = {"only": "--only", "all_pairs": "--all-pairs", "adjust": "--adjust"}


def results_options(p: argparse.ArgumentParser, *, config: bool = True, several: bool = False) -> None:
    """FILE (or several), ``--estimator``, ``--level``, ``--config``, ``--column`` and ``--json``."""
    if several:  # configs split over files (one per chunk size) are read as one
        p.add_argument(
            "file",
            metavar="FILE",
            nargs="+",
            help="per-chunk results or per-document statistics (ragunc aggregate): CSV, Parquet or "
            "JSONL (optionally .gz), or Inspect AI logs (.eval, .json); several files are merged",
        )
    else:
        p.add_argument(
            "file",
            metavar="FILE",
            help="per-chunk results or per-document statistics "
            "(ragunc aggregate): CSV, Parquet or JSONL (optionally .gz), or an Inspect AI log (.eval, .json)",
        )
    p.add_argument("--estimator", choices=ESTIMATORS, default="micro", help="default: %(default)s")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default %(default)s)")
    if config:
        p.add_argument("--config", help="config to use when the file holds several")
    p.add_argument(
        "--column",
        action="append",
        type=column_mapping,
        default=[],
        metavar="NAME=COLUMN",
        help="read contract column NAME from the file's COLUMN, e.g. --column y=hit1 (repeatable); "
        "an Inspect log's metadata fields are columns metadata.KEY, e.g. --column doc_id=metadata.doc_id",
    )
    p.add_argument(
        "--scorer", metavar="NAME", help="an Inspect log's scorer whose values are y (default: the log's first)"
    )
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of a table")


def column_mapping(text: str) -> tuple[str, str]:
    """argparse type of ``--column NAME=COLUMN`` (``ragunc aggregate`` takes it too)."""
    name, sep, column = text.partition("=")
    if not sep or not name or not column:
        raise argparse.ArgumentTypeError(f"expected NAME=COLUMN (e.g. y=hit1), got {text!r}")
    return name, column


def judge_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--judge-col",
        metavar="COLUMN",
        help="the judge's label or score (in [0, 1]) on every row; y then holds a person's gold "
        "labels on the audited rows and is empty elsewhere (same as --column y_judge=COLUMN)",
    )


def population_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--population-docs",
        type=int,
        metavar="D",
        help="documents in the population (enables the FPC; none without it)",
    )


def boot_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default %(default)s)")
    p.add_argument("--seed", type=seed_arg, default=0, help="random seed (default %(default)s)")


def load_results_of(args: argparse.Namespace) -> Results:
    """The FILE (or files, merged) of :func:`results_options`, read with its ``--column`` (and ``--judge-col``)."""
    files = args.file if isinstance(args.file, list) else [args.file]
    columns = dict(args.column)
    if getattr(args, "judge_col", None):
        columns[JUDGE] = args.judge_col
    return merge_results([load_results(f, columns=columns or None, scorer=args.scorer) for f in files])


def with_population(args: argparse.Namespace, sample: ClusterStats) -> ClusterStats:
    """``sample`` with ``--population-docs`` when the command has it and it is given."""
    population = getattr(args, "population_docs", None)
    return sample.with_population(population) if population is not None else sample


def judged_sample(args: argparse.Namespace, results: Results, sample: ClusterStats) -> JudgedSample:
    """The config's judged sample, the judge's labels being ``sample`` (with the FPC asked for)."""
    return dataclasses.replace(results.judged_sample(args.config), judge=sample)


def comparison_options(p: argparse.ArgumentParser, noun: str, units: str):
    """``--baseline``, ``--only``, ``--all-pairs`` and ``--adjust``: several ``noun``s compared on shared ``units``.

    ``compare`` (configs on documents) and ``recall`` (runs on queries) spell and explain them
    alike.  Returns the argument group, for the command's own comparison options.
    """
    group = p.add_argument_group(f"several {noun}s", f"{noun}s compared with a baseline on the {units} they share")
    name = noun.upper()
    group.add_argument("--baseline", metavar=name, help=f"the {noun} every other {noun} is compared with")
    group.add_argument("--only", nargs="+", metavar=name, help=f"these {noun}s only (default: every {noun})")
    group.add_argument(
        "--all-pairs", action="store_true", default=None, help="every pair, not only against the baseline"
    )
    group.add_argument(
        "--adjust",
        choices=ADJUSTMENTS,
        help=f"simultaneous intervals and adjusted p-values (default {DEFAULT_ADJUSTMENT})",
    )
    return group


def adjustment_text(d: dict) -> str:
    """The adjustment of a comparison's JSON ``d`` as the tables say it: its label, and B when it resamples."""
    a = adjustment(d["adjust"])
    return f"{a.label}, B={d['boot']}" if a.resamples else a.label


def recommended_text(rec: dict | None, *, label: bool = True) -> str:
    """A report's ``recommended`` JSON as the tables say it: its bounds and (``label``) the method's label."""
    if rec is None or rec["ci"][0] is None:
        return "undefined (fewer than 2 groups)"
    low, high = rec["ci"]
    return f"[{low:.3f}, {high:.3f}]" + (f"  {interval_method(rec['method']).label}" if label else "")


def comparison_flags_need_baseline(args: argparse.Namespace, flags: dict[str, str], noun: str) -> None:
    """A DataError naming the comparison ``flags`` (dest -> flag) given without ``--baseline``."""
    given = [flag for dest, flag in flags.items() if getattr(args, dest) is not None]
    if given:
        raise DataError(
            f"{', '.join(given)}: only for comparing several {noun}s; "
            f"name the baseline {noun} with --baseline {noun.upper()}"
        )
