"""AppTest: an upload of per-document statistics is used as its chunk rows would be (no mapping step)."""

from __future__ import annotations

import io

from ragunc.data.per_document import per_document_frame
from ragunc.data.results import results_from_frame


def test_a_per_document_upload_shows_what_its_chunk_rows_show(open_app, chunk_rows, upload, explorer_text):
    rows = chunk_rows(n_docs=90, seed=3)
    from_rows = upload(open_app(source="upload", sim="0", k="30"), rows, "chunks.csv")
    buffer = io.BytesIO()
    per_document_frame(results_from_frame(rows).populations).to_parquet(buffer)
    at = open_app(source="upload", sim="0", k="30")
    at.file_uploader(key="upload_file").set_value(("stats.parquet", buffer.getvalue(), "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    assert not [box for box in at.selectbox if box.key and box.key.startswith("map_")]  # nothing to map
    assert [box for box in from_rows.selectbox if box.key and box.key.startswith("map_")]  # chunk rows: mapped
    for slot in ("design_deff", "design_n_eff", "deff", "icc", "sample_chunks", "sample_interval"):
        assert explorer_text(at, slot) == explorer_text(from_rows, slot)


def test_a_bad_per_document_upload_names_column_and_row(open_app, chunk_rows, upload):
    stats = per_document_frame(results_from_frame(chunk_rows(n_docs=20)).populations)
    stats.loc[4, "sum_y"] = stats.loc[4, "chunks"] + 1
    at = upload(open_app(source="upload", sim="0"), stats, "stats.csv")
    assert not at.exception
    (error,) = at.error
    assert "column 'sum_y': 1 row(s) above chunks (more hits than chunks): row 5" in error.value
