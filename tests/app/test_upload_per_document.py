"""AppTest: an upload of per-document statistics is used as its chunk rows would be (no mapping step)."""
from __future__ import annotations

import io

from apptools import app_test, chunk_rows, metric, upload

from ragunc.data.per_document import per_document_frame
from ragunc.data.results import results_from_frame


def test_a_per_document_upload_shows_what_its_chunk_rows_show():
    rows = chunk_rows(n_docs=90, seed=3)
    from_rows = upload(app_test(source="upload", sim="0", k="30"), rows, "chunks.csv")
    buffer = io.BytesIO()
    per_document_frame(results_from_frame(rows).samples).to_parquet(buffer)
    at = app_test(source="upload", sim="0", k="30")
    at.file_uploader(key="upload_file").set_value(("stats.parquet", buffer.getvalue(), "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    assert not [box for box in at.selectbox if box.key.startswith("map_")]  # nothing to map
    assert at.sidebar.caption[-1].value.startswith(f"stats.parquet: {len(rows):,} chunks")
    for tile in ("DEFF", "ICC", "Effective n", "Chunks"):
        assert metric(at, tile) == metric(from_rows, tile)


def test_a_bad_per_document_upload_names_column_and_row():
    stats = per_document_frame(results_from_frame(chunk_rows(n_docs=20)).samples)
    stats.loc[4, "sum_y"] = stats.loc[4, "chunks"] + 1
    at = upload(app_test(source="upload", sim="0"), stats, "stats.csv")
    assert not at.exception
    (error,) = at.error
    assert "column 'sum_y': 1 row(s) above chunks (more hits than chunks): row 5" in error.value
