"""The frozen set on disk, meant to be committed: ``questions.jsonl``, ``manifest.json``, ``review/*.jsonl``.

``questions.jsonl`` holds one question per line: ``question_id, question, type, origin``
(synthetic or real), ``relevant_chunk_ids``, ``relevant_doc_ids`` (empty for a negative),
``source_chunk_ids``, ``source_doc_id`` (the cluster of the question in intervals),
``generator`` and each filter's ``scores``. Files are written through a temporary file
and a rename, so a set on disk is always a whole one. The journal (``journal.jsonl``)
sits beside them: the raw replies, which a rebuild reads instead of paying again.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..corpus.loaders import load_corpus
from ..corpus.model import Corpus
from ..data.serialize import jsonable
from .sampling import QUESTION_TYPES

QUESTIONS = "questions.jsonl"
MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
REVIEW = "review"
FORMAT = "ragunc-evalset/1"
REVIEW_LISTS = {  # file stem -> what it holds
    "round_trip_failures": "source chunk not in the round-trip ranker's top results",
    "leaks": "questions that copy their chunk's words, still after one rephrasing",
    "discards": "chunks the generator declined (DISCARD)",
    "unparsable": "replies that held no usable question or verdict",
    "failures": "calls that failed after their retries",
    "duplicates": "questions repeating an earlier one",
    "negatives_answered": "unanswerable questions that a top-ranked chunk answers after all",
    "not_asked": "calls not made: budget spent or run stopped",
    "displaced": "synthetic questions displaced by real ones",
}
ORIGINS = ("synthetic", "real")
REAL_TYPE = "unspecified"  # a real question's type when its file does not give one
TYPES = (*QUESTION_TYPES, REAL_TYPE)


def corpus_hash(corpus: Corpus) -> str:
    """SHA-256 over every document's id, type and text, in corpus order."""
    digest = hashlib.sha256()
    for doc, doc_type, text in zip(corpus.doc_ids, corpus.doc_types, corpus.texts):
        for part in (doc, doc_type, text):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def jsonl_text(rows: Iterable[dict]) -> str:
    return "".join(json.dumps(jsonable(row), ensure_ascii=False) + "\n" for row in rows)


def read_jsonl(path: Path) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: line {number} is not valid JSON ({exc.msg})") from None
    return rows


@dataclass(frozen=True)
class EvalSet:
    """A frozen set read back: its questions (one dict each) and its manifest."""

    folder: Path
    questions: tuple[dict, ...]
    manifest: dict

    def __len__(self) -> int:
        return len(self.questions)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.questions))

    def review(self, name: str) -> list[dict]:
        """One review list (see ``REVIEW_LISTS``); empty when the build wrote none."""
        if name not in REVIEW_LISTS:
            raise ValueError(f"unknown review list {name!r} (known: {', '.join(REVIEW_LISTS)})")
        path = self.folder / REVIEW / f"{name}.jsonl"
        return read_jsonl(path) if path.exists() else []

    @property
    def language(self) -> str | None:
        """The code of the language the set was built in (its corpus' chunks and words, its prompts);
        None when the manifest records none (the corpus' language is then detected again)."""
        return self.manifest.get("language", {}).get("code")

    def zip_bytes(self) -> bytes:
        """The frozen set as a ``.zip`` (questions, manifest, review lists under ``evalset/``; not the journal)."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in (QUESTIONS, MANIFEST):
                archive.write(self.folder / name, f"evalset/{name}")
            for path in sorted((self.folder / REVIEW).glob("*.jsonl")):
                archive.write(path, f"evalset/{REVIEW}/{path.name}")
        return buffer.getvalue()

    def corpus(self) -> Corpus:
        """The corpus the set was built from, checked against the manifest's hash."""
        info = self.manifest["corpus"]
        source = info["source"]
        if source != "stdlib" and not Path(source).exists() and info.get("path") and Path(info["path"]).exists():
            source = info["path"]
        corpus = load_corpus(source)
        found = corpus_hash(corpus)
        if found != info["hash"]:
            raise ValueError(
                f"{self.folder}: the corpus at {source!r} changed since the set was built "
                f"(hash {found[:19]}..., the manifest says {info['hash'][:19]}...)"
            )
        return corpus


def origin_counts(questions: Iterable[dict]) -> dict:
    counts = dict.fromkeys(ORIGINS, 0)
    for q in questions:
        counts[q["origin"]] += 1
    total = sum(counts.values())
    return {**counts, "real_share": counts["real"] / total if total else 0.0}


def load_evalset(folder: str | os.PathLike) -> EvalSet:
    """Read and check a set folder (the validation boundary of ``eval`` and ``add``)."""
    root = Path(folder)
    for name in (QUESTIONS, MANIFEST):
        if not (root / name).is_file():
            raise FileNotFoundError(f"{root}: no {name} here (is this a folder written by `ragunc evalset build`?)")
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{root / MANIFEST}: not valid JSON ({exc.msg})") from None
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{root / MANIFEST}: format {manifest.get('format')!r}, expected {FORMAT!r}")
    questions = read_jsonl(root / QUESTIONS)
    required = ("question_id", "question", "type", "origin", "relevant_chunk_ids", "relevant_doc_ids", "source_doc_id")
    seen = set()
    for number, q in enumerate(questions, start=1):
        missing = [k for k in required if k not in q]
        if missing:
            raise ValueError(f"{root / QUESTIONS}: line {number} lacks {', '.join(missing)}")
        if q["type"] not in TYPES or q["origin"] not in ORIGINS:
            raise ValueError(
                f"{root / QUESTIONS}: line {number} has type {q['type']!r} / origin {q['origin']!r} "
                f"(types: {', '.join(TYPES)}; origins: {', '.join(ORIGINS)})"
            )
        if q["question_id"] in seen:
            raise ValueError(f"{root / QUESTIONS}: question_id {q['question_id']!r} repeats (line {number})")
        seen.add(q["question_id"])
    return EvalSet(folder=root, questions=tuple(questions), manifest=manifest)
