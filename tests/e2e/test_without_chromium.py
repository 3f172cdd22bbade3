"""On a machine without chromium the browser tests skip with the reason, and under CI=true they fail.

The e2e tests run in a pytest subprocess with RAGUNC_CHROMIUM pointing at a path that does not exist;
chromium is looked for before anything is launched, so no test gets as far as starting a browser.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]


def _run_browser_tests(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGUNC_CHROMIUM": str(tmp_path / "no-chromium")}
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    command = [sys.executable, "-m", "pytest", str(HERE.parent), f"--ignore={HERE}", "-p", "no:cacheprovider"]
    return subprocess.run(command + ["-q", "-rs", "-o", "addopts="], cwd=ROOT, env=env, capture_output=True, text=True)


def test_without_chromium_the_browser_tests_skip_with_the_reason(tmp_path):
    run = _run_browser_tests(tmp_path, ci=None)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " skipped" in run.stdout and "failed" not in run.stdout and "error" not in run.stdout
    assert f"Debian chromium not found at {tmp_path / 'no-chromium'}" in run.stdout  # -rs prints each reason


def test_under_ci_a_missing_chromium_fails(tmp_path):
    run = _run_browser_tests(tmp_path, ci="true")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "(required under CI)" in run.stdout and " skipped" not in run.stdout
