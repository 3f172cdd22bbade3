"""The corpus model: validated documents (unique ids, non-empty texts, a doc_type each)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import pandas as pd

from ..data.reader import DataError, rows_phrase


@dataclass(frozen=True)
class Corpus:
    """Validated documents: unique ids, non-empty texts, one ``doc_type`` each (>= 2 documents)."""

    doc_ids: tuple[str, ...]
    texts: tuple[str, ...]
    doc_types: tuple[str, ...]
    source: str
    n_empty_skipped: int = 0  # documents dropped because their text was empty/blank
    n_decode_replaced: int = 0  # files decoded with U+FFFD replacement (not valid UTF-8)

    def __len__(self) -> int:
        return len(self.doc_ids)

    @cached_property
    def n_words(self) -> int:
        """Whitespace-separated words over all documents."""
        return sum(len(text.split()) for text in self.texts)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"doc_id": self.doc_ids, "text": self.texts, "doc_type": self.doc_types})

    def to_dict(self) -> dict:
        """Counts for summaries (not the texts)."""
        return {
            "source": self.source,
            "n_docs": len(self),
            "n_words": self.n_words,
            "n_empty_skipped": self.n_empty_skipped,
            "n_decode_replaced": self.n_decode_replaced,
        }


def corpus_from_frame(
    frame: pd.DataFrame,
    *,
    source: str = "<frame>",
    n_decode_replaced: int = 0,
    id_column: str = "doc_id",
    text_column: str = "text",
    type_column: str = "doc_type",
) -> Corpus:
    """Validate a frame of documents into a :class:`Corpus` (the one validation boundary).

    Blank texts are skipped and counted; a duplicate ``doc_id`` or fewer than two
    remaining documents raise :class:`~ragunc.data.DataError`. Missing ``doc_type`` becomes ``"default"``.
    """
    for column in (id_column, text_column):
        if column not in frame.columns:
            raise DataError(f"{source}: missing column {column!r} (columns are {list(map(str, frame.columns))})")
    ids = frame[id_column]
    # CSV is read without NA parsing, so an empty id arrives as "" rather than NaN.
    blank = ids.isna().to_numpy() | (ids.astype(str).str.strip() == "").to_numpy()
    if blank.any():
        raise DataError(f"{source}: column {id_column!r} is empty in {rows_phrase(blank)}")
    ids = ids.astype(str)
    duplicated = ids[ids.duplicated()].unique()
    if len(duplicated):
        raise DataError(
            f"{source}: duplicate doc_id {', '.join(map(repr, duplicated[:5]))}"
            + (f" and {len(duplicated) - 5} more" if len(duplicated) > 5 else "")
        )
    texts = frame[text_column].fillna("").astype(str)
    keep = texts.str.strip().str.len() > 0
    n_empty = int((~keep).sum())
    if type_column in frame.columns:
        types = frame[type_column].fillna("").astype(str).str.strip()
        # Blank is missing (CSV keeps "" as text); the results loader rejects an empty doc_type.
        types = types.where(types != "", "default")
    else:
        types = pd.Series("default", index=frame.index)
    if int(keep.sum()) < 2:
        raise DataError(
            f"{source}: a corpus needs at least two non-empty documents, got {int(keep.sum())}"
            f" ({n_empty} empty skipped)"
        )
    return Corpus(
        doc_ids=tuple(ids[keep]),
        texts=tuple(texts[keep]),
        doc_types=tuple(types[keep]),
        source=source,
        n_empty_skipped=n_empty,
        n_decode_replaced=n_decode_replaced,
    )
