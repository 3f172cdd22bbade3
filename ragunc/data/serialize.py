"""Results as JSON: the one conversion every JSON output (CLI, report, app downloads) goes through."""

from __future__ import annotations

import json
import math

import numpy as np


def jsonable(value):
    """``value`` with numpy scalars as Python numbers, tuples and arrays as lists, nested dicts converted.

    Non-finite floats become None: JSON has no inf/nan, and null says "not defined here".
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):  # .item() below only takes one element
        return jsonable(value.tolist())
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return jsonable(value.item())  # numpy scalar
    return value


def json_text(payload) -> str:
    """``payload`` (e.g. a result's ``to_dict()``) as indented JSON; inf/nan become null."""
    return json.dumps(jsonable(payload), indent=2, ensure_ascii=False)
