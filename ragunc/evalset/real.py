"""Real questions displace synthetic ones: every question that comes from support, a thumbs-down or a
meeting enters the set and pushes one synthetic question out, until the set is
mostly real.

A real question's file (CSV or JSON lines) has ``question`` (or ``query``) and its relevant
``chunk_ids`` and/or ``doc_ids`` (``|``-separated in CSV, lists in JSONL; both empty: an
unanswerable question), optionally ``question_id`` and ``type``. Each one displaces a
synthetic question of the same kind (answerable or negative), preferably one made from a
document the real question is about, else one drawn with the seed; the displaced ones go to
``review/displaced.jsonl``, not away. Adding the same question twice adds it once.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.serialize import json_text
from ..retrieval.chunking import chunk_corpus
from .store import (
    MANIFEST,
    QUESTIONS,
    REAL_TYPE,
    REVIEW,
    TYPES,
    jsonl_text,
    load_evalset,
    origin_counts,
    read_jsonl,
    write_atomic,
)
from .text import normalized


@dataclass(frozen=True)
class AddResult:
    """What ``ragunc evalset add`` did."""

    added: int
    already_present: int
    displaced: int
    origin: dict

    def to_dict(self) -> dict:
        return {
            "added": self.added,
            "already_present": self.already_present,
            "displaced": self.displaced,
            "origin": self.origin,
        }


def _ids(value) -> list[str]:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if str(v)]
    text = str(value).strip()
    if text.startswith("["):
        return [str(v) for v in json.loads(text)]
    return [v.strip() for v in text.split("|") if v.strip()]


def read_real_questions(path: str | os.PathLike) -> pd.DataFrame:
    """``question_id, question, type, chunk_ids, doc_ids`` (lists) from a CSV or JSONL file."""
    file = Path(path)
    name = file.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        frame = pd.read_json(file, lines=True, dtype=False)
    elif name.endswith(".csv"):
        frame = pd.read_csv(file, dtype=str, keep_default_na=False)
    else:
        raise ValueError(f"{file}: real questions must be .csv or .jsonl")
    text_col = next((c for c in ("question", "query") if c in frame.columns), None)
    chunk_col = next((c for c in ("chunk_ids", "chunk_id", "relevant_chunk_ids") if c in frame.columns), None)
    doc_col = next((c for c in ("doc_ids", "doc_id", "relevant_doc_ids") if c in frame.columns), None)
    if text_col is None or (chunk_col is None and doc_col is None):
        raise ValueError(
            f"{file}: real questions need a column 'question' and 'chunk_ids' and/or 'doc_ids' "
            f"(columns are {list(frame.columns)})"
        )
    texts = frame[text_col].astype(str).str.strip()
    blank = np.flatnonzero((texts == "").to_numpy()) + 1
    if blank.size:
        raise ValueError(f"{file}: column {text_col!r} is empty in data rows {blank[:5].tolist()}")
    types = (
        frame["type"].astype(str).replace("", REAL_TYPE)
        if "type" in frame.columns
        else pd.Series(REAL_TYPE, index=frame.index)
    )
    bad = np.flatnonzero(~types.isin(TYPES).to_numpy()) + 1
    if bad.size:
        raise ValueError(
            f"{file}: column 'type' must be one of {', '.join(TYPES)}; not in data rows {bad[:5].tolist()}"
        )
    ids = (
        frame["question_id"].astype(str)
        if "question_id" in frame.columns
        else ["real-" + hashlib.sha256(normalized(t).encode()).hexdigest()[:10] for t in texts]
    )
    return pd.DataFrame(
        {
            "question_id": list(ids),
            "question": texts.tolist(),
            "type": types.tolist(),
            "chunk_ids": [_ids(v) for v in frame[chunk_col]] if chunk_col else [[] for _ in range(len(frame))],
            "doc_ids": [_ids(v) for v in frame[doc_col]] if doc_col else [[] for _ in range(len(frame))],
        }
    )


def add_questions(folder: str | os.PathLike, path: str | os.PathLike, *, seed: int = 0) -> AddResult:
    """Merge the real questions of ``path`` into the set in ``folder`` (see the module docstring)."""
    evalset = load_evalset(folder)
    real = read_real_questions(path)
    corpus = evalset.corpus()
    chunks = chunk_corpus(corpus, evalset.manifest["chunking"]["chunk_words"], language=evalset.language)
    chunk_doc = dict(zip(chunks.chunk_ids.tolist(), chunks.doc_ids.tolist()))
    known_docs = set(corpus.doc_ids)
    unknown_chunks = sorted({c for ids in real["chunk_ids"] for c in ids if c not in chunk_doc})
    unknown_docs = sorted({d for ids in real["doc_ids"] for d in ids if d not in known_docs})
    if unknown_chunks or unknown_docs:
        raise ValueError(
            f"{path}: "
            + "; ".join(
                part
                for part in (
                    f"{len(unknown_chunks)} chunk id(s) are not chunks of the set's corpus at "
                    f"{chunks.config}, e.g. {unknown_chunks[:3]}"
                    if unknown_chunks
                    else "",
                    f"{len(unknown_docs)} doc id(s) are not documents of it, e.g. {unknown_docs[:3]}"
                    if unknown_docs
                    else "",
                )
                if part
            )
        )

    questions = list(evalset.questions)
    present = {normalized(q["question"]) for q in questions if q["origin"] == "real"}
    taken_ids = {q["question_id"] for q in questions}
    rng = np.random.default_rng([int(seed), len(questions)])
    displaced, added, already = [], [], 0
    for row in real.itertuples(index=False):
        if normalized(row.question) in present:
            already += 1
            continue
        if row.question_id in taken_ids:
            raise ValueError(f"{path}: question_id {row.question_id!r} is already in the set")
        docs = list(dict.fromkeys([*(chunk_doc[c] for c in row.chunk_ids), *row.doc_ids]))
        negative = not docs
        pool = [
            i for i, q in enumerate(questions) if q["origin"] == "synthetic" and (not q["relevant_doc_ids"]) == negative
        ]
        if pool:
            near = [i for i in pool if questions[i]["source_doc_id"] in docs]
            out = near[0] if near else pool[int(rng.integers(len(pool)))]
            displaced.append({**questions.pop(out), "displaced_by": row.question_id})
        question = {
            "question_id": row.question_id,
            "question": row.question,
            "type": "negative" if negative and row.type == REAL_TYPE else row.type,
            "origin": "real",
            "relevant_chunk_ids": list(row.chunk_ids),
            "relevant_doc_ids": docs,
            "source_chunk_ids": list(row.chunk_ids[:1]),
            "source_doc_id": docs[0] if docs else None,
            "generator": None,
            "scores": {},
            "note": f"added from {Path(path).name}",
        }
        questions.append(question)
        added.append(question)
        present.add(normalized(row.question))
        taken_ids.add(row.question_id)

    root = Path(folder)
    previous = read_jsonl(root / REVIEW / "displaced.jsonl") if (root / REVIEW / "displaced.jsonl").exists() else []
    write_atomic(root / REVIEW / "displaced.jsonl", jsonl_text(previous + displaced))
    write_atomic(root / QUESTIONS, jsonl_text(questions))
    manifest = dict(evalset.manifest)
    manifest["origin"] = origin_counts(questions)
    manifest["additions"] = [
        *manifest.get("additions", []),
        {
            "file": str(path),
            "added": len(added),
            "already_present": already,
            "displaced": len(displaced),
            "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        },
    ]
    manifest.setdefault("review_lists", {})["displaced"] = len(previous) + len(displaced)
    write_atomic(root / MANIFEST, json_text(manifest) + "\n")
    return AddResult(added=len(added), already_present=already, displaced=len(displaced), origin=manifest["origin"])
