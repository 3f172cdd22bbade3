"""AppTest of app.py: router, the sidebar data source (sample, upload, synthetic) and URL-bound controls."""

from __future__ import annotations

import pathlib

import gzip
import json
import io

import numpy as np
import pandas as pd
import pytest

from dashboard import explorer_view, sources
from ragunc.data import DataError, check_columns, load_results


def _explorer(at) -> dict:
    """The explorer component's data, its view of every K read as the browser fetches it."""
    (component,) = [e for e in at.get("bidi_component") if e.proto.component_name == "ragunc.explorer"]
    data = json.loads(component.proto.json)
    data["view"] = json.loads((explorer_view.VIEWS / data["view"]).read_text(encoding="utf-8"))
    return data


def _explorer_text(at, slot: str) -> str:
    data = _explorer(at)
    return data["view"]["rows"][data["k"] - data["view"]["k"]["min"]][data["view"]["slots"].index(slot)]


def _k_max(at) -> int:
    return _explorer(at)["view"]["k"]["max"]


def test_default_load_opens_the_explorer_on_the_alike_documents_sample(open_app):
    at = open_app()
    assert not at.exception
    assert not at.error
    assert at.title[0].value == "Uncertainty explorer"
    assert at.selectbox(key="source").value == "alike"
    caption = at.sidebar.caption[-1].value  # what the data are, not the files they come from
    assert caption.startswith("Debian packages' copyright files: ") and ".csv" not in caption
    assert float(_explorer_text(at, "design_deff")) > 1


def test_query_parameters_restore_a_view(open_app, small_synthetic):
    at = open_app(**small_synthetic, k="13", level="0.9", estimator="macro", seed="7")
    assert not at.exception
    assert _explorer(at)["k"] == 13
    assert at.select_slider(key="level").value == 0.9
    assert at.radio(key="estimator").value == "macro"
    assert at.number_input(key="seed").value == 7
    assert at.number_input(key="syn_docs").value == 150
    title = _explorer_text(at, "intervals_title")
    assert "90% intervals" in title and "13 documents" in title
    # and the URL is written back (a copied link reproduces the view)
    assert at.query_params["k"] == ["13"] or at.query_params["k"] == "13"


def test_out_of_range_query_parameters_are_clamped_not_fatal(open_app, small_synthetic):
    at = open_app(**{**small_synthetic, "boot": "abc"}, k="999999", level="0.42", estimator="bogus")
    assert not at.exception
    assert _explorer(at)["k"] == 150
    assert at.select_slider(key="level").value == 0.95
    assert at.radio(key="estimator").value == "micro"
    assert _explorer(at)["boot"] == 1000


def test_bad_upload_shows_the_column_and_rows_and_no_traceback(open_app, chunk_rows, upload):
    at = open_app(source="upload")
    rows = chunk_rows()
    rows.loc[[3, 9], "y"] = 7  # outside [0, 1]
    upload(at, rows, "bad.csv")
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "bad.csv" in message and "y" in message
    assert len(at.error) == 1 and message.count("bad.csv") == 1  # once, and the file named once
    assert "4" in message and "10" in message  # 1-based data rows of the offending values


def test_upload_with_a_missing_required_column_names_it(open_app, chunk_rows, upload):
    at = open_app(source="upload")
    rows = chunk_rows().drop(columns="y")
    upload(at, rows, "nohit.csv")
    assert not at.exception
    assert any("y" in e.value for e in at.error)


def test_missing_column_error_points_to_the_mapping_step_once(open_app, chunk_rows, upload):
    at = open_app(source="upload")
    upload(at, chunk_rows().rename(columns={"doc_id": "doc"}), "renamed.csv")
    assert not at.exception
    (error,) = at.error  # shown once, on the page; not repeated in the sidebar
    text = error.value
    assert "'doc_id'" in text and "Column mapping" in text and "'doc'" in text
    assert "columns=" not in text and text.count("renamed.csv") == 1
    # the library's own contract check, then the app's pointer to the mapping step
    header = list(chunk_rows().rename(columns={"doc_id": "doc"}).columns)
    assert text.startswith(f"Could not use renamed.csv: {check_columns(header).message}. Choose the column")


def test_column_mapping_step_makes_an_upload_usable(open_app, chunk_rows):
    rows = chunk_rows(y="hit1")
    data = gzip.compress(rows.to_csv(index=False).encode())
    at = open_app(source="upload")
    at.file_uploader(key="upload_file").set_value(("mapped.csv.gz", data, "application/gzip"))
    at.run()
    assert at.error  # y is not there yet
    assert not at.exception
    at.selectbox(key="map_y").set_value("hit1").run()
    assert not at.exception and not at.error
    expected = rows.groupby("doc_id")["hit1"].agg(["sum", "size"])
    assert at.sidebar.caption[-1].value.startswith(f"mapped.csv.gz: {int(expected['size'].sum()):,} chunks")
    assert _k_max(at) == len(expected)


def test_parquet_upload_is_read(open_app, chunk_rows):
    buffer = io.BytesIO()
    chunk_rows(n_docs=40).to_parquet(buffer)
    at = open_app(source="upload")
    at.file_uploader(key="upload_file").set_value(("r.parquet", buffer.getvalue(), "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    assert _k_max(at) == 40


def test_synthetic_population_follows_its_parameters(open_app, small_synthetic):
    at = open_app(**small_synthetic)
    assert not at.exception and not at.error
    assert _k_max(at) == 150
    at.number_input(key="syn_docs").set_value(220).run()
    assert _k_max(at) == 220
    assert at.query_params["syn_docs"] in ("220", ["220"])


@pytest.mark.parametrize("page", ["design_effect.py", "planning_comparison.py"])
def test_every_page_is_routed_and_loads(page, open_app, small_synthetic, switch_page):
    at = open_app(**small_synthetic)
    switch_page(at, page)
    assert not at.exception
    assert at.title[0].value in ("Design effect", "Planning and comparison")


def test_jsonl_upload_offers_its_columns_for_mapping(open_app, chunk_rows):
    rows = chunk_rows(n_docs=30, y="hit")
    data = rows.to_json(orient="records", lines=True).encode()
    at = open_app(source="upload")
    at.file_uploader(key="upload_file").set_value(("r.jsonl", data, "application/json"))
    at.run()
    assert not at.exception
    assert at.selectbox(key="map_y").options == ["(none)", "doc_id", "chunk_id", "hit"]
    assert at.selectbox(key="map_doc_id").value == "doc_id"
    at.selectbox(key="map_y").set_value("hit").run()
    assert not at.exception and not at.error
    assert _k_max(at) == 30


def test_a_control_keeps_its_value_across_pages_that_do_not_show_it(open_app, small_synthetic, switch_page):
    at = open_app(**small_synthetic)
    at.session_state["reps"] = 500  # as the explorer's R control writes it when released
    at.run()
    switch_page(at, "planning_comparison.py")
    assert not at.exception
    del at.query_params["reps"]  # a browser's page switch drops the other page's parameters
    switch_page(at, "uncertainty_explorer.py")
    assert _explorer(at)["reps"] == 500


@pytest.mark.parametrize(
    "name, encode",
    [
        ("semicolon.csv", lambda rows: rows.to_csv(index=False, sep=";").encode()),
        ("tabs.tsv.gz", lambda rows: gzip.compress(rows.to_csv(index=False, sep="\t").encode())),
        ("one_line.json", lambda rows: rows.to_json(orient="records").encode()),
    ],
)
def test_an_upload_the_library_reads_loads(name, encode, open_app, chunk_rows):
    # The peek used to split every header on commas (one column 'doc_id;chunk_id;y'), not inflate
    # a .tsv.gz into tabs, and take a one-line JSON array for one record.
    rows = chunk_rows(n_docs=30, seed=4)
    data = encode(rows)
    assert load_results(sources.named_buffer(name, data)).n_rows == len(rows)  # the library reads it
    at = open_app(source="upload")
    at.file_uploader(key="upload_file").set_value((name, data, "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="map_y").options == ["(none)", "doc_id", "chunk_id", "y"]
    assert at.sidebar.caption[-1].value.startswith(f"{name}: {len(rows):,} chunks")
    assert _k_max(at) == 30


def test_an_upload_the_peek_cannot_read_shows_the_loaders_words_once(open_app):
    at = open_app(source="upload")
    data = b"\x1f\x8b not a deflate stream"
    at.file_uploader(key="upload_file").set_value(("broken.csv.gz", data, "application/gzip"))
    at.run()
    assert not at.exception
    (error,) = at.error
    with pytest.raises(DataError) as loaded:
        load_results(sources.named_buffer("broken.csv.gz", data))
    assert error.value == f"Could not use broken.csv.gz: {str(loaded.value).removeprefix('broken.csv.gz: ')}"
    assert "not a readable gzip file" in error.value


@pytest.mark.parametrize("n_docs", [2, 3])
@pytest.mark.parametrize("page", [None, "design_effect.py", "planning_comparison.py"])
def test_an_upload_of_two_or_three_documents_runs_every_page(n_docs, page, open_app, upload, switch_page):
    # Streamlit refuses a slider whose ends coincide: K = 2 is then fixed, with a caption, not a crash.
    frame = pd.DataFrame({"doc_id": np.repeat([f"d{i}" for i in range(n_docs)], 4), "y": [1, 0, 1, 1] * n_docs})
    at = upload(open_app(source="upload", reps="200", boot="200"), frame, "tiny.csv")
    if page is not None:
        switch_page(at, page)
    assert not at.exception and not at.error
    assert at.title[0].value


def test_the_alike_sample_is_offered_and_says_what_it_shows(open_app):
    at = open_app(source="alike", k="20")
    assert not at.exception and not at.error
    assert "Debian packages' copyright files" in at.sidebar.caption[-1].value
    assert at.select_slider(key="config").options == ["50 words", "100 words", "200 words"]  # its own sizes
    assert any("Debian packages' copyright files" in c.value for c in at.caption)
    assert "the usual binomial 95% interval held the true hit@1 only" in _explorer_text(at, "headline_coverage")
    at = open_app(source="sample")
    assert any("stdlib sample" in c.value for c in at.caption)


def test_random_bytes_named_csv_say_the_file_is_not_a_table_and_offer_no_mapping(open_app):
    at = open_app(source="upload")
    data = np.random.default_rng(5).integers(0, 256, 3000, dtype=np.uint8).tobytes()
    at.file_uploader(key="upload_file").set_value(("noise.csv", data, "text/csv"))
    at.run()
    assert not at.exception
    (error,) = at.error
    assert error.value.startswith("Could not use noise.csv: not a readable table: its first bytes are binary")
    assert "missing column" not in error.value
    assert not [box for box in at.selectbox if box.key and box.key.startswith("map_")]  # no column mapping


@pytest.mark.parametrize(
    ("page", "header"),
    [
        (None, "Explorer"),
        ("design_effect.py", "Design effect"),
        ("planning_comparison.py", "Planning and comparison"),
    ],
)
def test_after_an_upload_error_the_page_keeps_its_controls_and_shows_the_error_in_place(
    page, header, open_app, chunk_rows, upload, switch_page
):
    at = open_app(source="upload", level="0.9")
    if page is not None:
        switch_page(at, page)
    rows = chunk_rows()
    rows.loc[3, "y"] = 7
    upload(at, rows, "bad.csv")
    assert not at.exception
    (error,) = at.main.error  # in the page's main area, once
    assert error.value.startswith("Could not use bad.csv:")
    assert not at.sidebar.error
    assert header in [h.value for h in at.sidebar.header]  # the page's own controls are still drawn
    assert at.select_slider(key="level").value == 0.9
    assert at.title[0].value  # the page says where you are
    assert not at.main.get("plotly_chart") and not at.metric  # and shows no numbers of other data


def test_an_upload_of_a_kind_the_loader_does_not_read_names_the_kinds_it_reads(open_app):
    # The uploader lists no types (their hint did not fit the sidebar), so the loader's words say what it takes.
    at = open_app(source="upload")
    at.file_uploader(key="upload_file").set_value(("results.xlsx", b"PK\x03\x04 a workbook", "application/zip"))
    at.run()
    assert not at.exception
    (error,) = at.main.error
    assert error.value.startswith("Could not use results.xlsx: unknown file type") and ".parquet" in error.value


def _shown(at) -> str:
    """Every text of the page a reader sees, the options of its select boxes included."""
    texts = [e.value for kind in (at.caption, at.markdown, at.subheader, at.info) for e in kind]
    texts += [f"{box.label}: {' | '.join(box.options)}" for box in at.selectbox]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        texts += [spec["layout"].get("title", {}).get("text", ""), *(str(t.get("name", "")) for t in spec["data"])]
    return "\n".join(texts)


@pytest.mark.parametrize("page", [None, "design_effect.py", "planning_comparison.py"])
def test_a_synthetic_population_and_an_upload_without_configs_say_what_their_config_is(
    page, open_app, small_synthetic, chunk_rows, upload, switch_page
):
    # The synthetic population's config read "100w" (as if cut in 100-word chunks) and an upload's "default".
    at = open_app(**small_synthetic, de_reps="200")
    if page is not None:
        switch_page(at, page)
    assert not at.exception and not at.error
    shown = _shown(at)
    assert "synthetic population" in at.sidebar.caption[-1].value
    assert "100w" not in shown and "100 words" not in shown, shown
    upload(at.selectbox(key="source").set_value("upload").run(), chunk_rows(n_docs=60), "mine.csv")
    assert not at.exception and not at.error
    shown = _shown(at)
    assert "default" not in shown, shown
    assert "mine.csv" in shown


def test_an_inspect_log_upload_shows_inspects_stderr_beside_ours(open_app):
    log = pathlib.Path(__file__).resolve().parents[1] / "data" / "fixtures" / "inspect" / "clustered.eval"
    at = open_app(source="upload", sim="0")
    at.file_uploader(key="upload_file").set_value(("clustered.eval", log.read_bytes(), "application/zip"))
    at.run()
    assert not at.exception and not at.error
    assert "metadata.doc_id" in at.selectbox(key="map_doc_id").options
    (info,) = [i.value for i in at.sidebar.info if i.value.startswith("Inspect recorded stderr")]
    assert "0.1279" in info and "the same formula, the same value" in info
