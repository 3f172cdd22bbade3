"""The one cached-call helper: ``cached(compute, *args, key=..., **options)``, and the figures of cached results.

Results are kept in small LRU stores, one per computing function, keyed by a cheap key (the
data source's key, a config, K, a seed: never a hash of the arrays) and handed out as the very
objects computed: ragunc's results are frozen dataclasses that pages only read, so a hit costs
a dictionary lookup, where pickling a copy (``st.cache_data``) would eat the 100 ms budget of a
rerun at large D.

The stores are plain dictionaries (held by ``st.cache_resource``, so they live as long as
Streamlit's cache and "Clear cache" empties them), not ``st.cache_resource`` around each
function: Streamlit records what a cached function draws and replays it on a hit, and a
progress bar drawn while computing would be replayed into a container that no longer exists
(CacheReplayClosureError).  So nothing is ever drawn inside a cached function: the spinner and
the progress bar are drawn here, around the computation.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

import streamlit as st

from . import work

T = TypeVar("T")
KEPT = 64  # results kept per computing function, the least recently used dropped first
FIGURES_KEPT = 128
PROGRESS_AFTER_S = 1.0  # show a progress bar only for work expected to take longer than this
# Document draws (R x B x K) of a coverage experiment below which it takes well under a second
# (R = 2,000, B = 1,000, K = 20 is 4e7 draws): no progress bar at all.
QUIET_COVERAGE_DRAWS = 100_000_000


@st.cache_resource(show_spinner=False)
def _stores() -> tuple[dict[str, OrderedDict], threading.Lock]:
    # One set of stores for the whole server (as st.cache_resource itself): sessions share results.
    return {}, threading.Lock()


def cached(
    compute: Callable[..., T],
    /,
    *args,
    key: Hashable = None,
    kept: int = KEPT,
    spinner: str | None = None,
    progress_label: str | None = None,
    **options,
) -> T:
    """``compute(*args, **options)``, computed once per ``key`` and ``options``, kept among the ``kept`` latest.

    ``args`` (samples, runs, bytes) are never hashed: ``key`` stands for them and must change
    whenever they do (the data source's key and the config, say).  ``options`` are cheap
    hashable values (k, level, a seed) and part of the key.  ``compute`` is a module-level
    function of an importable module: its module and name name its store.

    While computing: ``spinner`` shows that text in a spinner; ``progress_label`` passes
    ``compute`` a ``progress=(done, total)`` callback that draws a labelled bar once the work
    looks slower than ``PROGRESS_AFTER_S``.
    """
    name = f"{compute.__module__}.{compute.__qualname__}"
    if compute.__module__ == "__main__" or "<" in compute.__qualname__:
        raise ValueError(f"cached() needs a module-level function of an importable module, got {name}")
    if args and key is None:
        raise TypeError(f"cached({compute.__qualname__}, ...) needs a key that stands for its positional arguments")
    entry = (key, tuple(sorted(options.items())))
    stores, lock = _stores()
    with lock:
        store = stores.setdefault(name, OrderedDict())
        if entry in store:
            store.move_to_end(entry)
            return store[entry]
        running = _RUNNING.setdefault((name, entry), threading.Lock())
    # Sessions asking for one entry at once (a classroom opening the same view) wait for one computation.
    with running:
        with lock:
            if entry in store:
                return store[entry]
        try:
            value = _compute(compute, args, options, spinner, progress_label)
            _keep(store, lock, entry, value, kept)
        finally:
            with lock:
                _RUNNING.pop((name, entry), None)
    return value


_RUNNING: dict[tuple, threading.Lock] = {}  # (store, entry) -> held while that entry is being computed


def _keep(store: OrderedDict, lock: threading.Lock, entry, value, kept: int) -> None:
    with lock:  # computed outside the lock: one session's long simulation never blocks another's lookups
        store[entry] = value
        store.move_to_end(entry)
        while len(store) > kept:
            store.popitem(last=False)


def _compute(compute, args, options, spinner, progress_label):
    if spinner is None and progress_label is None:  # quick work (a figure, a small simulation) never queues
        return _compute_now(compute, args, options, spinner, progress_label)
    with work.slot():  # slow work, shared by every session: it queues, with its place shown
        return _compute_now(compute, args, options, spinner, progress_label)


def _compute_now(compute, args, options, spinner, progress_label):
    if progress_label is not None:
        progress = LazyProgress(st.empty(), progress_label)
        try:
            return compute(*args, **options, progress=progress)
        finally:
            progress.close()
    if spinner is not None:
        with st.spinner(spinner):
            return compute(*args, **options)
    return compute(*args, **options)


def coverage_progress(label: str, *, reps: int, boot: int, k: int) -> str | None:
    """``label`` as the ``progress_label`` of a coverage run whose estimated work may show a bar, else None."""
    return label if reps * max(boot, 1) * k > QUIET_COVERAGE_DRAWS else None


def _with_results(builder: Callable, *results, **options) -> tuple:
    return results, builder(*results, **options)


def figure(builder: Callable, *results, **options):
    """``builder(*results, **options)`` built once per cached result (a simulation's figures are reused).

    Keyed by the results' identities: the entry holds the results themselves, so while it is kept
    no other object can take their ids.  ``None`` stands for an absent result.
    """
    key = (builder.__module__, builder.__qualname__, *map(id, results))
    return cached(_with_results, builder, *results, key=key, kept=FIGURES_KEPT, **options)[1]


class LazyProgress:
    """A ``progress(done, total)`` callback that draws a bar only once the work looks slow."""

    def __init__(self, container, label: str):
        self.container, self.label = container, label
        self.start = time.perf_counter()
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.start
        expected = elapsed * total / max(done, 1)
        if self.bar is None and expected > PROGRESS_AFTER_S and done < total:
            self.bar = self.container.progress(0.0, text=self.label)
        if self.bar is not None:
            self.bar.progress(min(done / total, 1.0), text=f"{self.label} {done:,}/{total:,}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.empty()
