"""The dashboard package on its own: the one cached-call helper, the lazy progress bar, the column peek."""

from __future__ import annotations

import dataclasses
import gzip
import io
import runpy
from pathlib import Path


import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit import config

from dashboard import cache, serving, sources
from ragunc.data import DataError, load_results
from ragunc.stats.sample import ClusterStats
from tests.support.app_pages import routed_pages


class _Bar:
    def __init__(self, log):
        self.log = log

    def progress(self, value, text=None):
        self.log.append(("progress", value))

    def empty(self):
        self.log.append(("empty", None))


class _Container:
    def __init__(self):
        self.log = []

    def progress(self, value, text=None):
        self.log.append(("created", value))
        return _Bar(self.log)


def test_progress_bar_appears_only_for_work_expected_to_take_over_a_second():
    quick = _Container()
    progress = cache.LazyProgress(quick, "sim")
    progress.start -= 0.1  # 0.1 s for half the work: about 0.2 s in all
    progress(1, 2)
    progress(2, 2)
    progress.close()
    assert quick.log == []

    slow = _Container()
    progress = cache.LazyProgress(slow, "sim")
    progress.start -= 0.6  # 0.6 s for a quarter of the work: about 2.4 s in all
    progress(1, 4)
    progress(4, 4)
    progress.close()
    assert slow.log == [("created", 0.0), ("progress", 0.25), ("progress", 1.0), ("empty", None)]


def test_peek_columns_reads_the_file_type_as_the_loader_does():
    csv = b"doc_id,hit\nd,1\n"
    assert sources.peek_columns("R.CSV.GZ", gzip.compress(csv)) == ["doc_id", "hit"]
    assert sources.peek_columns("r.ndjson", b'\n{"doc_id": "d", "hit": 1}\n') == ["doc_id", "hit"]
    buffer = io.BytesIO()
    pd.DataFrame({"doc_id": ["d"], "hit": [1]}).to_parquet(buffer)
    assert sources.peek_columns("r.pq", buffer.getvalue()) == ["doc_id", "hit"]
    # ragunc's own peek: what the loader refuses, the peek refuses in the loader's words
    with pytest.raises(DataError) as peeked:
        sources.peek_columns("r.xlsx", csv)
    with pytest.raises(DataError) as loaded:
        load_results(sources.named_buffer("r.xlsx", csv))
    assert str(peeked.value) == str(loaded.value) and "unknown file type for 'r.xlsx'" in str(peeked.value)


def test_an_uploaded_corpus_is_read_by_the_format_its_name_gives():
    rows = b'{"doc_id": "a", "text": "one two"}\n{"doc_id": "b", "text": "three"}\n'
    corpus = sources.uploaded_corpus("docs.jsonl.gz", gzip.compress(rows))
    assert list(corpus.doc_ids) == ["a", "b"]
    with pytest.raises(DataError, match="docs.xlsx: not a corpus file"):
        sources.uploaded_corpus("docs.xlsx", rows)


CALLS: list[tuple] = []


def _counted_sum(values: np.ndarray, *, scale: float = 1.0, progress=None) -> float:
    CALLS.append((float(values.sum()), scale, progress is not None))
    if progress is not None:
        progress(1, 1)
    return float(values.sum()) * scale


@pytest.fixture()
def counted():
    cache._stores.clear()
    CALLS.clear()
    yield CALLS
    cache._stores.clear()


def test_cached_computes_once_per_content_and_options_and_hands_out_the_same_object(counted):
    arrays = np.arange(4.0)  # an unhashable argument: its contents are the key
    first = cache.cached(_counted_sum, arrays, scale=2.0)
    assert first == 12.0 and counted == [(6.0, 2.0, False)]
    assert cache.cached(_counted_sum, np.arange(4.0), scale=2.0) == 12.0  # equal contents, another object
    assert len(counted) == 1  # a hit: not computed again
    assert cache.cached(_counted_sum, arrays, scale=3.0) == 18.0  # another option: computed
    assert cache.cached(_counted_sum, arrays + 1, scale=2.0) == 20.0  # other contents: computed
    assert len(counted) == 3
    box = cache.cached(cache._with_results, _counted_sum, arrays)
    assert cache.cached(cache._with_results, _counted_sum, arrays) is box  # the object, not a copy


def test_two_uploads_of_one_file_name_get_their_own_values(counted):
    # Keyed by a file's name, two sessions' uploads got the first one's value; the key is the content now.
    mine, theirs = np.array([1.0, 0.0]), np.array([1.0, 1.0])
    assert cache.cached(_counted_sum, mine) == 1.0
    assert cache.cached(_counted_sum, theirs) == 2.0
    one, other = (ClusterStats(np.array(["a", "b"]), sums, np.array([2, 2]), sums) for sums in (mine, theirs))
    assert cache.cached(_estimate_of, one) != cache.cached(_estimate_of, other)
    same = ClusterStats(np.array(["a", "b"]), np.array([1.0, 0.0]), np.array([2, 2]), np.array([1.0, 0.0]))
    assert cache.cached(_estimate_of, same) == cache.cached(_estimate_of, one)
    renamed = dataclasses.replace(one, cluster_id=np.array(["a", "c"]))  # the same sums, another document
    assert cache.fingerprint(renamed) != cache.fingerprint(one)
    assert len(counted) == 4  # two sums, two estimates: the equal population was a hit


def test_a_large_object_is_fingerprinted_once_while_it_lives(monkeypatch):
    digests = []
    content = cache._content
    monkeypatch.setattr(cache, "_content", lambda value: digests.append(type(value)) or content(value))
    population = ClusterStats(np.array(["a", "b"]), np.array([1.0, 0.0]), np.array([2, 2]), np.array([1.0, 0.0]))
    assert cache.fingerprint(population) == cache.fingerprint(population)
    assert digests.count(ClusterStats) == 1  # the second call found it
    ident = id(population)
    del population
    assert ident not in cache._FINGERPRINTS  # dropped with its object: a new object at that id starts afresh


def test_a_file_path_is_keyed_by_its_contents_date_and_size(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("one")
    before = cache.fingerprint(path)
    path.write_text("one two")
    assert cache.fingerprint(path) != before


def test_cached_keeps_the_most_recently_used(counted):
    a, b, c, d = (np.full(1, float(v)) for v in range(4))
    for value in (a, b, c):
        cache.cached(_counted_sum, value, kept=2)
    cache.cached(_counted_sum, b, kept=2)  # b is used again, so a is the oldest of b, c
    cache.cached(_counted_sum, d, kept=2)  # a and then c go: b, d are kept
    assert len(counted) == 4
    cache.cached(_counted_sum, b, kept=2)
    assert len(counted) == 4
    cache.cached(_counted_sum, a, kept=2)
    assert len(counted) == 5


def test_frames_are_keyed_by_their_cells_and_other_objects_by_identity():
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "rank": [1, 2]})
    assert cache.fingerprint(frame) == cache.fingerprint(frame.copy())
    assert cache.fingerprint(frame) != cache.fingerprint(frame.assign(rank=[2, 1]))
    listed = pd.DataFrame({"ids": [["a"], ["b"]]})  # cells that do not hash: the frame by identity
    assert cache.fingerprint(listed) == cache.fingerprint(listed) != cache.fingerprint(listed.copy())
    one, other = object(), object()
    assert cache.fingerprint(one) == cache.fingerprint(one) != cache.fingerprint(other)


def test_cached_passes_a_progress_callback_only_when_asked_and_never_caches_a_failure(counted):
    assert cache.cached(_counted_sum, np.ones(2), progress_label="Summing") == 2.0
    assert counted == [(2.0, 1.0, True)]
    with pytest.raises(AttributeError):
        cache.cached(_counted_sum, "not an array")
    with pytest.raises(AttributeError):
        cache.cached(_counted_sum, "not an array")  # computed (and failing) again: nothing was kept


def test_cached_refuses_what_it_cannot_name_or_key():
    with pytest.raises(ValueError, match="module-level function"):
        cache.cached(lambda values: values, np.ones(1))
    with pytest.raises(TypeError, match="cannot derive a key from a Unhashable"):
        cache.cached(_counted_sum, Unhashable())


class Unhashable:
    __hash__ = None


def _estimate_of(population: ClusterStats) -> float:
    CALLS.append((float(population.sum_y.sum()), 1.0, False))
    return float(population.sum_y.sum() / population.n.sum())


FIGURES_BUILT: list[str] = []


def _figure_of(result, *, title: str) -> dict:
    FIGURES_BUILT.append(title)
    return {"title": title, "points": result.tolist()}


def test_a_figure_is_built_once_per_result_object(counted):
    FIGURES_BUILT.clear()
    result = np.arange(3.0)
    first = cache.figure(_figure_of, result, title="t")
    assert cache.figure(_figure_of, result, title="t") is first and FIGURES_BUILT == ["t"]
    other = np.arange(3.0) + 1  # another result: a figure of its own
    assert cache.figure(_figure_of, other, title="t") is not first
    assert cache.figure(_figure_of, result, title="u")["title"] == "u"
    assert FIGURES_BUILT == ["t", "t", "u"]


ROOT = Path(__file__).resolve().parents[2]


def test_importing_app_runs_nothing_and_gives_streamlit_run_its_server(monkeypatch):
    called = []
    monkeypatch.setattr(st, "set_page_config", lambda *a, **k: called.append("set_page_config"))
    monkeypatch.setattr(st, "navigation", lambda *a, **k: called.append("navigation"))
    monkeypatch.setattr(config, "_main_script_path", None)  # st.App sets it for the process; undone after
    namespace = runpy.run_path(str(ROOT / "app.py"), run_name="app")
    assert called == [] and callable(namespace["main"])
    assert isinstance(namespace["app"], st.App)  # what `streamlit run app.py` looks for, by that name


def test_each_page_url_answers_the_app_naming_its_server_before_streamlit_starts(monkeypatch):
    names = [Path(name).stem for name, _, _ in routed_pages()]
    assert [route.path for route in serving.page_routes(names)] == [f"/{name}" for name in names]
    monkeypatch.setattr(config, "get_option", {"server.baseUrlPath": "/behind/a/proxy/"}.__getitem__)
    assert serving.page_routes(["lesson"])[0].path == "/behind/a/proxy/lesson"
    html = serving.page_html()
    # Streamlit's browser code reads the setting once, as its module script starts
    assert 0 <= html.find(serving.SERVER_AT_PAGE_FOLDER) < html.index('<script type="module"')


def test_pages_holds_only_the_routed_page_scripts_and_nothing_edits_sys_path():
    assert sorted(p.name for p in (ROOT / "pages").iterdir() if p.name != "__pycache__") == sorted(
        name for name, _, _ in routed_pages()
    )
    for path in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "dashboard").glob("*.py")]:
        assert "sys.path" not in path.read_text(encoding="utf-8"), path.name


def test_coverage_runs_of_default_size_get_no_progress_bar():
    # The explorer's defaults (R = B = 1,000, K = 20) take about 0.1 s: no bar; R = B = 5,000 at
    # K = 100 (2.5e9 draws, seconds) keeps one.
    assert cache.coverage_progress("sim", reps=1000, boot=1000, k=20) is None
    assert cache.coverage_progress("sim", reps=2000, boot=1000, k=50) is None
    assert cache.coverage_progress("sim", reps=5000, boot=5000, k=100) == "sim"
    assert cache.coverage_progress("sim", reps=5000, boot=0, k=30_000) == "sim"  # no bootstrap, huge K
