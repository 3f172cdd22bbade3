"""The one cached-call helper: ``cached(compute, *args, **options)``, and the figures of cached results.

Results are kept in small LRU stores, one per computing function, keyed by what the call is
given (:func:`fingerprint`: equal inputs, equal keys, so no caller can hand another session a
value computed from other data) and handed out as the very objects computed: ragunc's results
are frozen dataclasses that pages only read, so a hit costs a dictionary lookup, where pickling a
copy (``st.cache_data``) would eat the 100 ms budget of a rerun at large D.  A large input (a
population, an array, a frame) is fingerprinted once per object, not per call.

The stores are plain dictionaries (held by ``st.cache_resource``, so they live as long as
Streamlit's cache and "Clear cache" empties them), not ``st.cache_resource`` around each
function: Streamlit records what a cached function draws and replays it on a hit, and a
progress bar drawn while computing would be replayed into a container that no longer exists
(CacheReplayClosureError).  So nothing is ever drawn inside a cached function: the spinner and
the progress bar are drawn here, around the computation.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import time
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from pathlib import PurePath
from typing import TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from . import work

T = TypeVar("T")
KEPT = 64  # results kept per computing function, the least recently used dropped first
FIGURES_KEPT = 128
PROGRESS_AFTER_S = 1.0  # show a progress bar only for work expected to take longer than this
# Document draws (R x B x K) of a coverage experiment below which it takes well under a second
# (R = 2,000, B = 1,000, K = 20 is 4e7 draws): no progress bar at all.
QUIET_COVERAGE_DRAWS = 100_000_000
LONG = 64  # items of a sequence above which its key is a digest


@st.cache_resource(show_spinner=False)
def _stores() -> tuple[dict[str, OrderedDict], threading.Lock]:
    # One set of stores for the whole server (as st.cache_resource itself): sessions share results.
    return {}, threading.Lock()


def cached(
    compute: Callable[..., T],
    /,
    *args,
    kept: int = KEPT,
    spinner: str | None = None,
    progress_label: str | None = None,
    **options,
) -> T:
    """``compute(*args, **options)``, computed once per content of ``args`` and ``options``, kept among the
    ``kept`` latest.

    The key is derived from the arguments (:func:`fingerprint`), never chosen by the caller.  ``compute`` is a module-level function of an importable module: its module
    and name name its store.

    While computing: ``spinner`` shows that text in a spinner; ``progress_label`` passes
    ``compute`` a ``progress=(done, total)`` callback that draws a labelled bar once the work
    looks slower than ``PROGRESS_AFTER_S``.
    """
    name = f"{compute.__module__}.{compute.__qualname__}"
    if compute.__module__ == "__main__" or "<" in compute.__qualname__:
        raise ValueError(f"cached() needs a module-level function of an importable module, got {name}")
    entry = (fingerprint(args), fingerprint(dict(sorted(options.items()))))
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


_FINGERPRINTS: dict[int, Hashable] = {}  # id of a live large object -> its fingerprint (dropped with the object)


def fingerprint(value) -> Hashable:
    """What stands for ``value`` in a cache key: equal for equal contents, different for different ones.

    Plain values stand for themselves; bytes, arrays, frames and dataclasses (ragunc's samples and
    results) by a digest of their contents, computed once per object while it lives; a file path by
    its name, size and modification time; a function by its module and name.  An object of none of
    these kinds stands for itself, by identity: the key holds it, so no other object takes its place.
    """
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("bytes", hashlib.sha1(value).hexdigest())
    if isinstance(value, (tuple, list)):
        parts = tuple(map(fingerprint, value))
        if len(parts) > LONG:  # a corpus' texts: one digest, not a key as long as the corpus to hash at each lookup
            return (type(value).__name__, hashlib.sha1(repr(parts).encode()).hexdigest())
        return (type(value).__name__, *parts)
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(map(fingerprint, value)))
    if isinstance(value, Mapping):
        return ("mapping", *((fingerprint(k), fingerprint(v)) for k, v in value.items()))
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.item())
    if isinstance(value, np.random.Generator):  # changes as it draws: read every time
        return ("rng", repr(value.bit_generator.state))
    if isinstance(value, PurePath):
        return ("path", str(value), _stats(value))
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        if "<" in value.__qualname__:  # a lambda or a closure: its name is not its content
            return ("object", value)
        return ("callable", value.__module__, value.__qualname__)
    if isinstance(value, types.MethodType):
        return ("method", fingerprint(value.__self__), value.__func__.__qualname__)
    known = _FINGERPRINTS.get(id(value))
    if known is not None:
        return known
    digest = _content(value)
    if digest is None:
        return ("object", value)
    if isinstance(digest, _Same):  # held by the key, not by the table of live objects' fingerprints
        return digest
    try:
        weakref.finalize(value, _FINGERPRINTS.pop, id(value), None)
    except TypeError:  # no weak reference to it: fingerprinted again next time
        return digest
    _FINGERPRINTS[id(value)] = digest
    return digest


class _Same:
    """An unhashable object in a key by identity: equal only to itself, and held, so no other object takes its id."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __eq__(self, other) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _stats(path) -> tuple:
    """Size and modification time of a file, or of every file under a folder (a set rewritten in place)."""
    if os.path.isdir(path):
        return tuple(
            (os.path.relpath(os.path.join(root, name), path), _stats(os.path.join(root, name)))
            for root, _, names in sorted(os.walk(path))
            for name in sorted(names)
        )
    if not os.path.exists(path):
        return ()
    stat = os.stat(path)
    return (stat.st_size, stat.st_mtime_ns)


def _content(value) -> Hashable | None:
    """A digest of a large object's contents; None for a hashable object that stands for itself (by its own
    equality: identity unless its class says otherwise); :class:`_Same` for an unhashable one without a digest."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            try:
                data = pd.util.hash_array(value.ravel()).tobytes()
            except TypeError:  # cells that hash as no value: by identity
                return _Same(value)
        else:
            data = np.ascontiguousarray(value).tobytes()
        return ("array", value.dtype.str, value.shape, hashlib.sha1(data).hexdigest())
    if isinstance(value, (pd.DataFrame, pd.Series, pd.Index)):
        try:
            rows = pd.util.hash_pandas_object(value, index=True).to_numpy()
        except TypeError:  # cells that hash as no value (lists): by identity
            return _Same(value)
        columns = tuple(map(str, value.columns)) if isinstance(value, pd.DataFrame) else (str(value.name),)
        return ("frame", columns, hashlib.sha1(rows.tobytes()).hexdigest())
    if dataclasses.is_dataclass(value):
        fields = (fingerprint(getattr(value, f.name)) for f in dataclasses.fields(value))
        return ("dataclass", type(value).__module__, type(value).__qualname__, *fields)
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"cached() cannot derive a key from a {type(value).__qualname__}") from None
    return None  # hashable: it stands for itself


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
    """``builder(*results, **options)`` built once per result (a simulation's figures are reused).

    ``None`` stands for an absent result.
    """
    return cached(_with_results, builder, *results, kept=FIGURES_KEPT, **options)[1]


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
