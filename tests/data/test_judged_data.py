"""Judged labels in the data contract: a judge column on every row, gold on the audited rows; every DataError."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from ragunc.data.per_document import per_document_frame
from ragunc.data.results import DataError, load_results, results_from_frame, write_results
from ragunc.stats.synthetic import synthesize_judged
from tests.support.judged import judged_from_rows


def judged_rows(seed=0, share=0.25, n_docs=40) -> tuple[pd.DataFrame, np.ndarray]:
    """Chunk rows with y_judge on every row and y only on a random quarter of them (the audit)."""
    frame = synthesize_judged(n_docs=n_docs, mean_chunks=8, rng=seed)
    audited = np.random.default_rng(seed).random(len(frame)) < share
    return frame.assign(y=np.where(audited, frame["y"].astype(str), "")), audited


def assert_same_judged(a, b):
    for key, value in dataclasses.asdict(a).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(value, getattr(b, key), err_msg=key)
    for key in ("sum_y", "n", "sum_y2"):
        np.testing.assert_allclose(getattr(a.judge, key), getattr(b.judge, key), err_msg=key)
    assert a.audit == b.audit


@pytest.mark.parametrize("name", ["rows.csv", "rows.csv.gz", "rows.parquet", "rows.jsonl"])
def test_loaded_sums_are_the_rows_summed_by_hand(tmp_path, name):
    frame, audited = judged_rows(1)
    write_results(frame, tmp_path / name)
    results = load_results(tmp_path / name)
    judged = results.judged_sample()
    doc = pd.factorize(frame["doc_id"], sort=True)[0]
    by_hand = judged_from_rows(doc, frame["y_judge"], pd.to_numeric(frame["y"], errors="coerce").fillna(0), audited)
    assert_same_judged(judged, by_hand)
    assert judged.audit == "rows" and judged.n_audited == audited.sum()
    # The loaded sample is the judge's labels, neighbours included (chunk_index is in the file).
    assert results.population() is judged.judge
    ordered = frame.assign(d=doc).sort_values(["d", "chunk_index"])
    first = ordered.groupby("d")["y_judge"].first().to_numpy()
    np.testing.assert_array_equal(judged.judge.first_y, first)


def test_a_mapped_judge_column_and_a_document_audit(tmp_path):
    frame = synthesize_judged(n_docs=30, mean_chunks=6, rng=2)
    audited_docs = frame["doc_id"].isin(frame["doc_id"].unique()[::3])
    frame = frame.assign(y=frame["y"].where(audited_docs)).rename(columns={"y_judge": "llm", "y": "person"})
    results = results_from_frame(frame, columns={"y_judge": "llm", "y": "person"})
    judged = results.judged_sample()
    assert judged.audit == "documents" and judged.n_audited_docs == 10
    assert judged.n_audited == audited_docs.sum()


def test_a_per_document_file_keeps_the_audit(tmp_path):
    frame, _ = judged_rows(3)
    from_rows = results_from_frame(frame)
    write_results(per_document_frame(from_rows.populations, from_rows.judged), tmp_path / "docs.parquet")
    assert_same_judged(load_results(tmp_path / "docs.parquet").judged_sample(), from_rows.judged_sample())


def test_without_a_judge_column_an_empty_y_stays_an_error():
    frame, _ = judged_rows(4)
    with pytest.raises(DataError, match=r"column 'y': \d+ row\(s\) with an empty or NaN value: rows "):
        results_from_frame(frame.drop(columns="y_judge"))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "outside [0, 1]"),
        ("yes", "that are not numbers"),
        ("", "with an empty or NaN value"),
    ],
)
def test_a_bad_judge_label_is_named_with_its_rows(value, message):
    frame, _ = judged_rows(5)
    frame["y_judge"] = frame["y_judge"].astype(object)
    frame.loc[[3, 8], "y_judge"] = value
    with pytest.raises(DataError) as err:
        results_from_frame(frame)
    text = str(err.value)
    assert f"column 'y_judge': 2 row(s) {message}" in text and "rows 4, 9" in text
    assert "\n" not in text


def test_a_bad_gold_label_is_named_too():
    frame, audited = judged_rows(6)
    row = int(np.flatnonzero(audited)[0])
    frame.loc[row, "y"] = "2"
    with pytest.raises(DataError, match=rf"column 'y': 1 row\(s\) outside \[0, 1\]: row {row + 1}\b"):
        results_from_frame(frame)


def test_no_audited_row_is_named():
    frame, _ = judged_rows(7)
    results = results_from_frame(frame.assign(y=""))
    with pytest.raises(
        DataError, match=rf"column 'y' is empty on every one of the {len(frame):,} rows.*no row is audited"
    ):
        results.judged_sample()
    with pytest.raises(DataError, match="has no judge column"):
        results_from_frame(frame.drop(columns="y_judge").assign(y=1)).judged_sample()
