"""Corpus loaders: a folder of .txt/.md/.html, a table file (JSON lines, CSV, TSV, Parquet), or ``"stdlib"``.

Files are read by :mod:`ragunc.data.reader`, as every loader reads them; a corpus is
lenient about encoding only: invalid UTF-8 becomes U+FFFD, with a warning and a count.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pandas as pd

from ..data.reader import DataError, ReadLimits, infer_file_type, read_table, read_text
from .html import html_to_text
from .model import Corpus, corpus_from_frame
from .stdlib import stdlib_corpus

TEXT_SUFFIXES = (".txt", ".md", ".html", ".htm")


def load_corpus(
    source: str | os.PathLike | Corpus | pd.DataFrame, *, limits: ReadLimits | None = None, **kwargs
) -> Corpus:
    """A corpus from ``"stdlib"``, a folder, a ``.jsonl``, ``.csv``, ``.tsv`` or ``.parquet`` file (``.gz``
    allowed), or a frame.  ``limits`` caps what a table file unpacks to (an upload; see
    :class:`~ragunc.data.reader.ReadLimits`); None reads any size."""
    if isinstance(source, Corpus):
        return source
    if isinstance(source, pd.DataFrame):
        return corpus_from_frame(source, **kwargs)
    if str(source) == "stdlib":
        return stdlib_corpus(**kwargs)
    path = Path(source)
    if path.is_dir():
        return load_folder(path)
    if not path.exists():
        raise FileNotFoundError(f"no corpus at {str(path)!r} (expected 'stdlib', a folder, .jsonl or .csv)")
    try:
        file_type = infer_file_type(path.name)
    except DataError:
        raise DataError(
            f"{path}: unknown corpus format (expected a folder, .jsonl, .ndjson, .json, .csv, .tsv or .parquet, "
            "optionally .gz)"
        ) from None
    return load_table(path, file_type, limits=limits, **kwargs)


def _warn_replaced(paths: list[str]) -> None:
    if paths:
        warnings.warn(
            f"{len(paths)} file(s) are not valid UTF-8 and were decoded with replacement: "
            + ", ".join(paths[:5])
            + (" ..." if len(paths) > 5 else ""),
            UnicodeWarning,
            stacklevel=3,
        )


def load_folder(path: str | os.PathLike) -> Corpus:
    """Every ``.txt``/``.md``/``.html`` file under ``path`` (recursively) is a document.

    ``doc_id`` is the path relative to the folder; ``doc_type`` its first sub-folder
    (``"default"`` at the top level).
    """
    root = Path(path)
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES)
    if not files:
        raise DataError(f"{root}: no {'/'.join(TEXT_SUFFIXES)} files in this folder")
    rows, replaced = [], []
    for file in files:
        text, bad = read_text(file, replace_invalid=True)
        if bad:
            replaced.append(str(file))
        if file.suffix.lower() in (".html", ".htm"):
            text = html_to_text(text)
        rel = file.relative_to(root)
        rows.append((rel.as_posix(), text, rel.parts[0] if len(rel.parts) > 1 else "default"))
    _warn_replaced(replaced)
    frame = pd.DataFrame(rows, columns=["doc_id", "text", "doc_type"])
    return corpus_from_frame(frame, source=str(root), n_decode_replaced=len(replaced))


def load_table(
    path: str | os.PathLike, file_type: str | None = None, *, limits: ReadLimits | None = None, **columns
) -> Corpus:
    """A table file with columns ``doc_id, text[, doc_type]`` (or the names given): CSV, TSV, JSON lines, Parquet.

    BEIR's ``corpus.jsonl`` (``_id``, ``title``, ``text``) reads as it is: ``_id`` is the
    ``doc_id`` and a title opens its document's text.
    """
    table = read_table(path, file_type, replace_invalid=True, limits=limits)
    if table.n_decode_replaced:
        _warn_replaced([table.source])
    frame = table.frame
    if "_id" in frame.columns and "doc_id" not in frame.columns and "text" in frame.columns:  # BEIR
        title = frame["title"].fillna("").astype(str) if "title" in frame.columns else ""
        text = frame["text"].fillna("").astype(str)
        frame = frame.assign(doc_id=frame["_id"], text=(title + "\n\n" + text).str.strip() if len(title) else text)
    return corpus_from_frame(frame, source=table.source, n_decode_replaced=table.n_decode_replaced, **columns)


def load_jsonl(path: str | os.PathLike, **columns) -> Corpus:
    """JSON lines ``{"doc_id": ..., "text": ..., ["doc_type": ...]}``."""
    return load_table(path, "jsonl", **columns)


def load_csv(path: str | os.PathLike, **columns) -> Corpus:
    """A CSV with columns ``doc_id, text[, doc_type]`` (or the names given); the delimiter is sniffed."""
    return load_table(path, "csv", **columns)
