"""What every loader of the data contract shares: :class:`DataError` and the phrases its messages use.

The seed of the one file reader (issue 8 moves kind detection, gzip sniffing and the
header peek here too).  It sits below ``results`` and ``per_document``, so that both
raise the same error without importing each other.
"""
from __future__ import annotations


SHOWN_ROWS = 5  # how many offending rows (or documents) a message names


class DataError(ValueError):
    """Bad input: the message names the column and the first offending rows (1-based data rows)."""


def rows_phrase(first: list[int], n: int) -> str:
    """"row 3", "rows 3, 7" or "first rows 3, 7, 9, 12, 15 (of 40)" for ``n`` rows whose first are ``first``."""
    shown = ", ".join(str(r) for r in first)
    if n > len(first):
        return f"first rows {shown} (of {n})"
    return f"row {shown}" if n == 1 else f"rows {shown}"


def listing(items) -> str:
    return ", ".join(repr(i) for i in items)
