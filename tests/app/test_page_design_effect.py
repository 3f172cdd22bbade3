"""AppTest of the Design effect page: curve, ICC vs iid control, coverage with and without structure, two-stage."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import re

from ragunc.data.results import results_from_frame
from ragunc.present import numbers
from ragunc.present.design_effects import DISCLOSURE
from ragunc.stats.all_k import k_table
from ragunc.stats.design import NESTED_REPS, nested_design
from ragunc.stats.diagnostics import diagnostics

FAST = {"de_reps": "200", "de_boot": "200"}


def _chart(at: AppTest, key_words: str) -> dict:
    for c in at.get("plotly_chart"):
        if key_words in c.proto.spec:
            return json.loads(c.proto.spec)
    raise AssertionError(f"no chart mentioning {key_words!r}")


def _why(at: AppTest) -> str:
    """The text of the one disclosure that reconciles the page's design effects."""
    (box,) = [e for e in at.expander if e.label == DISCLOSURE]
    return "\n".join(m.value for m in box.markdown)


def _array(value) -> np.ndarray:
    """A trace array from the figure JSON (plotly writes numpy arrays as base64 typed arrays)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


@pytest.fixture()
def page(open_app, chunk_rows, upload, switch_page):
    frame = chunk_rows(n_docs=150, seed=11, configs={"100w": 1.0, "50w": 2.0})
    at = upload(open_app(source="upload", config="100w", **FAST), frame)
    switch_page(at, "design_effect.py")
    return at, frame


def test_page_loads_on_its_own_with_the_default_data(open_page):
    at = open_page("design_effect.py", **FAST)
    assert not at.exception
    assert at.title[0].value == "Design effect"


def test_tiles_are_the_designs_values_and_the_curve_uses_the_populations_icc(page, tile):
    """The same numbers as the explorer: its table's design at the page's K (the same seed and R) for the tiles
    and the circles, the population's ICC for the equal-size curve."""
    at, frame = page
    assert not at.exception and not at.error
    results = results_from_frame(frame)
    population = results.population("100w")
    d = diagnostics(population)
    values = nested_design(population, 20, seed=0)
    explorers = k_table(population, seed=0, reps=NESTED_REPS).row(20)  # what the explorer draws at K = 20
    assert (values.deff, values.n_eff) == pytest.approx((explorers["design_deff"], explorers["design_n_eff"]))
    assert tile(at, "How alike two chunks of one document are") == f"{d.icc:.3f}" == f"{values.icc:.3f}"
    # plain labels, and effective n rounded as the headline rounds it (ragunc.present.numbers)
    assert tile(at, "How many times less a chunk tells you here") == numbers.deff(values.deff) == f"{values.deff:.1f}"
    n_eff = tile(at, "As informative as this many independent chunks")
    assert n_eff == numbers.effective_n(values.n_eff) and any(
        f"as much as {n_eff} independent ones" in m.value for m in at.markdown
    )
    # one design effect on the page; Kish's size-only part is reconciled with it in the disclosure
    assert f"**{numbers.deff(d.deff_kish)}: Kish's correction" in _why(at)
    assert f"**{numbers.deff(values.deff)}: the design**" in _why(at)
    curve = _chart(at, "Effective n")
    m, deff = _array(curve["data"][0]["x"]), _array(curve["data"][0]["y"])
    np.testing.assert_allclose(deff, 1 + (m - 1) * d.icc, rtol=1e-9)
    measured = {t["name"]: t for t in curve["data"] if t["name"].startswith("measured")}
    assert set(measured) == {"measured: 100w", "measured: 50w"}
    assert measured["measured: 100w"]["y"][0] == pytest.approx(values.deff)
    assert measured["measured: 50w"]["y"][0] == pytest.approx(nested_design(results.population("50w"), 20, seed=0).deff)


def test_moving_k_moves_the_ceiling(page):
    at, _ = page

    def ceiling():
        return next(t["y"][0] for t in _chart(at, "Effective n")["data"] if t["name"].startswith("ceiling K/ρ"))

    before = ceiling()
    at.slider(key="k").set_value(40).run()
    assert not at.exception
    assert ceiling() == pytest.approx(2 * before)


def test_iid_control_brings_the_variance_ratio_near_one(page):
    at, _ = page
    real = float(re.search(r"\*\*([0-9.]+): measured on these R =", _why(at)).group(1))
    shuffled = "".join(m.value for m in at.markdown if "once shuffled" in m.value)
    iid = float(re.search(r"goes from [0-9.]+ to ([0-9.]+)", shuffled).group(1))
    assert real > 2.0 and 0.6 < iid < 1.6
    names = [t["name"] for t in _chart(at, "Coverage over")["data"]]
    assert names == ["documents as they are", "iid control"]


def test_two_stage_fraction_changes_the_comparison(page):
    at, _ = page
    first = _chart(at, "% of chunks")
    at.slider(key="fraction").set_value(0.25).run()
    assert not at.exception
    second = _chart(at, "% of chunks")
    assert [t["name"] for t in second["data"]] == ["all chunks", "25% of chunks"]
    assert not np.array_equal(_array(second["data"][1]["x"]), _array(first["data"][1]["x"]))
    at.slider(key="fraction").set_value(1.0).run()
    assert any("below 100%" in i.value for i in at.info)


def test_query_parameters_restore_the_design_view(open_app):
    at = open_app("design_effect.py", source="synthetic", syn_docs="150", k="9", fraction="0.3", **FAST)
    assert not at.exception
    assert at.title[0].value == "Design effect"
    assert at.slider(key="k").value == 9
    assert at.slider(key="fraction").value == 0.3
    assert "K = 9 documents" in _chart(at, "Effective n")["layout"]["annotations"][1]["text"]
    assert "30% of chunks" in json.dumps(_chart(at, "% of chunks")["data"])
