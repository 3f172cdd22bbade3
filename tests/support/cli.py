"""Run the ``ragunc`` command in a child process of this checkout (for tests that kill or compare runs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """``python -m ragunc ARGS`` in a real subprocess of this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "ragunc", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
