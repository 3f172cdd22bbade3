"""Shared CLI output: JSON (the public contract) or a readable table; a progress bar on stderr."""
from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no inf/nan; null says "not defined here"
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return _jsonable(value.item())  # numpy scalar
    return value


def emit(payload: dict, *, as_json: bool, table: Callable[[dict], str]) -> None:
    """Print ``payload`` as JSON, or as the human table that ``table`` renders from it."""
    if as_json:
        print(json.dumps(_jsonable(payload), indent=2, ensure_ascii=False))
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
