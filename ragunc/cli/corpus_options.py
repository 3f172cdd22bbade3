"""The corpus table's ``--column`` mapping of the commands that read a corpus (chunk-eval, evalset build)."""

from __future__ import annotations

import argparse

from ..corpus.loaders import load_corpus
from ..data.reader import DataError, listing
from .options import column_mapping

CORPUS_COLUMNS = {"doc_id": "id_column", "text": "text_column", "doc_type": "type_column"}


def corpus_column_option(p: argparse.ArgumentParser) -> None:
    """``--column NAME=COLUMN`` of a command that reads a corpus table (doc_id, text, doc_type)."""
    p.add_argument(
        "--column",
        action="append",
        type=column_mapping,
        default=[],
        metavar="NAME=COLUMN",
        help="read the corpus' NAME (doc_id, text, doc_type) from its table's COLUMN, e.g. --column text=body "
        "(repeatable; BEIR's _id, title, text are read without it)",
    )


def corpus_of(args: argparse.Namespace):
    """The CORPUS argument, loaded with its ``--column`` mapping when there is one (else as the path given)."""
    if not args.column:
        return args.corpus
    unknown = [name for name, _ in args.column if name not in CORPUS_COLUMNS]
    if unknown:
        raise DataError(f"--column maps {listing(unknown)}; a corpus has {listing(CORPUS_COLUMNS)}")
    return load_corpus(args.corpus, **{CORPUS_COLUMNS[name]: column for name, column in args.column})
