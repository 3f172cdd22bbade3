"""Heavy work on a shared server: a budget per computation, a bounded pool of work slots for all sessions.

Every slow computation the dashboard caches (one it shows a spinner or a progress bar for,
``dashboard.cache``), every evaluation-set build and every positional sweep runs inside a
:func:`slot`: at most :data:`WORKERS` at once over all sessions, first come first served, the
others waiting with their place in the queue on screen. A session's script runs one request at a
time, and a rerun (a widget moved) leaves the queue at once. Quick work (a cached result redrawn,
a figure, the explorer's prefetch in its one background thread) takes no slot, so the room stays
responsive while heavy work queues.

A link can ask for any R, B and K within the widgets' ranges: :func:`within_budget` lowers R and B
of one coverage experiment to :data:`WORK_BUDGET` document draws, with a note saying so.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

# Slots for heavy work over all sessions: one core stays free for everyone's cheap reruns.
WORKERS = max(1, (os.cpu_count() or 2) - 1)
# Document draws (R x B x K) of one coverage experiment: a few seconds of one core.
WORK_BUDGET = 1_000_000_000
# Chunks of a synthetic population (documents x mean chunks): its arrays stay in the low hundreds of MB.
SYNTHETIC_MAX_CHUNKS = 1_000_000
WAIT_POLL_S = 0.25  # how often a waiting session redraws its place (a rerun request takes effect then)

_condition = threading.Condition()
_queue: list[int] = []  # tickets waiting, oldest first
_running = [0]
_tickets = itertools.count()
_held = threading.local()  # slots this thread holds (a computation inside another takes none)


@contextmanager
def slot(waiting: Callable[[int], None] | None = None) -> Iterator[None]:
    """Hold one of the :data:`WORKERS` slots while the block runs; wait first, first come first served.

    While waiting, ``waiting(ahead)`` is called every :data:`WAIT_POLL_S` seconds with the number of
    requests ahead (default: an ``st.info`` line with the position, which is also where a rerun
    requested meanwhile interrupts the wait). A block inside another slot of the same thread runs at once.
    """
    depth = getattr(_held, "depth", 0)
    if depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth = depth
        return
    ticket = next(_tickets)
    box = None
    with _condition:
        _queue.append(ticket)
    try:
        while True:
            with _condition:
                ahead = _queue.index(ticket) + _running[0]  # those waiting before it, and those running
                if _queue[0] == ticket and _running[0] < WORKERS:
                    _queue.pop(0)
                    _running[0] += 1
                    break
                _condition.wait(WAIT_POLL_S)
            if waiting is not None:
                waiting(ahead)
            else:
                box = box or st.empty()
                plural = "s" if ahead != 1 else ""
                box.info(f"The server is busy: {ahead:,} request{plural} ahead of yours; yours starts by itself.")
    except BaseException:
        with _condition:
            if ticket in _queue:
                _queue.remove(ticket)
            _condition.notify_all()
        raise
    finally:
        if box is not None:
            box.empty()
    _held.depth = 1
    try:
        yield
    finally:
        _held.depth = 0
        with _condition:
            _running[0] -= 1
            _condition.notify_all()


def within_budget(reps: int, boot: int, k: int) -> tuple[int, int, str | None]:
    """``(R, B, note)``: R and B lowered by one factor, when R x B x K passes :data:`WORK_BUDGET`, and a note."""
    work = reps * max(boot, 1) * k
    if work <= WORK_BUDGET:
        return reps, boot, None
    scale = math.sqrt(WORK_BUDGET / work)
    low_reps, low_boot = (max(100, int(value * scale) // 100 * 100) for value in (reps, boot))
    while low_reps * low_boot * k > WORK_BUDGET and (low_reps > 100 or low_boot > 100):
        low_reps, low_boot = max(100, low_reps - 100), max(100, low_boot - 100)
    note = (
        f"R = {reps:,} and B = {boot:,} at K = {k} would take {work:,} document draws; this shared server does "
        f"up to {WORK_BUDGET:,} per computation, so this one runs R = {low_reps:,}, B = {low_boot:,}. "
        "`ragunc simulate` on your own machine runs any R and B."
    )
    return low_reps, low_boot, note


def synthetic_docs(n_docs: int, mean_chunks: float) -> tuple[int, str | None]:
    """The documents of a synthetic population, lowered so that it holds at most :data:`SYNTHETIC_MAX_CHUNKS` chunks."""
    if n_docs * mean_chunks <= SYNTHETIC_MAX_CHUNKS:
        return n_docs, None
    lowered = max(10, int(SYNTHETIC_MAX_CHUNKS / mean_chunks))
    return lowered, (
        f"{n_docs:,} documents of {mean_chunks:g} chunks on average would hold {n_docs * mean_chunks:,.0f} chunks; "
        f"this server generates up to {SYNTHETIC_MAX_CHUNKS:,}, so {lowered:,} documents."
    )
