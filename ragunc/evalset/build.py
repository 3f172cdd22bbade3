"""Building a frozen evaluation set: sample → ask → parse → leakage → duplicates → round trip → uniqueness.

:func:`build_evalset` runs the whole pipeline into an output folder (see
:mod:`ragunc.evalset.store` for what it writes); :func:`plan_evalset` says what it would
ask without asking (the dry run). A build started again with the same arguments reads
every reply it already has from the journal and asks only for the rest; a finished
build run again makes no call.

The funnel: chunks *sampled* → replies *answered* (failed or not-asked calls drop out) →
questions *parsed* (discards and unparsable replies drop out) → *not leaking* (a question
whose leakage reaches the threshold is rephrased once, and drops out if it still leaks)
→ *unique* (duplicates drop out) → *kept* (answerable questions whose source chunk the
round trip misses, and negatives a top-ranked chunk answers, drop out). Negatives skip
the leakage filter and the round trip: they have no source chunk to copy or find.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..corpus.language import LanguageChoice, choose_language, detect_language
from ..corpus.language import language as language_record
from ..corpus.loaders import load_corpus
from ..corpus.model import Corpus
from ..data.serialize import json_text
from ..retrieval.pipeline import Retrieval, prepare_retrieval
from .calls import FAILED, NOT_ASKED, STOPPED_BY_USER, Asker, Outcome
from .filters import (
    BM25Ranker,
    candidates,
    duplicate_of,
    leakage_scores,
    near_duplicate_chunks,
    passage_words,
    ranked_lists,
    ranker_name,
    round_trip_ranks,
)
from .generators import JUDGE, QUESTION, REPHRASE, Generator, OfflineGenerator, Task
from .journal import Journal, read_journal
from .parsing import DISCARD, PARSED_QUESTION, parse_question, parse_verdict
from .prompts import estimate_tokens, templates_hash
from .sampling import ANSWERABLE, ChunkSample, parse_mix, read_popularity, sample_chunks
from .store import FORMAT, JOURNAL, MANIFEST, QUESTIONS, REVIEW, REVIEW_LISTS, corpus_hash, jsonl_text, write_atomic
from .text import LANGUAGES, leakage

FUNNEL = (  # stage, label: questions still in the set after it
    ("sampled", "chunks sampled"),
    ("answered", "replies received"),
    ("parsed", "questions parsed"),
    ("not_leaking", "after the leakage filter"),
    ("unique", "after removing duplicates"),
    ("kept", "after the round trip (kept)"),
)
BUILD_REVIEW_LISTS = tuple(name for name in REVIEW_LISTS if name != "displaced")
SAMPLED = 200  # chunks sampled when the caller does not say: raw question-chunk pairs
CHUNK_WORDS = 100  # units (words, or morphemes of an unspaced language) per chunk when the caller does not say
CONCURRENCY = 4  # calls in flight at once when the caller does not say
PASSAGE_SHOWN = 600  # characters of the source chunk shown in a review list
EXIT_KEPT_NOTHING, EXIT_STOPPED = 3, 4


@dataclass
class _Item:
    """One sampled chunk on its way through the filters (internal, mutable while building)."""

    qtype: str
    sources: tuple[int, ...]
    chunk_ids: tuple[str, ...]
    doc_id: str
    texts: tuple[str, ...]
    question_id: str
    question: str | None = None
    note: str = ""
    dropped_at: str | None = None  # the funnel stage it did not reach
    relevant: list[int] = field(default_factory=list)
    scores: dict = field(default_factory=dict)

    @property
    def live(self) -> bool:
        return self.dropped_at is None

    def row(self, **extra) -> dict:
        """The review-list row: which chunk, what was asked, plus the stage's own fields."""
        return {
            "question_id": self.question_id,
            "type": self.qtype,
            "source_chunk_ids": list(self.chunk_ids),
            "source_doc_id": self.doc_id,
            "question": self.question,
            **extra,
            "passage": "\n\n".join(self.texts)[:PASSAGE_SHOWN],
        }


@dataclass(frozen=True)
class _Prepared:
    corpus: Corpus
    retrieval: Retrieval
    language: LanguageChoice
    sample: ChunkSample
    items: list[_Item]
    popularity: dict | None


def _check_integer(name: str, value, low: int) -> None:
    if isinstance(value, bool) or int(value) != value or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


@dataclass(frozen=True)
class FilterSettings:
    """How strict each filter of a build is; the manifest's ``filters`` records them.

    ``depth``: the round trip keeps an answerable question whose source chunk the ranker puts in
    its top ``depth``.  ``leakage_threshold``: the share of a question's content words found in
    its chunk at which it leaks (rephrased once, dropped if it still does); without a judging
    generator, a negative whose words a chunk holds at this share is answered.  ``candidates``:
    top-ranked chunks the uniqueness filter checks (one more for a negative).  ``chunk_similarity``:
    shingle Jaccard at which a chunk is a near duplicate of the source (without a judging
    generator).  ``question_similarity``: content-word Jaccard at which two questions are duplicates.
    """

    depth: int = 50
    leakage_threshold: float = 0.8
    candidates: int = 5
    chunk_similarity: float = 0.5
    question_similarity: float = 0.8

    def __post_init__(self) -> None:
        _check_integer("depth", self.depth, 1)
        _check_integer("candidates", self.candidates, 0)
        for name in ("leakage_threshold", "chunk_similarity", "question_similarity"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {value!r}")


def _build_iv(*, n, chunk_words, seed, max_calls, concurrency, language) -> None:
    _check_integer("n", n, 1)
    _check_integer("chunk_words", chunk_words, 10)
    _check_integer("seed", seed, 0)
    _check_integer("concurrency", concurrency, 1)
    if max_calls is not None:
        _check_integer("max_calls", max_calls, 0)
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")


def _question_id(chunk_ids: tuple[str, ...], qtype: str, seed: int) -> str:
    return "syn-" + hashlib.sha256(f"{'|'.join(chunk_ids)}|{qtype}|{seed}".encode()).hexdigest()[:10]


def _prepare(corpus, *, n, chunk_words, types, seed, max_per_doc, popularity, language) -> _Prepared:
    corpus = load_corpus(corpus)
    choice = choose_language(corpus.texts, language)  # its analyser cuts the chunks; its prompts ask
    retrieval = prepare_retrieval(corpus, chunk_words=chunk_words, language=choice)
    weights = None
    if popularity is not None:
        weights = dict(popularity) if isinstance(popularity, Mapping) else read_popularity(popularity)
    sample = sample_chunks(
        retrieval.chunks, n, mix=parse_mix(types), seed=seed, max_per_doc=max_per_doc, popularity=weights
    )
    chunks = retrieval.chunks
    chunk_ids, doc_ids = chunks.chunk_ids, chunks.doc_ids
    if choice.detected and choice.language.spaced:
        # The words of spaced languages are cut alike; a prompt asks in the language of the passages it shows.
        shown = language_record(detect_language(chunks.texts[p] for p in sample.positions[:200]))
        if shown.spaced:
            choice = LanguageChoice(shown, detected=True)
    items = []
    for pos, qtype, partner in zip(sample.positions.tolist(), sample.types, sample.partners.tolist()):
        sources = (pos, partner) if partner >= 0 else (pos,)
        ids = tuple(str(chunk_ids[s]) for s in sources)
        items.append(
            _Item(
                qtype=qtype,
                sources=sources,
                chunk_ids=ids,
                doc_id=str(doc_ids[pos]),
                texts=tuple(chunks.texts[s] for s in sources),
                question_id=_question_id(ids, qtype, seed),
            )
        )
    popularity_info = None
    if weights is not None:
        popularity_info = {
            "source": str(popularity) if not isinstance(popularity, Mapping) else "<mapping>",
            "n_docs": len(weights),
        }
    return _Prepared(corpus, retrieval, choice, sample, items, popularity_info)


def _question_task(item: _Item, language: str) -> Task:
    return Task(QUESTION, item.qtype, item.sources, item.chunk_ids, item.texts, language)


def _generator(generator: Generator | str, retrieval: Retrieval) -> Generator:
    if generator == "offline":
        return OfflineGenerator(retrieval)
    if isinstance(generator, str):
        raise ValueError(f"generator must be 'offline' or a Generator (e.g. OpenAIGenerator), got {generator!r}")
    return generator


@dataclass(frozen=True)
class BuildPlan:
    """What a build would ask (the dry run): nothing is called and nothing is written."""

    question_calls: int  # question prompts not in the journal yet
    journaled: int  # question prompts the journal already answers
    rephrase_calls_max: int  # at most one per answerable question, less those journaled
    judge_calls_max: int  # uniqueness and negatives checks when the generator judges, less those journaled
    prompt_tokens: int  # rough prompt tokens of the question calls
    prompt_tokens_max: int  # ... plus every rephrase and judge call at most
    max_calls: int | None
    language: LanguageChoice
    sample: dict
    generator: dict

    @property
    def calls_max(self) -> int:
        return self.question_calls + self.rephrase_calls_max + self.judge_calls_max

    def to_dict(self) -> dict:
        return {
            "dry_run": True,
            "question_calls": self.question_calls,
            "journaled": self.journaled,
            "rephrase_calls_max": self.rephrase_calls_max,
            "judge_calls_max": self.judge_calls_max,
            "calls_max": self.calls_max,
            "calls_within_budget": self.calls_max if self.max_calls is None else min(self.calls_max, self.max_calls),
            "prompt_tokens": self.prompt_tokens,
            "prompt_tokens_max": self.prompt_tokens_max,
            "max_calls": self.max_calls,
            "language": self.language.code,
            "language_info": self.language.to_dict(),
            "sample": self.sample,
            "generator": self.generator,
        }


def plan_evalset(
    corpus: Corpus | str | os.PathLike,
    out: str | os.PathLike | None = None,
    *,
    n: int = SAMPLED,
    generator: Generator | str = "offline",
    chunk_words: int = CHUNK_WORDS,
    types=None,
    seed: int = 0,
    max_per_doc: int | None = None,
    popularity: Mapping[str, float] | str | os.PathLike | None = None,
    language: str | None = None,
    filters: FilterSettings = FilterSettings(),
    max_calls: int | None = None,
) -> BuildPlan:
    """How many calls, and roughly how many prompt tokens, :func:`build_evalset` would need.

    Question calls are exact (the journal in ``out`` is subtracted); rephrase and judge
    calls depend on the replies, so their count is an upper bound (``filters.candidates``
    judgments per answerable question, one more per negative, one rephrasing per answerable one).
    """
    _build_iv(n=n, chunk_words=chunk_words, seed=seed, max_calls=max_calls, concurrency=CONCURRENCY, language=language)
    prep = _prepare(
        corpus,
        n=n,
        chunk_words=chunk_words,
        types=types,
        seed=seed,
        max_per_doc=max_per_doc,
        popularity=popularity,
        language=language,
    )
    gen = _generator(generator, prep.retrieval)
    journal = read_journal(Path(out) / JOURNAL)[0] if out is not None else {}
    tasks = [_question_task(item, prep.language.code) for item in prep.items]
    pending = [t for t in tasks if t.key(gen.model, seed) not in journal]
    tokens = [estimate_tokens(t.messages) for t in pending]
    answerable = [t for t in tasks if t.qtype in ANSWERABLE]
    # Rephrase and judge prompts depend on replies: bound them, less what this model and seed already journaled.
    done = {
        kind: sum(key[1].startswith(kind + ":") and key[3:] == (gen.model, seed) for key in journal)
        for kind in (REPHRASE, JUDGE)
    }
    rephrases = max(0, len(answerable) - done[REPHRASE])
    judges = max(0, len(tasks) * (filters.candidates + 1) - done[JUDGE]) if gen.can_judge else 0
    rephrase_tokens = rephrases * (np.mean([estimate_tokens(t.messages) for t in answerable]) if answerable else 0)
    mean_chunk = np.mean([len(t.texts[0]) for t in tasks]) if tasks else 0.0
    judge_tokens = judges * (mean_chunk / 4 + 60)
    return BuildPlan(
        question_calls=len(pending),
        journaled=len(tasks) - len(pending),
        rephrase_calls_max=rephrases,
        judge_calls_max=judges,
        prompt_tokens=int(sum(tokens)),
        prompt_tokens_max=int(sum(tokens) + rephrase_tokens + judge_tokens),
        max_calls=max_calls,
        language=prep.language,
        sample=prep.sample.to_dict(),
        generator=gen.describe(),
    )


@dataclass(frozen=True)
class BuildResult:
    """What a build did: the funnel, the calls, where it wrote, and its exit status."""

    out: Path
    funnel: dict[str, int]
    counts: dict[str, int]
    by_type: dict[str, dict[str, int]]
    calls: dict
    language: str
    complete: bool  # False when calls were left unmade (budget, stop)
    manifest: dict

    @property
    def kept(self) -> int:
        return self.funnel["kept"]

    @property
    def exit_status(self) -> int:
        """0; 4 when stopped by the endpoint (quota, key, model); 3 when nothing was kept."""
        if self.calls["stopped"] and self.calls["stopped"] != STOPPED_BY_USER:
            return EXIT_STOPPED
        return EXIT_KEPT_NOTHING if self.kept == 0 else 0

    def to_dict(self) -> dict:
        return {
            "out": str(self.out),
            "funnel": self.funnel,
            "counts": self.counts,
            "by_type": self.by_type,
            "calls": self.calls,
            "language": self.language,
            "complete": self.complete,
            "exit_status": self.exit_status,
            "language_info": self.manifest["language"],
            "chunking": self.manifest["chunking"],
        }


class _Builder:
    """The stages of one build over its items, collecting the review lists as it goes."""

    def __init__(
        self,
        prep: _Prepared,
        generator: Generator,
        asker: Asker,
        *,
        ranker,
        filters: FilterSettings,
    ) -> None:
        self.prep, self.generator, self.asker = prep, generator, asker
        self.language = prep.language.code
        self.ranker, self.filters = ranker, filters
        self.review: dict[str, list[dict]] = {name: [] for name in BUILD_REVIEW_LISTS}
        self.counts = dict.fromkeys(
            (
                "discarded",
                "unparsable",
                "failed",
                "not_asked",
                "leaky",
                "rephrased",
                "leaks",
                "duplicates",
                "round_trip_failed",
                "negatives_answered",
                "multi_relevant",
                "judge_unparsable",
            ),
            0,
        )

    def _live(self, types=None) -> list[_Item]:
        return [it for it in self.prep.items if it.live and (types is None or it.qtype in types)]

    def _drop(self, item: _Item, stage: str, review: str, count: str, **extra) -> None:
        item.dropped_at = stage
        self.counts[count] += 1
        self.review[review].append(item.row(**extra))

    def _unanswered(self, item: _Item, outcome: Outcome, stage: str, kind: str) -> bool:
        """Drop ``item`` at ``stage`` when its call failed or was not made; True when it was."""
        if outcome.status == FAILED:
            self._drop(item, stage, "failures", "failed", call=kind, reason=outcome.reason, attempts=outcome.attempts)
        elif outcome.status == NOT_ASKED:
            self._drop(item, stage, "not_asked", "not_asked", call=kind, reason=outcome.reason)
        return outcome.status in (FAILED, NOT_ASKED)

    def ask_questions(self) -> None:
        items = self.prep.items
        outcomes = self.asker.ask([_question_task(it, self.language) for it in items])
        for item, outcome in zip(items, outcomes):
            if self._unanswered(item, outcome, "answered", QUESTION):
                continue
            parsed = parse_question(outcome.reply, self.language)
            if parsed.outcome == DISCARD:
                self._drop(item, "parsed", "discards", "discarded", reply=outcome.reply)
            elif parsed.outcome != PARSED_QUESTION:
                self._drop(
                    item, "parsed", "unparsable", "unparsable", call=QUESTION, reply=outcome.reply, reason=parsed.note
                )
            else:
                item.question, item.note = parsed.text, parsed.note

    def filter_leakage(self) -> None:
        items = self._live(ANSWERABLE)
        words = [passage_words(it.texts, self.language) for it in items]
        scores = leakage_scores([it.question for it in items], words, self.language)
        for item, score in zip(items, scores):
            item.scores["leakage"] = float(score)
        leaky = [(it, w) for it, w, s in zip(items, words, scores) if s >= self.filters.leakage_threshold]
        self.counts["leaky"] = len(leaky)
        tasks = [
            Task(REPHRASE, it.qtype, it.sources, it.chunk_ids, it.texts, self.language, question=it.question)
            for it, _ in leaky
        ]
        for (item, passage), outcome in zip(leaky, self.asker.ask(tasks)):
            if self._unanswered(item, outcome, "not_leaking", REPHRASE):
                continue
            parsed = parse_question(outcome.reply, self.language)
            before = item.scores["leakage"]
            if parsed.outcome != PARSED_QUESTION:
                self._drop(
                    item,
                    "not_leaking",
                    "leaks",
                    "leaks",
                    leakage=before,
                    reason=f"the rephrasing held no question ({parsed.outcome}: {parsed.note or outcome.reply})",
                )
                continue
            after = leakage(parsed.text, passage, self.language)
            if after >= self.filters.leakage_threshold:
                self._drop(
                    item,
                    "not_leaking",
                    "leaks",
                    "leaks",
                    leakage=before,
                    rephrased=parsed.text,
                    leakage_after_rephrase=after,
                    reason=f"{after:.2f} of its content words are in the chunk, still after rephrasing",
                )
                continue
            item.question = parsed.text
            item.scores.update(leakage=after, leakage_before_rephrase=before)
            self.counts["rephrased"] += 1

    def remove_duplicates(self) -> None:
        items = self._live()
        parent = duplicate_of([it.question for it in items], self.language, self.filters.question_similarity)
        for item, p in zip(items, parent.tolist()):
            if p >= 0:
                self._drop(
                    item,
                    "unique",
                    "duplicates",
                    "duplicates",
                    duplicate_of=items[p].question_id,
                    duplicate_question=items[p].question,
                )

    def _judge(self, pairs: list[tuple[_Item, int]]) -> list[bool]:
        """Does chunk ``c`` answer the item's question? The LLM's YES/NO (judged pairs only)."""
        chunks = self.prep.retrieval.chunks
        chunk_ids = chunks.chunk_ids
        tasks = [
            Task(
                JUDGE,
                it.qtype,
                (c,),
                (*it.chunk_ids, str(chunk_ids[c])),
                (chunks.texts[c],),
                self.language,
                question=it.question,
            )
            for it, c in pairs
        ]
        verdicts = []
        for (item, c), outcome in zip(pairs, self.asker.ask(tasks)):
            verdict = None
            if outcome.status in (FAILED, NOT_ASKED):
                name = "failures" if outcome.status == FAILED else "not_asked"
                self.counts["failed" if outcome.status == FAILED else "not_asked"] += 1
                self.review[name].append(item.row(call=JUDGE, candidate=str(chunk_ids[c]), reason=outcome.reason))
            else:
                verdict = parse_verdict(outcome.reply)
                if verdict is None:
                    self.counts["judge_unparsable"] += 1
                    self.review["unparsable"].append(
                        item.row(
                            call=JUDGE, candidate=str(chunk_ids[c]), reply=outcome.reply, reason="neither YES nor NO"
                        )
                    )
            verdicts.append(bool(verdict))
        return verdicts

    def round_trip_and_uniqueness(self) -> None:
        items = self._live()
        chunks = self.prep.retrieval.chunks
        ranked = ranked_lists(self.ranker, [it.question for it in items], self.filters.depth, len(chunks))
        chunk_ids = chunks.chunk_ids
        answerable = [i for i, it in enumerate(items) if it.qtype in ANSWERABLE]
        ranks = round_trip_ranks(ranked[answerable], [items[i].sources for i in answerable])
        found = []
        for i, rank in zip(answerable, ranks):
            item = items[i]
            if np.isnan(rank):
                top = [str(chunk_ids[c]) for c in ranked[i][:3] if c >= 0]
                self._drop(
                    item,
                    "kept",
                    "round_trip_failures",
                    "round_trip_failed",
                    retrieved_instead=top,
                    reason=f"no source chunk in the top {self.filters.depth} of {ranker_name(self.ranker)}",
                )
            else:
                item.scores["round_trip_rank"] = int(rank)
                found.append(i)
        # Uniqueness: top-ranked chunks besides the sources that answer the question join its relevant set.
        pool = candidates(ranked[found], [items[i].sources for i in found], self.filters.candidates)
        if self.generator.can_judge:
            pairs = [(items[i], int(c)) for i, cands in zip(found, pool) for c in cands]
            verdicts = iter(self._judge(pairs))
            accepted = [[c for c in cands if next(verdicts)] for cands in pool]
        else:
            accepted = [
                cands[
                    near_duplicate_chunks(
                        items[i].texts, [chunks.texts[c] for c in cands], self.filters.chunk_similarity, self.language
                    )
                ].tolist()
                for i, cands in zip(found, pool)
            ]
        for i, extra in zip(found, accepted):
            item = items[i]
            item.relevant = [*item.sources, *map(int, extra)]
            item.scores["added_by_uniqueness"] = len(extra)
            self.counts["multi_relevant"] += len(item.relevant) > 1
        self._check_negatives([(items[i], ranked[i]) for i, it in enumerate(items) if it.qtype == "negative"])

    def _check_negatives(self, negatives: list[tuple[_Item, np.ndarray]]) -> None:
        """A negative that its own chunk or a top-ranked chunk answers is no negative."""
        chunks = self.prep.retrieval.chunks
        checked = [
            (
                item,
                [item.sources[0], *[int(c) for c in row[row >= 0] if c != item.sources[0]]][
                    : self.filters.candidates + 1
                ],
            )
            for item, row in negatives
        ]
        pairs = [(item, c) for item, cands in checked for c in cands]
        if self.generator.can_judge:
            verdicts = self._judge(pairs)
        else:  # a chunk holding (nearly) all of the question's content words could answer it
            verdicts = [
                leakage(item.question, passage_words([chunks.texts[c]], self.language), self.language)
                >= self.filters.leakage_threshold
                for item, c in pairs
            ]
        answered: dict[str, list[str]] = {}
        for (item, c), yes in zip(pairs, verdicts):
            if yes:
                answered.setdefault(item.question_id, []).append(str(chunks.chunk_ids[c]))
        for item, _ in checked:
            if item.question_id in answered:
                self._drop(
                    item,
                    "kept",
                    "negatives_answered",
                    "negatives_answered",
                    answered_by=answered[item.question_id],
                    reason="judged answerable"
                    if self.generator.can_judge
                    else f"a chunk holds >= {self.filters.leakage_threshold:g} of its content words",
                )

    def questions(self) -> list[dict]:
        chunks = self.prep.retrieval.chunks
        chunk_ids, doc_ids = chunks.chunk_ids, chunks.doc_ids
        rows = []
        for item in self._live():
            relevant = item.relevant if item.qtype != "negative" else []
            rows.append(
                {
                    "question_id": item.question_id,
                    "question": item.question,
                    "type": item.qtype,
                    "origin": "synthetic",
                    "relevant_chunk_ids": [str(chunk_ids[c]) for c in relevant],
                    "relevant_doc_ids": list(dict.fromkeys(str(doc_ids[c]) for c in relevant)),
                    "source_chunk_ids": list(item.chunk_ids),
                    "source_doc_id": item.doc_id,
                    "generator": self.generator.model,
                    "scores": item.scores,
                    "note": item.note,
                }
            )
        return rows

    def funnel(self, items=None) -> dict[str, int]:
        items = self.prep.items if items is None else items
        stages = [stage for stage, _ in FUNNEL]
        out, remaining = {}, len(items)
        for stage in stages:
            remaining -= sum(it.dropped_at == stage for it in items)
            out[stage] = remaining
        return out

    def by_type(self) -> dict[str, dict[str, int]]:
        types = dict.fromkeys(self.prep.sample.types)
        return {t: self.funnel([it for it in self.prep.items if it.qtype == t]) for t in types}


def build_evalset(
    corpus: Corpus | str | os.PathLike,
    out: str | os.PathLike,
    *,
    n: int = SAMPLED,
    generator: Generator | str = "offline",
    chunk_words: int = CHUNK_WORDS,
    types=None,
    seed: int = 0,
    max_per_doc: int | None = None,
    popularity: Mapping[str, float] | str | os.PathLike | None = None,
    language: str | None = None,
    ranker: Callable | None = None,
    filters: FilterSettings = FilterSettings(),
    max_calls: int | None = None,
    concurrency: int = CONCURRENCY,
    progress: Callable[[int, int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> BuildResult:
    """Build (or resume) the evaluation set of ``corpus`` into the folder ``out``.

    ``generator``: ``"offline"`` or a :class:`~ragunc.evalset.generators.Generator`
    (e.g. ``OpenAIGenerator(model, base_url=...)``). ``types``: the question-type mix
    (``["factual=0.5", "negative=0.2", ...]`` or a mapping). ``popularity``: document
    weights (a mapping or a file, see :func:`~ragunc.evalset.sampling.read_popularity`).
    ``ranker``: the round-trip retriever (default :class:`~ragunc.evalset.filters.BM25Ranker`
    over the same chunks); ``filters``: how strict each filter is (:class:`FilterSettings`).
    ``max_calls``: budget of calls (0: use the journal only);
    ``progress(done, total)`` counts calls; ``stop()`` returning True ends the asking.
    """
    _build_iv(n=n, chunk_words=chunk_words, seed=seed, max_calls=max_calls, concurrency=concurrency, language=language)
    folder = Path(out)
    prep = _prepare(
        corpus,
        n=n,
        chunk_words=chunk_words,
        types=types,
        seed=seed,
        max_per_doc=max_per_doc,
        popularity=popularity,
        language=language,
    )
    gen = _generator(generator, prep.retrieval)
    ranker = ranker if ranker is not None else BM25Ranker(prep.retrieval)
    with Journal(folder / JOURNAL) as journal:
        asker = Asker(
            gen, journal, seed=seed, max_calls=max_calls, concurrency=concurrency, progress=progress, stop=stop
        )
        builder = _Builder(
            prep,
            gen,
            asker,
            ranker=ranker,
            filters=filters,
        )
        builder.ask_questions()
        builder.filter_leakage()
        builder.remove_duplicates()
        builder.round_trip_and_uniqueness()
        torn = journal.n_torn
    questions = builder.questions()
    funnel = builder.funnel()
    calls = {
        "made": asker.made,
        "from_journal": asker.reused,
        "failed": asker.failed,
        "max_calls": max_calls,
        "budget_reached": asker.budget_reached,
        "stopped": asker.stopped,
        "journal_torn_lines": torn,
    }
    complete = asker.stopped is None and not asker.budget_reached
    manifest = {
        "format": FORMAT,
        "ragunc_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "complete": complete,
        "corpus": {
            "source": prep.corpus.source,
            "path": _absolute(prep.corpus.source),
            "hash": corpus_hash(prep.corpus),
            "n_docs": len(prep.corpus),
            "n_words": prep.corpus.n_words,
        },
        "chunking": {
            "chunk_words": int(chunk_words),
            "overlap": 0,
            "n_chunks": len(prep.retrieval.chunks),
            "config": prep.retrieval.chunks.config,
            "unit": prep.language.language.unit,
        },
        "sampling": {
            **prep.sample.to_dict(),
            "seed": int(seed),
            "max_per_doc": max_per_doc,
            "popularity": prep.popularity,
        },
        "language": prep.language.to_dict(),
        "generator": {**gen.describe(), "concurrency": int(concurrency)},
        "prompt_templates_hash": templates_hash(prep.language.code),
        "filters": {
            "round_trip": {"ranker": ranker_name(ranker), "depth": int(filters.depth)},
            "uniqueness": {
                "judge": "llm" if gen.can_judge else "near-duplicate text",
                "candidates": int(filters.candidates),
                "chunk_similarity": filters.chunk_similarity if not gen.can_judge else None,
            },
            "leakage": {"threshold": filters.leakage_threshold, "rephrase_once": True},
            "duplicates": {"question_similarity": filters.question_similarity},
            "negatives": {
                "judge": "llm" if gen.can_judge else f"content words >= {filters.leakage_threshold:g} in a chunk",
                "candidates": int(filters.candidates) + 1,
            },
        },
        "funnel": funnel,
        "counts": builder.counts,
        "by_type": builder.by_type(),
        "calls": calls,
        "origin": {"synthetic": len(questions), "real": 0, "real_share": 0.0},
        "review_lists": {name: len(rows) for name, rows in builder.review.items()},
    }
    write_atomic(folder / QUESTIONS, jsonl_text(questions))
    for name, rows in builder.review.items():
        write_atomic(folder / REVIEW / f"{name}.jsonl", jsonl_text(rows))
    write_atomic(folder / MANIFEST, json_text(manifest) + "\n")
    return BuildResult(
        out=folder,
        funnel=funnel,
        counts=builder.counts,
        by_type=manifest["by_type"],
        calls=calls,
        language=prep.language.code,
        complete=complete,
        manifest=manifest,
    )


def _absolute(source: str) -> str | None:
    return None if source == "stdlib" or source.startswith("<") else os.path.abspath(source)
