"""Shared CLI output: JSON (the public contract) or a readable table, and the cells of the tables."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..data.serialize import json_text


def emit(payload: dict, *, as_json: bool, table: Callable[[dict], str]) -> None:
    """Print ``payload`` as JSON, or as the human table that ``table`` renders from it."""
    if as_json:
        print(json_text(payload))
    else:
        print(table(payload))


def rows_text(rows: list[tuple[str, ...]]) -> str:
    """Rows of cells as left-aligned columns (the first row a header)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def number_text(x, spec: str = ".4f") -> str:
    """A number of a table: ``n/a`` for None and NaN."""
    return "n/a" if x is None or x != x else format(x, spec)


def interval_text(ci) -> str:
    """``[low, high]`` of a table, each end as :func:`number_text` writes it."""
    return f"[{number_text(ci[0])}, {number_text(ci[1])}]"


def seed_arg(text: str) -> int:
    """argparse type of ``--seed``: numpy seeds are non-negative integers."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {value}")
    return value


def language_text(language: dict) -> str:
    """A summary's language line: ``Japanese (ja, detected); units: morphemes (MeCab ...)``."""
    how = "detected" if language["detected"] else "given"
    return f"{language['label']} ({language['code']}, {how}); units: {language['unit']} ({language['analyser']})"
