"""Corpus loaders: a folder or a ``.zip`` of .txt/.md/.html, a table file (JSON lines, CSV, TSV, Parquet), or
``"stdlib"``; :func:`load_corpus` reads each, and :func:`corpus_from_bytes` an upload's bytes the same way.

Files are read by :mod:`ragunc.data.reader`, as every loader reads them; a corpus is
lenient about encoding only: invalid UTF-8 becomes U+FFFD, with a warning and a count.
Empty, binary and unreadable files are the reader's :class:`~ragunc.data.reader.DataError`, an archive's its own.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import warnings
import zipfile
from pathlib import Path, PurePosixPath

import pandas as pd

from ..data.reader import DataError, ReadLimits, infer_file_type, read_table, read_text
from .html import html_to_text
from .model import Corpus, corpus_from_frame
from .stdlib import stdlib_corpus

TEXT_SUFFIXES = (".txt", ".md", ".html", ".htm")
# What a corpus file may be called (a folder aside): table files, optionally gzipped, and archives of text files.
CORPUS_SUFFIXES = ("jsonl", "ndjson", "json", "csv", "tsv", "parquet", "zip", "gz")
_EXPECTED = "JSON lines, CSV or Parquet (doc_id, text[, doc_type]), or a .zip of .txt, .md or .html files"


def load_corpus(
    source: str | os.PathLike | Corpus | pd.DataFrame, *, limits: ReadLimits | None = None, **kwargs
) -> Corpus:
    """A corpus from ``"stdlib"``, a folder or a ``.zip`` of text files, a ``.jsonl``, ``.csv``, ``.tsv`` or
    ``.parquet`` file (``.gz`` allowed), or a frame.  ``limits`` caps what a file unpacks to (an upload; see
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
        raise FileNotFoundError(f"no corpus at {str(path)!r} (expected 'stdlib', a folder, .jsonl, .csv or .zip)")
    if path.suffix.lower() == ".zip":
        return load_archive(path, limits=limits)
    try:
        file_type = infer_file_type(path.name)
    except DataError:
        raise DataError(
            f"{path}: not a corpus file; expected {_EXPECTED} "
            f"(accepted endings: {', '.join('.' + s for s in CORPUS_SUFFIXES)})"
        ) from None
    return load_table(path, file_type, limits=limits, **kwargs)


def corpus_from_bytes(name: str, data: bytes, *, limits: ReadLimits | None = None, **kwargs) -> Corpus:
    """The corpus a file called ``name`` holding ``data`` is (an upload): read as :func:`load_corpus` reads it.

    The bytes go through a temporary file whose name gives the format; no message names that file's
    path, and the corpus' ``source`` is ``name``.
    """
    with tempfile.TemporaryDirectory(prefix="ragunc-corpus-") as folder:
        file = Path(folder) / Path(name).name
        file.write_bytes(data)
        try:
            corpus = load_corpus(file, limits=limits, **kwargs)
        except (DataError, ValueError, OSError) as exc:
            raise DataError(str(exc).replace(str(file), name).replace(folder, name)) from None
    return dataclasses.replace(corpus, source=name)


def load_archive(path: str | os.PathLike, *, limits: ReadLimits | None = None) -> Corpus:
    """Every ``.txt``/``.md``/``.html`` file of the ``.zip`` at ``path`` is a document, as in :func:`load_folder`.

    Hidden files and macOS's ``__MACOSX`` folder are skipped.  The members are decompressed as
    streams and refused once they pass ``limits`` (files: ``max_rows``; bytes: ``max_bytes``): a
    member's declared size is not trusted, since a zip bomb lies about it.
    """
    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise DataError(f"{path}: not a readable .zip archive") from None
    with archive, tempfile.TemporaryDirectory(prefix="ragunc-archive-") as folder:
        members = _text_members(archive)
        if not members:
            raise DataError(f"{path}: the archive holds no .txt, .md or .html file")
        _extract(archive, members, Path(folder), path, limits)
        try:
            corpus = load_folder(folder)
        except (DataError, ValueError) as exc:  # named after the archive, not the folder it was unpacked in
            raise type(exc)(str(exc).replace(folder, str(path))) from None
    return dataclasses.replace(corpus, source=str(path))


def _text_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    return [
        m
        for m in archive.infolist()
        if not m.is_dir()
        and Path(m.filename).suffix.lower() in TEXT_SUFFIXES
        and not Path(m.filename).name.startswith(".")
        and "__MACOSX" not in Path(m.filename).parts
    ]


def _extract(
    archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], folder: Path, path: Path, limits: ReadLimits | None
) -> None:
    if limits is not None and len(members) > limits.max_rows:
        raise DataError(f"{path}: {len(members):,} files; at most {limits.max_rows:,} documents are read")
    left = None if limits is None else limits.max_bytes
    for member in members:
        # As zipfile's extract: no absolute path and no "..", so every member stays inside the folder.
        parts = [p for p in PurePosixPath(member.filename.replace("\\", "/")).parts if p not in ("/", ".", "..")]
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as source, open(target, "wb") as out:
            while chunk := source.read(1 << 20 if left is None else min(left + 1, 1 << 20)):
                if left is not None:
                    left -= len(chunk)
                    if left < 0:
                        raise DataError(
                            f"{path}: the archive unpacks to more than {limits.max_bytes // 2**20:,} MB, "
                            "the most that is read"
                        )
                out.write(chunk)


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
