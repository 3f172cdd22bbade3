"""AppTest of the Uncertainty explorer page: K, B and chunk size move the figures; simulations are cached."""
from __future__ import annotations

import functools
import json

import pytest
from streamlit.testing.v1 import AppTest

import ragunc.corpus
import ragunc.retrieval
import ragunc.stats.coverage
from dashboard import cache
from ragunc.data.results import results_from_frame
from ragunc.present import summary
from ragunc.stats.intervals import interval_report

FAST = {"reps": "200", "boot": "200"}


def _charts(at: AppTest) -> dict[str, dict]:
    return {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def _interval_chart(at: AppTest) -> dict:
    return next(spec for spec in _charts(at).values() if "intervals for" in spec["layout"]["title"]["text"])


def _bounds(spec: dict) -> dict[str, tuple[float, float]]:
    out = {}
    for trace in spec["data"]:
        est = trace["x"][0]
        out[trace["y"][0]] = (est - trace["error_x"]["arrayminus"][0], est + trace["error_x"]["array"][0])
    return out


@pytest.fixture()
def two_configs(open_app, chunk_rows, upload):
    """An app on an uploaded file holding two chunk sizes of the same 120 documents."""
    frame = chunk_rows(n_docs=120, seed=5, configs={"100w": 1.0, "50w": 2.0})
    at = open_app(source="upload", config="100w", **FAST)
    return upload(at, frame), frame


class _Pipeline:
    """Stands in for the retrieval pipeline, which has its own tests: here only the page's wiring is under test.

    Returns ``frame``, records ``(corpus, chunk_words)`` of every call and reports progress as it goes.
    """

    def __init__(self):
        self.frame, self.calls = None, []

    def __call__(self, corpus, *, chunk_words, progress=None, **options):
        self.calls.append((corpus, chunk_words))
        for done in range(1, 4):
            progress(done, 3)
        return self.frame


@pytest.fixture()
def pipeline(monkeypatch) -> _Pipeline:
    stand_in = _Pipeline()
    monkeypatch.setattr(ragunc.corpus, "stdlib_corpus", lambda **kw: "corpus")
    monkeypatch.setattr(ragunc.retrieval, "chunk_eval", stand_in)
    return stand_in


def test_page_loads_on_its_own_with_the_default_data(open_page):
    at = open_page("uncertainty_explorer.py", **FAST)
    assert not at.exception
    assert at.title[0].value == "Uncertainty explorer"
    assert len(at.get("plotly_chart")) == 4  # intervals, coverage, stacked, distribution


def test_moving_k_changes_the_tiles_and_the_figures(two_configs, tile):
    at, frame = two_configs
    assert not at.exception and not at.error
    before_deff, before = tile(at, "DEFF"), _interval_chart(at)
    at.slider(key="k").set_value(60).run()
    assert not at.exception
    assert tile(at, "DEFF") != before_deff
    after = _interval_chart(at)
    assert "60 documents" in after["layout"]["title"]["text"]
    assert _bounds(after) != _bounds(before)


def test_tiles_and_intervals_are_the_librarys_numbers(two_configs, tile):
    at, frame = two_configs
    at.slider(key="k").set_value(120).run()  # K = D: the whole population, no sampling left to reproduce
    sample = results_from_frame(frame).sample("100w")
    expected = interval_report(sample.with_population(sample.n_docs), boot=200, rng=0)
    assert tile(at, "DEFF") == f"{expected.diagnostics.deff:.2f}"
    assert tile(at, "Chunks") == f"{expected.n_chunks:,}"
    low, high = _bounds(_interval_chart(at))["Naive binomial (Wald)"]
    assert low == pytest.approx(100 * expected.interval("naive").ci[0]) and high == pytest.approx(100 * expected.interval("naive").ci[1])
    assert any("nothing to resample" in i.value for i in at.info)
    assert at.success[0].value == summary.recommendation_line(expected)  # the page leads with it


def test_the_page_leads_with_the_recommendation_and_labels_intervals_with_their_coverage(two_configs):
    at, _ = two_configs
    assert not at.exception
    line = at.success[0].value
    assert line.startswith("ragunc recommends Korn–Graubard, Bell–McCaffrey df: [") and "] — Korn–Graubard" in line
    ticks = _interval_chart(at)["layout"]["yaxis"]["ticktext"]
    assert ticks[0].startswith("Naive binomial (Wald) · ") and ticks[0].endswith("% coverage here")
    starred = [t for t in ticks if t.startswith("<b>★ Korn–Graubard, Bell–McCaffrey df (recommended)</b> · ")]
    assert len(starred) == 1
    at.toggle(key="sim").set_value(False).run()  # no simulation: no coverage in the labels
    assert not any("coverage here" in t for t in _interval_chart(at)["layout"]["yaxis"]["ticktext"])


def test_moving_b_changes_the_bootstrap_interval_only(two_configs):
    at, _ = two_configs
    before = _bounds(_interval_chart(at))
    at.select_slider(key="boot").set_value(2000).run()
    after = _bounds(_interval_chart(at))
    assert after["Cluster bootstrap (percentile)"] != before["Cluster bootstrap (percentile)"]
    assert after["Naive binomial (Wald)"] == before["Naive binomial (Wald)"]
    assert after["Cluster (linearization)"] == before["Cluster (linearization)"]


def test_changing_chunk_size_changes_the_figures(two_configs, tile):
    at, frame = two_configs
    assert at.selectbox(key="config").options == ["100w", "50w"]
    chunks_100 = tile(at, "Chunks")
    before = _interval_chart(at)
    at.selectbox(key="config").set_value("50w").run()
    assert not at.exception
    assert tile(at, "Chunks") != chunks_100
    assert _bounds(_interval_chart(at)) != _bounds(before)
    assert at.query_params["config"] in ("50w", ["50w"])


def test_plot_only_control_never_reruns_the_simulation(two_configs, monkeypatch):
    at, _ = two_configs
    calls = []
    real = ragunc.stats.coverage.coverage_experiment

    @functools.wraps(real)  # the same name, so the same store of cached results
    def counted(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ragunc.stats.coverage, "coverage_experiment", counted)
    at.slider(key="stack").set_value(40).run()
    assert not at.exception
    assert calls == []
    stacked = next(s for s in _charts(at).values() if "First 40 repetitions" in s["layout"]["title"]["text"])
    assert stacked
    at.slider(key="k").set_value(33).run()
    assert len(calls) == 1 and calls[0]["k"] == 33
    at.slider(key="k").set_value(20).run()  # back to a simulated K: served from the cache
    assert len(calls) == 1


def test_simulation_off_shows_no_coverage(two_configs):
    at, _ = two_configs
    at.toggle(key="sim").set_value(False).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1
    assert any("off" in i.value for i in at.info)


def test_reading_updates_with_the_numbers(two_configs):
    at, _ = two_configs
    reading = next(m.value for m in at.markdown if "carry about as much information" in m.value)
    at.slider(key="k").set_value(90).run()
    assert next(m.value for m in at.markdown if "carry about as much information" in m.value) != reading


def test_compute_another_chunk_size_adds_it_to_the_choices(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=60, seed=9).assign(config="137w")
    at = open_app(sim="0")
    if "Compute another size…" not in at.selectbox(key="config").options:
        pytest.skip("the bundled stdlib sample is not present")
    at.selectbox(key="config").set_value("Compute another size…").run()
    at.number_input(key="words").set_value(137).run()
    at.button[0].click().run()
    assert not at.exception
    assert pipeline.calls == [("corpus", 137)]
    assert at.selectbox(key="config").value == "137w"
    assert "137w" in at.selectbox(key="config").options
    assert at.slider(key="k").max == 60
    at.slider(key="k").set_value(30).run()  # the computed size stays selectable across reruns
    assert at.selectbox(key="config").value == "137w" and not at.exception


def test_computed_size_survives_reruns_after_a_slow_run_drew_a_progress_bar(
    pipeline, chunk_rows, monkeypatch, open_app
):
    pipeline.frame = chunk_rows(n_docs=40, seed=4).assign(config="75w")
    at = open_app(sim="0")
    if "Compute another size…" not in at.selectbox(key="config").options:
        pytest.skip("the bundled stdlib sample is not present")
    monkeypatch.setattr(cache, "PROGRESS_AFTER_S", -1.0)  # every run counts as slow
    at.selectbox(key="config").set_value("Compute another size…").run()
    at.number_input(key="words").set_value(75).run()
    at.button[0].click().run()
    assert not at.exception
    assert at.selectbox(key="config").value == "75w"
    at.slider(key="k").set_value(12).run()
    assert not at.exception and at.selectbox(key="config").value == "75w"


def test_a_link_to_a_computed_size_computes_it_again(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=50, seed=5).assign(config="85w")
    at = open_app(sim="0", config="85w", k="17")
    if "Compute another size…" not in at.selectbox(key="config").options:
        pytest.skip("the bundled stdlib sample is not present")
    assert not at.exception
    assert [words for _, words in pipeline.calls] == [85]
    assert at.selectbox(key="config").value == "85w" and at.slider(key="k").value == 17
    assert at.slider(key="k").max == 50
