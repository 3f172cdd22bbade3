"""Spark in local mode gives exactly the per-document statistics DuckDB gives on the same chunk rows.

Spark is bound to loopback only (SPARK_LOCAL_IP, driver host and bind address 127.0.0.1,
UI off): otherwise it binds to the machine's network address.  One session for the module.
pyspark is in the test extra and .ci/run installs Java when it is missing, so without
either the tests fail with the reason rather than skip.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

from ragunc.data.aggregate import aggregate
from ragunc.data.results import DataError, load_results, results_from_frame, write_results
from ragunc.stats.synthetic import synthesize

pytestmark = pytest.mark.slow  # a Spark session in local mode


@pytest.fixture(scope="module")
def spark():
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        pytest.fail("pyspark is not installed: it is in the test extra (pip install -r requirements-test.txt)")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.fail("no Java runtime for Spark (Java 17; .ci/run installs it when missing)")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ragunc-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")  # small data: fewer tasks per job
        .config("spark.default.parallelism", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Two configs, chunk_index in shuffled order, scores in eighths (every sum exact), one-chunk documents."""
    rng = np.random.default_rng(3)
    parts = []
    for seed, config in ((1, "100w"), (2, "50w")):
        frame = synthesize(n_docs=150, mean_chunks=6, rng=seed).assign(config=config)
        if config == "50w":
            frame["y"] = np.round(rng.random(len(frame)) * 8) / 8
        parts.append(frame)
    frame = pd.concat(parts, ignore_index=True)
    return frame.sample(frac=1, random_state=0).reset_index(drop=True)


def by_document(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["config", "doc_id"]).reset_index(drop=True)


def duckdb_statistics(rows: pd.DataFrame, tmp_path) -> pd.DataFrame:
    write_results(rows, tmp_path / "chunks.parquet")
    aggregate([tmp_path / "chunks.parquet"], tmp_path / "docs.parquet")
    return by_document(pd.read_parquet(tmp_path / "docs.parquet"))


@pytest.mark.parametrize("drop", [[], ["chunk_index", "doc_type"], ["config", "chunk_id"]])
def test_spark_and_duckdb_give_identical_statistics(spark, rows, tmp_path, drop):
    from ragunc.data.spark import per_document_statistics

    chunks = (rows[rows["config"] == "50w"] if "config" in drop else rows).drop(columns=drop)
    got = by_document(per_document_statistics(spark.createDataFrame(chunks)).toPandas())
    want = duckdb_statistics(chunks, tmp_path)
    assert list(got.columns) == list(want.columns)
    assert got["chunks"].dtype == want["chunks"].dtype == np.int64
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_exact=True)
    # and the samples ragunc builds from it are those of the chunk rows
    spark_samples, row_samples = results_from_frame(got), results_from_frame(chunks)
    for config in row_samples.configs:
        a, b = spark_samples.population(config), row_samples.population(config)
        for field in ("cluster_id", "sum_y", "n", "sum_y2", "sum_y_next", "first_y", "last_y", "label"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
        assert a.binary == b.binary == (config == "100w")
    assert spark_samples.configs == (["default"] if "config" in drop else ["100w", "50w"])


def test_text_columns_are_parsed_as_the_file_loaders_parse_them(spark, rows, tmp_path):
    from ragunc.data.spark import per_document_statistics

    chunks = rows.assign(
        doc_id="0" + rows["doc_id"].str[-3:], y=rows["y"].map(lambda v: {1.0: "true", 0.0: "false"}.get(v, str(v)))
    )
    chunks.to_csv(tmp_path / "chunks.csv", index=False)
    text = spark.read.csv(str(tmp_path / "chunks.csv"), header=True)  # every column a string
    assert set(dict(text.dtypes).values()) == {"string"}
    got = by_document(per_document_statistics(text).toPandas())
    aggregate([tmp_path / "chunks.csv"], tmp_path / "docs.parquet")
    pd.testing.assert_frame_equal(
        got, by_document(pd.read_parquet(tmp_path / "docs.parquet")), check_dtype=False, check_exact=True
    )
    assert got["doc_id"].str.startswith("0").all()


def test_a_mapped_column_and_a_written_result_load_in_ragunc(spark, rows, tmp_path):
    from ragunc.data.spark import per_document_statistics

    renamed = spark.createDataFrame(rows.rename(columns={"y": "hit@1", "doc_id": "document"}))
    stats = per_document_statistics(renamed, columns={"y": "hit@1", "doc_id": "document"})
    stats.toPandas().to_parquet(tmp_path / "per_document.parquet")  # docs/scale.md's lines
    loaded = load_results(tmp_path / "per_document.parquet")
    assert loaded.n_rows == len(rows) and loaded.configs == ["100w", "50w"]


def test_violations_are_counted_and_name_documents(spark, rows):
    from ragunc.data.spark import per_document_statistics

    bad = rows.copy()
    bad.loc[bad.index[:3], "y"] = 1.5
    first = bad.iloc[3]
    bad.loc[bad.index[4], ["config", "doc_id", "chunk_id"]] = first[["config", "doc_id", "chunk_id"]].to_numpy()
    bad.loc[bad.index[5], "doc_id"] = " "
    with pytest.raises(DataError) as err:
        per_document_statistics(spark.createDataFrame(bad))
    text = str(err.value)
    shown = sorted({(c, d) for c, d in bad.loc[bad.index[:3], ["config", "doc_id"]].itertuples(index=False)})
    assert "column 'y': 3 row(s) outside [0, 1]: in documents " + ", ".join(f"({c!r}, {d!r})" for c, d in shown) in text
    assert "column 'doc_id': 1 row(s) with an empty value" in text
    assert (
        f"column 'chunk_id': 1 row(s) repeat a (config, doc_id, chunk_id) of an earlier row: "
        f"in documents ({first['config']!r}, {first['doc_id']!r})"
    ) in text
    lazy = per_document_statistics(spark.createDataFrame(bad), check=False)  # no job: nothing checked yet
    assert lazy.columns[0] == "ragunc_per_document"


def test_missing_columns_and_single_documents(spark, rows):
    from ragunc.data.spark import per_document_statistics

    with pytest.raises(DataError, match=r"the Spark DataFrame: missing column\(s\) 'y'; .* columns=\{'y': 'hit'\}"):
        per_document_statistics(spark.createDataFrame(rows.rename(columns={"y": "hit"})))
    # A config with one document is kept, as the file loaders keep it; choosing it is refused.
    one = rows[(rows["doc_id"] == rows["doc_id"].iloc[0]) & (rows["config"] == "100w")].assign(config="solo")
    stats = per_document_statistics(spark.createDataFrame(pd.concat([rows, one], ignore_index=True))).toPandas()
    loaded = results_from_frame(stats, source="stats")
    assert loaded.configs == ["100w", "50w", "solo"]
    with pytest.raises(DataError, match=r"column 'doc_id' has a single document \('.*'\) for config 'solo'"):
        loaded.population("solo")
    with pytest.raises(DataError, match=r"the Spark DataFrame has no data rows"):
        per_document_statistics(spark.createDataFrame(rows).limit(0))
