"""One JSON conversion for every output: numpy scalars, tuples, nested dicts; inf/nan become null."""

import json
import math

import numpy as np

from ragunc.data.serialize import json_text, jsonable


def test_jsonable_converts_numpy_scalars_tuples_and_nested_dicts():
    out = jsonable({"a": np.float32(0.5), "b": (np.int64(3), 1.0), "c": {"d": [np.bool_(True), "x"]}})
    assert out == {"a": 0.5, "b": [3, 1.0], "c": {"d": [True, "x"]}}
    assert type(out["b"][0]) is int and type(out["a"]) is float and type(out["c"]["d"][0]) is bool


def test_non_finite_floats_become_none_python_or_numpy():
    assert jsonable([math.nan, math.inf, -math.inf, np.float64("nan"), np.float32("inf"), 0.0]) == [
        None,
        None,
        None,
        None,
        None,
        0.0,
    ]


def test_json_text_is_valid_json_and_keeps_unicode():
    assert json.loads(json_text({"k": (np.int64(1), float("nan")), "name": "Ω"})) == {"k": [1, None], "name": "Ω"}
    assert "Ω" in json_text({"name": "Ω"})


def test_numpy_arrays_become_lists_with_nan_as_none():
    assert jsonable({"curve": np.array([0.5, np.nan]), "grid": np.arange(4).reshape(2, 2)}) == {
        "curve": [0.5, None],
        "grid": [[0, 1], [2, 3]],
    }
