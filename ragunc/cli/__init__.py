"""The ``ragunc`` command line: a readable table by default, JSON with ``--json``.

Each command lives in the module of ``ragunc/cli/`` named after it (``chunk-eval`` in
``chunk_eval.py``), which exposes ``configure(parser)``; the JSON keys each command prints
are a public contract.  :data:`COMMANDS` holds every command's one-line help, so that
``ragunc --help`` lists them all while a run imports the module of its own command alone:
``ragunc interval`` loads what an interval needs, not the evaluation set or the encoders.
The top layer: may import anything in ragunc.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable

# command -> its one-line help, in the order ``ragunc --help`` lists them
COMMANDS = {
    "interval": "estimate with naive, Wilson, cluster and cluster-bootstrap intervals",
    "simulate": "coverage of every interval, drawing K documents of the file R times",
    "plan": "documents needed for a target half-width",
    "compare": "paired comparison of configs on the same documents",
    "synth": "write a synthetic population with known truth (per-chunk results)",
    "aggregate": "chunk rows (many files, globs, partitioned folders) to one per-document statistics file",
    "chunk-eval": "chunk a corpus, retrieve with BM25, write per-chunk results (hit@1, rank)",
    "recall": "document-level Recall@k of a run (truncate at k chunks, then deduplicate documents)",
    "evalset": "build a frozen evaluation set from a corpus, evaluate a retriever on it",
    "positional": "positional bias of a dense encoder on a corpus, with and without attention calibration",
}


def build_parser(commands: Iterable[str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser, with the arguments of ``commands`` (default: all; each imports its module).

    Every command is listed either way; one left out parses nothing (``main`` builds the
    parser for the command it runs).
    """
    parser = argparse.ArgumentParser(
        prog="ragunc",
        description="Honest uncertainty for RAG retrieval evaluations (clusters = documents).",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    configured = set(commands)
    for name, help_text in COMMANDS.items():
        command = subparsers.add_parser(name, help=help_text)
        if name in configured:
            command_module(name).configure(command)
    return parser


def command_module(name: str):
    """The module of ``ragunc/cli/`` holding command ``name``, imported now: the CLI's one late import."""
    return importlib.import_module(f".{name.replace('-', '_')}", __name__)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The command is the first word that is not an option (the top level has only --help).
    command = next((word for word in argv if not word.startswith("-")), None)
    args = build_parser([command] if command in COMMANDS else []).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader stopped early (e.g. `| head`): not an error of ours. Point stdout at
        # /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as exc:
        # Bad input is the user's to fix (a DataError is a ValueError): one clear line, no traceback
        # (OSError: a missing or unreadable file, an --out path that cannot be written).
        print(f"ragunc {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
