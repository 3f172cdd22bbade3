"""The ``ragunc`` command line: a readable table by default, JSON with ``--json``.

Each command group lives in ``ragunc/cli/<group>.py`` and exposes
``register(subparsers)``; the JSON keys each command prints are a public contract.
The top layer: may import anything in ragunc.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import aggregate, core, evalset, positional, ranking, retrieval, synth
from ..data.results import DataError

COMMAND_GROUPS = (core, synth, aggregate, retrieval, ranking, evalset, positional)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragunc",
        description="Honest uncertainty for RAG retrieval evaluations (clusters = documents).",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader stopped early (e.g. `| head`): not an error of ours. Point stdout at
        # /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (DataError, ValueError, OSError) as exc:
        # Bad input is the user's to fix: one clear line, no traceback (OSError: a missing or
        # unreadable file, an --out path that cannot be written).
        print(f"ragunc {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
