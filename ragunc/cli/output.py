"""Shared CLI output: JSON (the public contract) or a readable table; a progress bar on stderr."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm

from ..data.serialize import json_text


def emit(payload: dict, *, as_json: bool, table: Callable[[dict], str]) -> None:
    """Print ``payload`` as JSON, or as the human table that ``table`` renders from it."""
    if as_json:
        print(json_text(payload))
    else:
        print(table(payload))


@contextmanager
def progress_bar(description: str, *, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr."""
    bar = tqdm(desc=description, file=sys.stderr, disable=not enabled, unit="it", leave=False)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        bar.close()


def rows_text(rows: list[tuple[str, ...]]) -> str:
    """Rows of cells as left-aligned columns (the first row a header)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


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
