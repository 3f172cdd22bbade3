"""AppTest of the Lesson page: each step from its link (``?step=N``), its control, its sentences and figure;
Back / Next; the real-text data."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.sources import SAMPLE_DIR
from ragunc.present import lesson
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.sample import draw_sample
from ragunc.stats.synthetic import synthesize_chunk_sizes

PAGE = "lesson.py"
CONTROLS = {
    1: ("toggle", "ls_docs"),
    2: ("slider", "ls_draws"),
    3: ("button", "lesson_draw"),
    4: ("select_slider", "ls_m"),
    5: ("toggle", "ls_iid"),
    6: ("select_slider", "ls_words"),
    7: ("select_slider", "ls_k"),
}


@pytest.fixture(scope="module")
def cuts():
    """The synthetic population the lesson describes: the bundled file's parameters, cut at 100 down to 5 words."""
    meta = json.loads((SAMPLE_DIR / "synthetic_population.json").read_text())
    params = {k: v for k, v in meta["parameters"].items() if k != "config"}
    return synthesize_chunk_sizes((100, 50, 25, 10, 5), **params, rng=meta["seed"])


def _heading(at: AppTest) -> str:
    return at.main.header[0].value


def _sentences(at: AppTest) -> list[str]:
    return [m.value for m in at.main.markdown]


def _chart(at: AppTest) -> dict:
    (chart,) = at.get("plotly_chart")
    return json.loads(chart.proto.spec)


def _param(at: AppTest, key: str) -> str:
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


@pytest.mark.parametrize("step", range(1, 8))
def test_each_step_opens_from_its_link_with_a_figure_a_control_and_two_sentences(open_app, step):
    at = open_app(PAGE, step=str(step))
    assert not at.exception and not at.error
    assert _heading(at) == f"{step} of 7 · {lesson.STEPS[step - 1]}"
    assert len(at.get("plotly_chart")) == 1
    assert len(_sentences(at)) == 2 and all(s.endswith(".") for s in _sentences(at))
    kind, key = CONTROLS[step]
    assert getattr(at, kind)(key=key) is not None
    assert _param(at, "step") == str(step)
    assert any("reads data chosen on the page itself" in c.value for c in at.sidebar.caption)


def test_back_and_next_walk_the_steps_and_the_url_follows(open_app):
    at = open_app(PAGE, step="3")
    at.button(key="lesson_next").click().run()
    assert _heading(at).startswith("4 of 7") and _param(at, "step") == "4"
    at.button(key="lesson_previous").click().run()
    at.button(key="lesson_previous").click().run()
    assert _heading(at).startswith("2 of 7") and _param(at, "step") == "2"
    at.button(key="lesson_previous").click().run()
    assert at.button(key="lesson_previous").disabled and not at.button(key="lesson_next").disabled


@pytest.mark.parametrize(("raw", "shown"), [("99", 7), ("0", 1), ("three", 1)])
def test_a_step_out_of_range_falls_back_into_it(open_app, raw, shown):
    at = open_app(PAGE, step=raw)
    assert not at.exception
    assert _heading(at).startswith(f"{shown} of 7") and _param(at, "step") == str(shown)
    assert at.button(key="lesson_next").disabled == (shown == 7)


def test_step_1_is_the_lessons_sample_and_the_toggle_shows_its_documents(open_app, cuts):
    at = open_app(PAGE, step="1")
    sample = draw_sample(cuts[5], 20, rng=7)
    first, second = _sentences(at)
    assert f"20 documents cut into {sample.n_chunks:,} chunks" in first
    assert f"{int(sample.sum_y.sum()):,} of the chunks are hits" in first
    assert len(_chart(at)["data"]) == 1
    at.toggle(key="ls_docs").set_value(True).run()
    assert len(_chart(at)["data"][1]["y"]) == 20 and _param(at, "ls_docs") == "1"
    assert any("5-word chunks" in c.value and "1,300 documents" in c.value for c in at.main.caption)


def test_step_2_slider_adds_draws(open_app):
    at = open_app(PAGE, step="2", ls_draws="50")
    assert "(49 of 500 drawn)" in _chart(at)["data"][0]["name"]
    at.slider(key="ls_draws").set_value(200).run()
    assert "(199 of 500 drawn)" in _chart(at)["data"][0]["name"] and _param(at, "ls_draws") == "200"


def test_step_3_draws_other_documents(open_app, cuts):
    at = open_app(PAGE, step="3")
    assert "draw 1 picked" in _sentences(at)[0]
    at.button(key="lesson_draw").click().run()
    sample = draw_sample(cuts[5], 20, rng=8)  # draw 2 of the lesson's seed 7
    assert f"draw 2 picked the 20 coloured ones, whose {sample.n_chunks:,} chunks" in _sentences(at)[0]
    assert _param(at, "ls_draw") == "2"


def test_step_4_uses_the_populations_icc_at_100_words(open_app, cuts):
    at = open_app(PAGE, step="4", ls_m="100")
    icc = diagnostics(cuts[100]).icc
    assert _sentences(at) == list(lesson.deff_sentences(icc, 20, 100, where="this population's 100-word chunks"))
    assert f"ρ = {icc:.3f}" in _sentences(at)[0] and "m = 100 chunks" in _sentences(at)[0]


def test_step_5_shuffling_the_hits_restores_the_binomial_interval(open_app):
    at = open_app(PAGE, step="5")
    held = int(_chart(at)["data"][0]["name"].split(": ")[1].split(" of")[0])
    at.toggle(key="ls_iid").set_value(True).run()
    held_iid = int(_chart(at)["data"][0]["name"].split(": ")[1].split(" of")[0])
    assert held < 25 < held_iid  # of 50 intervals
    assert _param(at, "ls_iid") == "1"


def test_step_6_and_7_follow_their_controls(open_app):
    at = open_app(PAGE, step="6", ls_words="100")
    assert _sentences(at)[0].startswith("Cut into 100-word chunks, a sample of 20 documents holds")
    at.select_slider(key="ls_words").set_value(25).run()
    assert _sentences(at)[0].startswith("Cut into 25-word chunks instead of 100-word ones")
    at = open_app(PAGE, step="7", ls_k="40")
    assert "at K = 40" in _sentences(at)[0]


@pytest.mark.parametrize(("data", "words"), [("stdlib", (200, 100, 50)), ("alike", (200, 100, 50))])
def test_the_lesson_runs_on_real_text(open_app, data, words):
    at = open_app(PAGE, step="6", ls_data=data)
    assert not at.exception and not at.error
    assert at.selectbox(key="ls_data").value == data
    assert any("Real text" in c.value and "50-word chunks" in c.value for c in at.main.caption)
    assert at.select_slider(key="ls_words").options == [f"{w} words" for w in words]
    at.button(key="lesson_next").click().run()
    assert not at.exception and "at K = 20" in _sentences(at)[0]
