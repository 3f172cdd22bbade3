"""AppTest of the Lesson page: the view it publishes (every step at every value of its control) is the
present builders' figures and sentences for those values; the state the component starts from is the
link's, kept in range; the state the reader pauses on is the server's next; the real-text data; a data
choice that fails to load."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import in_browser
from dashboard import lesson as page_lesson
from dashboard.sources import SAMPLE_DIR
from ragunc.present import lesson
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_report
from ragunc.stats.sample import draw_sample
from ragunc.stats.synthetic import synthesize_chunk_sizes

PAGE = "lesson.py"
SEED, K, R = 7, 20, 500  # the lesson's draw, documents per sample and repetitions


@pytest.fixture(scope="module")
def cuts():
    """The synthetic population the lesson describes: the bundled file's parameters, cut at 100 down to 5 words."""
    meta = json.loads((SAMPLE_DIR / "synthetic_population.json").read_text())
    params = {k: v for k, v in meta["parameters"].items() if k != "config"}
    return synthesize_chunk_sizes((100, 50, 25, 10, 5), **params, rng=meta["seed"])


@pytest.fixture(scope="module")
def synthetic(cuts):
    """The page opened once on the synthetic documents: (the AppTest, its component's data, the view fetched)."""
    from tests.app.conftest import APP

    at = AppTest.from_string(f"import runpy; runpy.run_path({str(APP)!r}, run_name='__main__')", default_timeout=120)
    at.query_params["step"] = "4"
    at.query_params["ls_m"] = "100"
    at.switch_page(str(APP.parent / "pages" / PAGE))
    at.run()
    data, view = _component(at)
    return at, data, view


def _component(at: AppTest) -> tuple[dict, dict]:
    """The lesson component's data and its view, read as the browser fetches it."""
    (component,) = [e for e in at.get("bidi_component") if e.proto.component_name == "ragunc.lesson"]
    data = json.loads(component.proto.json)
    return data, json.loads((in_browser.VIEWS / data["view"]).read_text(encoding="utf-8"))


def _plotly(fig: go.Figure) -> dict:
    """A figure as the view holds it: Plotly JSON without the template."""
    spec = json.loads(fig.to_json())
    spec["layout"].pop("template")
    return spec


def _views(view: dict, step: int) -> list[dict]:
    return view["steps"][step - 1]["views"]


def _first_draws(view: dict, n: int) -> dict:
    """Step 2's figure with its first ``n`` samples, as the browser slices it from the view."""
    shown = _views(view, 2)[0]
    figure = json.loads(json.dumps(shown["figure"]))
    cut = max(1, n - 1)
    sliced = {name: values for name, values in shown["points"].items()}
    figure["data"][shown["traces"]["others"]].update(
        {name: values[1:cut] for name, values in sliced.items()}, name=shown["names"][n - 1]
    )
    figure["data"][shown["traces"]["latest"]].update({name: values[cut:n] for name, values in sliced.items()})
    return figure


def _arrays(spec):
    """Plotly JSON with its packed arrays (``{"dtype", "bdata"}``) as lists, for comparing figures."""
    if isinstance(spec, dict):
        if set(spec) >= {"dtype", "bdata"}:
            import base64

            values = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=spec["dtype"])
            return values.reshape(spec["shape"]).tolist() if "shape" in spec else values.tolist()
        return {key: _arrays(value) for key, value in spec.items()}
    if isinstance(spec, list):
        return [_arrays(value) for value in spec]
    return spec


def test_the_view_is_every_steps_figure_and_sentences_at_every_value(synthetic, cuts):
    at, _, view = synthetic
    assert not at.exception and not at.error
    population = cuts[5]
    sample = draw_sample(population, K, rng=SEED)
    report = interval_report(sample, boot=200, rng=SEED)
    real = coverage_experiment(population, k=K, reps=R, boot=0, rng=SEED)
    iid = coverage_experiment(population, k=K, reps=R, boot=0, rng=SEED, control="iid")
    assert [s["heading"] for s in view["steps"]] == [f"{i} of 7 · {t}" for i, t in enumerate(lesson.STEPS, 1)]

    for documents, shown in zip((False, True), _views(view, 1)):
        assert shown["figure"] == _plotly(lesson.sample_figure(report, sample, documents=documents))
        assert shown["sentences"] == list(lesson.sample_sentences(report, sample))
    for n in (1, 2, 3, 50, R + 1):
        expected = _arrays(_plotly(lesson.draws_figure(real, report, shown=n)))
        assert _arrays(_first_draws(view, n)) == expected, n
    assert _views(view, 2)[0]["sentences"] == list(lesson.draws_sentences(real, report))
    draws = _views(view, 3)
    assert len(draws) == page_lesson.DRAWS
    for d in (1, 2, page_lesson.DRAWS):
        drawn = draw_sample(population, K, rng=SEED + d - 1)
        assert draws[d - 1]["figure"] == _plotly(lesson.census_figure(population, drawn))
        assert draws[d - 1]["sentences"] == list(lesson.census_sentences(population, drawn, d))
    icc = diagnostics(cuts[100]).icc
    for m, shown in zip(page_lesson.MS, _views(view, 4)):
        assert shown["figure"] == _plotly(lesson.deff_figure(icc, K, m))
        assert shown["sentences"] == list(lesson.deff_sentences(icc, K, m, where="this population's 100-word chunks"))
    for shuffled, shown in zip((False, True), _views(view, 5)):
        assert shown["figure"] == _plotly(lesson.iid_figure(real, iid, shuffled=shuffled))
    designs = {w: design(cut, k=K, rng=SEED) for w, cut in cuts.items()}
    for words, shown in zip((100, 50, 25, 10, 5), _views(view, 6)):
        assert shown["sentences"] == list(lesson.chunk_size_sentences(designs, words))
        assert shown["figure"] == _plotly(lesson.chunk_size_figure(designs, words))
    for k, shown in zip(page_lesson.KS, _views(view, 7)):
        assert shown["sentences"] == list(
            lesson.cluster_sentences(coverage_experiment(population, k=k, reps=R, boot=0, rng=SEED))
        )


def test_the_controls_values_and_labels_are_the_urls(synthetic):
    _, _, view = synthetic
    controls = {s["control"]["param"]: s["control"] for s in view["steps"]}
    assert list(controls) == ["ls_docs", "ls_draws", "ls_draw", "ls_m", "ls_iid", "ls_words", "ls_k"]
    assert controls["ls_docs"]["values"] == ["0", "1"] and controls["ls_iid"]["kind"] == "toggle"
    assert (controls["ls_draws"]["min"], controls["ls_draws"]["max"]) == (1, R + 1)
    assert controls["ls_draw"]["values"] == [str(d) for d in range(1, page_lesson.DRAWS + 1)]
    assert controls["ls_m"]["values"] == [str(m) for m in page_lesson.MS]
    assert controls["ls_words"]["texts"] == ["100 words", "50 words", "25 words", "10 words", "5 words"]
    assert controls["ls_k"]["values"][controls["ls_k"]["default"]] == "20"


def test_the_component_starts_on_the_linked_step_and_values(synthetic):
    _, data, _ = synthetic
    assert data["state"] == {
        "step": "4",
        "ls_docs": "0",
        "ls_draws": "1",
        "ls_draw": "1",
        "ls_m": "100",
        "ls_iid": "0",
        "ls_words": "5",
        "ls_k": "20",
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"step": "99", "ls_m": "7", "ls_draws": "9999", "ls_docs": "true"},
            {"step": "7", "ls_m": "500", "ls_draws": "501", "ls_docs": "1"},
        ),
        (
            {"step": "three", "ls_k": "40", "ls_draws": "-3", "ls_draw": "99"},
            {"step": "1", "ls_k": "40", "ls_draws": "1", "ls_draw": "1"},
        ),
        ({"step": "0", "ls_words": "050", "ls_iid": "1"}, {"step": "1", "ls_words": "50", "ls_iid": "1"}),
    ],
)
def test_a_link_out_of_range_falls_back_into_range(open_app, params, expected):
    at = open_app(PAGE, **params)
    assert not at.exception and not at.error
    data, _ = _component(at)
    assert {name: data["state"][name] for name in expected} == expected


def test_the_state_the_reader_pauses_on_is_kept_by_the_server(monkeypatch):
    paused = {"step": "6", "ls_words": "25"}
    session = {page_lesson.KEY: {"state": paused}}  # what the component holds when it calls back
    monkeypatch.setattr(page_lesson.st, "session_state", session)
    page_lesson._released()
    assert session[page_lesson.STATE] == paused and session[page_lesson.STATE] is not paused


def test_the_next_run_starts_from_the_state_the_reader_paused_on_not_the_link(open_app):
    at = open_app(PAGE, step="2", ls_words="100")
    data, _ = _component(at)
    paused = {**data["state"], "step": "6", "ls_words": "25"}
    at.session_state[page_lesson.STATE] = paused  # as the component's callback keeps it
    at.run()
    assert _component(at)[0]["state"] == paused
    assert not at.exception


@pytest.mark.parametrize(("data", "words"), [("stdlib", ["200", "100", "50"]), ("alike", ["200", "100", "50"])])
def test_the_lesson_runs_on_real_text(open_app, data, words):
    at = open_app(PAGE, step="6", ls_data=data)
    assert not at.exception and not at.error
    assert at.selectbox(key="ls_data").value == data
    state, view = _component(at)
    assert view["steps"][5]["control"]["values"] == words and state["state"]["ls_words"] == "50"
    assert "Real text" in view["about"] and "50-word chunks" in view["about"]
    assert "at K = 20" in view["steps"][6]["views"][2]["sentences"][0]


@pytest.mark.parametrize("data", ["synthetic", "stdlib", "alike"])
def test_about_these_data_describes_them_plainly(open_app, data):
    at = open_app(PAGE, ls_data=data)
    about = _component(at)[1]["about"]
    assert ".csv" not in about and ".json" not in about and "/" not in about
    assert "seed" not in about.lower() and "Por que" not in about and "documentos" not in about


def test_data_that_fail_to_load_say_so_in_place_and_keep_the_data_choice(open_app, monkeypatch):
    failed = page_lesson.LessonData("synthetic", "synthetic population", {}, error="the population file is unreadable")
    monkeypatch.setattr(page_lesson, "lesson_data", lambda key: failed)
    at = open_app(PAGE, step="3")
    assert not at.exception
    assert [e.value for e in at.error] == ["Could not use synthetic documents: the population file is unreadable"]
    assert at.selectbox(key="ls_data").value == "synthetic"
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == "ragunc.lesson"]
