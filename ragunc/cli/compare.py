"""CLI command ``ragunc compare``: configs compared on the documents they share (two, or many with a baseline)."""

from __future__ import annotations

import argparse

from ..data.reader import DataError, listing
from ..data.results import Results
from ..stats.multiple import compare_configs, rank_configs
from ..stats.paired import paired_comparison
from .options import (
    COMPARISON_FLAGS,
    DEFAULT_ADJUSTMENT,
    adjustment_text,
    boot_options,
    comparison_flags_need_baseline,
    comparison_options,
    load_results_of,
    population_option,
    results_options,
)
from .output import emit, interval_text, number_text, rows_text


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc compare``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = (
        "Differences on the documents the configs share: paired, simultaneous and naive. "
        "--a/--b compare two configs; --baseline compares every config (or those --only "
        "names) with one; --rank says which is best: each config's rank interval and P(best)."
    )
    results_options(parser, config=False, several=True)
    parser.add_argument("--a", metavar="CONFIG", help="baseline config of a two-config comparison")
    parser.add_argument("--b", metavar="CONFIG", help="config compared against --a")
    many = comparison_options(parser, "config", "documents")
    many.add_argument(
        "--rank",
        action="store_true",
        help="instead of a baseline: rank the configs (or those --only names), highest estimate "
        "first: rank intervals and P(best) from the joint cluster bootstrap (documents "
        "resampled whole, shared by all configs)",
    )
    population_option(parser)
    boot_options(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    results = load_results_of(args)
    if args.rank:
        return _rank(args, results)
    if args.baseline is not None:
        return _compare_many(args, results)
    comparison_flags_need_baseline(args, COMPARISON_FLAGS, "config")
    if args.a is None or args.b is None:
        raise DataError(
            "compare needs --a CONFIG --b CONFIG (two configs) or --baseline CONFIG (many); "
            f"{results.source} holds {listing(results.configs)}"
        )
    a, b = results.population(args.a), results.population(args.b)
    if args.population_docs is not None:
        a = a.with_population(args.population_docs)
    result = paired_comparison(a, b, estimator=args.estimator, level=args.level, boot=args.boot, rng=args.seed)
    emit(result.to_dict(), as_json=args.json, table=_two_table)
    return 0


def _rank(args: argparse.Namespace, results: Results) -> int:
    names = list(dict.fromkeys(args.only or results.configs))
    if len(names) < 2:
        raise DataError(
            f"--rank needs at least 2 configs to rank; {results.source} holds "
            f"{listing(results.configs)} (column 'config', or one file per config)"
        )
    result = rank_configs(
        {c: results.population(c) for c in names},
        estimator=args.estimator,
        level=args.level,
        boot=args.boot,
        rng=args.seed,
    )
    emit(result.to_dict(), as_json=args.json, table=_rank_table)
    return 0


def _compare_many(args: argparse.Namespace, results: Results) -> int:
    names = [args.baseline, *(args.only or results.configs)]
    samples = {c: results.population(c) for c in dict.fromkeys(names)}
    if args.population_docs is not None:
        samples = {c: s.with_population(args.population_docs) for c, s in samples.items()}
    result = compare_configs(
        samples,
        args.baseline,
        all_pairs=bool(args.all_pairs),
        adjust=args.adjust or DEFAULT_ADJUSTMENT,
        estimator=args.estimator,
        level=args.level,
        boot=args.boot,
        rng=args.seed,
    )
    emit(result.to_dict(), as_json=args.json, table=_many_table)
    return 0


def _rank_table(d: dict) -> str:
    head = (
        f"{len(d['configs'])} configs ranked on the {d['n_docs']} documents they share ({d['estimator']}; "
        f"{d['level']:.0%} rank intervals and P(best) from {d['boot']} joint cluster-bootstrap replicates)"
    )
    rows = [("config", "estimate", "rank", "rank interval", "P(best)")]
    rows += [
        (
            c["config"],
            number_text(c["estimate"]),
            str(c["rank"]),
            f"[{c['rank_ci'][0]}, {c['rank_ci'][1]}]",
            number_text(c["p_best"], ".3f"),
        )
        for c in sorted(d["configs"], key=lambda c: (c["rank"], -c["p_best"]))
    ]
    return "\n".join([head, "", rows_text(rows)])


def _two_table(d: dict) -> str:
    head = (
        f"{d['config_b']} - {d['config_a']} ({d['estimator']}): {d['estimate_b']:.4f} - "
        f"{d['estimate_a']:.4f} = {d['difference']:+.4f} over {d['n_docs']} shared documents "
        f"(dropped: {d['dropped_a']} only in {d['config_a']}, {d['dropped_b']} only in {d['config_b']})"
    )
    rows = [
        ("method", "se", f"{d['level']:.0%} interval"),
        ("paired (documents)", number_text(d["paired"]["se"]), interval_text(d["paired"]["ci"])),
        (
            f"paired bootstrap ({d['bootstrap']['reps']})",
            number_text(d["bootstrap"]["se"]),
            interval_text(d["bootstrap"]["ci"]),
        ),
        ("naive (unpaired chunks)", number_text(d["naive"]["se"]), interval_text(d["naive"]["ci"])),
    ]
    test = f"paired t test over documents: t = {number_text(d['t'], '.3f')}, {d['df']} df, p = {number_text(d['p_value'], '.4g')}"
    return "\n".join([head, "", rows_text(rows), "", test])


def _many_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    adjust = adjustment_text(d)
    dropped = ", ".join(f"{c['config']} {c['dropped']}" for c in d["configs"])
    head = (
        f"{len(d['configs'])} configs on the {d['n_docs']} documents they share ({d['estimator']}, "
        f"{d['level']:.0%} intervals, {fpc}; documents dropped: {dropped})"
    )
    configs = [("config", "estimate", "cluster se", "interval")]
    configs += [
        (c["config"], number_text(c["estimate"]), number_text(c["cluster"]["se"]), interval_text(c["cluster"]["ci"]))
        for c in d["configs"]
    ]
    comps = [
        ("b - a", "difference", "naive interval", "paired se", "paired interval", "simultaneous interval", "p adjusted")
    ]
    comps += [
        (
            f"{c['b']} - {c['a']}",
            f"{c['difference']:+.4f}",
            interval_text(c["naive"]["ci"]),
            number_text(c["paired"]["se"]),
            interval_text(c["paired"]["ci"]),
            interval_text(c["simultaneous"]["ci"]),
            number_text(c["p_adjusted"], ".4g"),
        )
        for c in d["comparisons"]
    ]
    return "\n".join([head, "", rows_text(configs), "", f"adjustment: {adjust}", rows_text(comps)])
