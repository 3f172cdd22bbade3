"""The shared pool of work slots: at most WORKERS at once, first come first served, the place in the queue
reported while waiting, a computation inside another taking no second slot; and the work budget of a coverage experiment."""

from __future__ import annotations

import threading
import time

import pytest

from dashboard import work


@pytest.fixture
def one_worker(monkeypatch):
    monkeypatch.setattr(work, "WORKERS", 1)
    monkeypatch.setattr(work, "WAIT_POLL_S", 0.01)


def test_requests_wait_their_turn_in_order_and_see_their_place(one_worker):
    order, places = [], {}
    release = threading.Event()

    def request(name: str) -> None:
        with work.slot(waiting=lambda ahead: places.setdefault(name, []).append(ahead)):
            order.append(name)
            if name == "first":
                release.wait(5)

    threads = [threading.Thread(target=request, args=(name,)) for name in ("first", "second", "third")]
    for thread in threads:
        thread.start()
        time.sleep(0.1)  # each queued after the one before
    assert order == ["first"]  # one slot: the others wait
    assert places["second"][-1] == 1 and places["third"][-1] == 2  # the running one, and the waiting one ahead
    release.set()
    for thread in threads:
        thread.join(5)
    assert order == ["first", "second", "third"]
    assert work._running == [0] and work._queue == []  # every slot given back


def test_a_computation_inside_another_takes_no_second_slot_and_an_error_frees_the_slot(one_worker):
    with work.slot(waiting=pytest.fail):
        with work.slot(waiting=pytest.fail):  # would wait for itself forever with a second slot
            pass
    with pytest.raises(RuntimeError):
        with work.slot(waiting=pytest.fail):
            raise RuntimeError
    assert work._running == [0]


def test_a_request_interrupted_while_waiting_leaves_the_queue(one_worker):
    class Rerun(Exception):  # as Streamlit interrupts a script when a widget moves
        pass

    def interrupt(ahead):
        raise Rerun

    outcome = []

    def wait():
        try:
            with work.slot(waiting=interrupt):
                outcome.append("ran")
        except Rerun:
            outcome.append("left")

    with work.slot(waiting=pytest.fail):
        thread = threading.Thread(target=wait)
        thread.start()
        thread.join(5)
    assert outcome == ["left"] and work._queue == [] and work._running == [0]


@pytest.mark.parametrize(
    ("reps", "boot", "k"), [(5000, 5000, 300), (5000, 5000, 601), (1000, 1000, 20), (100, 5000, 4000)]
)
def test_the_budget_lowers_r_and_b_only_past_it(reps, boot, k):
    low_reps, low_boot, note = work.within_budget(reps, boot, k)
    if reps * boot * k <= work.WORK_BUDGET:
        assert (low_reps, low_boot, note) == (reps, boot, None)
    else:
        assert low_reps * low_boot * k <= work.WORK_BUDGET or (low_reps, low_boot) == (100, 100)
        assert low_reps <= reps and low_boot <= boot and f"R = {low_reps:,}, B = {low_boot:,}" in note
