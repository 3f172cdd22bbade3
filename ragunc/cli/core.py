"""CLI commands of the core group: ``interval``, ``simulate``, ``plan``, ``compare``."""
from __future__ import annotations

import argparse
import dataclasses

from ..data.contract import JUDGE
from ..data.reader import DataError, listing
from ..data.results import load_results, merge_results
from ..stats.coverage import coverage_experiment
from ..stats.intervals import interval_report
from ..stats.judged import LABELS, judged_report, plan_audit
from ..stats.linearization import ESTIMATORS
from ..stats.methods import interval_method, interval_methods
from ..stats.multiple import ADJUSTMENTS, compare_configs, rank_configs
from ..stats.paired import paired_comparison
from ..stats.planning import plan_difference, plan_documents
from ..stats.sample import ClusterSample
from .output import emit, progress_bar, rows_text, seed_arg


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this group's subcommands; each sets func to a handler returning an exit code."""
    p = subparsers.add_parser(
        "interval", help="estimate with naive, Wilson, cluster and cluster-bootstrap intervals",
        description="One sample of documents: the estimate, every interval, DEFF, ICC and effective n. With a "
                    "judge column: the judge's labels, the audited rows' and both together (prediction-powered).",
    )
    _common(p)
    _judge(p)
    _population(p)
    _boot(p)
    p.set_defaults(func=_interval)

    p = subparsers.add_parser(
        "simulate", help="coverage of every interval, drawing K documents of the file R times",
        description="The file is the population of D documents; draw K without replacement R times.",
    )
    _common(p)
    p.add_argument("--k", type=int, required=True, help="documents per simulated sample (2 <= K < D)")
    p.add_argument("--reps", type=int, required=True, help="repetitions R")
    p.add_argument("--control", choices=("iid",), help="permute y across all chunks first (binomial control)")
    p.add_argument("--two-stage-fraction", type=float, help="keep this fraction of each drawn document's chunks")
    _boot(p)
    p.set_defaults(func=_simulate)

    p = subparsers.add_parser(
        "plan", help="documents needed for a target half-width",
        description="How many documents (and chunks) a target cluster half-width needs, from this sample, "
                    "or how many detect a difference between two configs with a given power. With a judge "
                    "column: how many rows (or documents) of the judged ones to audit, from a pilot audit.",
    )
    _common(p, several=True)
    _judge(p)
    _population(p)
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--half-width", type=float, help="target half-width, e.g. 0.05")
    target.add_argument("--difference", type=float,
                        help="difference b - a to detect (paired test at --level), e.g. 0.02")
    p.add_argument("--power", type=float, default=0.8, help="power to detect --difference (default %(default)s)")
    p.add_argument("--a", metavar="CONFIG", help="with --difference: the baseline config")
    p.add_argument("--b", metavar="CONFIG", help="with --difference: the config compared with it")
    p.set_defaults(func=_plan)

    p = subparsers.add_parser(
        "compare", help="paired comparison of configs on the same documents",
        description="Differences on the documents the configs share: paired, simultaneous and naive. "
                    "--a/--b compare two configs; --baseline compares every config (or --configs) with one; "
                    "--rank says which is best: each config's rank interval and P(best).",
    )
    _common(p, config=False, several=True)
    p.add_argument("--a", metavar="CONFIG", help="baseline config of a two-config comparison")
    p.add_argument("--b", metavar="CONFIG", help="config compared against --a")
    p.add_argument("--baseline", metavar="CONFIG", help="baseline config of a many-config comparison")
    p.add_argument("--configs", nargs="+", metavar="CONFIG", help="with --baseline or --rank: these configs only")
    p.add_argument("--rank", action="store_true",
                   help="rank the configs (highest estimate first): rank intervals and P(best) from the joint "
                        "cluster bootstrap (documents resampled whole, shared by all configs)")
    p.add_argument("--all-pairs", action="store_true", help="with --baseline: every pair, not only against it")
    p.add_argument("--adjust", choices=ADJUSTMENTS, default="maxt",
                   help="with --baseline: simultaneous intervals and adjusted p-values (default %(default)s)")
    _population(p)
    _boot(p)
    p.set_defaults(func=_compare)


def _common(p: argparse.ArgumentParser, *, config: bool = True, several: bool = False) -> None:
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


def _judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge-col", metavar="COLUMN",
                   help="the judge's label or score (in [0, 1]) on every row; y then holds a person's gold "
                        "labels on the audited rows and is empty elsewhere (same as --column y_judge=COLUMN)")


def _results(args: argparse.Namespace):
    files = args.file if isinstance(args.file, list) else [args.file]
    columns = dict(args.column)
    if getattr(args, "judge_col", None):
        columns[JUDGE] = args.judge_col
    return merge_results([load_results(f, columns=columns or None) for f in files])


def _population(p: argparse.ArgumentParser) -> None:
    p.add_argument("--population-docs", type=int, metavar="D",
                   help="documents in the population (enables the FPC; none without it)")


def _boot(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default %(default)s)")
    p.add_argument("--seed", type=seed_arg, default=0, help="random seed (default %(default)s)")


def _load(args: argparse.Namespace, config: str | None) -> ClusterSample:
    return _with_population(args, _results(args).sample(config))


def _with_population(args: argparse.Namespace, sample: ClusterSample) -> ClusterSample:
    population = getattr(args, "population_docs", None)
    return sample.with_population(population) if population is not None else sample


def _interval(args: argparse.Namespace) -> int:
    results = _results(args)
    sample = _with_population(args, results.sample(args.config))
    report = interval_report(sample, estimator=args.estimator, level=args.level, boot=args.boot, rng=args.seed)
    payload = report.to_dict()
    if results.judged:  # the report above is of the judge's labels; the audit's estimates join it
        judged = _judged(args, results, sample)
        payload |= judged_report(judged, estimator=args.estimator, level=args.level).to_dict()
    emit(payload, as_json=args.json, table=_interval_table)
    return 0


def _judged(args: argparse.Namespace, results, sample: ClusterSample):
    """The config's judged sample, the judge's labels being ``sample`` (with the FPC asked for)."""
    judged = results.judged_sample(args.config)
    return dataclasses.replace(judged, judge=sample)


def _simulate(args: argparse.Namespace) -> int:
    population = _results(args).sample(args.config)
    with progress_bar("simulate") as progress:
        result = coverage_experiment(
            population, k=args.k, reps=args.reps, boot=args.boot, estimator=args.estimator, level=args.level,
            control=args.control, two_stage_fraction=args.two_stage_fraction, rng=args.seed, progress=progress,
        )
    emit(result.to_dict(), as_json=args.json, table=_simulate_table)
    return 0


def _plan(args: argparse.Namespace) -> int:
    results = _results(args)
    if results.judged:
        if args.half_width is None:
            raise DataError("with a judge column, plan answers how much to audit for a --half-width")
        pilot = _judged(args, results, _with_population(args, results.sample(args.config)))
        result = plan_audit(pilot, half_width=args.half_width, estimator=args.estimator, level=args.level)
        emit(result.to_dict(), as_json=args.json, table=_audit_plan_table)
        return 0
    if args.difference is None:
        result = plan_documents(_with_population(args, results.sample(args.config)), half_width=args.half_width,
                                estimator=args.estimator, level=args.level)
        emit(result.to_dict(), as_json=args.json, table=_plan_table)
        return 0
    names = [args.a, args.b]
    if None in names:
        if len(results.configs) != 2:
            raise DataError(f"{results.source} holds configs {listing(results.configs)}; "
                            "choose the two to compare with --a CONFIG --b CONFIG")
        names = results.configs
    a, b = results.sample(names[0]), results.sample(names[1])
    if args.population_docs is not None:
        a = a.with_population(args.population_docs)
    result = plan_difference(a, b, difference=args.difference, power=args.power,
                             estimator=args.estimator, level=args.level)
    emit(result.to_dict(), as_json=args.json, table=_difference_plan_table)
    return 0


def _compare(args: argparse.Namespace) -> int:
    results = _results(args)
    if args.rank:
        return _rank(args, results)
    if args.baseline is not None:
        return _compare_many(args, results)
    if args.a is None or args.b is None:
        raise DataError("compare needs --a CONFIG --b CONFIG (two configs) or --baseline CONFIG (many); "
                        f"{results.source} holds {listing(results.configs)}")
    a, b = results.sample(args.a), results.sample(args.b)
    if args.population_docs is not None:
        a = a.with_population(args.population_docs)
    result = paired_comparison(a, b, estimator=args.estimator, level=args.level, boot=args.boot, rng=args.seed)
    emit(result.to_dict(), as_json=args.json, table=_compare_table)
    return 0


def _rank(args: argparse.Namespace, results) -> int:
    names = list(dict.fromkeys(args.configs or results.configs))
    if len(names) < 2:
        raise DataError(f"--rank needs at least 2 configs to rank; {results.source} holds "
                        f"{listing(results.configs)} (column 'config', or one file per config)")
    result = rank_configs({c: results.sample(c) for c in names}, estimator=args.estimator, level=args.level,
                          boot=args.boot, rng=args.seed)
    emit(result.to_dict(), as_json=args.json, table=_rank_table)
    return 0


def _compare_many(args: argparse.Namespace, results) -> int:
    names = [args.baseline, *(args.configs or results.configs)]
    samples = {c: results.sample(c) for c in dict.fromkeys(names)}
    if args.population_docs is not None:
        samples = {c: s.with_population(args.population_docs) for c, s in samples.items()}
    result = compare_configs(samples, args.baseline, all_pairs=args.all_pairs, adjust=args.adjust,
                             estimator=args.estimator, level=args.level, boot=args.boot, rng=args.seed)
    emit(result.to_dict(), as_json=args.json, table=_compare_many_table)
    return 0


# --------------------------------------------------------------------------- #
# Human tables
# --------------------------------------------------------------------------- #


def _num(x, spec: str = ".4f") -> str:
    return "n/a" if x is None or x != x else format(x, spec)


def _ci(ci) -> str:
    return f"[{_num(ci[0])}, {_num(ci[1])}]"


def _interval_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    reps = sorted({d[m.json_path[0]]["reps"] for m in interval_methods() if m.resamples})
    head = (f"{d['estimator']} estimate {d['estimate']:.4f}  over {d['n_docs']} documents, "
            f"{d['n_chunks']} chunks  ({d['level']:.0%} intervals, {fpc}, "
            f"B={', '.join(map(str, reps))} bootstrap replicates)")
    rows = [("method", "", "se", "interval")]
    for m in interval_methods():
        obj, field = m.json_path
        rows.append((m.name, m.label, _num(d[obj]["se"]) if m.has_se else "", _ci(d[obj][field])))
    rec = d["recommended"]
    recommended = f"recommended: {interval_method(rec['method']).label} {_ci(rec['ci'])}"
    g = d["diagnostics"]
    diag = [
        ("DEFF", _num(d["deff"], ".2f")), ("ICC", _num(d["icc"], ".3f")), ("n_eff", _num(d["n_eff"], ".1f")),
        ("DEFF Kish (ICC, CV)", _num(g["deff_kish"], ".2f")), ("K/ICC", _num(g["k_over_rho"], ".1f")),
        ("lag-1 autocorrelation", _num(g["lag1_autocorr"], ".3f")),
        ("doc_type share", _num(g["doc_type_share"], ".3f")),
    ]
    lines = [head, "", recommended, rec["reason"], "", rows_text(rows), "", rows_text(diag)]
    if "prediction_powered" in d:
        lines = [f"the judge's labels (y_judge) on every row: {lines[0]}", *lines[1:], "", _judged_table(d)]
    return "\n".join(lines)


def _judged_table(d: dict) -> str:
    a = d["audit"]
    head = (f"audit: {a['n_audited']:,} of {a['n_rows']:,} rows in {a['n_audited_docs']} of {a['n_docs']} documents "
            f"({a['unit']}: {a['design']})")
    rows = [("estimate", "", "se", f"{d['level']:.0%} interval")]
    for name in ("judge_only", "gold_only", "prediction_powered", "judge_bias"):
        label = LABELS[name] + (f" (lambda = {d[name]['lambda']:.3f})" if name == "prediction_powered" else "")
        rows.append((label, _num(d[name]["estimate"]), _num(d[name]["se"]), _ci(d[name]["ci"])))
    method = f"intervals: {interval_method(d['judged_method']).label}; judge's bias: judge minus gold on the audited rows"
    lines = [head, "", rows_text(rows), method]
    if d["judged_note"]:
        lines += ["", f"note: {d['judged_note']}"]
    return "\n".join(lines)


def _simulate_table(d: dict) -> str:
    pop = d["population"]
    extra = []
    if d["control"]:
        extra.append(f"control {d['control']}")
    if d["two_stage_fraction"]:
        extra.append(f"two-stage fraction {d['two_stage_fraction']}")
    head = (f"population {pop['n_docs']} documents, {pop['n_chunks']} chunks, {d['estimator']} value "
            f"{pop['value']:.4f}; K={d['k']}, R={d['reps']}, B={d['boot']}"
            + ("; " + ", ".join(extra) if extra else ""))
    rows = [("method", f"coverage (nominal {d['level']:.0%})", "MC se", "mean se", "mean width", "undefined")]
    for method, c in d["coverage"].items():
        coverage = "undefined" if c is None or c != c else _num(c, ".3f")  # NaN: undefined in every repetition
        rows.append((method, coverage, _num(d["coverage_mcse"][method], ".3f"), _num(d["se_mean"].get(method)),
                     _num(d["width"][method]), f"{d['undefined'][method]} of {d['reps']}"))
    figures = [
        ("SD of the estimator (empirical)", _num(d["sd_empirical"])),
        ("SD predicted by linearization", _num(d["linearization_sd"])),
        ("binomial reference SD", _num(d["binomial_sd"])),
        ("variance ratio (empirical / linearization)",
         f"{_num(d['variance_ratio'], '.1f')} / {_num(d['variance_ratio_linearization'], '.1f')}"),
        ("Bernoulli-equivalent n (empirical / linearization)",
         f"{_num(d['bernoulli_n_empirical'], '.1f')} / {_num(d['bernoulli_n_linearization'], '.1f')}"),
        ("mean chunks per sample", _num(d["mean_chunks"], ".1f")),
    ]
    return "\n".join([head, "", rows_text(rows), "", rows_text(figures)])


def _plan_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    return rows_text([
        ("target half-width", f"{d['half_width']} at {d['level']:.0%} ({d['estimator']}, {fpc})"),
        ("documents needed", str(d["docs_needed"])),
        ("chunks expected", _num(d["chunks_expected"], ".0f")),
        ("chunks the binomial formula asks for", str(d["naive_chunks_needed"])),
        ("per-document variance s^2", _num(d["doc_variance"], ".5f")),
    ])


def _audit_plan_table(d: dict) -> str:
    what = "rows" if d["unit"] == "rows" else "documents"

    def needed(n):
        return f"{n:,} of {d['n_total']:,} {what}" if n is not None else "not reachable with these documents"

    agreement = f"agreement {d['agreement']:.1%}, " if d["agreement"] is not None else ""
    return rows_text([
        ("target half-width", f"{d['half_width']} at {d['level']:.0%} ({d['estimator']})"),
        (f"{what} to audit, with the judge", needed(d["needed"])),
        (f"{what} to audit, audited rows alone", needed(d["gold_only_needed"])),
        ("half-width of a full audit", _num(d["floor_half_width"])),
        ("pilot", f"{d['pilot_audited']:,} {what} audited; judge {agreement}correlation {d['correlation']:.2f}, "
                  f"lambda {d['lambda']:.3f}"),
    ])


def _rank_table(d: dict) -> str:
    head = (f"{len(d['configs'])} configs ranked on the {d['n_docs']} documents they share ({d['estimator']}; "
            f"{d['level']:.0%} rank intervals and P(best) from {d['boot']} joint cluster-bootstrap replicates)")
    rows = [("config", "estimate", "rank", "rank interval", "P(best)")]
    rows += [(c["config"], _num(c["estimate"]), str(c["rank"]), f"[{c['rank_ci'][0]}, {c['rank_ci'][1]}]",
              _num(c["p_best"], ".3f")) for c in sorted(d["configs"], key=lambda c: (c["rank"], -c["p_best"]))]
    return "\n".join([head, "", rows_text(rows)])


def _compare_table(d: dict) -> str:
    head = (f"{d['config_b']} - {d['config_a']} ({d['estimator']}): {d['estimate_b']:.4f} - "
            f"{d['estimate_a']:.4f} = {d['difference']:+.4f} over {d['n_docs']} shared documents "
            f"(dropped: {d['dropped_a']} only in {d['config_a']}, {d['dropped_b']} only in {d['config_b']})")
    rows = [
        ("method", "se", f"{d['level']:.0%} interval"),
        ("paired (documents)", _num(d["paired"]["se"]), _ci(d["paired"]["ci"])),
        (f"paired bootstrap ({d['bootstrap']['reps']})", _num(d["bootstrap"]["se"]), _ci(d["bootstrap"]["ci"])),
        ("naive (unpaired chunks)", _num(d["naive"]["se"]), _ci(d["naive"]["ci"])),
    ]
    return "\n".join([head, "", rows_text(rows)])


def _compare_many_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    adjust = {"maxt": f"max-|t| cluster bootstrap, B={d['boot']}", "holm": "Holm (Bonferroni intervals)",
              "none": "none"}[d["adjust"]]
    dropped = ", ".join(f"{c['config']} {c['dropped']}" for c in d["configs"])
    head = (f"{len(d['configs'])} configs on the {d['n_docs']} documents they share ({d['estimator']}, "
            f"{d['level']:.0%} intervals, {fpc}; documents dropped: {dropped})")
    configs = [("config", "estimate", "cluster se", "interval")]
    configs += [(c["config"], _num(c["estimate"]), _num(c["cluster"]["se"]), _ci(c["cluster"]["ci"]))
                for c in d["configs"]]
    comps = [("b - a", "difference", "naive interval", "paired se", "paired interval",
              "simultaneous interval", "p adjusted")]
    comps += [(f"{c['b']} - {c['a']}", f"{c['difference']:+.4f}", _ci(c["naive"]["ci"]), _num(c["paired"]["se"]),
               _ci(c["paired"]["ci"]), _ci(c["simultaneous"]["ci"]), _num(c["p_adjusted"], ".4g"))
              for c in d["comparisons"]]
    return "\n".join([head, "", rows_text(configs), "", f"adjustment: {adjust}", rows_text(comps)])


def _difference_plan_table(d: dict) -> str:
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    return rows_text([
        ("difference to detect", f"{d['difference']:+.4f} ({d['config_b']} - {d['config_a']}, "
                                 f"pilot {d['pilot_difference']:+.4f}, {d['estimator']}, {fpc})"),
        ("power, level", f"{d['power']:.0%} at a two-sided {1 - d['level']:.0%} test"),
        ("documents needed (paired, documents as clusters)", str(d["n_docs"])),
        ("documents the naive binomial formula asks for", str(d["n_docs_naive"])),
        ("paired per-document variance s^2", _num(d["paired_variance"], ".5f")),
    ])
