"""The runs and qrels of the Ranking metrics page: the bundled sample run, the bundled several runs on the
same queries, a worked example of one query, an upload (one run, or several told apart by a column).

Each run is matched with its qrels once (``ragunc.ranking.metrics.match_qrels``) through :func:`dashboard.cache.cached`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ragunc.data.runs import (
    Qrels,
    Run,
    load_chunk_map,
    load_qrels,
    load_runs,
    qrels_from_frame,
    run_from_frame,
)
from ragunc.ranking.metrics import MatchedRun, match_qrels

from ragunc.data.reader import check_limits

from .cache import cached
from .sources import SAMPLE_DIR, named_buffer
from .uploads import TABLE_LIMITS, limits_help, public_message

SAMPLE_RUN = SAMPLE_DIR / "stdlib_run_100w.csv.gz"
SAMPLE_QRELS = SAMPLE_DIR / "stdlib_qrels_100w.csv.gz"
SAMPLE_RUNS = SAMPLE_DIR / "stdlib_runs.csv.gz"  # made by sample_data/make_stdlib_runs.py
SAMPLE_RUNS_QRELS = SAMPLE_DIR / "stdlib_runs_qrels.csv.gz"
SAMPLE_RUNS_COL, SAMPLE_RUNS_BASELINE = "run", "100w"
KINDS = {  # URL value -> label
    "sample": "Sample run (stdlib docs, 100-word chunks)",
    "runs": "Sample runs (stdlib docs: 50/100/200-word chunks, two BM25 settings)",
    "example": "A worked example: one query, five chunks (manual / faq)",
    "upload": "Upload a run and qrels",
}
UPLOAD_TYPES = ["csv", "gz", "jsonl", "ndjson", "json", "txt", "trec", "run", "qrels", "tsv", "parquet", "pq"]
UPLOADS_KEPT = 8

# One query whose top five chunks come from manual, manual, manual, faq, terms; relevant {manual, faq}:
# per-chunk counting and the two orders of truncating and deduplicating give three different recalls.
EXAMPLE_RUN = pd.DataFrame(
    {
        "query_id": ["q1"] * 5,
        "rank": [1, 2, 3, 4, 5],
        "chunk_id": ["manual#1", "manual#2", "manual#3", "faq#1", "terms#1"],
        "doc_id": ["manual", "manual", "manual", "faq", "terms"],
    }
)
EXAMPLE_QRELS = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["manual", "faq"], "relevance": [1, 1]})


@dataclass(frozen=True)
class RunSource:
    """Judged runs by name (one for a single run) and their qrels, a cheap cache ``key``, the page's defaults."""

    key: str
    runs: dict[str, Run]
    qrels: Qrels
    matched: dict[str, MatchedRun]
    default_group: str | None  # the group-by column the page opens on
    default_k: int
    default_baseline: str | None = None  # the run the others are compared with (None: the first)


def _matched(runs: dict[str, Run], qrels: Qrels) -> tuple[dict[str, Run], Qrels, dict[str, MatchedRun]]:
    return runs, qrels, {name: match_qrels(run, qrels) for name, run in runs.items()}


def _sample_run() -> tuple[dict[str, Run], Qrels, dict[str, MatchedRun]]:
    return _matched(load_runs(SAMPLE_RUN), load_qrels(SAMPLE_QRELS))


def _sample_runs() -> tuple[dict[str, Run], Qrels, dict[str, MatchedRun]]:
    return _matched(load_runs(SAMPLE_RUNS, runs_col=SAMPLE_RUNS_COL), load_qrels(SAMPLE_RUNS_QRELS))


def _worked_example() -> tuple[dict[str, Run], Qrels, dict[str, MatchedRun]]:
    run = run_from_frame(EXAMPLE_RUN, source="example run")
    return _matched({"example": run}, qrels_from_frame(EXAMPLE_QRELS, source="example qrels"))


def _uploaded_run(data: tuple[bytes, bytes, bytes | None], *, names: tuple[str, str, str | None], runs_col: str | None):
    run_name, qrels_name, map_name = names
    for name, content in zip(names, data):
        if name:  # what each file unpacks to, read through before any loader holds it whole
            check_limits(named_buffer(name, content), TABLE_LIMITS)
    chunk_map = load_chunk_map(named_buffer(map_name, data[2])) if map_name else None
    runs = load_runs(named_buffer(run_name, data[0]), runs_col=runs_col, chunk_map=chunk_map)
    return _matched(runs, load_qrels(named_buffer(qrels_name, data[1]), chunk_map=chunk_map))


def worked_example() -> RunSource:
    """The worked example's five-chunk list (k = 3 opens on its 0.50 / 1.00 / 1.50)."""
    return RunSource("example", *cached(_worked_example, kept=1), default_group=None, default_k=3)


def load(kind: str) -> RunSource | None:
    """The run and qrels of ``kind`` (a key of ``KINDS``), or None after showing why there are none.

    An upload draws its three file uploaders here, in the page's main area.
    """
    if kind == "example":
        return worked_example()
    if kind == "sample":
        if not (SAMPLE_RUN.is_file() and SAMPLE_QRELS.is_file()):
            st.info("The sample run is not bundled in this checkout yet; showing the worked example instead.")
            return worked_example()
        matched = cached(_sample_run, kept=1, spinner="Loading the sample run…")
        return RunSource("sample", *matched, default_group="doc_id", default_k=5)
    if kind == "runs":
        if not (SAMPLE_RUNS.is_file() and SAMPLE_RUNS_QRELS.is_file()):
            st.info("The sample runs are not bundled in this checkout yet; showing the worked example instead.")
            return worked_example()
        matched = cached(_sample_runs, kept=1, spinner="Loading the sample runs…")
        return RunSource("runs", *matched, default_group="doc_id", default_k=5, default_baseline=SAMPLE_RUNS_BASELINE)
    left, middle, right = st.columns(3)
    limits = limits_help(TABLE_LIMITS)
    run_file = left.file_uploader(
        "Run (query_id, rank or score, chunk_id, doc_id; or TREC, ranx JSON/Parquet)", type=UPLOAD_TYPES, help=limits
    )
    qrels_file = middle.file_uploader(
        "Qrels (query_id, doc_id/chunk_id, relevance; or TREC, BEIR TSV, ranx)", type=UPLOAD_TYPES, help=limits
    )
    map_file = right.file_uploader(
        "Chunk map (chunk_id, doc_id), optional", type=["csv", "gz", "jsonl", "json"], help=limits
    )
    runs_col = left.text_input(
        "Column naming the runs (several runs in one file), optional",
        help="A TREC run's 6th column is tag; a table may have a column such as run.",
    ).strip()
    if run_file is None or qrels_file is None:
        st.info("Upload a run and its qrels to evaluate them.")
        return None
    data = (run_file.getvalue(), qrels_file.getvalue(), map_file.getvalue() if map_file else None)
    names = (run_file.name, qrels_file.name, map_file.name if map_file else None)
    digest = hashlib.sha1(b"\0".join(d or b"" for d in data) + repr((names, runs_col)).encode()).hexdigest()
    try:
        matched = cached(
            _uploaded_run,
            data,
            kept=UPLOADS_KEPT,
            spinner="Validating the upload…",
            names=names,
            runs_col=runs_col or None,
        )
    except ValueError as exc:
        st.error(f"Cannot use this upload: {public_message(exc, 'the upload')}")
        return None
    return RunSource(f"upload:{digest[:16]}", *matched, default_group=None, default_k=5)
