"""CLI command ``ragunc recall``: document-level Recall@k of a run, each document counted once, with intervals."""
from __future__ import annotations

import argparse

import numpy as np

from ..data.runs import load_chunk_map, load_qrels, load_run, query_groups
from ..ranking.metrics import ORDERS, TRUNCATE_DEDUP, judge, recall
from ..ranking.uncertainty import align_scores, compare_scores, recall_report
from .output import emit, seed_arg


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``recall``; it sets ``func`` to a handler returning an exit code."""
    p = subparsers.add_parser(
        "recall",
        help="document-level Recall@k of a run (truncate at k chunks, then deduplicate documents)",
        description=(
            "Document-level Recall@k = |documents of the top-k chunks ∩ relevant| / |relevant|, "
            "beside the naive per-chunk sum, with naive and cluster intervals over queries."
        ),
    )
    p.add_argument("run", help="run: CSV/JSONL (query_id, rank|score, chunk_id, doc_id) or TREC run format")
    p.add_argument("qrels", help="qrels: CSV/JSONL (query_id, doc_id and/or chunk_id, relevance) or TREC qrels")
    p.add_argument("--k", type=int, required=True, help="cutoff in chunks (>= 1)")
    p.add_argument("--chunk-map", help="CSV/JSONL chunk_id -> doc_id (needed when the run has no doc_id)")
    p.add_argument("--order", choices=ORDERS, default=TRUNCATE_DEDUP, help="default: %(default)s")
    p.add_argument("--group-col", help="column (qrels, then run) grouping queries, e.g. their source doc_id")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default %(default)s)")
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default %(default)s)")
    p.add_argument("--seed", type=seed_arg, default=0, help="bootstrap seed (default %(default)s)")
    p.add_argument("--compare", metavar="RUN_B", help="a second run on the same queries: paired difference B - A")
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of a table")
    p.set_defaults(func=_recall)


def _recall(args: argparse.Namespace) -> int:
    chunk_map = load_chunk_map(args.chunk_map) if args.chunk_map else None
    run = load_run(args.run, chunk_map=chunk_map)
    qrels = load_qrels(args.qrels, chunk_map=chunk_map)
    judged = judge(run, qrels)
    groups = query_groups(run, qrels, args.group_col, judged.query_id) if args.group_col else None
    report = recall_report(
        judged, args.k, order=args.order, groups=groups, group_col=args.group_col,
        level=args.level, boot=args.boot, rng=args.seed,
    )
    payload = report.to_dict()
    if args.compare:
        judged_b = judge(load_run(args.compare, chunk_map=chunk_map), qrels)
        queries, a, b = align_scores(
            judged.query_id, recall(judged, args.k, order=args.order),
            judged_b.query_id, recall(judged_b, args.k, order=args.order),
        )
        groups_ab = query_groups(run, qrels, args.group_col, queries) if args.group_col else None
        result = compare_scores(a, b, groups_ab, names=(args.run, args.compare), level=args.level,
                                boot=args.boot, rng=args.seed)
        payload["comparison"] = {**result.to_dict(), "n_queries": int((~np.isnan(a) & ~np.isnan(b)).sum())}
    emit(payload, as_json=args.json, table=_table)
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
        lines += [f"  {q['query_id']}  {'excluded' if q['recall'] is None else _num(q['recall'])}"
                  for q in per_query]
    else:
        lines.append(f"({len(per_query)} per-query scores: use --json)")
    return "\n".join(lines)
