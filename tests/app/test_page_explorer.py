"""AppTest of the Uncertainty explorer page: K, B and chunk size move the figures; simulations are cached."""

from __future__ import annotations

import base64
import json
import platform
from collections.abc import Iterator

import numpy as np

import pytest
from streamlit.testing.v1 import AppTest

import ragunc.corpus
import ragunc.retrieval
import ragunc.stats.coverage
import ragunc.stats.explore
from dashboard import cache, sources
from ragunc.data.results import load_results, results_from_frame
from ragunc.present import summary
from ragunc.present.figures import interval_label
from ragunc.stats.design import design
from ragunc.stats.intervals import interval_report
from ragunc.stats.methods import METHODS
from ragunc.stats.sample import nested_orders, nested_sample

FAST = {"reps": "200", "boot": "200"}


def _charts(at: AppTest) -> dict[str, dict]:
    return {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def _interval_chart(at: AppTest) -> dict:
    return next(spec for spec in _charts(at).values() if "intervals for" in spec["layout"]["title"]["text"])


def _array(value) -> np.ndarray:
    """A trace array from the figure JSON (plotly writes numpy arrays as base64 typed arrays)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


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


def test_page_loads_on_its_own_with_the_default_data(open_page):
    at = open_page("uncertainty_explorer.py", **FAST)
    assert not at.exception
    assert at.title[0].value == "Uncertainty explorer"
    assert len(at.get("plotly_chart")) == 2  # intervals, coverage
    at.toggle(key="repetitions").set_value(True).run()  # on demand: the stacked repetitions and their spread
    assert len(at.get("plotly_chart")) == 4 and at.query_params["repetitions"] in ("1", ["1"])


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


def _tiles(at: AppTest, label: str) -> list[str]:
    """Every metric tile called ``label``, in page order: the design's first, then this sample's."""
    return [m.value for m in at.metric if m.label == label]


def _lead(at: AppTest) -> str:
    """The page's plain headline (the first markdown that is a heading)."""
    return next(m.value for m in at.markdown if m.value.startswith("#### "))


NAIVE, RECOMMENDED, BOOTSTRAP = (interval_label(m, plain=True) for m in ("naive", "korn_graubard_bm", "bootstrap"))


def test_tiles_and_intervals_are_the_librarys_numbers(two_configs):
    at, frame = two_configs
    at.slider(key="k").set_value(120).run()  # K = D: the whole population, no sampling left to reproduce
    sample = results_from_frame(frame).population("100w")
    expected = interval_report(sample.with_population(sample.n_docs), boot=200, rng=0)
    assert _tiles(at, "DEFF") == ["0.0", f"{expected.diagnostics.deff:.2f}"]  # a census has no design variance
    assert _tiles(at, "Chunks") == [f"{expected.n_chunks:,}"]
    low, high = _bounds(_interval_chart(at))[NAIVE]
    assert low == pytest.approx(100 * expected.interval("naive").ci[0]) and high == pytest.approx(
        100 * expected.interval("naive").ci[1]
    )
    assert any("nothing to resample" in i.value for i in at.info)
    assert summary.estimate_line(expected) in [m.value for m in at.markdown]
    why = next(e for e in at.expander if e.label == "Why this interval")
    assert why.markdown[0].value == summary.why_this_interval(expected)


def test_the_design_tiles_are_the_designs_values_and_this_samples_its_own(two_configs):
    at, frame = two_configs
    population = results_from_frame(frame).population("100w")
    # the nested sample at K = 20, and the design measured on the R = 200 nested repetitions
    values = design(population, 20, rng=0, samples=nested_orders(population.n_docs, 1 + 200, 0)[1:, :20])
    own = interval_report(nested_sample(population, 20, seed=0), boot=200, rng=0).diagnostics
    assert _tiles(at, "DEFF") == [f"{values.deff:.1f}", f"{own.deff:.2f}"]
    assert _tiles(at, "Effective n") == [f"{values.n_eff:,.0f}", f"{own.n_eff:,.0f}"]
    assert _tiles(at, "ICC") == [f"{values.icc:.3f}", f"{own.icc:.3f}"]
    assert _tiles(at, "SD (pp)") == [f"{100 * values.sd:.2f}"]
    boxes = [m.value for m in at.markdown]
    assert "**The design:** repeated samples of K = 20 documents" in boxes
    assert "**This sample:** the 20 documents drawn" in boxes


def test_the_page_leads_with_the_effect_and_labels_intervals_with_their_coverage(two_configs):
    at, _ = two_configs
    assert not at.exception
    lead = _lead(at)
    assert lead.startswith("#### Chunks of one document are") and "the usual binomial 95% interval held" in lead
    ticks = _interval_chart(at)["layout"]["yaxis"]["ticktext"]
    assert len(ticks) == 3  # simple first: naive, recommended, one bootstrap
    assert ticks[0].startswith(f"{NAIVE} · ") and ticks[0].endswith("% coverage here")
    assert ticks[1].startswith(f"<b>★ {RECOMMENDED}</b> · ")
    at.toggle(key="sim").set_value(False).run()  # no simulation: no coverage in the labels, the DEFF says it
    assert not any("coverage here" in t for t in _interval_chart(at)["layout"]["yaxis"]["ticktext"])
    assert "normal approximation" in _lead(at)


def test_all_methods_shows_the_twelve(two_configs):
    at, _ = two_configs
    at.toggle(key="all").set_value(True).run()
    ticks = _interval_chart(at)["layout"]["yaxis"]["ticktext"]
    assert len(ticks) == len(METHODS)
    assert sum("★ Korn–Graubard, Bell–McCaffrey df (recommended)" in t for t in ticks) == 1
    coverage = next(s for s in _charts(at).values() if s["layout"]["title"]["text"].startswith("Coverage over"))
    assert len(coverage["data"][0]["y"]) == len(METHODS)
    assert at.query_params["all"] in ("1", ["1"])


def test_moving_b_changes_the_bootstrap_interval_only(two_configs):
    at, _ = two_configs
    before = _bounds(_interval_chart(at))
    at.select_slider(key="boot").set_value(2000).run()
    after = _bounds(_interval_chart(at))
    assert after[BOOTSTRAP] != before[BOOTSTRAP]
    assert after[NAIVE] == before[NAIVE]
    assert after[RECOMMENDED] == before[RECOMMENDED]


def test_changing_chunk_size_changes_the_figures(two_configs, tile):
    at, frame = two_configs
    # An upload keeps its own sizes (no computing), on a slider ordered by words.
    assert at.select_slider(key="config").options == ["50 words", "100 words"]
    chunks_100 = tile(at, "Chunks")
    before = _interval_chart(at)
    at.select_slider(key="config").set_value("50w").run()
    assert not at.exception
    assert tile(at, "Chunks") != chunks_100
    assert _bounds(_interval_chart(at)) != _bounds(before)
    assert at.query_params["config"] in ("50w", ["50w"])


def test_plot_only_control_never_reruns_the_simulation(two_configs, monkeypatch):
    at, _ = two_configs
    calls = []
    real = ragunc.stats.explore.coverage_experiment

    def counted(*args, **kwargs):
        calls.append(kwargs["k"])
        return real(*args, **kwargs)

    monkeypatch.setattr(ragunc.stats.explore, "coverage_experiment", counted)
    cache.wait_for_prefetch()
    at.toggle(key="repetitions").set_value(True).run()
    at.slider(key="stack").set_value(40).run()
    assert not at.exception
    assert calls == []
    stacked = next(s for s in _charts(at).values() if "First 40 repetitions" in s["layout"]["title"]["text"])
    assert stacked
    at.slider(key="k").set_value(33).run()
    assert calls.count(33) == 1
    cache.wait_for_prefetch()
    assert sorted(calls) == [32, 33, 34]  # and its neighbours, in the background
    at.slider(key="k").set_value(34).run()  # a neighbour: computed already
    at.slider(key="k").set_value(33).run()  # back to a simulated K: served from the cache
    assert calls.count(33) == 1 and calls.count(34) == 1


def test_the_landing_view_shows_the_naive_interval_failing(open_app):
    """No query parameters: the alike-documents sample at K = 20, with the defaults (B = R = 1,000)."""
    at = open_app()
    assert not at.exception and not at.error
    assert at.selectbox(key="source").value == "alike" and at.slider(key="k").value == 20
    coverage = next(s for s in _charts(at).values() if s["layout"]["title"]["text"].startswith("Coverage over 1,000"))
    naive = dict(zip(coverage["data"][0]["y"], _array(coverage["data"][0]["x"])))[NAIVE]
    assert naive <= 70
    assert f"held the true hit@1 only {naive:.0f}% of the time" in _lead(at)
    # the stdlib sample is one click away, with its own honest sentence
    at.button(key="other_sample").click().run()
    assert at.selectbox(key="source").value == "sample" and not at.exception
    assert "mildly alike" in _lead(at)


def test_the_design_values_agree_with_the_coverage_experiment(open_app):
    """On the alike-documents sample at K = 20 the design's DEFF is what the coverage run's repetitions show."""
    at = open_app(reps="2000")
    population = load_results(sources.SAMPLE_DIR / "debian_copyright_100w.csv.gz").population("100w")
    nested = nested_orders(population.n_docs, 1 + 2000, 0)[1:, :20]  # the explorer's nested repetitions
    run = ragunc.stats.coverage.coverage_experiment(population, k=20, reps=2000, boot=1000, rng=0, samples=nested)
    deff = float(_tiles(at, "DEFF")[0])
    est = run.estimates
    m4 = ((est - est.mean()) ** 4).mean()
    mc_se = np.sqrt((m4 - est.var() ** 2) / est.size) / run.binomial_sd**2  # of the run's variance ratio
    assert abs(deff - run.variance_ratio) < 3 * mc_se + 0.05  # and the tile's rounding
    assert f"varied {run.variance_ratio:.1f} times as much as the binomial variance" in " ".join(
        m.value for m in at.markdown
    )


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


def _bundled_stdlib(at: AppTest) -> None:
    if "25 words" not in at.select_slider(key="config").options:
        pytest.skip("the bundled stdlib sample is not present")


def test_the_slider_offers_the_size_grid_on_the_bundled_sample(pipeline, open_app):
    at = open_app(source="sample", sim="0")
    _bundled_stdlib(at)
    assert at.select_slider(key="config").options == [f"{w} words" for w in sources.SIZE_GRID]
    assert at.select_slider(key="config").value == "100w" and pipeline.calls == []  # bundled: nothing computed


def test_moving_the_slider_to_a_new_size_computes_it_and_changes_the_figures(pipeline, chunk_rows, open_app, tile):
    pipeline.frame = chunk_rows(n_docs=60, seed=9).assign(config="75w")
    at = open_app(source="sample", sim="0")
    _bundled_stdlib(at)
    chunks_100, before = tile(at, "Chunks"), _interval_chart(at)
    at.select_slider(key="config").set_value("75w").run()
    assert not at.exception and not at.error
    assert pipeline.calls == [("corpus", 75)]
    assert at.query_params["config"] in ("75w", ["75w"])  # the URL carries the size
    assert tile(at, "Chunks") != chunks_100 and _bounds(_interval_chart(at)) != _bounds(before)
    assert at.slider(key="k").max == 60  # the population is the computed size's
    at.select_slider(key="config").set_value("100w").run()
    at.select_slider(key="config").set_value("75w").run()  # back again: cached for the session
    assert pipeline.calls == [("corpus", 75)] and not at.exception


def test_computed_size_survives_reruns_after_a_slow_run_drew_a_progress_bar(
    pipeline, chunk_rows, monkeypatch, open_app
):
    pipeline.frame = chunk_rows(n_docs=40, seed=4).assign(config="150w")
    at = open_app(source="sample", sim="0")
    _bundled_stdlib(at)
    monkeypatch.setattr(cache, "PROGRESS_AFTER_S", -1.0)  # every run counts as slow
    at.select_slider(key="config").set_value("150w").run()
    assert not at.exception
    assert pipeline.progress == [(1, 3), (2, 3), (3, 3)]
    at.slider(key="k").set_value(12).run()
    assert not at.exception and at.select_slider(key="config").value == "150w"


def test_a_link_with_a_size_not_computed_yet_computes_it(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=50, seed=5).assign(config="300w")
    at = open_app(source="sample", sim="0", config="300w", k="17")
    _bundled_stdlib(at)
    assert not at.exception
    assert [words for _, words in pipeline.calls] == [300]
    assert at.select_slider(key="config").value == "300w" and at.slider(key="k").value == 17
    assert at.slider(key="k").max == 50


def test_a_link_with_a_size_off_the_grid_opens_on_it(pipeline, chunk_rows, open_app):
    pipeline.frame = chunk_rows(n_docs=50, seed=6).assign(config="85w")
    at = open_app(source="sample", sim="0", config="85w")
    _bundled_stdlib(at)
    assert [words for _, words in pipeline.calls] == [85]
    assert "85 words" in at.select_slider(key="config").options
    at.slider(key="k").set_value(11).run()  # stays on the slider once computed
    assert at.select_slider(key="config").value == "85w" and not at.exception


def test_the_design_effect_page_lists_every_size_computed_so_far(pipeline, chunk_rows, open_app, switch_page):
    frames = {
        75: chunk_rows(n_docs=60, seed=9).assign(config="75w"),
        300: chunk_rows(n_docs=60, seed=3).assign(config="300w"),
    }
    pipeline.frame = lambda words: frames[words]
    at = open_app(source="sample", sim="0")
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
    np.testing.assert_allclose(_array(deff["y"]), table["DEFF"], atol=5e-4)
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
