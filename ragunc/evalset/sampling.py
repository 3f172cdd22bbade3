"""Which chunks questions are made from: a seeded weighted sample, never the first N.

The first chunks of a corpus are covers, tables of contents and legal notices; a random
sample spreads over what people ask about. Chunks are drawn without replacement with
probability proportional to their document's weight (1 unless a popularity file says
otherwise; 0 never draws it), by Efraimidis–Spirakis keys ``log(u) / w``, at most
``max_per_doc`` per document. Tails shorter than a quarter of the chunk size are not drawn.
The question types of the mix are then dealt over the drawn chunks; a two-chunk question
needs the chunk's next neighbour in the same document.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..retrieval.chunking import Chunks

QUESTION_TYPES = ("factual", "two_chunk", "procedural", "negative")
ANSWERABLE = ("factual", "two_chunk", "procedural")
# A mix beyond one-paragraph facts tests more than lookup; negatives pay most per line written.
DEFAULT_MIX = {"factual": 0.5, "two_chunk": 0.15, "procedural": 0.2, "negative": 0.15}


def parse_mix(items: Sequence[str] | Mapping[str, float] | None) -> dict[str, float]:
    """A type mix from ``["factual=0.6", "negative=0.4"]`` (a bare name weighs 1), normalised to sum 1."""
    if items is None:
        return dict(DEFAULT_MIX)
    if isinstance(items, Mapping):
        pairs = list(items.items())
    else:
        pairs = []
        for item in items:
            for part in str(item).split(","):
                name, sep, weight = part.strip().partition("=")
                if not name:
                    continue
                try:
                    pairs.append((name, float(weight) if sep else 1.0))
                except ValueError:
                    raise ValueError(f"types: weight of {name!r} is not a number: {weight!r}") from None
    unknown = [name for name, _ in pairs if name not in QUESTION_TYPES]
    if unknown:
        raise ValueError(
            f"types: unknown question type {', '.join(map(repr, unknown))} (known: {', '.join(QUESTION_TYPES)})"
        )
    if any(not np.isfinite(w) or w < 0 for _, w in pairs):
        raise ValueError(f"types: weights must be finite and >= 0, got {dict(pairs)}")
    total = sum(w for _, w in pairs)
    if not total > 0:
        raise ValueError("types: the mix needs at least one type with a positive weight")
    mix = {}
    for name, weight in pairs:
        mix[name] = mix.get(name, 0.0) + weight / total
    return {name: mix[name] for name in QUESTION_TYPES if mix.get(name, 0) > 0}


def type_counts(mix: Mapping[str, float], n: int) -> dict[str, int]:
    """``n`` split over the mix by largest remainder (ties to the earlier type)."""
    names = list(mix)
    exact = np.array([mix[t] for t in names]) * n
    counts = np.floor(exact).astype(int)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    return dict(zip(names, counts.tolist()))


def read_popularity(path: str | os.PathLike) -> dict[str, float]:
    """Document weights: CSV/TSV with columns ``doc_id, weight``, or lines ``doc_id weight`` (``#`` comments)."""
    file = Path(path)
    text = file.read_text(encoding="utf-8-sig")
    first = next((line for line in text.splitlines() if line.strip() and not line.startswith("#")), "")
    if "doc_id" in first:
        sep = "\t" if "\t" in first else ","
        frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, comment="#")
        if "weight" not in frame.columns:
            raise ValueError(f"{file}: a popularity file needs columns doc_id and weight (found {list(frame.columns)})")
        pairs = list(zip(frame["doc_id"], frame["weight"]))
    else:
        pairs = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rsplit(None, 1)
            if len(parts) != 2:
                raise ValueError(f"{file}: line {number} is not 'doc_id weight': {line!r}")
            pairs.append((parts[0], parts[1]))
    weights = {}
    for doc, weight in pairs:
        try:
            value = float(weight)
        except ValueError:
            raise ValueError(f"{file}: the weight of {doc!r} is not a number: {weight!r}") from None
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"{file}: the weight of {doc!r} must be finite and >= 0, got {weight!r}")
        weights[str(doc)] = value
    return weights


@dataclass(frozen=True)
class ChunkSample:
    """The drawn chunks in draw order, each with its question type (and its neighbour for two-chunk)."""

    positions: np.ndarray  # (n,) int64 chunk positions
    types: tuple[str, ...]
    partners: np.ndarray  # (n,) int64: the next chunk of a two-chunk question, -1 otherwise
    requested: int
    eligible: int  # chunks that could be drawn (weight > 0, long enough)
    mix: dict[str, float]
    shortfall: dict[str, int]  # two-chunk questions turned factual for want of neighbours

    def __len__(self) -> int:
        return int(self.positions.size)

    def to_dict(self) -> dict:
        return {
            "requested": self.requested,
            "drawn": len(self),
            "eligible_chunks": self.eligible,
            "mix": self.mix,
            "types": {t: self.types.count(t) for t in QUESTION_TYPES if t in self.types},
            "shortfall": self.shortfall,
        }


def _sample_chunks_iv(chunks, n, max_per_doc, popularity):
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer (questions to generate), got {n!r}")
    if max_per_doc is not None and (int(max_per_doc) != max_per_doc or max_per_doc < 1):
        raise ValueError(f"max_per_doc must be a positive integer, got {max_per_doc!r}")
    doc_ids = chunks.corpus.doc_ids
    weights = np.ones(len(doc_ids))
    if popularity:
        position = pd.Index(doc_ids)
        where = position.get_indexer(list(popularity))
        unknown = [d for d, p in zip(popularity, where) if p < 0]
        if unknown:
            raise ValueError(
                f"popularity: {len(unknown)} doc_id(s) are not documents of the corpus, e.g. {unknown[:3]}"
            )
        weights[where] = list(popularity.values())
    return int(n), max_per_doc, weights


def sample_chunks(
    chunks: Chunks,
    n: int,
    *,
    mix: Mapping[str, float] | None = None,
    seed: int = 0,
    max_per_doc: int | None = None,
    popularity: Mapping[str, float] | None = None,
) -> ChunkSample:
    """``n`` chunks drawn without replacement (see the module docstring), with their question types."""
    n, max_per_doc, doc_weights = _sample_chunks_iv(chunks, n, max_per_doc, popularity)
    mix = parse_mix(mix)
    rng = np.random.default_rng(seed)
    weight = doc_weights[chunks.doc_pos]
    drawable = (weight > 0) & (chunks.n_words >= chunks.chunk_words / 4)
    with np.errstate(divide="ignore"):
        keys = np.where(drawable, np.log(rng.random(len(chunks))) / np.where(drawable, weight, 1.0), -np.inf)
    order = np.argsort(-keys, kind="stable")[: int(drawable.sum())]
    if max_per_doc is not None:
        rank_in_doc = pd.Series(chunks.doc_pos[order]).groupby(chunks.doc_pos[order]).cumcount().to_numpy()
        order = order[rank_in_doc < max_per_doc]
    positions = order[:n]

    counts = type_counts(mix, len(positions))
    has_next = np.append(chunks.doc_pos[1:] == chunks.doc_pos[:-1], False)
    types = np.empty(len(positions), dtype=object)
    partners = np.full(len(positions), -1, dtype=np.int64)
    shortfall = {}
    if counts.get("two_chunk"):
        eligible = rng.permutation(np.flatnonzero(has_next[positions]))
        two = eligible[: counts["two_chunk"]]
        types[two] = "two_chunk"
        partners[two] = positions[two] + 1
        if len(two) < counts["two_chunk"]:
            shortfall["two_chunk"] = counts["two_chunk"] - len(two)
            counts["factual"] = counts.get("factual", 0) + shortfall["two_chunk"]
        counts["two_chunk"] = len(two)
    rest = np.flatnonzero(types == None)  # noqa: E711 (object array)
    labels = np.concatenate([np.repeat(t, c) for t, c in counts.items() if t != "two_chunk"] or [np.empty(0, object)])
    types[rng.permutation(rest)] = labels
    return ChunkSample(
        positions=positions.astype(np.int64),
        types=tuple(types.tolist()),
        partners=partners,
        requested=n,
        eligible=int(drawable.sum()),
        mix=mix,
        shortfall=shortfall,
    )
