"""CLI command ``ragunc chunk-eval``: per-chunk BM25 results of a corpus at any chunk size."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..corpus.language import LANGUAGE_CODES
from ..data.results import infer_file_type, write_results
from ..data.serialize import json_text
from ..retrieval.bm25 import Tokenizer
from ..retrieval.known_item import SELECTIONS, QueryModel, read_query_file
from ..retrieval.pipeline import chunk_eval_parts, qrels, top_k_run
from .corpus_options import corpus_column_option, corpus_of
from .output import emit, language_text, seed_arg
from .progress import progress_bar


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc chunk-eval``'s arguments and handler (``func``, returning an exit code)."""
    defaults = QueryModel()
    parser.description = (
        "Chunk CORPUS into windows of N units (words; morphemes in Japanese, jieba tokens in Chinese), "
        "give every chunk one simulated known-item "
        "query (or read --queries), retrieve with BM25 Okapi over all chunks and write one row per "
        "query: doc_id, chunk_id, chunk_index, n_words, config, doc_type, y (hit@1), doc_hit1, rank."
    )
    parser.add_argument(
        "corpus",
        metavar="CORPUS",
        help="'stdlib' (the Python standard library's documentation), a folder of "
        ".txt/.md/.html files, or a .jsonl/.csv file with doc_id, text[, doc_type]",
    )
    parser.add_argument(
        "--chunk-words",
        type=int,
        default=100,
        help="units per chunk, >= 10: words, or the analyser's morphemes for an unspaced language (default 100)",
    )
    parser.add_argument("--overlap", type=int, default=0, help="units shared by neighbouring chunks (default 0)")
    parser.add_argument(
        "--language",
        choices=LANGUAGE_CODES,
        default=None,
        help="the corpus' language, whose analyser cuts chunks and terms (default: detected)",
    )
    parser.add_argument(
        "--queries",
        default=None,
        help="queries file (.csv/.jsonl: query, chunk_id[, query_id]; BEIR queries.jsonl with --relevant) "
        "instead of simulated ones; a relevant doc_id stands for every chunk of it",
    )
    parser.add_argument(
        "--relevant",
        metavar="QRELS",
        help="each query's relevant documents, for a queries file without chunk_id (BEIR qrels/test.tsv, TREC, ranx)",
    )
    corpus_column_option(parser)
    parser.add_argument("--out", default=None, help="results file (.csv, .parquet, .jsonl; .gz allowed)")
    parser.add_argument("--metadata", default=None, help="also write the JSON summary to this file")
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the query simulation (default 0)")
    parser.add_argument("--cutoff", type=int, default=100, help="ranks above this are left empty (default 100)")
    parser.add_argument(
        "--query-length",
        type=float,
        default=defaults.mean_length,
        help=f"mean simulated query length (Poisson, default {defaults.mean_length})",
    )
    parser.add_argument(
        "--selection",
        choices=SELECTIONS,
        default=defaults.selection,
        help=f"how simulated query terms are picked from the chunk (default {defaults.selection})",
    )
    parser.add_argument(
        "--lam",
        type=float,
        default=defaults.lam,
        help=f"share of query terms from the chunk rather than the collection (default {defaults.lam})",
    )
    parser.add_argument(
        "--stopwords",
        choices=("en", "pt", "es"),
        default=None,
        help="drop this language's stopwords when tokenising (default: keep all)",
    )
    parser.add_argument(
        "--run",
        default=None,
        help="also write the top-k run (query_id, rank, score, chunk_id, doc_id) of a seeded "
        "subset of the queries to this file",
    )
    parser.add_argument(
        "--qrels", default=None, help="with --run: write its qrels (query_id, doc_id, chunk_id, relevance) to this file"
    )
    parser.add_argument("--run-queries", type=int, default=2000, help="queries in the --run subset (default 2000)")
    parser.add_argument("--run-k", type=int, default=20, help="chunks per query in --run (default 20)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    model = QueryModel(mean_length=args.query_length, selection=args.selection, lam=args.lam)
    tokenizer = Tokenizer(stopwords=args.stopwords) if args.stopwords else None
    for path in (args.out, args.run, args.qrels):
        if path:
            infer_file_type(path)  # an unknown extension fails before any work
    if args.qrels and not args.run:
        raise ValueError("--qrels needs --run")
    if args.relevant and not args.queries:
        raise ValueError("--relevant needs --queries")
    with progress_bar(f"chunk-eval {args.chunk_words}", enabled=not args.no_progress) as progress:
        parts = chunk_eval_parts(
            corpus_of(args),
            chunk_words=args.chunk_words,
            overlap=args.overlap,
            queries=read_query_file(args.queries, relevant=args.relevant) if args.relevant else args.queries,
            query_model=model,
            tokenizer=tokenizer,
            language=args.language,
            cutoff=args.cutoff,
            rng=args.seed,
            progress=progress,
        )
    frame = parts.results
    summary = dict(frame.attrs["summary"])
    if args.stopwords:
        summary["stopwords"] = args.stopwords
    command = ["ragunc chunk-eval", args.corpus, f"--chunk-words {args.chunk_words}"]
    if args.overlap:
        command.append(f"--overlap {args.overlap}")
    if args.language:
        command.append(f"--language {args.language}")
    if args.queries:
        command.append(f"--queries {args.queries}")
    else:
        command += [
            f"--seed {args.seed}",
            f"--query-length {args.query_length}",
            f"--selection {args.selection}",
            f"--lam {args.lam}",
        ]
    if args.stopwords:
        command.append(f"--stopwords {args.stopwords}")
    command.append(f"--cutoff {args.cutoff}")
    if args.out:
        command.append(f"--out {Path(args.out).name}")
        summary["file_type"] = write_results(frame, args.out)
    summary["out"] = args.out
    if args.run:
        # A separate stream of the seed picks the subset, so it does not shift the queries.
        n_run = min(args.run_queries, len(parts.queries))
        rows = np.sort(np.random.default_rng([args.seed, 1]).choice(len(parts.queries), n_run, replace=False))
        subset = parts.queries.subset(rows)
        write_results(top_k_run(parts.retrieval, subset, k=args.run_k), args.run)
        if args.qrels:
            write_results(qrels(parts.retrieval, subset), args.qrels)
        command += [f"--run {Path(args.run).name}", f"--run-queries {args.run_queries}", f"--run-k {args.run_k}"]
        if args.qrels:
            command.append(f"--qrels {Path(args.qrels).name}")
        summary["run"] = {"file": args.run, "qrels": args.qrels, "n_queries": n_run, "k": args.run_k}
    summary["command"] = " ".join(command)
    summary["hit_at"] = {
        str(k): float((frame["rank"] <= k).fillna(False).mean()) for k in (1, 5, 10, 20, 100) if k <= args.cutoff
    }
    if args.metadata:
        Path(args.metadata).write_text(json_text(summary) + "\n")
    emit(summary, as_json=args.json, table=_table)
    return 0


def _table(s: dict) -> str:
    hits = "  ".join(f"hit@{k} {v:.3f}" for k, v in s["hit_at"].items())
    lang = s["language"]
    units = "" if lang["unit"] == "words" else f", {s['n_units']} {lang['unit']}"
    lines = [
        f"corpus       {s['source']}: {s['n_docs']} documents, {s['n_words']} words{units}"
        + (f" ({s['n_empty_skipped']} empty skipped)" if s["n_empty_skipped"] else ""),
        f"language     {language_text(lang)}",
        f"chunks       {s['n_chunks']} at {s['config']}; {s['n_queries']} queries ({s['queries']})",
        f"retrieval    {hits}  doc_hit1 {s['doc_hit1']:.3f}",
        f"time         {s['seconds']:.2f} s",
    ]
    if s["out"]:
        lines.append(f"wrote        {s['out']} ({s['file_type']})")
    if s.get("run"):
        run = s["run"]
        lines.append(
            f"run          top-{run['k']} of {run['n_queries']} queries -> {run['file']}"
            + (f", qrels -> {run['qrels']}" if run["qrels"] else "")
        )
    lines.append(f"reproduce    {s['command']}")
    return "\n".join(lines)
