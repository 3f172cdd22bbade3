"""CLI command ``ragunc aggregate``: chunk rows in many files to one per-document statistics file."""

from __future__ import annotations

import argparse

from ..data.aggregate import aggregate
from ..data.reader import infer_file_type
from .options import column_mapping
from .output import emit
from .progress import progress_bar


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc aggregate``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = (
        "Validate and aggregate per-chunk results out of core (DuckDB, flat memory) into one row "
        "per (config, document); every command reads the result wherever it reads per-chunk results."
    )
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="per-chunk results: files, glob patterns ('runs/**/*.parquet', quoted) or folders "
        "(every data file below; key=value folders are columns)",
    )
    parser.add_argument(
        "--out",
        required=True,
        help="per-document file to write: .parquet, .csv, .tsv, .jsonl or .ndjson, optionally .gz",
    )
    parser.add_argument(
        "--column",
        action="append",
        type=column_mapping,
        default=[],
        metavar="NAME=COLUMN",
        help="read contract column NAME from the files' COLUMN, e.g. --column y=hit1 (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of a table")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    infer_file_type(args.out)  # an unknown extension fails before any work
    with progress_bar("aggregate") as progress:
        summary = aggregate(args.inputs, args.out, columns=dict(args.column) or None, progress=progress)
    emit(summary.to_dict(), as_json=args.json, table=_table)
    return 0


def _table(d: dict) -> str:
    configs = ", ".join(f"{config} {n:,}" for config, n in d["configs"].items())
    return (
        f"wrote {d['out']} ({d['file_type']}, per-document format version {d['format_version']}): "
        f"{d['documents']:,} documents from {d['rows']:,} chunk rows in {d['files']:,} file(s)\n"
        f"documents per config: {configs}"
    )
