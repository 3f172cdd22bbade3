"""Per-query scores as trec_eval (``trec_eval -q``) and ir_measures (``ir_measures -q``) print them.

Three whitespace-separated fields a line, no header: ``measure qid value`` (trec_eval, whose
``all`` lines are the run's summary) or ``qid measure value`` (ir_measures).  The order is told
from the content: the field holding ``all`` (the summary lines both print) is the qid; without
one, the field with fewer distinct values is the measure.  One measure is read (``scorer=``, default the file's first),
one row per query: ``y`` its value, ``doc_id`` the query id (every query its own cluster),
``chunk_id`` the query id too.  The ``all`` lines are left out; trec_eval's ``runid all NAME``
names the config (else the file name without its suffixes), so two runs' outputs compare.
"""

from __future__ import annotations

import os

import pandas as pd

from .reader import DataError, listing

FIELDS = 3


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def is_per_query_output(head: bytes) -> bool:
    """Whether a file's first bytes are ``-q`` output: every complete line three fields, the last a number."""
    lines = [line.split() for line in head.decode("utf-8", errors="replace").splitlines()[:-1] if line.strip()]
    numeric = [f for f in lines if len(f) == FIELDS and f[0] not in ("runid",)]
    return bool(lines) and all(len(f) == FIELDS for f in lines) and all(_is_number(f[2]) for f in numeric)


def per_query_frame(text: str, name: str, *, scorer: str | None = None) -> tuple[pd.DataFrame, str, tuple[str, ...]]:
    """(rows ``doc_id, chunk_id, y, config``, the measure read, every measure of the file)."""
    fields = [line.split() for line in text.splitlines() if line.strip()]
    bad = [i + 1 for i, f in enumerate(fields) if len(f) != FIELDS]
    if bad:
        raise DataError(f"{name}: per-query output has 3 fields a line (measure, query, value); not line {bad[0]}")
    frame = pd.DataFrame(fields, columns=["a", "b", "value"])
    if (frame["b"] == "all").any() or (
        not (frame["a"] == "all").any() and frame["a"].nunique() <= frame["b"].nunique()
    ):
        measure, query = frame["a"], frame["b"]  # trec_eval -q
    else:
        measure, query = frame["b"], frame["a"]  # ir_measures -q
    frame = pd.DataFrame({"measure": measure, "query": query, "value": frame["value"]})
    runid = frame.loc[(frame["measure"] == "runid") & (frame["query"] == "all"), "value"]
    base = os.path.basename(name)
    config = str(runid.iloc[0]) if len(runid) else base.split(".")[0] or base
    frame = frame[frame["query"] != "all"]
    measures = tuple(pd.unique(frame["measure"]))
    if not measures:
        raise DataError(f"{name}: per-query output with only 'all' lines: run trec_eval with -q")
    chosen = measures[0] if scorer is None else scorer
    if chosen not in measures:
        raise DataError(f"{name}: no measure {chosen!r} in this per-query output; its measures are {listing(measures)}")
    rows = frame[frame["measure"] == chosen]
    y = pd.to_numeric(rows["value"], errors="coerce")
    if y.isna().any():
        raise DataError(f"{name}: measure {chosen!r} is not a number for query {rows['query'][y.isna()].iloc[0]!r}")
    out = pd.DataFrame({"doc_id": rows["query"].to_numpy(), "chunk_id": rows["query"].to_numpy(), "y": y.to_numpy()})
    out["config"] = config
    return out, chosen, measures
