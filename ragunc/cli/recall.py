"""CLI command ``ragunc recall``: document-level Recall@k of a run, each document counted once, with intervals.

With ``--baseline`` it compares several runs (several files, or one file split by ``--runs-col``)
on the queries they share: every run's mean metric and its difference from the baseline with
paired, simultaneous and naive intervals (:func:`ragunc.ranking.comparison.compare_runs`).
"""

from __future__ import annotations

import argparse

import numpy as np

from ..data.reader import DataError, listing
from ..data.runs import load_chunk_map, load_qrels, load_run, load_runs, query_groups
from ..ranking.comparison import compare_runs
from ..ranking.metrics import METRICS, ORDERS, TRUNCATE_DEDUP, match_qrels, ranking_metric, recall
from ..ranking.uncertainty import align_scores, compare_scores, recall_report
from ..stats.linearization import ESTIMATORS
from .options import (
    COMPARISON_FLAGS,
    DEFAULT_ADJUSTMENT,
    column_mapping,
    adjustment_text,
    comparison_flags_need_baseline,
    comparison_options,
    recommended_text,
)
from .output import emit, rows_text, seed_arg

# Options of the many-runs comparison (dest -> flag): without --baseline they are an error, not ignored.
MANY_RUNS_ONLY = {**COMPARISON_FLAGS, "metric": "--metric", "estimator": "--estimator"}


def configure(p: argparse.ArgumentParser) -> None:
    """``ragunc recall``'s arguments and handler (``func``, returning an exit code)."""
    p.description = (
        "Document-level Recall@k = |documents of the top-k chunks ∩ relevant| / |relevant|, "
        "beside the naive per-chunk sum, with naive and cluster intervals over queries."
    )
    p.add_argument(
        "run_files",
        metavar="RUN",
        nargs="+",
        help="run: CSV/TSV/JSONL/Parquet (query_id, rank|score, chunk_id, doc_id), ranx JSON/Parquet or TREC; "
        "several with --baseline (each named by its file name without suffixes)",
    )
    p.add_argument(
        "qrels",
        help="qrels: CSV/TSV/JSONL/Parquet (query_id, doc_id and/or chunk_id, relevance), BEIR qrels TSV, "
        "ranx JSON/Parquet or TREC qrels",
    )
    p.add_argument("--k", type=int, required=True, help="cutoff in chunks (>= 1)")
    p.add_argument("--chunk-map", help="CSV/JSONL chunk_id -> doc_id (needed when the run has no doc_id)")
    p.add_argument("--order", choices=ORDERS, default=TRUNCATE_DEDUP, help="default: %(default)s")
    p.add_argument("--group-col", help="column (qrels, then run) grouping queries, e.g. their source doc_id")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default %(default)s)")
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default %(default)s)")
    p.add_argument("--seed", type=seed_arg, default=0, help="bootstrap seed (default %(default)s)")
    p.add_argument("--compare", metavar="RUN_B", help="a second run on the same queries: paired difference B - A")
    p.add_argument(
        "--runs-col",
        metavar="COL",
        help="column naming each row's run, splitting a file into several runs (a TREC run: tag)",
    )
    many = comparison_options(p, "run", "queries")
    many.add_argument("--metric", choices=METRICS, help="per-query metric compared (default recall)")
    many.add_argument(
        "--estimator",
        choices=ESTIMATORS,
        help="micro: mean over queries; macro: mean over groups of their queries' mean (default micro)",
    )
    p.add_argument(
        "--column",
        action="append",
        default=[],
        type=column_mapping,
        metavar="NAME=COLUMN",
        help="read contract column NAME (query_id, doc_id, chunk_id, rank, score, relevance) from the files' "
        "COLUMN, e.g. --column query_id=qid (repeatable; BEIR's and ranx's names are read without it)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of a table")
    p.set_defaults(func=_recall)


def _recall(args: argparse.Namespace) -> int:
    args.columns = dict(args.column) or None
    chunk_map = load_chunk_map(args.chunk_map, columns=args.columns) if args.chunk_map else None
    if args.baseline is not None:
        return _compare_runs(args, chunk_map)
    comparison_flags_need_baseline(args, MANY_RUNS_ONLY, "run")
    if len(args.run_files) > 1 or args.runs_col:
        runs = load_runs(args.run_files, runs_col=args.runs_col, chunk_map=chunk_map, columns=args.columns)
        if len(runs) > 1:
            raise DataError(f"{len(runs)} runs ({listing(runs)}): compare them with --baseline RUN, or give one run")
        (run,) = runs.values()
    else:
        run = load_run(args.run_files[0], chunk_map=chunk_map, columns=args.columns)
    qrels = load_qrels(args.qrels, chunk_map=chunk_map, columns=args.columns)
    matched = match_qrels(run, qrels)
    groups = query_groups(run, qrels, args.group_col, matched.query_id) if args.group_col else None
    report = recall_report(
        matched,
        args.k,
        order=args.order,
        groups=groups,
        group_col=args.group_col,
        level=args.level,
        boot=args.boot,
        rng=args.seed,
    )
    payload = report.to_dict()
    if args.compare:
        matched_b = match_qrels(load_run(args.compare, chunk_map=chunk_map, columns=args.columns), qrels)
        queries, a, b = align_scores(
            matched.query_id,
            recall(matched, args.k, order=args.order),
            matched_b.query_id,
            recall(matched_b, args.k, order=args.order),
        )
        groups_ab = query_groups(run, qrels, args.group_col, queries) if args.group_col else None
        result = compare_scores(
            a, b, groups_ab, names=(args.run_files[0], args.compare), level=args.level, boot=args.boot, rng=args.seed
        )
        payload["comparison"] = {**result.to_dict(), "n_queries": int((~np.isnan(a) & ~np.isnan(b)).sum())}
    emit(payload, as_json=args.json, table=_table)
    return 0


def _compare_runs(args: argparse.Namespace, chunk_map) -> int:
    if args.compare:
        raise DataError("--compare compares two run files; with --baseline give every run as a RUN argument")
    runs = load_runs(args.run_files, runs_col=args.runs_col, chunk_map=chunk_map, columns=args.columns)
    qrels = load_qrels(args.qrels, chunk_map=chunk_map, columns=args.columns)
    result = compare_runs(
        runs,
        qrels,
        None,
        args.k,
        args.baseline,
        names=args.only,
        metric=args.metric or "recall",
        order=args.order,
        group_col=args.group_col,
        all_pairs=bool(args.all_pairs),
        adjust=args.adjust or DEFAULT_ADJUSTMENT,
        estimator=args.estimator or "micro",
        level=args.level,
        boot=args.boot,
        rng=args.seed,
    )
    emit(result.to_dict(), as_json=args.json, table=_runs_table)
    return 0


def _num(value, spec: str = ".3f") -> str:
    return "-" if value is None else format(value, spec)


def _table(d: dict) -> str:
    def ci(part: dict) -> str:
        low, high = part["ci"]
        if part["se"] is None:
            return "undefined (fewer than 2 groups of queries)"
        return f"[{low:.3f}, {high:.3f}]  se {part['se']:.4f}"

    per_query = d["per_query"]
    lines = [
        f"Document-level Recall@{d['k']} over {d['n_queries']} queries "
        f"({d['n_excluded']} excluded: no relevant documents)",
        f"  truncate-dedup (k chunks, then documents) {_num(d['recall_by_order']['truncate-dedup'])}",
        f"  dedup-truncate (k first-seen documents)   {_num(d['recall_by_order']['dedup-truncate'])}",
        f"  naive per-chunk sum (can pass 1)          {_num(d['naive_sum'])}",
        f"Order reported: {d['order']}  recall {_num(d['recall'])}  ({d['level']:.0%} intervals)",
        f"  recommended: {recommended_text(d['recommended'])}",
        f"  naive (queries independent)  {ci(d['naive'])}",
        f"  cluster ({d['n_groups']} groups{', by ' + d['group_col'] if d['group_col'] else ''})"
        f"  {ci(d['cluster'])}   DEFF {_num(d['deff'], '.2f')}",
        f"  cluster bootstrap            {ci(d['bootstrap'])}",
    ]
    if "comparison" in d:
        c = d["comparison"]
        low, high = c["paired"]["ci"]
        lines.append(
            f"Paired B - A over {c['n_queries']} queries in {c['n_docs']} groups: {c['difference']:+.3f}  "
            f"paired cluster CI [{low:.3f}, {high:.3f}]  (A {c['estimate_a']:.3f}, B {c['estimate_b']:.3f})"
        )
    if len(per_query) <= 20:
        lines.append("query_id  recall")
        lines += [f"  {q['query_id']}  {'excluded' if q['recall'] is None else _num(q['recall'])}" for q in per_query]
    else:
        lines.append(f"({len(per_query)} per-query scores: use --json)")
    return "\n".join(lines)


def clustering_sentence(name: str, groups: str, se: float, p: float, se_per_query: float, p_per_query: float) -> str:
    """How much clustering the queries by ``groups`` changes comparison ``name``'s paired SE and p-value."""
    size = f"{se / se_per_query:.2f}x" if se_per_query else "undefined against"
    return (
        f"{name}: clustered by {groups}, the paired SE is {size} the per-query one "
        f"(p {_num(p, '.4g')} against {_num(p_per_query, '.4g')} with every query independent, "
        "the paired t of ranx and scipy)."
    )


def _runs_table(d: dict) -> str:
    def ci(part: dict) -> str:
        low, high = part["ci"]
        return "undefined" if low is None else f"[{low:.3f}, {high:.3f}]"

    adjust = adjustment_text(d)
    groups = f"{d['n_clusters']} groups by {d['group_col']}" if d["group_col"] else "every query its own group"
    dropped = ", ".join(f"{r['run']} {r['dropped']}" for r in d["runs"])
    rows = [("run", "estimate", "cluster se", "interval")]
    rows += [
        (r["run"], _num(r["estimate"], ".4f"), _num(r["cluster"]["se"], ".4f"), ci(r["cluster"])) for r in d["runs"]
    ]
    comps = [("b - a", "difference", "naive interval", "paired se", "paired interval", "simultaneous", "p adjusted")]
    comps += [
        (
            f"{c['b']} - {c['a']}",
            f"{c['difference']:+.4f}",
            ci(c["naive"]),
            _num(c["paired"]["se"], ".4f"),
            ci(c["paired"]),
            ci(c["simultaneous"]),
            _num(c["p_adjusted"], ".4g"),
        )
        for c in d["comparisons"]
    ]
    clustering = [
        clustering_sentence(
            f"{c['b']} - {c['a']}",
            d["group_col"],
            c["paired"]["se"],
            c["p_value"],
            c["per_query"]["se"],
            c["per_query"]["p_value"],
        )
        for c in d["comparisons"]
        if c["per_query"] is not None
    ]
    return "\n".join(
        [
            f"{ranking_metric(d['metric']).at(d['k'])} ({d['order']}, {d['estimator']}) of {len(d['runs'])} runs on the {d['n_queries']} "
            f"queries they share ({groups}; {d['level']:.0%} intervals)",
            f"queries dropped for not being in every run: {d['dropped']} (per run: {dropped})",
            "",
            rows_text(rows),
            "",
            f"adjustment: {adjust}",
            rows_text(comps),
            *clustering,
        ]
    )
