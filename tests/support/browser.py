"""Headless Debian chromium through Playwright for the e2e tests: found before it is launched, never downloaded.

A missing chromium or Playwright skips the test with the reason, except under CI=true, where it fails.
RAGUNC_CHROMIUM names another executable than /usr/bin/chromium (a test of the skip points it nowhere).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def unavailable(reason: str):
    """Skip with ``reason``; fail under CI, where the browser tests must run."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"{reason} (required under CI)")
    pytest.skip(reason)


def require_chromium() -> str:
    """The chromium executable and Playwright, checked before anything is started; the executable's path."""
    path = os.environ.get("RAGUNC_CHROMIUM", "/usr/bin/chromium")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        unavailable(f"Debian chromium not found at {path} (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("playwright (python) is not installed (pip install -r requirements-test.txt)")
    return path


@contextmanager
def launched_chromium() -> Iterator:
    """A headless chromium (a Playwright ``Browser``), closed on exit."""
    path = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
