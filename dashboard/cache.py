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

import itertools
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
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
        running = _IN_FLIGHT.get((name, entry))
    if running is not None:  # being prefetched: wait for it rather than compute it twice
        try:
            return running.result()
        except Exception:  # the foreground computes again, and shows the error
            pass
    value = _compute(compute, args, options, spinner, progress_label)
    _keep(store, lock, entry, value, kept)
    return value


def _keep(store: OrderedDict, lock: threading.Lock, entry, value, kept: int) -> None:
    with lock:  # computed outside the lock: one session's long simulation never blocks another's lookups
        store[entry] = value
        store.move_to_end(entry)
        while len(store) > kept:
            store.popitem(last=False)


# Prefetching: what the next slider move will likely ask, computed in one background thread.
_PREFETCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragunc-prefetch")
_IN_FLIGHT: dict[tuple, Future] = {}
_REQUESTS = itertools.count()
_LATEST = [0]
PREFETCH_KEPT = 4  # requests that may still wait; older ones are dropped (the user has moved on)


def prefetch(compute: Callable, /, *args, key: Hashable = None, kept: int = KEPT, **options) -> None:
    """Compute ``cached(compute, *args, key=key, **options)`` in a background thread, unless kept already.

    For the values the next slider move will likely ask for (the neighbouring K).  Only the
    latest ``PREFETCH_KEPT`` requests are computed; a foreground ``cached`` call for an entry
    being prefetched waits for it.  Nothing is drawn: ``compute`` runs without a progress bar,
    and an error is left for the foreground call to raise and show.
    """
    name = f"{compute.__module__}.{compute.__qualname__}"
    entry = (key, tuple(sorted(options.items())))
    stores, lock = _stores()
    with lock:
        store = stores.setdefault(name, OrderedDict())
        if entry in store or (name, entry) in _IN_FLIGHT:
            return
        request = _LATEST[0] = next(_REQUESTS)

        def run():
            try:
                if request <= _LATEST[0] - PREFETCH_KEPT:
                    raise _Stale
                value = compute(*args, **options)
                _keep(store, lock, entry, value, kept)
                return value
            finally:
                with lock:
                    _IN_FLIGHT.pop((name, entry), None)

        _IN_FLIGHT[(name, entry)] = _PREFETCHER.submit(run)


def wait_for_prefetch() -> None:
    """Block until every prefetch request made so far has run (for tests and benchmarks)."""
    _PREFETCHER.submit(lambda: None).result()


class _Stale(Exception):
    """A prefetch request overtaken by newer ones before it started."""


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
