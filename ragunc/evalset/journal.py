"""The append-only journal: every reply is on disk the moment it arrives, keyed by what was asked.

One JSON line per reply, written with a single ``write`` on a file opened in append mode,
so a process killed at any instant (Ctrl-C, a crash, ``kill -9``) leaves whole lines and
at most one torn last line, which the next run skips and counts. The key is
(chunk id, question type, prompt hash, model, seed), never a position: a rebuild with the
same arguments finds every reply it already paid for, whatever order calls finished in.
Only replies are journaled; a failed call is retried by the next build.
"""

from __future__ import annotations

import datetime
import json
import os
import threading
from pathlib import Path

KEY_FIELDS = ("chunk_id", "type", "prompt_hash", "model", "seed")
Key = tuple[str, str, str, str, int]


def read_journal(path: str | os.PathLike) -> tuple[dict[Key, str], int]:
    """The replies of a journal file by key, and how many lines could not be read (torn by a kill)."""
    replies: dict[Key, str] = {}
    torn = 0
    file = Path(path)
    if file.exists():
        for line in file.read_bytes().splitlines():
            try:
                entry = json.loads(line)
                replies[tuple(entry["key"][f] for f in KEY_FIELDS)] = str(entry["reply"])
            except (ValueError, KeyError, TypeError):
                torn += 1
    return replies, torn


class Journal:
    """Replies by key, loaded from ``path`` and appended to it (thread-safe)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._replies, self.n_torn = read_journal(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torn_end = False
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as handle:
                handle.seek(-1, os.SEEK_END)
                torn_end = handle.read(1) != b"\n"
        self._lock = threading.Lock()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if torn_end:  # end the torn line so the next entry starts on its own
            os.write(self._fd, b"\n")

    def __len__(self) -> int:
        return len(self._replies)

    def __contains__(self, key: Key) -> bool:
        return key in self._replies

    def get(self, key: Key) -> str | None:
        return self._replies.get(key)

    def append(self, key: Key, reply: str, **meta) -> None:
        """Write one reply now, as one line (whole, or torn only if the process dies inside the write)."""
        entry = {
            "key": dict(zip(KEY_FIELDS, key)),
            "reply": reply,
            **meta,
            "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            view = memoryview(line)
            while view:  # a regular file takes it in one write; loop for the rare short write
                view = view[os.write(self._fd, view) :]
            self._replies[key] = reply

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.fsync(self._fd)
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
