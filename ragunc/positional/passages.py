"""Long passages and position-controlled queries: one query per third of each passage.

Passages are cut from a corpus' documents (at most one per document, so passages are the
clusters) to a length counted in the encoder's own tokens, at the edges of the language's units
(words; morphemes in Japanese: :mod:`ragunc.corpus.language`).  Each passage's content tokens are
split into a beginning, middle and end third; each third gets one simulated known-item query
(:func:`ragunc.retrieval.known_item.simulate_known_item`) drawn from the terms that occur in
that third and in no other third of the passage, so the query's answer sits where its group
says.  Terms are words less English stopwords in a spaced language, the analyser's content words
in an unspaced one.  The tokenizer is any Hugging Face fast tokenizer (only called, never imported here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..corpus.language import LanguageChoice, choose_language
from ..corpus.language import language as language_record
from ..corpus.model import Corpus
from ..retrieval.bm25 import Tokenizer, encode, term_frequencies
from ..retrieval.known_item import QueryModel, simulate_known_item

POSITION_GROUPS = ("begin", "middle", "end")
#: PosIR's passage length buckets, in tokens of the encoder.
LENGTH_BUCKETS = ((0, 512), (512, 1024), (1024, 2048), (2048, 4096))
#: Queries of a few terms picked for being rare in the collection: the answer is findable, and
#: a miss says where in the passage the encoder stopped looking.
POSITION_QUERY_MODEL = QueryModel(mean_length=4.0, selection="discriminative", lam=0.9)


def length_bucket(low: int, high: int) -> str:
    """PosIR's bucket holding lengths ``low..high`` (``"mixed"`` if they span several)."""
    for lo, hi in LENGTH_BUCKETS:
        if lo < low and high <= hi:
            return f"≤{hi}" if lo == 0 else f"{lo}–{hi}"
    return "mixed" if high <= LENGTH_BUCKETS[-1][1] else f">{LENGTH_BUCKETS[-1][1]}"


@dataclass(frozen=True)
class PositionalQueries:
    """Passages and their three position queries (query ``3 p + g`` is group ``g`` of passage ``p``)."""

    passage_ids: tuple[str, ...]  # "doc_id@first word"
    passages: tuple[str, ...]
    passage_tokens: np.ndarray  # tokens of each passage with its special tokens
    texts: tuple[str, ...]  # queries
    passage: np.ndarray  # the passage each query belongs to (its only relevant one)
    group: np.ndarray  # 0 begin, 1 middle, 2 end
    position: np.ndarray  # relative position of the answer span in the passage's content, in [0, 1]
    span_end: np.ndarray  # content token index of the answer span's last term
    kept_tokens: int  # content tokens the encoder keeps (max_seq_length minus special tokens)
    source: str
    language: LanguageChoice = LanguageChoice(language_record("en"), detected=True)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def n_passages(self) -> int:
        return len(self.passages)

    @property
    def truncated(self) -> np.ndarray:
        """Queries whose answer span ends beyond what the encoder reads."""
        return self.span_end >= self.kept_tokens

    def describe(self) -> dict:
        low, high = int(self.passage_tokens.min()), int(self.passage_tokens.max())
        truncated = self.truncated
        return {
            "corpus": self.source,
            "n_passages": self.n_passages,
            "n_queries": len(self),
            "passage_tokens": {"min": low, "max": high, "mean": float(self.passage_tokens.mean())},
            "length_bucket": length_bucket(low, high),
            "truncated_share": float(truncated.mean()),
            "truncated_by_group": {
                name: float(truncated[self.group == g].mean()) for g, name in enumerate(POSITION_GROUPS)
            },
            "language": self.language.to_dict(),
        }


def _special_counts(tokenizer) -> tuple[int, int]:
    """Special tokens the tokenizer adds before and after a text."""
    plain = tokenizer("a", add_special_tokens=False)["input_ids"]
    full = tokenizer("a", add_special_tokens=True)["input_ids"]
    for start in range(len(full) - len(plain) + 1):
        if full[start : start + len(plain)] == plain:
            return start, len(full) - len(plain) - start
    return 0, len(full) - len(plain)


def _units(text: str, language: LanguageChoice) -> list[tuple[int, int]]:
    """Character spans of the units of ``text``: whitespace-separated words, or the analyser's morphemes."""
    analysis = language.language.analyser().analyse(text)
    return list(zip(analysis.starts.tolist(), analysis.ends.tolist()))


def _cut_passage(
    text: str, tokenizer, target: int, rng: np.random.Generator, language: LanguageChoice
) -> tuple[str, int] | None:
    """``(passage, index of its first unit)``: the longest run of whole units from a random unit
    of ``text`` with at most ``target`` content tokens; None if ``text`` is shorter than that.

    Only ``target`` units from the start are tokenized (a word or a morpheme is at least one
    token), so a long document costs no more than a short one.
    """
    words = _units(text, language)
    if not words:
        return None
    first = int(rng.integers(max(1, len(words) - target + 1)))
    window = words[first : first + target + 1]
    base = window[0][0]
    piece = text[base : window[-1][1]]
    offsets = tokenizer(piece, add_special_tokens=False, return_offsets_mapping=True, verbose=False)["offset_mapping"]
    token_starts = np.array([s for s, _ in offsets])
    # First token of each word, and the token count as the end of the last word.
    word_token = np.append(np.searchsorted(token_starts, [s - base for s, _ in window]), len(offsets))
    end = int(np.searchsorted(word_token, target, side="right")) - 1
    if len(offsets) < target or end <= 0:
        return None
    return text[base : window[end - 1][1]], first


def _thirds(passage: str, tokenizer, language: LanguageChoice) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Char ranges of the passage's three thirds (by content tokens, snapped to unit starts) and
    the start char of every content token."""
    offsets = tokenizer(passage, add_special_tokens=False, return_offsets_mapping=True, verbose=False)["offset_mapping"]
    token_starts = np.array([s for s, _ in offsets])
    word_starts = np.array([start for start, _ in _units(passage, language)])
    n = len(token_starts)
    cuts = []
    for fraction in (1 / 3, 2 / 3):
        char = token_starts[min(n - 1, int(round(n * fraction)))]
        cuts.append(int(word_starts[min(len(word_starts) - 1, np.searchsorted(word_starts, char))]))
    bounds = [0, *cuts, len(passage)]
    return [(bounds[i], bounds[i + 1]) for i in range(3)], token_starts


def _exclusive(tf, n_passages: int):
    """``tf`` (3P thirds x terms) keeping a term in a third only if no other third of its passage has it."""
    tf = tf.tocsr().copy()
    rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
    keys = (rows // 3) * tf.shape[1] + tf.indices
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    tf.data = np.where(counts[inverse] == 1, tf.data, 0)
    tf.eliminate_zeros()
    return tf


def _first_occurrence(term: str, text: str, language: LanguageChoice) -> int:
    """Where ``term`` first occurs in ``text`` as a word (as a unit's term, unspaced); -1 if nowhere."""
    if not language.language.spaced:
        analysis = language.language.analyser().analyse(text)
        hits = np.flatnonzero(analysis.terms == term)
        return int(analysis.starts[analysis.term_units[hits[0]]]) if hits.size else -1
    found = re.search(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text, re.IGNORECASE)
    return -1 if found is None else found.start()


def position_queries(
    corpus: Corpus,
    tokenizer,
    *,
    n_passages: int = 200,
    min_tokens: int = 440,
    max_tokens: int = 505,
    max_seq_length: int = 512,
    query_model: QueryModel = POSITION_QUERY_MODEL,
    rng: np.random.Generator | int | None = 0,
    language: str | LanguageChoice | None = None,
) -> PositionalQueries:
    """Up to ``n_passages`` passages of ``min_tokens..max_tokens`` encoder tokens (special tokens
    included), one per document in a seeded order, with one query per third.

    A passage starts at a random unit of its document; documents too short are skipped.
    ``max_seq_length`` only decides which answer spans the encoder never reads (``truncated``).
    ``language`` (detected when None) decides the units and the terms.
    """
    if int(n_passages) != n_passages or n_passages < 2:
        raise ValueError(f"n_passages must be an integer >= 2, got {n_passages!r}")
    if not 0 < min_tokens <= max_tokens:
        raise ValueError(f"need 0 < min_tokens <= max_tokens, got {min_tokens!r}..{max_tokens!r}")
    rng = np.random.default_rng(rng)
    choice = choose_language(corpus.texts, language)
    before, after = _special_counts(tokenizer)
    ids, passages, lengths = [], [], []
    for doc in rng.permutation(len(corpus)):
        if len(passages) == n_passages:
            break
        target = int(rng.integers(min_tokens, max_tokens + 1)) - before - after
        cut = _cut_passage(corpus.texts[doc], tokenizer, target, rng, choice)
        if cut is None:
            continue
        passage, first_word = cut
        n_tokens = len(tokenizer(passage, add_special_tokens=True, verbose=False)["input_ids"])
        if min_tokens <= n_tokens <= max_tokens:
            ids.append(f"{corpus.doc_ids[doc]}@{first_word}")
            passages.append(passage)
            lengths.append(n_tokens)
    if len(passages) < 2:
        raise ValueError(
            f"{corpus.source}: only {len(passages)} document(s) have {min_tokens}-{max_tokens} tokens of this "
            "encoder; lower the passage length or use a corpus of longer documents"
        )
    thirds, token_starts = zip(*(_thirds(p, tokenizer, choice) for p in passages))
    terms = Tokenizer(stopwords="en") if choice.language.spaced else choice.language.analyser().content_terms
    third_texts = [p[a:b] for p, ranges in zip(passages, thirds) for a, b in ranges]
    term_ids, offsets, vocabulary = encode([terms(t) for t in third_texts])
    tf = _exclusive(term_frequencies(term_ids, offsets, len(vocabulary)), len(passages))
    rows, picked = simulate_known_item(tf, query_model, rng=rng)
    words = np.asarray(vocabulary, dtype=object)[picked]
    bounds = np.searchsorted(rows, np.arange(len(third_texts) + 1))
    texts, position, span_end = [], [], []
    for row in range(len(third_texts)):
        p, g = divmod(row, 3)
        query_terms = list(words[bounds[row] : bounds[row + 1]])
        texts.append(" ".join(query_terms))
        start, stop = thirds[p][g]
        chars = [start + c for c in (_first_occurrence(t, third_texts[row], choice) for t in query_terms) if c >= 0]
        starts = token_starts[p]
        if chars:
            tokens = np.searchsorted(starts, np.array(chars), side="right") - 1
            low, high = int(tokens.min()), int(tokens.max())
        else:  # every term was collection noise: the answer is the third as a whole
            low, high = (int(np.searchsorted(starts, c)) for c in (start, stop - 1))
        position.append((low + high) / 2 / max(1, len(starts) - 1))
        span_end.append(high)
    return PositionalQueries(
        passage_ids=tuple(ids),
        passages=tuple(passages),
        passage_tokens=np.array(lengths, dtype=np.int64),
        texts=tuple(texts),
        passage=np.repeat(np.arange(len(passages)), 3),
        group=np.tile(np.arange(3), len(passages)),
        position=np.clip(np.array(position), 0.0, 1.0),
        span_end=np.array(span_end, dtype=np.int64),
        kept_tokens=int(max_seq_length) - before - after,
        source=corpus.source,
        language=choice,
    )
