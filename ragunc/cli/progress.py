"""A progress line on stderr for the commands that run long: redrawn in place, erased when the work ends."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(description: str, *, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback writing ``description:  45% 900/2000`` on stderr.

    The line is written again only when its text changes, and blanked at the end, so
    that stdout (the JSON) and the shell prompt find a clean line.
    """
    shown = ""

    def update(done: int, total: int) -> None:
        nonlocal shown
        text = f"{description}: {done / total:4.0%} {done}/{total}" if total else f"{description}: {done}"
        if enabled and text != shown:
            sys.stderr.write("\r" + text.ljust(len(shown)))
            sys.stderr.flush()
            shown = text

    try:
        yield update
    finally:
        if shown:
            sys.stderr.write("\r" + " " * len(shown) + "\r")
            sys.stderr.flush()
