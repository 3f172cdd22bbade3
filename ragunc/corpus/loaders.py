"""Corpus loaders: a folder of .txt/.md/.html, JSON lines, CSV, or ``"stdlib"``."""
from __future__ import annotations

import gzip
import io
import json
import os
import warnings
import zlib
from pathlib import Path

import pandas as pd

from .html import html_to_text
from .model import Corpus, corpus_from_frame
from .stdlib import stdlib_corpus

TEXT_SUFFIXES = (".txt", ".md", ".html", ".htm")


def load_corpus(source: str | os.PathLike | Corpus | pd.DataFrame, **kwargs) -> Corpus:
    """A corpus from ``"stdlib"``, a folder, a ``.jsonl`` or ``.csv`` file (``.gz`` allowed), or a frame."""
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
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return load_jsonl(path, **kwargs)
    if name.endswith(".csv"):
        return load_csv(path, **kwargs)
    raise ValueError(f"{path}: unknown corpus format (expected a folder, .jsonl or .csv)")


def _read_text(path: Path) -> tuple[str, bool]:
    """File text as UTF-8; invalid bytes become U+FFFD and the flag says so."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise ValueError(f"{path}: not a readable gzip file ({exc})") from None
    try:
        return raw.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


def _warn_replaced(paths: list[str]) -> None:
    if paths:
        warnings.warn(
            f"{len(paths)} file(s) are not valid UTF-8 and were decoded with replacement: "
            + ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else ""),
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
        raise ValueError(f"{root}: no {'/'.join(TEXT_SUFFIXES)} files in this folder")
    rows, replaced = [], []
    for file in files:
        text, bad = _read_text(file)
        if bad:
            replaced.append(str(file))
        if file.suffix.lower() in (".html", ".htm"):
            text = html_to_text(text)
        rel = file.relative_to(root)
        rows.append((rel.as_posix(), text, rel.parts[0] if len(rel.parts) > 1 else "default"))
    _warn_replaced(replaced)
    frame = pd.DataFrame(rows, columns=["doc_id", "text", "doc_type"])
    return corpus_from_frame(frame, source=str(root), n_decode_replaced=len(replaced))


def load_jsonl(path: str | os.PathLike, **columns) -> Corpus:
    """JSON lines ``{"doc_id": ..., "text": ..., ["doc_type": ...]}``."""
    file = Path(path)
    text, bad = _read_text(file)
    if bad:
        _warn_replaced([str(file)])
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{file}: line {number} is not valid JSON ({exc.msg})") from None
    return corpus_from_frame(pd.DataFrame.from_records(records), source=str(file),
                             n_decode_replaced=int(bad), **columns)


def load_csv(path: str | os.PathLike, **columns) -> Corpus:
    """A CSV with columns ``doc_id, text[, doc_type]`` (or the names given)."""
    file = Path(path)
    text, bad = _read_text(file)
    if bad:
        _warn_replaced([str(file)])
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return corpus_from_frame(frame, source=str(file), n_decode_replaced=int(bad), **columns)


