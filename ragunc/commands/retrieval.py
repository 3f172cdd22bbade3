"""CLI commands of the retrieval group. SKELETON — being implemented."""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this group's subcommands; each sets func to a handler returning an exit code."""
