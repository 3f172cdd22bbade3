"""The explorer's view of every K: what the browser substitutes is the engine's numbers, formatted once."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from ragunc.present import explorer, numbers
from ragunc.stats.all_k import k_table, nested_bootstrap
from ragunc.stats.sample import ClusterStats

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("naive", "korn_graubard_bm", "bootstrap")
BOOTS, REPS = (200, 1000), (50, 200)


def _population(n_docs=40, seed=3):
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 40, n_docs)
    sum_y = rng.binomial(n, rng.beta(0.5, 2.0, n_docs)).astype(float)
    return ClusterStats(
        cluster_id=np.array([f"d{i}" for i in range(n_docs)]),
        sum_y=sum_y,
        n=n.astype(np.int64),
        sum_y2=sum_y.copy(),
        config="100w",
    )


@pytest.fixture(scope="module")
def population():
    return _population()


@pytest.fixture(scope="module")
def table(population):
    return k_table(population, reps=50, seed=1)


@pytest.fixture(scope="module")
def view(table):
    return explorer.explorer_view(table, methods=METHODS, plain=True, boots=BOOTS, reps_options=REPS)


def _text(view, k: int, slot: str) -> str:
    return view["rows"][k - view["k"]["min"]][view["slots"].index(slot)]


def _set(target, path: str, value) -> None:
    """What explorer.js does with one (path, value) pair."""
    *head, last = path.split(".")
    for key in head:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[int(last) if isinstance(target, list) else last] = value


def _drawn(view, k: int, name: str, answer: dict | None = None) -> dict:
    """The figure the browser draws at ``k``: the base, its K's values, then the answer or the pending patch."""
    spec = view["figures"][name]
    figure = copy.deepcopy(spec["base"])
    for path, value in zip(spec["paths"], spec["values"][k - view["k"]["min"]]):
        _set(figure, path, value)
    later = (answer or view["pending"])["figures"].get(name)
    if later:
        for path, value in zip(later["paths"], later["values"]):
            _set(figure, path, value)
    return figure


@pytest.mark.parametrize("k", [2, 7, 20, 39, 40])
def test_every_text_is_the_tables_number_at_that_k(table, view, k):
    row = table.row(k)
    assert _text(view, k, "design_deff") == numbers.deff(row["design_deff"])
    assert _text(view, k, "design_n_eff") == numbers.effective_n(row["design_n_eff"])
    assert _text(view, k, "design_chunks") == numbers.about(row["design_chunks"])
    assert _text(view, k, "sample_estimate") == numbers.percent(row["estimate"])
    assert _text(view, k, "sample_interval") == numbers.interval(row["recommended_low"], row["recommended_high"])
    assert _text(view, k, "sample_chunks") == numbers.count(row["n_chunks"])
    headline = _text(view, k, "headline")
    if k < table.population_docs and row["design_deff"] > 0:
        # the headline says the tiles' numbers the tiles' way: one value per quantity
        for slot in ("design_chunks", "design_n_eff", "design_deff"):
            assert _text(view, k, slot) in headline
        assert numbers.percent(row["coverage_naive"]) in _text(view, k, "headline_coverage")
        assert numbers.percent(row["coverage_recommended"]) in _text(view, k, "headline_coverage")
    else:
        assert "nothing to resample" in _text(view, k, "headline_coverage")


def test_the_why_template_names_only_fields_of_the_rows(view):
    fields = set(re.findall(r"\{(\w+)\}", view["templates"]["why"]))
    assert fields and fields <= set(view["slots"])


@pytest.mark.parametrize("k", [3, 20])
def test_the_figures_draw_the_tables_bounds_and_coverage(table, view, k):
    row = table.row(k)
    intervals = _drawn(view, k, "intervals")
    for trace, name in zip(intervals["data"], ("naive", "recommended")):
        x = trace["x"][0]
        assert x == pytest.approx(100 * row["estimate"], abs=1e-3)
        assert x - trace["error_x"]["arrayminus"][0] == pytest.approx(100 * row[f"{name}_low"], abs=2e-3)
        assert x + trace["error_x"]["array"][0] == pytest.approx(100 * row[f"{name}_high"], abs=2e-3)
    coverage = _drawn(view, k, "coverage")["data"][0]
    assert coverage["x"][:2] == pytest.approx(
        [100 * row["coverage_naive"], 100 * row["coverage_recommended"]], abs=1e-3
    )
    assert coverage["x"][2] is None  # the bootstrap's, until the server answers


def test_the_bootstrap_is_pending_until_the_answer_for_that_k(population, table, view):
    pending = _drawn(view, 20, "intervals")
    assert pending["data"][2]["x"] == [None]
    assert pending["layout"]["yaxis"]["ticktext"][2].endswith(explorer.PENDING)
    assert view["pending"]["parts"] == 2
    report, coverage = nested_bootstrap(population, k=20, boot=200, reps=50, seed=1)
    answer = explorer.bootstrap_answer(report, coverage, methods=METHODS, plain=True, table=table, boot=200, reps=50)
    assert (answer["k"], answer["boot"], answer["reps"]) == (20, 200, 50)
    drawn = _drawn(view, 20, "intervals", answer)
    low, high = report.interval("bootstrap").ci
    trace = drawn["data"][2]
    assert trace["x"][0] - trace["error_x"]["arrayminus"][0] == pytest.approx(100 * low, abs=2e-3)
    assert trace["x"][0] + trace["error_x"]["array"][0] == pytest.approx(100 * high, abs=2e-3)
    assert not drawn["layout"]["yaxis"]["ticktext"][2].endswith(explorer.PENDING)
    held = _drawn(view, 20, "coverage", answer)["data"][0]["x"][2]
    assert held == pytest.approx(100 * coverage.methods["bootstrap"].coverage, abs=1e-3)


def test_the_view_is_json_and_has_every_k_and_the_named_controls(table, view):
    assert len(view["rows"]) == table.population_docs - 1 == len(view["figures"]["intervals"]["values"])
    assert json.loads(json.dumps(view, allow_nan=False)) == view  # no NaN: JSON the browser reads
    for name in ("k", "boot", "reps"):
        assert f'<input type="range" id="ragunc-{name}" name="{name}"' in view["html"]
    assert 'aria-label="K: documents per sample"' in view["html"]


def test_the_component_script_formats_and_computes_nothing():
    script = (ROOT / "dashboard" / "components" / "explorer.js").read_text(encoding="utf-8")
    for statistic in ("Math.", "toFixed", "toPrecision", "toLocaleString", "Intl.", "reduce("):
        assert statistic not in script
