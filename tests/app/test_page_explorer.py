"""AppTest of the Uncertainty explorer page: the view of every K sent once, the bootstrap at the released K,
the downloads of what is on screen; chunk sizes computed when chosen."""

from __future__ import annotations

import base64
import io
import json
import platform
import re
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

import ragunc.corpus
import ragunc.retrieval
from dashboard import cache, explorer_view, in_browser, sources
from ragunc.data.results import load_results, results_from_frame
from ragunc.present import explorer, numbers
from ragunc.stats.all_k import k_table, nested_bootstrap
from ragunc.stats.methods import METHODS as REGISTERED

FAST = {"reps": "200", "boot": "200"}
METHODS = ("naive", "korn_graubard_bm", "bootstrap")


def _data(at: AppTest) -> dict:
    """What the page sent the explorer component: its view of every K, the server's answer, K, B and R."""
    (component,) = [e for e in at.get("bidi_component") if e.proto.component_name == "ragunc.explorer"]
    data = json.loads(component.proto.json)
    data["view"] = json.loads((explorer_view.VIEWS / data["view"]).read_text(encoding="utf-8"))  # as fetched
    return data


def _text(at: AppTest, slot: str, k: int | None = None) -> str:
    """The text the browser shows in ``slot`` at ``k`` (default: the page's K)."""
    data = _data(at)
    view = data["view"]
    row = (data["k"] if k is None else k) - view["k"]["min"]
    return view["rows"][row][view["slots"].index(slot)]


def _array(value) -> np.ndarray:
    """A trace array from the figure JSON (plotly writes numpy arrays as base64 typed arrays)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


@pytest.fixture()
def downloads(monkeypatch) -> dict:
    """The deferred download callables of the runs, by file name (what a click in the browser would run)."""
    made = {}
    real = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, *args, **kwargs):
        made[file_name] = data_callable
        return real(self, data_callable, mimetype, coordinates, file_name, *args, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return made


@pytest.fixture()
def two_configs(open_app, chunk_rows, upload):
    """An app on an uploaded file holding two chunk sizes of the same 120 documents."""
    frame = chunk_rows(n_docs=120, seed=5, configs={"100w": 1.0, "50w": 2.0})
    at = open_app(source="upload", config="100w", **FAST)
    return upload(at, frame), frame


class _Pipeline:
    """Stands in for the retrieval pipeline, which has its own tests: here only the page's wiring is under test.

    Returns ``frame`` (or ``frame(chunk_words)``), records ``(corpus, chunk_words)`` of every call and the
    progress it reports as it goes.
    """

    def __init__(self):
        self.frame, self.calls, self.progress = None, [], []

    def __call__(self, corpus, *, chunk_words, progress=None, **options):
        self.calls.append((corpus, chunk_words))
        for done in range(1, 4):
            self.progress.append((done, 3))
            progress(done, 3)
        return self.frame(chunk_words) if callable(self.frame) else self.frame


@pytest.fixture()
def pipeline(monkeypatch) -> Iterator[_Pipeline]:
    stand_in = _Pipeline()
    monkeypatch.setattr(ragunc.corpus, "stdlib_corpus", lambda **kw: "corpus")
    monkeypatch.setattr(ragunc.retrieval, "tokenize_corpus", lambda corpus: corpus)
    monkeypatch.setattr(ragunc.retrieval, "chunk_eval", stand_in)
    cache._stores.clear()  # the stores are the server's: no stand-in result may reach another test
    yield stand_in
    cache._stores.clear()


def _move(at: AppTest, **values) -> AppTest:
    """The explorer's controls released at ``values`` (what its callbacks write into the bound keys)."""
    for name, value in values.items():
        at.session_state[name] = value
    return at.run()


def test_page_loads_on_its_own_with_the_default_data(open_page):
    at = open_page("uncertainty_explorer.py", **FAST)
    assert not at.exception
    assert at.title[0].value == "Uncertainty explorer"
    data = _data(at)
    assert (data["k"], data["boot"], data["reps"]) == (20, 200, 200)
    assert data["answer"]["k"] == 20  # the bootstrap at the page's K, sent with the view
    at.toggle(key="repetitions").set_value(True).run()  # on demand: the stacked repetitions and their spread
    assert len(at.get("plotly_chart")) == 2 and at.query_params["repetitions"] in ("1", ["1"])


def test_the_view_is_the_engines_table_and_the_answer_its_bootstrap(two_configs):
    at, frame = two_configs
    population = results_from_frame(frame).population("100w")
    table = k_table(population, reps=200, seed=0)
    expected = explorer.explorer_view(
        table,
        methods=METHODS,
        plain=True,
        boots=(200, 500, 1000, 2000, 5000),
        reps_options=(200, 500, 1000, 2000, 5000),
    )
    data = _data(at)
    assert data["view"] == json.loads(json.dumps(expected))
    _move(at, k=60)
    data = _data(at)
    assert data["k"] == 60 and data["view"] == json.loads(json.dumps(expected))  # the view is not recomputed
    report, coverage = nested_bootstrap(population, k=60, boot=200, reps=200, seed=0)
    answer = explorer.bootstrap_answer(report, coverage, methods=METHODS, plain=True, table=table, boot=200, reps=200)
    assert data["answer"] == json.loads(json.dumps(answer))
    assert at.query_params["k"] in ("60", ["60"])


def test_moving_b_asks_the_bootstrap_again_and_keeps_the_view(two_configs):
    at, _ = two_configs
    before = _data(at)
    _move(at, boot=2000)
    after = _data(at)
    assert after["view"] == before["view"]
    assert after["answer"]["boot"] == 2000 and after["answer"]["figures"] != before["answer"]["figures"]
    assert at.query_params["boot"] in ("2000", ["2000"])


def test_moving_r_sends_the_table_of_that_r(two_configs):
    at, _ = two_configs
    _move(at, reps=500)
    assert not at.exception
    assert _data(at)["view"]["reps"] == 500 and "Over 500 fresh samples" in _text(at, "headline_coverage")


def test_a_link_restores_k_b_and_r(open_app):
    at = open_app(source="synthetic", syn_docs="150", k="33", boot="500", reps="200")
    assert not at.exception
    data = _data(at)
    assert (data["k"], data["boot"], data["reps"]) == (33, 500, 200)
    assert (data["answer"]["k"], data["answer"]["boot"]) == (33, 500)


def test_the_downloads_describe_the_released_k(two_configs, downloads):
    at, frame = two_configs
    _move(at, k=45)
    population = results_from_frame(frame).population("100w")
    report, _ = nested_bootstrap(population, k=45, boot=200, reps=200, seed=0)
    csv = pd.read_csv(io.StringIO(downloads["ragunc_summary.csv"]()))
    assert set(csv["n_docs"]) == {45}
    naive = csv.set_index("method").loc["naive"]
    assert (naive["low"], naive["high"]) == pytest.approx(report.interval("naive").ci)
    summary = json.loads(downloads["ragunc_summary.json"]())
    assert summary["context"]["K"] == 45 and summary["interval"]["n_docs"] == 45
    # and the screen says the same numbers at that K
    assert _text(at, "sample_interval") == numbers.interval(*report.recommended().ci)
    assert _text(at, "sample_chunks") == numbers.count(report.n_chunks)


def test_all_methods_shows_every_registered_method(two_configs):
    at, _ = two_configs
    at.toggle(key="all").set_value(True).run()
    view = _data(at)["view"]
    assert len(view["figures"]["intervals"]["base"]["data"]) == len(REGISTERED)
    assert at.query_params["all"] in ("1", ["1"])


def test_the_figures_use_only_traces_the_served_plotly_bundle_holds(two_configs):
    # The browser draws with a partial Plotly.js bundle: a trace type outside it would draw nothing.
    at, _ = two_configs
    at.toggle(key="all").set_value(True).run()
    readme = (in_browser.PLOTLY / "README.md").read_text(encoding="utf-8")
    held = set(re.findall(r"`(\w+)`", readme.split("Contains trace modules", 1)[1].split("\n", 1)[0]))
    assert held == {"bar", "pie", "scatter"}
    traces = [t.get("type", "scatter") for f in _data(at)["view"]["figures"].values() for t in f["base"]["data"]]
    assert traces and set(traces) <= held


def test_the_served_plotly_bundle_is_the_pinned_one_with_its_licence():
    pinned = json.loads((in_browser.PLOTLY / "package.json").read_text(encoding="utf-8"))
    bundle = (in_browser.PLOTLY / pinned["main"]).read_text(encoding="utf-8")
    assert f"plotly.js (basic - minified) v{pinned['version']}" in bundle[:200]
    assert pinned["license"] == "MIT"
    assert "Permission is hereby granted, free of charge" in (in_browser.PLOTLY / "LICENSE").read_text(encoding="utf-8")
    # the components ask for the file the pinned package names, from the asset route of this folder
    script = (in_browser.COMPONENTS / "common.js").read_text(encoding="utf-8")
    assert f'"../ragunc.plotly/{pinned["main"]}"' in script


def test_changing_chunk_size_sends_a_new_view(two_configs):
    at, frame = two_configs
    # An upload keeps its own sizes (no computing), on a slider ordered by words.
    assert at.select_slider(key="config").options == ["50 words", "100 words"]
    chunks_100 = _text(at, "sample_chunks")
    at.select_slider(key="config").set_value("50w").run()
    assert not at.exception
    assert _text(at, "sample_chunks") != chunks_100
    assert at.query_params["config"] in ("50w", ["50w"])


def test_the_landing_view_shows_the_naive_interval_failing(open_app):
    """No query parameters: the alike-documents sample at K = 20, with the defaults (B = R = 1,000)."""
    at = open_app()
    assert not at.exception and not at.error
    assert at.selectbox(key="source").value == "alike" and _data(at)["k"] == 20
    population = load_results(sources.SAMPLE_DIR / "debian_copyright_100w.csv.gz").population("100w")
    row = k_table(population, reps=1000, seed=0).row(20)
    assert row["coverage_naive"] <= 0.7
    assert f"only {numbers.percent(row['coverage_naive'])} of the time" in _text(at, "headline_coverage")
    # the stdlib sample is one click away, with its own honest sentence
    assert at.button(key="other_sample").label == "Show the Python docs sample instead"  # it says what it does
    at.button(key="other_sample").click().run()
    assert at.selectbox(key="source").value == "sample" and not at.exception
    assert "mildly alike" in _text(at, "headline")


def _bundled_stdlib(at: AppTest) -> None:
    if "25 words" not in at.select_slider(key="config").options:
        pytest.skip("the bundled stdlib sample is not present")


def test_the_slider_offers_the_size_grid_on_the_bundled_sample(pipeline, open_app):
    at = open_app(source="sample", reps="200")
    _bundled_stdlib(at)
    assert at.select_slider(key="config").options == [f"{w} words" for w in sources.SIZE_GRID]
    assert at.select_slider(key="config").value == "100w" and pipeline.calls == []  # bundled: nothing computed


def test_moving_the_slider_to_a_new_size_computes_it_and_changes_the_view(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=60, seed=9).assign(config="75w")
    at = open_app(source="sample", reps="200")
    _bundled_stdlib(at)
    chunks_100 = _text(at, "sample_chunks")
    at.select_slider(key="config").set_value("75w").run()
    assert not at.exception and not at.error
    assert pipeline.calls == [("corpus", 75)]
    assert at.query_params["config"] in ("75w", ["75w"])  # the URL carries the size
    assert _text(at, "sample_chunks") != chunks_100
    assert _data(at)["view"]["k"]["max"] == 60  # the population is the computed size's
    at.select_slider(key="config").set_value("100w").run()
    at.select_slider(key="config").set_value("75w").run()  # back again: cached for the session
    assert pipeline.calls == [("corpus", 75)] and not at.exception


def test_computed_size_survives_reruns_after_a_slow_run_drew_a_progress_bar(
    pipeline, chunk_rows, monkeypatch, open_app
):
    pipeline.frame = chunk_rows(n_docs=40, seed=4).assign(config="150w")
    at = open_app(source="sample", reps="200")
    _bundled_stdlib(at)
    monkeypatch.setattr(cache, "PROGRESS_AFTER_S", -1.0)  # every run counts as slow
    at.select_slider(key="config").set_value("150w").run()
    assert not at.exception
    assert pipeline.progress == [(1, 3), (2, 3), (3, 3)]
    _move(at, k=12)
    assert not at.exception and at.select_slider(key="config").value == "150w"


def test_a_link_with_a_size_not_computed_yet_computes_it(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=50, seed=5).assign(config="300w")
    at = open_app(source="sample", reps="200", config="300w", k="17")
    _bundled_stdlib(at)
    assert not at.exception
    assert [words for _, words in pipeline.calls] == [300]
    assert at.select_slider(key="config").value == "300w" and _data(at)["k"] == 17
    assert _data(at)["view"]["k"]["max"] == 50


def test_a_link_with_a_size_off_the_grid_opens_on_it(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=50, seed=6).assign(config="85w")
    at = open_app(source="sample", reps="200", config="85w")
    _bundled_stdlib(at)
    assert [words for _, words in pipeline.calls] == [85]
    assert "85 words" in at.select_slider(key="config").options
    _move(at, k=11)  # stays on the slider once computed
    assert at.select_slider(key="config").value == "85w" and not at.exception


def test_the_design_effect_page_lists_every_size_computed_so_far(pipeline, chunk_rows, open_app, switch_page):
    frames = {
        75: chunk_rows(n_docs=60, seed=9).assign(config="75w"),
        300: chunk_rows(n_docs=60, seed=3).assign(config="300w"),
    }
    pipeline.frame = lambda words: frames[words]
    at = open_app(source="sample", reps="200")
    _bundled_stdlib(at)
    for size in ("75w", "300w"):
        at.select_slider(key="config").set_value(size).run()
    switch_page(at, "design_effect.py")
    assert not at.exception and not at.error
    every = [50, 75, 100, 200, 300]  # the bundled sizes and the two computed
    table = next(d.value for d in at.dataframe if "words per chunk" in d.value.columns)
    assert table["words per chunk"].tolist() == every
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Finer chunks" in c.proto.spec)
    deff = next(t for t in chart["data"] if t.get("name") == "DEFF")
    np.testing.assert_array_equal(_array(deff["x"]), every)
    assert [f"{y:.1f}" for y in _array(deff["y"])] == table["DEFF"].tolist()  # the table says it to one decimal
    assert at.select_slider(key="config").value == "300w"  # the size explored is the page's too
    assert pipeline.calls == [("corpus", 75), ("corpus", 300)]  # the page reuses the session's results


def test_in_app_computation_at_100_words_is_the_bundled_file():
    # The real pipeline, as the slider runs it, reproduces the bundled sample (same Python, same stdlib).
    meta = json.loads((sources.SAMPLE_DIR / "stdlib_meta.json").read_text())
    if (platform.python_version(), platform.python_implementation()) != (meta["python"], meta["implementation"]):
        pytest.skip(f"the bundled sample was rendered from Python {meta['python']}'s standard library")
    computed = sources._chunk_results(sources._stdlib_tokens(), units=100, label="stdlib").population("100w")
    bundled = load_results(sources.SAMPLE_DIR / "stdlib_100w.csv.gz").population("100w")
    assert computed.config == bundled.config and computed.n_chunks == bundled.n_chunks
    for field in ("sum_y", "n", "sum_y2"):
        np.testing.assert_array_equal(getattr(computed, field), getattr(bundled, field))
