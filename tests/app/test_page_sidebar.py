"""AppTest of app.py: router, the sidebar data source (sample, upload, synthetic) and URL-bound controls."""
from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptools import APP, SMALL, app_test, chunk_rows, metric, upload

from dashboard import cache, sources


def test_default_load_opens_the_explorer_on_the_bundled_sample():
    at = app_test()
    assert not at.exception
    assert not at.error
    assert at.title[0].value == "Uncertainty explorer"
    assert at.radio(key="source").value == "sample"
    assert "bundled sample" in at.sidebar.caption[-1].value
    assert float(metric(at, "DEFF")) > 0


def test_query_parameters_restore_a_view():
    at = app_test(**SMALL, k="13", level="0.9", estimator="macro", seed="7", sim="0")
    assert not at.exception
    assert at.slider(key="k").value == 13
    assert at.select_slider(key="level").value == 0.9
    assert at.radio(key="estimator").value == "macro"
    assert at.number_input(key="seed").value == 7
    assert at.number_input(key="syn_docs").value == 150
    assert at.toggle(key="sim").value is False
    title = at.get("plotly_chart")[0].proto.spec
    assert "90% intervals" in title and "13 documents" in title and "(macro)" in title
    # and the URL is written back (a copied link reproduces the view)
    assert at.query_params["k"] == ["13"] or at.query_params["k"] == "13"


def test_out_of_range_query_parameters_are_clamped_not_fatal():
    at = app_test(**{**SMALL, "boot": "abc"}, k="999999", level="0.42", estimator="bogus", sim="0")
    assert not at.exception
    assert at.slider(key="k").value == 150
    assert at.select_slider(key="level").value == 0.95
    assert at.radio(key="estimator").value == "micro"
    assert at.select_slider(key="boot").value == 1000


def test_bad_upload_shows_the_column_and_rows_and_no_traceback():
    at = app_test(source="upload")
    rows = chunk_rows()
    rows.loc[[3, 9], "y"] = 7  # outside [0, 1]
    upload(at, rows, "bad.csv")
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "bad.csv" in message and "y" in message
    assert len(at.error) == 1 and message.count("bad.csv") == 1  # once, and the file named once
    assert "4" in message and "10" in message  # 1-based data rows of the offending values


def test_upload_with_a_missing_required_column_names_it():
    at = app_test(source="upload")
    rows = chunk_rows().drop(columns="y")
    upload(at, rows, "nohit.csv")
    assert not at.exception
    assert any("y" in e.value for e in at.error)


def test_missing_column_error_points_to_the_mapping_step_once():
    at = app_test(source="upload")
    upload(at, chunk_rows().rename(columns={"doc_id": "doc"}), "renamed.csv")
    assert not at.exception
    (error,) = at.error  # shown once, on the page; not repeated in the sidebar
    text = error.value
    assert "'doc_id'" in text and "Column mapping" in text and "'doc'" in text
    assert "columns=" not in text and text.count("renamed.csv") == 1


def test_column_mapping_step_makes_an_upload_usable():
    rows = chunk_rows(y="hit1")
    data = gzip.compress(rows.to_csv(index=False).encode())
    at = app_test(source="upload", sim="0")
    at.file_uploader(key="upload_file").set_value(("mapped.csv.gz", data, "application/gzip"))
    at.run()
    assert at.error  # y is not there yet
    assert not at.exception
    at.selectbox(key="map_y").set_value("hit1").run()
    assert not at.exception and not at.error
    expected = rows.groupby("doc_id")["hit1"].agg(["sum", "size"])
    assert at.sidebar.caption[-1].value.startswith(f"mapped.csv.gz: {int(expected['size'].sum()):,} chunks")
    assert at.slider(key="k").max == len(expected)


def test_parquet_upload_is_read():
    buffer = io.BytesIO()
    chunk_rows(n_docs=40).to_parquet(buffer)
    at = app_test(source="upload", sim="0")
    at.file_uploader(key="upload_file").set_value(("r.parquet", buffer.getvalue(), "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    assert at.slider(key="k").max == 40


def test_synthetic_population_follows_its_parameters():
    at = app_test(**SMALL, sim="0")
    assert not at.exception and not at.error
    assert at.slider(key="k").max == 150
    at.number_input(key="syn_docs").set_value(220).run()
    assert at.slider(key="k").max == 220
    assert at.query_params["syn_docs"] in ("220", ["220"])


@pytest.mark.parametrize("page", ["pages/design_effect.py", "pages/planning_comparison.py"])
def test_every_page_is_routed_and_loads(page):
    at = app_test(**SMALL)
    at.switch_page(str(Path(APP).parent / page)).run()
    assert not at.exception
    assert at.title[0].value in ("Design effect", "Planning and comparison")


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


def test_jsonl_upload_offers_its_columns_for_mapping():
    rows = chunk_rows(n_docs=30, y="hit")
    data = rows.to_json(orient="records", lines=True).encode()
    at = app_test(source="upload", sim="0")
    at.file_uploader(key="upload_file").set_value(("r.jsonl", data, "application/json"))
    at.run()
    assert not at.exception
    assert at.selectbox(key="map_y").options == ["(none)", "doc_id", "chunk_id", "hit"]
    assert at.selectbox(key="map_doc_id").value == "doc_id"
    at.selectbox(key="map_y").set_value("hit").run()
    assert not at.exception and not at.error
    assert at.slider(key="k").max == 30


def test_a_control_keeps_its_value_across_pages_that_do_not_show_it():
    at = app_test(**SMALL)
    at.toggle(key="sim").set_value(False).run()
    at.select_slider(key="reps").set_value(500).run()
    at.switch_page(str(Path(APP).parent / "pages" / "planning_comparison.py")).run()
    assert not at.exception
    for key in ("sim", "reps"):  # a browser's page switch drops the other page's parameters
        del at.query_params[key]
    at.switch_page(str(Path(APP).parent / "pages" / "uncertainty_explorer.py")).run()
    assert at.toggle(key="sim").value is False
    assert at.select_slider(key="reps").value == 500


def test_peek_columns_reads_the_file_type_as_the_loader_does():
    csv = b"doc_id,hit\nd,1\n"
    assert sources.peek_columns("R.CSV.GZ", gzip.compress(csv)) == ["doc_id", "hit"]
    assert sources.peek_columns("r.ndjson", b'\n{"doc_id": "d", "hit": 1}\n') == ["doc_id", "hit"]
    buffer = io.BytesIO()
    pd.DataFrame({"doc_id": ["d"], "hit": [1]}).to_parquet(buffer)
    assert sources.peek_columns("r.pq", buffer.getvalue()) == ["doc_id", "hit"]
    assert sources.peek_columns("r.xlsx", csv) == []  # the loader refuses it too, and says why


@pytest.mark.parametrize("n_docs", [2, 3])
@pytest.mark.parametrize("page", [None, "design_effect.py", "planning_comparison.py"])
def test_an_upload_of_two_or_three_documents_runs_every_page(n_docs, page):
    # Streamlit refuses a slider whose ends coincide: K = 2 is then fixed, with a caption, not a crash.
    frame = pd.DataFrame({"doc_id": np.repeat([f"d{i}" for i in range(n_docs)], 4), "y": [1, 0, 1, 1] * n_docs})
    at = upload(app_test(source="upload", reps="200", boot="200"), frame, "tiny.csv")
    if page is not None:
        at.switch_page(str(Path(APP).parent / "pages" / page)).run()
    assert not at.exception and not at.error
    assert at.title[0].value
