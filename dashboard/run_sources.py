"""The run and qrels of the Ranking metrics page: the bundled sample run, the seed's worked example, an upload.

Each is judged once (``ragunc.ranking.metrics.judge``) per cheap key through :func:`dashboard.cache.cached`.
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
    load_run,
    qrels_from_frame,
    run_from_frame,
)
from ragunc.ranking.metrics import JudgedRun, judge

from .cache import cached
from .sources import SAMPLE_DIR, named_buffer

SAMPLE_RUN = SAMPLE_DIR / "stdlib_run_100w.csv.gz"
SAMPLE_QRELS = SAMPLE_DIR / "stdlib_qrels_100w.csv.gz"
KINDS = {  # URL value -> label
    "sample": "Sample run (stdlib docs, 100-word chunks)",
    "seed": "The seed's example (manual / faq)",
    "upload": "Upload a run and qrels",
}
UPLOAD_TYPES = ["csv", "gz", "jsonl", "ndjson", "json", "txt", "trec", "run", "qrels", "tsv"]
UPLOADS_KEPT = 8

# The seed's case (shared/seeds/002): hits manual, manual, manual, faq, terms; relevant {manual, faq}.
SEED_RUN = pd.DataFrame({
    "query_id": ["seed"] * 5, "rank": [1, 2, 3, 4, 5],
    "chunk_id": ["manual#1", "manual#2", "manual#3", "faq#1", "terms#1"],
    "doc_id": ["manual", "manual", "manual", "faq", "terms"],
})
SEED_QRELS = pd.DataFrame({"query_id": ["seed", "seed"], "doc_id": ["manual", "faq"], "relevance": [1, 1]})


@dataclass(frozen=True)
class RunSource:
    """A judged run and its qrels, a cheap cache ``key``, and the page's defaults for them."""

    key: str
    run: Run
    qrels: Qrels
    judged: JudgedRun
    default_group: str | None  # the group-by column the page opens on
    default_k: int


def _judged(run: Run, qrels: Qrels) -> tuple[Run, Qrels, JudgedRun]:
    return run, qrels, judge(run, qrels)


def _sample_run() -> tuple[Run, Qrels, JudgedRun]:
    return _judged(load_run(SAMPLE_RUN), load_qrels(SAMPLE_QRELS))


def _seed_example() -> tuple[Run, Qrels, JudgedRun]:
    return _judged(run_from_frame(SEED_RUN, source="seed run"), qrels_from_frame(SEED_QRELS, source="seed qrels"))


def _uploaded_run(data: tuple[bytes, bytes, bytes | None], *, names: tuple[str, str, str | None]):
    run_name, qrels_name, map_name = names
    chunk_map = load_chunk_map(named_buffer(map_name, data[2])) if map_name else None
    run = load_run(named_buffer(run_name, data[0]), chunk_map=chunk_map)
    return _judged(run, load_qrels(named_buffer(qrels_name, data[1]), chunk_map=chunk_map))


def seed_example() -> RunSource:
    """The seed's five-chunk list (k = 3 opens on its 0.50 / 1.00 / 1.50)."""
    return RunSource("seed", *cached(_seed_example, kept=1), default_group=None, default_k=3)


def load(kind: str) -> RunSource | None:
    """The run and qrels of ``kind`` (a key of ``KINDS``), or None after showing why there are none.

    An upload draws its three file uploaders here, in the page's main area.
    """
    if kind == "seed":
        return seed_example()
    if kind == "sample":
        if not (SAMPLE_RUN.is_file() and SAMPLE_QRELS.is_file()):
            st.info("The sample run is not bundled in this checkout yet; showing the seed's example instead.")
            return seed_example()
        judged = cached(_sample_run, kept=1, spinner="Loading the sample run…")
        return RunSource("sample", *judged, default_group="doc_id", default_k=5)
    left, middle, right = st.columns(3)
    run_file = left.file_uploader("Run (query_id, rank or score, chunk_id, doc_id; or TREC run)", type=UPLOAD_TYPES)
    qrels_file = middle.file_uploader("Qrels (query_id, doc_id/chunk_id, relevance; or TREC qrels)", type=UPLOAD_TYPES)
    map_file = right.file_uploader("Chunk map (chunk_id, doc_id), optional", type=["csv", "gz", "jsonl", "json"])
    if run_file is None or qrels_file is None:
        st.info("Upload a run and its qrels to evaluate them.")
        return None
    data = (run_file.getvalue(), qrels_file.getvalue(), map_file.getvalue() if map_file else None)
    names = (run_file.name, qrels_file.name, map_file.name if map_file else None)
    digest = hashlib.sha1(b"\0".join(d or b"" for d in data) + repr(names).encode()).hexdigest()
    try:
        judged = cached(_uploaded_run, data, key=digest, kept=UPLOADS_KEPT, spinner="Validating the upload…",
                        names=names)
    except ValueError as exc:
        st.error(f"Cannot use this upload: {exc}")
        return None
    return RunSource(f"upload:{digest[:16]}", *judged, default_group=None, default_k=5)
