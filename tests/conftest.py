"""Shared by every test: the markers; ``slow`` (``pytest -m "not slow"`` is the quick run)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: real-browser tests (headless Debian chromium through Playwright)")
    config.addinivalue_line("markers", "slow: takes seconds or more (a browser, Spark, a subprocess of pytest)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A browser test starts chromium and usually a Streamlit server: always slow.
    for item in items:
        if item.get_closest_marker("e2e") is not None:
            item.add_marker(pytest.mark.slow)
