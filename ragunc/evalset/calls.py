"""Asking: the journal first, then the generator, within a budget, a concurrency limit and a stop.

One :class:`Asker` serves every phase of a build (questions, rephrasings, judgments), so
the ``max_calls`` budget, the stop and the progress count span them all. A reply is
journaled by the worker that received it, before anything else happens to it; an
interruption of the main thread (Ctrl-C, a dashboard stop) lets the calls in flight
finish and journal, starts no new one, and re-raises.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from .generators import CallFailed, GenerationStopped, Generator, Task
from .journal import Journal

FROM_JOURNAL, ASKED, FAILED, NOT_ASKED = "journal", "asked", "failed", "not_asked"
STOPPED_BY_USER = "stopped by the user"  # the caller's stop(), as opposed to the endpoint refusing


@dataclass(frozen=True)
class Outcome:
    """What became of one task: a reply (from the journal or asked now), a failure, or not asked."""

    status: str
    reply: str | None = None
    reason: str = ""
    attempts: int = 0


class Asker:
    """Runs tasks through ``generator``, reading and feeding ``journal`` (see the module docstring)."""

    def __init__(
        self,
        generator: Generator,
        journal: Journal,
        *,
        seed: int,
        max_calls: int | None = None,
        concurrency: int = 1,
        progress: Callable[[int, int], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> None:
        self.generator = generator
        self.journal = journal
        self.seed = int(seed)
        self.max_calls = max_calls
        self.concurrency = int(concurrency)
        self.progress = progress
        self.stop = stop
        self.made = 0  # calls sent in this build
        self.reused = 0  # replies read from the journal
        self.failed = 0
        self.stopped: str | None = None  # why no more calls are made (quota, user), None while running
        self.budget_reached = False
        self._stopping = threading.Event()
        self._done = self._total = 0

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self._done, self._total)

    def _may_call(self) -> bool:
        if self.stopped is None and self.stop is not None and self.stop():
            self.stopped = STOPPED_BY_USER
        if self.stopped is not None:
            return False
        if self.max_calls is not None and self.made >= self.max_calls:
            self.budget_reached = True
            return False
        self.made += 1
        return True

    def _not_asked(self) -> Outcome:
        why = self.stopped or f"the budget of {self.max_calls} calls was spent"
        return Outcome(NOT_ASKED, reason=why)

    def _call(self, task: Task, key) -> Outcome:
        started = time.perf_counter()
        try:
            reply = self.generator.complete(task, seed=self.seed, stopping=self._stopping)
        except CallFailed as exc:
            return Outcome(FAILED, reason=exc.reason, attempts=exc.attempts)
        except GenerationStopped as exc:
            self.stopped = str(exc)
            return Outcome(NOT_ASKED, reason=str(exc))
        self.journal.append(key, reply, seconds=round(time.perf_counter() - started, 3))
        return Outcome(ASKED, reply=reply)

    def ask(self, tasks: Sequence[Task]) -> list[Outcome]:
        """One outcome per task, in task order."""
        outcomes: list[Outcome | None] = [None] * len(tasks)
        keys = [task.key(self.generator.model, self.seed) for task in tasks]
        pending = []
        for i, key in enumerate(keys):
            reply = self.journal.get(key)
            if reply is None:
                pending.append(i)
            else:
                outcomes[i] = Outcome(FROM_JOURNAL, reply=reply)
        self.reused += len(tasks) - len(pending)
        self._total += len(tasks)
        self._done += len(tasks) - len(pending)
        self._report()
        if self.concurrency <= 1:
            for i in pending:
                outcomes[i] = self._call(tasks[i], keys[i]) if self._may_call() else self._not_asked()
                self._finish(outcomes[i])
        else:
            self._run_parallel(tasks, keys, pending, outcomes)
        return outcomes

    def _finish(self, outcome: Outcome) -> None:
        self.failed += outcome.status == FAILED
        self._done += 1
        self._report()

    def _run_parallel(self, tasks, keys, pending, outcomes) -> None:
        queue = iter(pending)
        running: dict[Future, int] = {}
        executor = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="ragunc-evalset")
        try:
            exhausted = False
            while True:
                while not exhausted and len(running) < self.concurrency:
                    i = next(queue, None)
                    if i is None:
                        exhausted = True
                    elif self._may_call():
                        running[executor.submit(self._call, tasks[i], keys[i])] = i
                    else:
                        outcomes[i] = self._not_asked()
                        self._finish(outcomes[i])
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    i = running.pop(future)
                    outcomes[i] = future.result()
                    self._finish(outcomes[i])
        except BaseException:
            # Calls in flight finish and journal their replies; nothing new starts; retries stop waiting.
            self._stopping.set()
            executor.shutdown(wait=True, cancel_futures=True)
            raise
        executor.shutdown(wait=True)
