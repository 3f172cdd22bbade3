"""Per-document statistics on Apache Spark: ``ragunc aggregate``'s aggregation, run where the chunk rows live.

Chunk rows in a data lake (partitioned Parquet, Delta, a Databricks table) are
aggregated on the cluster with a groupBy and a window for the neighbour products;
the result, one row per (config, document), is small enough to bring to one
machine and is read by every ragunc command (:mod:`ragunc.data.per_document`)::

    from ragunc.data.spark import per_document_statistics
    stats = per_document_statistics(spark.read.parquet("s3://lake/chunk_results/"))
    stats.toPandas().to_parquet("per_document.parquet")   # then: ragunc interval per_document.parquet

The optional extra ``ragunc[spark]`` installs pyspark; it is imported when the
function runs, so the rest of ragunc never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import per_document
from .contract import CHECKS, JUDGE, resolve_columns
from .per_document import DEFAULT_CONFIG
from .reader import SHOWN_ROWS, DataError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_SOURCE = "the Spark DataFrame"


def per_document_statistics(
    chunks: DataFrame,
    *,
    columns: dict[str, str] | None = None,  # contract name -> column of ``chunks``, e.g. {"y": "hit1"}
    check: bool = True,
) -> DataFrame:
    """One row per (config, document) of ``chunks`` in the per-document format, as ``ragunc aggregate`` writes it.

    ``chunks`` holds the data contract's columns (``doc_id``, ``y``; optional
    ``chunk_id``, ``chunk_index``, ``config``, ``doc_type``; text columns are parsed
    as the file loaders parse them).  With ``check`` (the default) a Spark job (two
    with chunk_id) counts every violation the file loaders count and raises :class:`DataError`
    naming the column, the count and the first documents at fault (Spark rows have
    no order to number); the aggregation itself stays lazy.
    """
    from pyspark.sql import (
        Window,  # the optional extra: imported only when Spark is used
    )
    from pyspark.sql import functions as F

    present = dict(chunks.dtypes)
    resolved = resolve_columns(present, columns, _SOURCE)
    if JUDGE in resolved:
        raise DataError(
            f"{_SOURCE}: column {resolved[JUDGE]!r} holds a judge's labels; judged labels are aggregated "
            "by ragunc's own loader (load_results, ragunc aggregate), not on Spark"
        )
    has_ci, has_cid, has_type = ("chunk_index" in resolved), ("chunk_id" in resolved), ("doc_type" in resolved)

    def source(contract: str) -> Column:
        return F.col("`" + resolved[contract].replace("`", "``") + "`")

    def text(contract: str) -> Column:
        return source(contract).cast("string")

    def empty(contract: str) -> Column:
        return text(contract).isNull() | (F.trim(text(contract)) == "")

    if present[resolved["y"]] == "string":
        word = F.lower(F.trim(source("y")))  # true/false are hits too, as in a CSV of booleans
        y = F.when(word == "true", 1.0).when(word == "false", 0.0).otherwise(source("y").cast("double"))
    else:
        y = source("y").cast("double")
    y_empty = empty("y") | F.coalesce(F.isnan(y), F.lit(False))
    rows = [
        y.alias("y"),
        y_empty.alias("y_empty"),
        (~empty("y") & y.isNull()).alias("y_text"),
        (~F.coalesce(F.isnan(y), F.lit(True)) & ((y < 0) | (y > 1))).alias("y_range"),
        text("doc_id").alias("doc_id"),
        empty("doc_id").alias("doc_empty"),
    ]
    if "config" in resolved:
        rows += [text("config").alias("config"), empty("config").alias("config_empty")]
    else:
        rows += [F.lit(DEFAULT_CONFIG).alias("config"), F.lit(False).alias("config_empty")]
    if has_type:
        rows += [text("doc_type").alias("doc_type"), empty("doc_type").alias("type_empty")]
    if has_cid:
        rows += [text("chunk_id").alias("chunk_id"), empty("chunk_id").alias("cid_empty")]
    if has_ci:
        index = source("chunk_index").cast("double")
        whole = (index >= 0) & (index == F.floor(index)) & (index < 9.2e18)
        rows += [
            F.when(whole, index.cast("long")).alias("chunk_index"),
            (~F.coalesce(whole, F.lit(False))).alias("ci_bad"),
        ]
    typed = chunks.select(*rows)
    flags = [key for key, *_ in CHECKS if key in typed.columns]  # the per-row checks

    aggs = [
        F.count(F.lit(1)).alias("chunks"),
        F.sum("y").alias("sum_y"),
        F.sum(F.col("y") * F.col("y")).alias("sum_y2"),
        *(F.sum(F.col(flag).cast("long")).alias(flag) for flag in flags),
    ]
    if has_ci:
        # Each chunk's successor in chunk_index order within its document.
        following = Window.partitionBy("config", "doc_id").orderBy("chunk_index")
        typed = typed.withColumn("y_next", F.lead("y").over(following)).withColumn(
            "ci_next", F.lead("chunk_index").over(following)
        )
        aggs += [
            F.coalesce(F.sum(F.col("y") * F.col("y_next")), F.lit(0.0)).alias("sum_y_next"),
            F.min_by("y", "chunk_index").alias("first_y"),
            F.max_by("y", "chunk_index").alias("last_y"),
            F.sum((F.col("ci_next") == F.col("chunk_index")).cast("long")).alias("ci_dup"),
        ]
    if has_type:
        aggs += [F.min("doc_type").alias("doc_type"), F.max("doc_type").alias("doc_type_max")]
    documents = typed.groupBy("config", "doc_id").agg(*aggs)
    if check:
        _check(documents, typed, flags, has_ci, has_cid, has_type)
    kept = ["config", "doc_id", "chunks", "sum_y", "sum_y2"]
    kept += list(per_document.NEIGHBOURS) * has_ci + ["doc_type"] * has_type
    return documents.select(F.lit(per_document.FORMAT_VERSION).alias(per_document.FORMAT_COLUMN), *kept)


def _check(
    documents: DataFrame, typed: DataFrame, flags: list[str], has_ci: bool, has_cid: bool, has_type: bool
) -> None:
    """Count every violation (one job, a second for repeated chunk_id; more only to name documents at fault)."""
    from pyspark.sql import functions as F

    per_document_counts = {flag: F.col(flag) for flag in flags}
    if has_ci:
        per_document_counts["ci_dup"] = F.col("ci_dup")
    if has_type:
        per_document_counts["type_varies"] = (F.col("doc_type") != F.col("doc_type_max")).cast("long")
    counted = documents.select("config", "doc_id", *(c.alias(k) for k, c in per_document_counts.items()))
    summed = counted.agg(
        F.count(F.lit(1)).alias("documents"),
        *(F.sum(key).alias(key) for key in per_document_counts),
    ).first()
    if not summed["documents"]:
        raise DataError(f"{_SOURCE} has no data rows")
    # A config with a single document is kept, as the file loaders keep it: refused only when chosen.
    totals = {key: summed[key] or 0 for key in per_document_counts}
    if has_cid:
        repeats = typed.where(~F.col("cid_empty")).groupBy("config", "doc_id", "chunk_id").count()
        repeats = repeats.where(F.col("count") > 1).select("config", "doc_id", (F.col("count") - 1).alias("cid_dup"))
        totals["cid_dup"] = repeats.agg(F.sum("cid_dup")).first()[0] or 0
    lines = []
    for key, contract, message in CHECKS:
        n = totals.get(key, 0)
        if not n:
            continue
        where = repeats if key == "cid_dup" else counted
        examples = [
            (r["config"], r["doc_id"])
            for r in where.where(F.col(key) > 0)
            .select("config", "doc_id")
            .distinct()
            .orderBy("config", "doc_id")
            .limit(SHOWN_ROWS)
            .collect()
        ]
        if key == "type_varies":  # counted per document here, not per row
            message = "{n} document(s) with more than one doc_type"
        shown = ", ".join(f"({c!r}, {d!r})" for c, d in examples)
        lines.append(f"column {contract!r}: {message.format(n=n)}: in documents {shown}")
    if lines:
        raise DataError(f"{_SOURCE}: " + "; ".join(lines) + " (documents as (config, doc_id), the first in order)")
