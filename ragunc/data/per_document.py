"""Per-document sufficient statistics as a file format: one row per (config, document).

Every ragunc statistic works on a few sums per document, so chunk rows can be
aggregated once where they live (``ragunc aggregate`` through DuckDB,
:func:`ragunc.data.spark.per_document_statistics` on Spark) and the small table
handed to ragunc: ``load_results`` reads it wherever it reads per-chunk results,
and the results are the same.

Format version 1 (column: meaning):

==================== =====================================================================
``ragunc_per_document`` the format version, 1, in every row (it marks the file as this format)
``config``           optional: the configuration (e.g. ``100w``); ``"default"`` when absent
``doc_id``           the document
``chunks``           m, its number of chunks (a whole number >= 1); ``n`` (``ClusterStats.n``) reads as it
``sum_y``            Σy over its chunks (hits for 0/1 y); 0 <= sum_y <= chunks
``sum_y2``           Σy²; for y in [0, 1], sum_y² / chunks <= sum_y2 <= sum_y, and
                     sum_y2 == sum_y exactly when every y is 0 or 1 (``ClusterStats.binary``)
``sum_y_next``       optional, with the next two: Σ y_i·y_(i+1) over chunks that follow
                     each other in chunk_index order (0 for one chunk)
``first_y``          y of the chunk with the lowest chunk_index
``last_y``           y of the chunk with the highest chunk_index
``doc_type``         optional: the document's stratum
``audited``          optional, with the five after it (judged labels, :mod:`ragunc.stats.judged`):
                     rows a person labelled; sum_y, sum_y2 and the neighbour columns are
                     then the judge's (y_judge), summed over every row
``sum_gold``         Σ of the person's gold y over the audited rows
``sum_gold2``        Σ gold²
``sum_judge_audited`` Σ of the judge's label over the audited rows
``sum_judge2_audited`` Σ of its square over them
``sum_gold_judge``   Σ gold · judge over them
==================== =====================================================================

Validation is the boundary, as for chunk rows: :func:`validated` raises one
:class:`DataError` naming each column, the count and the first rows at fault.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..stats.judged.sample import JudgedSample, audit_unit
from ..stats.sample import ClusterStats
from .reader import DataError, listing, rows_phrase

FORMAT_COLUMN = "ragunc_per_document"
FORMAT_VERSION = 1
DEFAULT_CONFIG = "default"  # the config of a table without a config column (chunk rows too)
REQUIRED_STATS = ("doc_id", "chunks", "sum_y", "sum_y2")
NEIGHBOURS = ("sum_y_next", "first_y", "last_y")  # all three or none (they need chunk_index)
JUDGED = (
    "audited",
    "sum_gold",
    "sum_gold2",
    "sum_judge_audited",
    "sum_judge2_audited",
    "sum_gold_judge",
)  # all or none


def is_per_document(columns) -> bool:
    """Whether a file with these column names holds per-document statistics (rather than chunk rows)."""
    return FORMAT_COLUMN in columns


def validated(
    raw: Mapping[str, np.ndarray], name: str, *, mapping: Mapping[str, str] | None = None
) -> dict[str, np.ndarray]:
    """Typed, checked columns of a per-document table, sorted by (config, doc_id).

    ``raw`` holds the file's columns in file order (text or numbers: CSV and JSON
    arrive as text), so row numbers in messages count data rows from 1.
    """
    if mapping:
        raise DataError(
            f"{name} holds per-document statistics (column {FORMAT_COLUMN!r}); a column mapping "
            "(columns=, --column) renames per-chunk columns and does not apply to it"
        )
    present = list(raw)
    raw = {column: _plain(values) for column, values in raw.items()}
    if "n" in raw and "chunks" not in raw:  # ClusterStats' name for the count
        raw["chunks"] = raw.pop("n")
    missing = [c for c in REQUIRED_STATS if c not in raw]
    together = ""
    for group in (NEIGHBOURS, JUDGED):
        if any(c in raw for c in group) and not all(c in raw for c in group):
            missing += [c for c in group if c not in raw]
            together = f" ({listing(group)} come together)"
    if missing:
        raise DataError(
            f"{name}: per-document statistics (column {FORMAT_COLUMN!r}) miss column(s) {listing(missing)}"
            f"{together}; the file has columns {listing(present)}"
        )
    n = len(raw["doc_id"])
    if n == 0:
        raise DataError(f"{name} has no data rows")

    version = _numbers(raw[FORMAT_COLUMN])
    chunks = _numbers(raw["chunks"])
    sum_y, sum_y2 = _numbers(raw["sum_y"]), _numbers(raw["sum_y2"])
    # A bound is checked only where the values it compares passed their own checks, so that one
    # bad cell is reported once, in its own column.
    good_chunks = (chunks >= 1) & (chunks == np.floor(chunks)) & (chunks < 2**62)
    good_sum_y = good_chunks & (sum_y >= 0) & (sum_y <= chunks + _slack(chunks))
    with np.errstate(divide="ignore", invalid="ignore"):
        lowest_sum_y2 = sum_y * sum_y / chunks  # Cauchy-Schwarz: (Σy)² <= m Σy²
    problems: list[tuple[str, str, np.ndarray]] = [  # (column, what is wrong, offending rows' mask)
        (
            FORMAT_COLUMN,
            f"row(s) with a format version other than {FORMAT_VERSION} (this ragunc reads version {FORMAT_VERSION})",
            ~(version == FORMAT_VERSION),
        ),
        ("doc_id", "row(s) with an empty value", _empty(raw["doc_id"])),
        ("chunks", "row(s) that are not whole numbers of at least 1", ~good_chunks),
        ("sum_y", "row(s) that are not numbers", np.isnan(sum_y)),
        ("sum_y", "row(s) below 0", sum_y < 0),
        ("sum_y", "row(s) above chunks (more hits than chunks)", good_chunks & (sum_y > chunks + _slack(chunks))),
        ("sum_y2", "row(s) that are not numbers", np.isnan(sum_y2)),
        (
            "sum_y2",
            "row(s) inconsistent with sum_y: for y in [0, 1], sum_y² / chunks <= sum_y2 <= sum_y",
            good_sum_y & ((sum_y2 > sum_y + _slack(chunks)) | (sum_y2 < lowest_sum_y2 - _slack(chunks))),
        ),
    ]
    typed = {"chunks": chunks, "sum_y": sum_y, "sum_y2": sum_y2}
    if "sum_y_next" in raw:
        sum_y_next, first_y, last_y = (_numbers(raw[c]) for c in NEIGHBOURS)
        problems += [
            ("sum_y_next", "row(s) that are not numbers", np.isnan(sum_y_next)),
            (
                "sum_y_next",
                "row(s) outside [0, sum_y2]",
                (sum_y_next < 0) | (~np.isnan(sum_y2) & (sum_y_next > sum_y2 + _slack(chunks))),
            ),
        ]
        for column, values in (("first_y", first_y), ("last_y", last_y)):
            problems += [
                (column, "row(s) that are not numbers", np.isnan(values)),
                (column, "row(s) outside [0, 1]", (values < 0) | (values > 1)),
            ]
        typed |= {"sum_y_next": sum_y_next, "first_y": first_y, "last_y": last_y}
    if "audited" in raw:
        judged = {c: _numbers(raw[c]) for c in JUDGED}
        audited = judged["audited"]
        good_audited = good_chunks & (audited >= 0) & (audited <= chunks) & (audited == np.floor(audited))
        problems.append(("audited", "row(s) that are not whole numbers from 0 to chunks", ~good_audited))
        for column, top in (
            ("sum_gold", audited),
            ("sum_judge_audited", audited),
            ("sum_gold2", judged["sum_gold"]),
            ("sum_judge2_audited", judged["sum_judge_audited"]),
            ("sum_gold_judge", np.fmin(judged["sum_gold"], judged["sum_judge_audited"])),
        ):
            values = judged[column]
            problems.append((column, "row(s) that are not numbers", np.isnan(values)))
            problems.append(
                (
                    column,
                    "row(s) outside [0, what the labels in [0, 1] allow]",
                    good_audited & ((values < 0) | (values > top + _slack(chunks))),
                )
            )
        typed |= judged
    if "config" in raw:
        config = _text(raw["config"])
        problems.append(("config", "row(s) with an empty value", _empty(raw["config"])))
    else:
        config = np.full(n, DEFAULT_CONFIG, dtype=object)
    doc_id = _text(raw["doc_id"])
    if "doc_type" in raw:
        typed["doc_type"] = _text(raw["doc_type"])
        problems.append(("doc_type", "row(s) with an empty value", _empty(raw["doc_type"])))
    order = np.lexsort((doc_id, config))
    repeated = np.zeros(n, dtype=bool)
    sorted_config, sorted_doc = config[order], doc_id[order]
    same = (sorted_config[1:] == sorted_config[:-1]) & (sorted_doc[1:] == sorted_doc[:-1])
    repeated[order[1:][same]] = True  # lexsort is stable: the first row of a repeated key stays unmarked
    problems.append(("doc_id", "row(s) repeat a (config, doc_id) of an earlier row", repeated))

    lines = [
        f"column {column!r}: {int(mask.sum())} {what}: {rows_phrase(mask)}"
        for column, what, mask in problems
        if mask.any()
    ]
    if lines:
        raise DataError(f"{name}: " + "; ".join(lines) + " (row numbers count data rows from 1)")
    typed["chunks"] = chunks.astype(np.int64)
    return {"config": config[order], "doc_id": doc_id[order]} | {k: v[order] for k, v in typed.items()}


def populations(stats: Mapping[str, np.ndarray]) -> dict[str, ClusterStats]:
    """One :class:`ClusterStats` per config from checked per-document columns sorted by (config, doc_id).

    Both ways in end here: per-document files (after :func:`validated`) and chunk
    rows (aggregated by ``results``), so both give the same populations.  A config with
    a single document is kept: ``Results.population`` refuses it only when it is chosen.
    """
    config = np.asarray(stats["config"], dtype=object)
    starts = np.r_[0, np.flatnonzero(config[1:] != config[:-1]) + 1, config.size]
    has_neighbours, has_type = "sum_y_next" in stats, "doc_type" in stats
    out = {}
    for lo, hi in zip(starts[:-1], starts[1:]):
        part = slice(lo, hi)
        out[str(config[lo])] = ClusterStats(
            cluster_id=np.asarray(stats["doc_id"][part], dtype=str),
            sum_y=stats["sum_y"][part],
            n=stats["chunks"][part],
            sum_y2=stats["sum_y2"][part],
            sum_y_next=stats["sum_y_next"][part] if has_neighbours else None,
            first_y=stats["first_y"][part] if has_neighbours else None,
            last_y=stats["last_y"][part] if has_neighbours else None,
            label=np.asarray(stats["doc_type"][part], dtype=str) if has_type else None,
            config=str(config[lo]),
        )
    return out


def judged_samples(stats: Mapping[str, np.ndarray], populations: Mapping[str, ClusterStats]) -> dict[str, JudgedSample]:
    """One :class:`JudgedSample` per config, the judge's labels being ``populations`` (from :func:`populations`), when
    ``stats`` hold the audit's columns (:data:`JUDGED`); else an empty dict.

    The audit's design is read off the counts (:func:`ragunc.stats.judged.sample.audit_unit`).
    """
    if "audited" not in stats:
        return {}
    config = np.asarray(stats["config"], dtype=object)
    out = {}
    for name, judge in populations.items():
        part = config == name
        audited = np.asarray(stats["audited"][part], dtype=np.int64)
        out[name] = JudgedSample(
            judge=judge,
            audited=audited,
            **{column: stats[column][part] for column in JUDGED[1:]},  # JudgedSample's fields carry the columns' names
            audit=audit_unit(judge.n, audited),
        )
    return out


def per_document_frame(
    populations: Mapping[str, ClusterStats], judged: Mapping[str, JudgedSample] | None = None
) -> pd.DataFrame:
    """The per-document table of loaded populations (``Results.populations``, and ``Results.judged``), ready to write."""
    parts = []
    for config, population in populations.items():
        part = {
            FORMAT_COLUMN: np.full(population.n_docs, FORMAT_VERSION, dtype=np.int32),
            "config": config,
            "doc_id": population.cluster_id,
            "chunks": population.n,
            "sum_y": population.sum_y,
            "sum_y2": population.sum_y2,
        }
        if population.sum_y_next is not None:
            part |= {"sum_y_next": population.sum_y_next, "first_y": population.first_y, "last_y": population.last_y}
        if population.label is not None:
            part["doc_type"] = population.label
        if judged:
            j = judged[config]
            part |= {column: getattr(j, column) for column in JUDGED}
        parts.append(pd.DataFrame(part))
    return pd.concat(parts, ignore_index=True)


def _slack(chunks: np.ndarray) -> np.ndarray:
    """What a bound between sums allows: sums of y added in another order (another engine,
    more threads) differ in their last bits, and no more."""
    return 1e-9 * np.fmax(chunks, 1.0)


def _plain(values) -> np.ndarray:
    """A plain array: DuckDB hands columns with NULLs over as masked arrays (NULL -> NaN or None)."""
    if not isinstance(values, np.ma.MaskedArray):
        return np.asarray(values)
    plain = values.data.astype(np.float64 if values.dtype.kind in "iufb" else object)
    plain[np.ma.getmaskarray(values)] = np.nan if plain.dtype.kind == "f" else None
    return plain


def _numbers(values: np.ndarray) -> np.ndarray:
    """float64 of numbers or numeric text; NaN where a value is missing or not a number."""
    if values.dtype.kind in "iufb":
        return values.astype(np.float64)
    return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _text(values: np.ndarray) -> np.ndarray:
    """Text as an object array; a missing value becomes "" (reported by :func:`_empty`, and sortable)."""
    if values.dtype.kind not in "OUS":
        return values.astype(str).astype(object)  # doc ids stored as numbers read back as their text
    text = values.astype(object)
    text[pd.isna(text)] = ""
    return text


def _empty(values: np.ndarray) -> np.ndarray:
    """Missing or blank values."""
    empty = np.asarray(pd.isna(values))
    if values.dtype.kind not in "OUS":
        return empty
    present = np.flatnonzero(~empty)
    try:  # only text that sorts below "!" can be blank (empty, or starting with a space): strip just those
        low = present[values[present] < "!"]
    except TypeError:  # not all text (e.g. numbers in an object column)
        low = present
    empty[low] = [str(v).strip() == "" for v in values[low]]
    return empty
