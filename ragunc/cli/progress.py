"""A progress bar on stderr for the commands that run long (tqdm is loaded by them alone)."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm


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
