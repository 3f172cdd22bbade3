"""Options several commands share, spelled and explained once: the results file, the bootstrap, comparisons.

``interval``, ``simulate``, ``plan`` and ``compare`` read per-chunk results (:func:`results_options`,
:func:`load_results_of`); ``compare`` and ``recall`` compare several configs or runs with one baseline
(:func:`comparison_options`, :func:`comparison_flags_need_baseline`).
"""
from __future__ import annotations

import argparse
import sys

from ..data.reader import DataError
from ..data.results import Results, load_results, merge_results
from ..stats.linearization import ESTIMATORS
from ..stats.multiple import ADJUSTMENTS
from ..stats.sample import ClusterSample
from .output import seed_arg

DEFAULT_ADJUSTMENT = "maxt"
# Flags of a comparison with a baseline (dest -> flag): without --baseline they are an error, not ignored.
COMPARISON_FLAGS = {"versus": "--versus", "all_pairs": "--all-pairs", "adjust": "--adjust"}


def results_options(p: argparse.ArgumentParser, *, config: bool = True, several: bool = False) -> None:
    """FILE (or several), ``--estimator``, ``--level``, ``--config``, ``--column`` and ``--json``."""
    if several:  # configs split over files (one per chunk size) are read as one
        p.add_argument("file", metavar="FILE", nargs="+",
                       help="per-chunk results or per-document statistics (ragunc aggregate): CSV, Parquet or "
                            "JSONL (optionally .gz); several files are merged")
    else:
        p.add_argument("file", metavar="FILE", help="per-chunk results or per-document statistics "
                       "(ragunc aggregate): CSV, Parquet or JSONL (optionally .gz)")
    p.add_argument("--estimator", choices=ESTIMATORS, default="micro", help="default: %(default)s")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default %(default)s)")
    if config:
        p.add_argument("--config", help="config to use when the file holds several")
    p.add_argument("--column", action="append", type=column_mapping, default=[], metavar="NAME=COLUMN",
                   help="read contract column NAME from the file's COLUMN, e.g. --column y=hit1 (repeatable)")
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of a table")


def column_mapping(text: str) -> tuple[str, str]:
    """argparse type of ``--column NAME=COLUMN`` (``ragunc aggregate`` takes it too)."""
    name, sep, column = text.partition("=")
    if not sep or not name or not column:
        raise argparse.ArgumentTypeError(f"expected NAME=COLUMN (e.g. y=hit1), got {text!r}")
    return name, column


def population_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--population-docs", type=int, metavar="D",
                   help="documents in the population (enables the FPC; none without it)")


def boot_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default %(default)s)")
    p.add_argument("--seed", type=seed_arg, default=0, help="random seed (default %(default)s)")


def load_results_of(args: argparse.Namespace) -> Results:
    """The FILE (or files, merged) of :func:`results_options`, read with its ``--column`` mapping."""
    files = args.file if isinstance(args.file, list) else [args.file]
    return merge_results([load_results(f, columns=dict(args.column) or None) for f in files])


def load_sample(args: argparse.Namespace, config: str | None) -> ClusterSample:
    """The config's sample of FILE, with ``--population-docs`` when the command has it and it is given."""
    sample = load_results_of(args).sample(config)
    population = getattr(args, "population_docs", None)
    return sample.with_population(population) if population is not None else sample


def comparison_options(p: argparse.ArgumentParser, noun: str, units: str, *, old_versus: str):
    """``--baseline``, ``--versus``, ``--all-pairs`` and ``--adjust``: several ``noun``s compared on shared ``units``.

    ``compare`` (configs on documents) and ``recall`` (runs on queries) spell and explain them
    alike.  ``old_versus`` is the command's former spelling of ``--versus``, which still works
    with a note on stderr.  Returns the argument group, for the command's own comparison options.
    """
    group = p.add_argument_group(f"several {noun}s", f"compare {noun}s on the {units} they share (needs --baseline)")
    name = noun.upper()
    group.add_argument("--baseline", metavar=name, help=f"the {noun} every other {noun} is compared with")
    group.add_argument("--versus", nargs="+", metavar=name, help=f"these {noun}s only (default: every {noun})")
    group.add_argument(old_versus, dest="versus", nargs="+", metavar=name, action=_Deprecated, new="--versus",
                       help=argparse.SUPPRESS)
    group.add_argument("--all-pairs", action="store_true", default=None,
                       help="every pair, not only against the baseline")
    group.add_argument("--adjust", choices=ADJUSTMENTS,
                       help=f"simultaneous intervals and adjusted p-values (default {DEFAULT_ADJUSTMENT})")
    return group


def comparison_flags_need_baseline(args: argparse.Namespace, flags: dict[str, str], noun: str) -> None:
    """A DataError naming the comparison ``flags`` (dest -> flag) given without ``--baseline``."""
    given = [flag for dest, flag in flags.items() if getattr(args, dest) is not None]
    if given:
        raise DataError(f"{', '.join(given)}: only for comparing several {noun}s; "
                        f"name the baseline {noun} with --baseline {noun.upper()}")


class _Deprecated(argparse.Action):
    """A former spelling of an option: it works as the new one (``new``) and says so on stderr."""

    def __init__(self, option_strings, dest, *, new: str, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: {option_string} is deprecated and will be removed in the next release; "
              f"use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)
