"""CLI command ``ragunc synth``: write a synthetic population in the data contract, with its known truth."""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path

from ..data.results import infer_file_type, results_from_frame, write_results
from ..data.serialize import json_text
from ..stats.diagnostics import diagnostics
from ..stats.linearization import estimate
from ..stats.synthetic import synthesize
from .output import emit, seed_arg

# option -> synthesize() keyword, in the order the reproducing command lists them
_PARAMETERS = (
    ("--docs", "n_docs", int, 1300, "number of documents"),
    ("--mean-chunks", "mean_chunks", float, 25.8, "mean chunks per document"),
    ("--size-cv", "size_cv", float, 0.8, "coefficient of variation of chunks per document"),
    ("--p", "p", float, 0.18, "mean document rate (e.g. hit@1)"),
    ("--icc", "icc", float, 0.3, "intraclass correlation: Var(p_d) / (p (1 - p))"),
    ("--autocorr", "autocorr", float, 0.17, "correlation of neighbouring chunks given the document's rate"),
    ("--doc-types", "doc_types", int, 4, "number of doc_type strata"),
    ("--doc-type-share", "doc_type_share", float, 0.126, "share of Var(p_d) explained by doc_type"),
    ("--config", "config", str, "100w", "config label written in every row"),
)


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc synth``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = (
        "Write a synthetic population in the data contract (CSV, Parquet or JSONL by the "
        "--out extension, .gz allowed) and print its truth and realized diagnostics."
    )
    for option, dest, kind, default, text in _PARAMETERS:
        parser.add_argument(option, dest=dest, type=kind, default=default, help=f"{text} (default {default})")
    parser.add_argument("--seed", type=seed_arg, default=None, help="random seed (default: drawn and reported)")
    parser.add_argument("--out", required=True, help="output file: .csv, .parquet, .jsonl or .ndjson, optionally .gz")
    parser.add_argument("--metadata", default=None, help="also write the JSON summary to this file")
    parser.add_argument("--note", default=None, help="free text kept in the summary (e.g. why these parameters)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    infer_file_type(args.out)  # an unknown extension fails before any work
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    params = {dest: getattr(args, dest) for _, dest, *_ in _PARAMETERS}
    frame = synthesize(**params, rng=seed)
    file_type = write_results(frame, args.out)
    sample = results_from_frame(frame, source=args.out).population()
    diag = diagnostics(sample)
    command = " ".join(
        ["ragunc synth"]
        + [f"{option} {getattr(args, dest)}" for option, dest, *_ in _PARAMETERS]
        + [f"--seed {seed}", f"--out {Path(args.out).name}"]
    )
    payload = {
        "out": str(args.out),
        "file_type": file_type,
        "command": command,
        "seed": seed,
        "parameters": params,
        "counts": {
            "docs": sample.n_docs,
            "chunks": sample.n_chunks,
            "hits": int(sample.sum_y.sum()),
            "docs_per_type": {str(t): int((sample.label == t).sum()) for t in sorted(set(sample.label))},
        },
        # The file is the whole population: these are the true values a sample of documents estimates.
        "truth": {"micro": estimate(sample, "micro"), "macro": estimate(sample, "macro")},
        "realized": {
            "mean_size": diag.mean_size,
            "cv_size": diag.cv_size,
            "icc": diag.icc,
            "lag1_autocorr": diag.lag1_autocorr,
            "doc_type_share": diag.doc_type_share,
        },
    }
    if args.note:
        payload["note"] = args.note
    if args.metadata:
        Path(args.metadata).write_text(json_text(payload) + "\n")
    emit(payload, as_json=args.json, table=_table)
    return 0


def _table(payload: dict) -> str:
    counts, truth, real = payload["counts"], payload["truth"], payload["realized"]
    return "\n".join(
        [
            f"wrote {payload['out']} ({payload['file_type']}): {counts['docs']} documents, "
            f"{counts['chunks']} chunks, {counts['hits']} hits",
            f"truth        micro {truth['micro']:.4f}   macro {truth['macro']:.4f}",
            f"realized     mean size {real['mean_size']:.2f}  size CV {real['cv_size']:.2f}  "
            f"ICC {real['icc']:.3f}  lag-1 residual autocorr {real['lag1_autocorr']:.3f}  "
            f"doc_type share {real['doc_type_share']:.3f}",
            f"reproduce    {payload['command']}",
        ]
    )
