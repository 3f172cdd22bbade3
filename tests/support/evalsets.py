"""Frozen evaluation sets written by hand for tests: questions on one chunk each, and a run over them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ragunc.evalset.store import FORMAT


def question(i: int, doc: str) -> dict:
    """Factual question ``q{i}`` made from chunk ``{doc}#0``, its one relevant chunk."""
    return {
        "question_id": f"q{i}",
        "question": "?",
        "type": "factual",
        "origin": "synthetic",
        "relevant_chunk_ids": [f"{doc}#0"],
        "relevant_doc_ids": [doc],
        "source_chunk_ids": [f"{doc}#0"],
        "source_doc_id": doc,
    }


def write_set(folder: Path, questions: list[dict], run: list[tuple]) -> Path:
    """The set in ``folder`` (no corpus, no chunking) and ``folder/run.csv`` of ``(query_id, rank, chunk_id, doc_id)``."""
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    (folder / "manifest.json").write_text(json.dumps({"format": FORMAT, "corpus": {}, "chunking": {}}))
    pd.DataFrame(run, columns=["query_id", "rank", "chunk_id", "doc_id"]).to_csv(folder / "run.csv", index=False)
    return folder / "run.csv"
