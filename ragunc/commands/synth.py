"""CLI command ``ragunc synth``. SKELETON — being implemented."""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``synth``; it sets ``func`` to a handler returning an exit code."""
