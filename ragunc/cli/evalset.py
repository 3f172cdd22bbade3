"""CLI commands ``ragunc evalset build | eval | add``: a frozen evaluation set from a corpus, and its recall.

``build`` exits 0 when it kept questions, 3 when it kept none, 4 when the endpoint stopped it
(quota, key, model), 130 when interrupted; every reply received is in the journal either way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..data.results import infer_file_type, write_results
from ..evalset.build import CHUNK_WORDS, CONCURRENCY, FUNNEL, build_evalset, plan_evalset
from ..evalset.evaluate import evaluate_evalset
from ..evalset.generators import OpenAIGenerator
from ..evalset.real import add_questions
from ..evalset.sampling import DEFAULT_MIX, QUESTION_TYPES
from ..evalset.store import JOURNAL, REVIEW
from ..evalset.text import LANGUAGES
from ..ranking.metrics import ranking_metric
from ..stats.methods import interval_method
from ..stats.recommend import RECOMMENDED_METHOD
from .options import recommended_text
from .corpus_options import corpus_column_option, corpus_of
from .output import emit, language_text, seed_arg
from .progress import progress_bar

EXIT_INTERRUPTED = 130


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc evalset`` and its subcommands; each sets ``func`` to a handler returning an exit code."""
    parser.description = (
        "Generated question -> chunk pairs, filtered (round trip, uniqueness, leakage, "
        "duplicates), with unanswerable negatives, frozen in a folder you commit."
    )
    commands = parser.add_subparsers(dest="evalset_command", required=True, metavar="SUBCOMMAND")
    mix = ",".join(f"{t}={w:g}" for t, w in DEFAULT_MIX.items())

    p = commands.add_parser(
        "build",
        help="sample chunks, generate questions, filter them, write the set",
        description="Sample chunks of CORPUS, ask a generator for one question per chunk, filter the pairs "
        "and write questions.jsonl, manifest.json and review/*.jsonl into --out. Every reply is journaled at "
        "once: the same command started again asks only for what is missing.",
    )
    p.add_argument(
        "corpus",
        metavar="CORPUS",
        help="'stdlib', a folder of .txt/.md/.html, or a .jsonl/.csv "
        "with doc_id, text[, doc_type] (anything chunk-eval accepts)",
    )
    corpus_column_option(p)
    p.add_argument("--n", type=_positive, required=True, help="chunks to sample: raw question-chunk pairs")
    p.add_argument(
        "--generator",
        choices=("offline", "openai"),
        required=True,
        help="offline: templates from salient terms, no model (leaky by construction); openai: any "
        "OpenAI-compatible chat-completions endpoint",
    )
    p.add_argument(
        "--base-url", help="endpoint, e.g. http://127.0.0.1:11434/v1 (default: the client's, api.openai.com)"
    )
    p.add_argument("--model", help="model name (required with --generator openai)")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (default %(default)s; unset: no key sent)",
    )
    p.add_argument(
        "--chunk-words",
        type=int,
        default=CHUNK_WORDS,
        help="units per chunk: words, or morphemes for an unspaced language (default %(default)s)",
    )
    p.add_argument(
        "--types",
        nargs="+",
        metavar="TYPE[=WEIGHT]",
        help=f"question-type mix from {', '.join(QUESTION_TYPES)} (default {mix})",
    )
    p.add_argument("--seed", type=seed_arg, default=0, help="sampling and generation seed (default %(default)s)")
    p.add_argument("--max-calls", type=_count, help="budget: at most this many calls (0: journal only)")
    p.add_argument(
        "--concurrency", type=_positive, default=CONCURRENCY, help="calls in flight at once (default %(default)s)"
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls and prompt tokens a build would need; call nothing, write nothing",
    )
    p.add_argument("--out", required=True, help="output folder (created; an existing build there is resumed)")
    p.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the corpus' language: its analyser cuts the chunks and words, its prompts ask (default: detected)",
    )
    p.add_argument("--max-per-doc", type=_positive, help="at most this many sampled chunks per document")
    p.add_argument("--popular", metavar="FILE", help="document weights: lines 'doc_id weight' or CSV doc_id,weight")
    p.add_argument(
        "--temperature", type=float, default=0.7, help="default %(default)s (at 0 questions clone one template)"
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per request (default %(default)s)")
    p.add_argument("--retries", type=_count, default=3, help="attempts after the first (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=_build)

    p = commands.add_parser(
        "eval",
        help="Recall@k of BM25 (or a run) on a set, with cluster intervals over source documents",
        description="Document-level Recall@k and friends on the set's answerable questions, naive and cluster "
        "intervals (questions grouped by source document) and the DEFF; negatives reported apart.",
    )
    p.add_argument("dir", metavar="DIR", help="a folder written by `ragunc evalset build`")
    p.add_argument("--k", type=_positive, default=10, help="cutoff in chunks (default %(default)s)")
    p.add_argument("--run", help="evaluate this run file (query_id = question_id) instead of ragunc's BM25")
    p.add_argument(
        "--results",
        help="write per-question results in the data contract (doc_id = source "
        "document) to this file (.csv, .parquet, .jsonl)",
    )
    p.add_argument(
        "--audit",
        metavar="FILE",
        help="a person's verdicts on judged pairs (question_id, chunk_id, "
        "relevant 1/0): adds recall with the relevant sets corrected by the audit",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=_eval)

    p = commands.add_parser(
        "add",
        help="merge real questions into a set; each displaces a synthetic one",
        description="FILE (.csv/.jsonl): question and its relevant chunk_ids and/or doc_ids (both empty: "
        "unanswerable); optional question_id, type. Displaced synthetic questions go to review/displaced.jsonl.",
    )
    p.add_argument("dir", metavar="DIR", help="a folder written by `ragunc evalset build`")
    p.add_argument("file", metavar="FILE", help="real questions (.csv or .jsonl)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=_add)


def _generator(args: argparse.Namespace):
    if args.generator == "offline":
        return "offline"
    if not args.model:
        raise ValueError("--generator openai needs --model")
    return OpenAIGenerator(
        args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        temperature=args.temperature,
        timeout=args.timeout,
        retries=args.retries,
    )


def _build(args: argparse.Namespace) -> int:
    generator = _generator(args)
    options = dict(
        n=args.n,
        generator=generator,
        chunk_words=args.chunk_words,
        types=args.types,
        seed=args.seed,
        max_per_doc=args.max_per_doc,
        popularity=args.popular,
        language=args.language,
    )
    if args.dry_run:
        plan = plan_evalset(corpus_of(args), args.out, max_calls=args.max_calls, **options)
        emit(plan.to_dict(), as_json=args.json, table=_plan_table)
        return 0
    try:
        with progress_bar("evalset calls", enabled=not args.no_progress) as progress:
            result = build_evalset(
                corpus_of(args),
                args.out,
                max_calls=args.max_calls,
                concurrency=args.concurrency,
                progress=progress,
                **options,
            )
    except KeyboardInterrupt:
        print(
            f"ragunc evalset build: interrupted; every reply received is in {Path(args.out) / JOURNAL}: "
            "run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if result.calls["stopped"]:
        print(
            f"ragunc evalset build: stopped: {result.calls['stopped']}; the replies received are kept: "
            "run the same command again to resume",
            file=sys.stderr,
        )
    elif result.calls["budget_reached"]:
        print(
            f"ragunc evalset build: the budget of {args.max_calls} calls is spent; raise --max-calls and run "
            "again to continue",
            file=sys.stderr,
        )
    if result.kept == 0:
        print(
            f"ragunc evalset build: no question was kept; read the review lists in {Path(args.out) / REVIEW}",
            file=sys.stderr,
        )
    emit(result.to_dict(), as_json=args.json, table=_build_table)
    return result.exit_status


def _eval(args: argparse.Namespace) -> int:
    if args.results:
        infer_file_type(args.results)  # an unknown extension fails before any work
    report = evaluate_evalset(args.dir, k=args.k, run=args.run, audit=args.audit)
    payload = report.to_dict()
    if args.results:
        payload["results"] = {"file": args.results, "file_type": write_results(report.results, args.results)}
    if not report.complete:
        print(
            f"ragunc evalset eval: {args.dir} is an unfinished build (budget or stop); its counts are partial",
            file=sys.stderr,
        )
    emit(payload, as_json=args.json, table=_eval_table)
    return 0


def _add(args: argparse.Namespace) -> int:
    result = add_questions(args.dir, args.file)
    emit(result.to_dict(), as_json=args.json, table=_add_table)
    return 0


# --------------------------------------------------------------------------- tables


def _ci(part: dict) -> str:
    low, high = part["ci"]
    return "undefined" if part["se"] is None else f"[{low:.3f}, {high:.3f}]"


def _build_table(d: dict) -> str:
    f, c, calls = d["funnel"], d["counts"], d["calls"]
    funnel = " -> ".join(f"{label.split(' (')[0]} {f[stage]}" for stage, label in FUNNEL)
    types = ", ".join(f"{t} {v['kept']}/{v['sampled']}" for t, v in d["by_type"].items())
    lines = [
        f"set              {d['out']}: {f['kept']} questions kept of {f['sampled']} sampled (language {d['language']})",
        f"language     {language_text(d['language_info'])}; chunks of {d['chunking']['config']}",
        f"funnel       {funnel}",
        f"by type      kept/sampled: {types}",
        f"generation   discarded {c['discarded']}, unparsable {c['unparsable']}, failed {c['failed']}, "
        f"not asked {c['not_asked']}",
        f"leakage      {c['leaky']} leaky; {c['rephrased']} fixed by one rephrasing, {c['leaks']} still leaking",
        f"filters      duplicates {c['duplicates']}; round trip failed {c['round_trip_failed']}; negatives answered "
        f"{c['negatives_answered']}; {c['multi_relevant']} with several relevant chunks",
        f"calls        made {calls['made']}, from the journal {calls['from_journal']}, failed {calls['failed']}"
        + (f" (budget {calls['max_calls']})" if calls["max_calls"] is not None else ""),
        f"review       {Path(d['out']) / REVIEW}/*.jsonl (the dropped pairs, to read)",
    ]
    if not d["complete"]:
        lines.append("status       unfinished: run the same command again to continue from the journal")
    return "\n".join(lines)


def _plan_table(d: dict) -> str:
    budget = (
        "" if d["max_calls"] is None else f"; the budget --max-calls {d['max_calls']} allows {d['calls_within_budget']}"
    )
    return "\n".join(
        [
            "dry run      no call made, nothing written",
            f"calls        {d['question_calls']} question prompts to ask ({d['journaled']} already in the journal); "
            f"at most {d['rephrase_calls_max']} rephrasings and {d['judge_calls_max']} judgments: at most "
            f"{d['calls_max']} calls{budget}",
            f"tokens       about {d['prompt_tokens']:,} prompt tokens for the questions, at most "
            f"{d['prompt_tokens_max']:,} with every rephrasing and judgment (at 4 characters per token, 1 per CJK character)",
            f"sample       {d['sample']['drawn']} chunks of {d['sample']['eligible_chunks']} eligible; types "
            + ", ".join(f"{t} {n}" for t, n in d["sample"]["types"].items())
            + f"; language {d['language']}",
            f"language     {language_text(d['language_info'])}",
        ]
    )


def _eval_table(d: dict) -> str:
    r, o, neg, k = d["recall"], d["origin"], d["negatives"], d["k"]
    lines = [
        f"set              {d['n_questions']} questions: {d['n_answerable']} answerable, {d['n_negatives']} negatives; "
        f"real {o['real']} / synthetic {o['synthetic']} ({o['real_share']:.0%} real)",
        f"retriever        {d['retriever']}",
        # A manifest written before languages had analysers records the code only (or nothing).
        "language         "
        + (
            language_text(d["language"])
            if "label" in (d["language"] or {})
            else (d["language"] or {}).get("code", "not recorded")
        ),
        f"intervals        {d['level']:.0%}, questions clustered by their {r['n_groups']} source documents; "
        f"recommended: {interval_method(RECOMMENDED_METHOD).label}",
    ]
    for name, m in {"recall": {**r, "mean": r["recall"]}, **d["metrics"]}.items():
        lines.append(
            ranking_metric(name).at(k).ljust(17) + f"{m['mean']:.3f}  recommended "
            f"{recommended_text(m['recommended'], label=False)}  naive {_ci(m['naive'])}  "
            f"cluster {_ci(m['cluster'])}  DEFF {'-' if m['deff'] is None else format(m['deff'], '.2f')}"
        )
    lines.append("by type          " + ", ".join(f"{t} {v['recall']:.3f} ({v['n']})" for t, v in d["by_type"].items()))
    if neg["n"]:
        line = f"negatives        {neg['n']}: a result returned for {neg['returned']['mean']:.0%}"
        if neg["confident"] is not None:
            line += (
                f"; top score >= the answerable median ({neg['threshold']:.2f}) for "
                f"{neg['confident']['mean']:.0%}, cluster {_ci(neg['confident']['cluster'])}"
            )
        lines.append(line)
    if "audit" in d:
        a, ppi = d["audit"], d["audit"]["prediction_powered"]
        lines += [
            f"Recall@{k} audited".ljust(17) + f"{a['recall_corrected']:.3f}  {_ci(ppi)}, the judge's relevant sets "
            f"corrected by {a['pairs']} audited pairs on {ppi['n_audited']} questions (judge's sets: "
            f"{a['recall_judge']:.3f}; audited questions alone {a['gold_only']['estimate']:.3f} {_ci(a['gold_only'])}; "
            f"lambda {ppi['lambda']:.2f})",
            f"audit            {a['made_irrelevant']} judged-relevant pair(s) were not, {a['made_relevant']} "
            f"unjudged pair(s) were"
            + (f"; {a['left_out']} question(s) left without a relevant chunk" if a["left_out"] else ""),
        ]
        if a["judged_note"]:
            lines.append(f"note             {a['judged_note']}")
    if "results" in d:
        lines.append(f"wrote            {d['results']['file']} ({d['results']['file_type']})")
    return "\n".join(lines)


def _add_table(d: dict) -> str:
    o = d["origin"]
    return (
        f"added {d['added']} real questions ({d['already_present']} already present), displaced "
        f"{d['displaced']} synthetic ones; the set is {o['real']} real / {o['synthetic']} synthetic "
        f"({o['real_share']:.0%} real)"
    )
