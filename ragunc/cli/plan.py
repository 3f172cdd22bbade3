"""CLI command ``ragunc plan``: documents needed for a target half-width, or to detect a difference of two configs."""

from __future__ import annotations

import argparse

from ..data.reader import DataError, listing
from ..stats.judged.plan import plan_audit
from ..stats.planning import plan_difference, plan_documents
from .options import judge_option, judged_sample, load_results_of, population_option, results_options, with_population
from .output import emit, number_text, rows_text


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc plan``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = (
        "How many documents (and chunks) a target cluster half-width needs, from this sample, "
        "or how many detect a difference between two configs with a given power. With a judge "
        "column: how many rows (or documents) of the judged ones to audit, from a pilot audit."
    )
    results_options(parser, several=True)
    judge_option(parser)
    population_option(parser)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--half-width", type=float, help="target half-width, e.g. 0.05")
    target.add_argument(
        "--difference", type=float, help="difference b - a to detect (paired test at --level), e.g. 0.02"
    )
    parser.add_argument("--power", type=float, default=0.8, help="power to detect --difference (default %(default)s)")
    parser.add_argument("--a", metavar="CONFIG", help="with --difference: the baseline config")
    parser.add_argument("--b", metavar="CONFIG", help="with --difference: the config compared with it")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    results = load_results_of(args)
    if results.judged:
        if args.half_width is None:
            raise DataError("with a judge column, plan answers how much to audit for a --half-width")
        pilot = judged_sample(args, results, with_population(args, results.population(args.config)))
        result = plan_audit(pilot, half_width=args.half_width, estimator=args.estimator, level=args.level)
        emit(result.to_dict(), as_json=args.json, table=_audit_table)
        return 0
    if args.difference is None:
        result = plan_documents(
            with_population(args, results.population(args.config)),
            half_width=args.half_width,
            estimator=args.estimator,
            level=args.level,
        )
        emit(result.to_dict(), as_json=args.json, table=_documents_table)
        return 0
    names = [args.a, args.b]
    if None in names:
        if len(results.configs) != 2:
            raise DataError(
                f"{results.source} holds configs {listing(results.configs)}; "
                "choose the two to compare with --a CONFIG --b CONFIG"
            )
        names = results.configs
    a, b = results.population(names[0]), results.population(names[1])
    if args.population_docs is not None:
        a = a.with_population(args.population_docs)
    result = plan_difference(
        a, b, difference=args.difference, power=args.power, estimator=args.estimator, level=args.level
    )
    emit(result.to_dict(), as_json=args.json, table=_difference_table)
    return 0


def _documents_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    return rows_text(
        [
            ("target half-width", f"{d['half_width']} at {d['level']:.0%} ({d['estimator']}, {fpc})"),
            ("documents needed", str(d["docs_needed"])),
            ("chunks expected", number_text(d["chunks_expected"], ".0f")),
            ("chunks the binomial formula asks for", str(d["naive_chunks_needed"])),
            ("per-document variance s^2", number_text(d["doc_variance"], ".5f")),
        ]
    )


def _audit_table(d: dict) -> str:
    what = "rows" if d["unit"] == "rows" else "documents"

    def needed(n):
        return f"{n:,} of {d['n_total']:,} {what}" if n is not None else "not reachable with these documents"

    agreement = f"agreement {d['agreement']:.1%}, " if d["agreement"] is not None else ""
    return rows_text(
        [
            ("target half-width", f"{d['half_width']} at {d['level']:.0%} ({d['estimator']})"),
            (f"{what} to audit, with the judge", needed(d["needed"])),
            (f"{what} to audit, audited rows alone", needed(d["gold_only_needed"])),
            ("half-width of a full audit", number_text(d["floor_half_width"])),
            (
                "pilot",
                f"{d['pilot_audited']:,} {what} audited; judge {agreement}correlation {d['correlation']:.2f}, "
                f"lambda {d['lambda']:.3f}",
            ),
        ]
    )


def _difference_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    return rows_text(
        [
            (
                "difference to detect",
                f"{d['difference']:+.4f} ({d['config_b']} - {d['config_a']}, "
                f"pilot {d['pilot_difference']:+.4f}, {d['estimator']}, {fpc})",
            ),
            ("power, level", f"{d['power']:.0%} at a two-sided {1 - d['level']:.0%} test"),
            ("documents needed (paired, documents as clusters)", str(d["n_docs"])),
            ("documents the naive binomial formula asks for", str(d["n_docs_naive"])),
            ("paired per-document variance s^2", number_text(d["paired_variance"], ".5f")),
        ]
    )
