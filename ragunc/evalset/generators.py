"""Who writes the questions: one interface, an OpenAI-compatible endpoint or an offline template writer.

A generator turns a :class:`Task` (a question, rephrase or judge prompt about some chunks)
into reply text; the build parses every reply the same way, whoever wrote it.

:class:`OpenAIGenerator` talks to any OpenAI-compatible chat-completions endpoint (Ollama,
llama.cpp server, vLLM, LM Studio, a hosted API) through the official ``openai`` client
(the optional extra ``ragunc[evalset]``, imported only when one is made), with its own retry loop instead of the client's: an explicit timeout, ``retries`` more
attempts after the first on 429 (honouring Retry-After), 5xx, timeouts, dropped
connections and malformed bodies; a quota error (``insufficient_quota``, HTTP 402) or a
rejected key / unknown model stops the whole run at once (:class:`GenerationStopped`),
since every further call would fail the same way. The API key is given, or read from an
environment variable the caller names (never from one by default: a key in the environment
goes only where its owner sends it), and never leaves the client: every message this module
produces has it replaced by ``[redacted]``.

:class:`OfflineGenerator` needs no model and no network: it fills question templates with
a chunk's most salient terms (tf-idf), and "rephrases" by swapping chunk terms for terms
of the same document's other chunks. Its questions are keyword questions: they leak by
construction (the leakage filter flags every one) and measure lexical retrieval only.
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import re
import threading
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import numpy as np

from ..retrieval.pipeline import Retrieval
from .prompts import DISCARD_WORDS, judge_messages, prompt_hash, question_messages, rephrase_messages
from ..corpus.language import language as language_record
from .text import IGNORED, IGNORED_ANY, SPACED, content_words

QUESTION, REPHRASE, JUDGE = "question", "rephrase", "judge"


@dataclass(frozen=True)
class Task:
    """One prompt: ``kind`` is question, rephrase or judge; ``qtype`` the question type it serves."""

    kind: str
    qtype: str
    chunks: tuple[int, ...]  # chunk positions the prompt shows (judge: the candidate)
    chunk_ids: tuple[str, ...]  # the key's chunks: the source chunk(s), and for judge the candidate too
    texts: tuple[str, ...]  # the texts the prompt shows
    language: str
    question: str | None = None  # rephrase and judge: the question concerned

    @cached_property
    def messages(self) -> list[dict]:
        if self.kind == QUESTION:
            return question_messages(self.qtype, self.texts, self.language)
        if self.kind == REPHRASE:
            return rephrase_messages(self.question, self.texts, self.language)
        return judge_messages(self.question, self.texts[0], self.language)

    def key(self, model: str, seed: int) -> tuple[str, str, str, str, int]:
        """The journal key: (chunk id, question type, prompt hash, model, seed)."""
        return ("|".join(self.chunk_ids), f"{self.kind}:{self.qtype}", prompt_hash(self.messages), model, int(seed))


class CallFailed(Exception):
    """A request that still failed after its retries (the message is safe to print and store)."""

    def __init__(self, reason: str, attempts: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts


class GenerationStopped(Exception):
    """The endpoint will refuse every further call (quota, key, model): the run stops at once."""


class Generator(Protocol):
    """What the build needs of a question writer."""

    model: str  # part of every journal key
    can_judge: bool  # True: uniqueness and negatives are judged by asking it YES/NO

    def complete(self, task: Task, *, seed: int, stopping: threading.Event) -> str:
        """The reply to ``task`` (raise :class:`CallFailed` or :class:`GenerationStopped`)."""
        ...

    def describe(self) -> dict:
        """What the manifest records (never a secret)."""
        ...


# --------------------------------------------------------------------------- OpenAI-compatible


def _safe_url(url: str) -> str:
    """``url`` without user:password@ or a query string (either can carry a credential)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _retry_after(response) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms``, ``Retry-After`` as seconds or an HTTP date)."""
    if response is None:
        return None
    headers = response.headers
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _openai():
    """The ``openai`` package: an optional dependency (``pip install 'ragunc[evalset]'``)."""
    try:
        import openai
    except ImportError:
        raise ValueError(
            "the OpenAI-compatible generator needs the openai package: "
            "pip install 'ragunc[evalset]' (or pip install openai)"
        ) from None
    return openai


def _is_quota(exc) -> bool:
    if exc.status_code == 402:
        return True
    body = exc.body if isinstance(exc.body, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    return "insufficient_quota" in {exc.code, exc.type, inner.get("code"), inner.get("type")}


class OpenAIGenerator:
    """Questions from an OpenAI-compatible chat-completions endpoint (see the module docstring).

    ``api_key_env`` names the environment variable holding the key (the CLI's ``--api-key-env``);
    ``api_key`` gives it directly instead (a dashboard's setting); with neither, no environment
    variable is read and a placeholder is sent (local servers need none), so that a caller who
    passes a ``base_url`` it did not choose never sends a key it did not mean to. ``retries`` is the number of attempts
    after the first; waits are ``backoff * 2**attempt`` seconds unless the server says
    otherwise, capped at ``max_wait``.
    """

    can_judge = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.7,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
        max_wait: float = 120.0,
    ) -> None:
        if not model:
            raise ValueError("model: an OpenAI-compatible generator needs a model name")
        if not 0 <= temperature <= 2:
            raise ValueError(f"temperature must be in [0, 2], got {temperature!r}")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
        if int(retries) != retries or retries < 0:
            raise ValueError(f"retries must be an integer >= 0, got {retries!r}")
        if api_key_env is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", api_key_env):
            raise ValueError(f"api_key_env must name an environment variable, got {api_key_env!r}")
        if api_key and api_key_env is not None:
            raise ValueError("give api_key or api_key_env, not both")
        self._openai = _openai()
        key = api_key or (os.environ.get(api_key_env) if api_key_env else None) or None
        query = urlsplit(base_url or "").query
        url_secrets = [*re.findall(r"//([^@/]+)@", base_url or ""), *(v for _, v in parse_qsl(query))]
        self._secrets = tuple(s for s in {key, *url_secrets} if s)
        self.model = model
        self.api_key_env = api_key_env  # the manifest names where the key came from
        self.has_key = key is not None
        self.temperature = float(temperature)
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_wait = float(max_wait)
        self._client = self._openai.OpenAI(
            api_key=key or "no-key", base_url=base_url, timeout=self.timeout, max_retries=0
        )
        self.base_url = _safe_url(str(self._client.base_url))

    def __repr__(self) -> str:
        return f"OpenAIGenerator(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    def redact(self, text: str) -> str:
        """``text`` with the key (and any URL credential) replaced by ``[redacted]``."""
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text

    def describe(self) -> dict:
        return {
            "kind": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "api_key_set": self.has_key,
            "temperature": self.temperature,
            "timeout": self.timeout,
            "retries": self.retries,
        }

    def complete(self, task: Task, *, seed: int, stopping: threading.Event) -> str:
        openai = self._openai
        reason = "not attempted"
        for attempt in range(self.retries + 1):
            wait = self.backoff * 2**attempt
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=task.messages,
                    temperature=self.temperature,
                    seed=int(seed),
                )
                return response.choices[0].message.content or ""
            except openai.RateLimitError as exc:
                if _is_quota(exc):
                    raise GenerationStopped(
                        self.redact(f"quota exhausted (HTTP {exc.status_code}): {exc.message}")
                    ) from None
                asked = _retry_after(exc.response)
                wait = asked if asked is not None else wait
                reason = self.redact(f"rate limited (HTTP 429): {exc.message}")
            except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
                raise GenerationStopped(
                    self.redact(f"the endpoint refused the request (HTTP {exc.status_code}): {exc.message}")
                ) from None
            except openai.APIStatusError as exc:
                if _is_quota(exc):
                    raise GenerationStopped(
                        self.redact(f"quota exhausted (HTTP {exc.status_code}): {exc.message}")
                    ) from None
                reason = self.redact(f"HTTP {exc.status_code}: {exc.message}")
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    # The same request would be refused the same way: no retry.
                    raise CallFailed(reason, attempt + 1) from None
                asked = _retry_after(exc.response)
                wait = asked if asked is not None else wait
            except openai.APITimeoutError:
                reason = f"no reply within the {self.timeout:g} s timeout"
            except openai.APIConnectionError as exc:
                cause = exc.__cause__ or exc.__context__
                reason = self.redact(f"connection failed: {type(cause).__name__ if cause else exc.message}")
            except Exception as exc:  # a body that is not a chat completion (bad JSON, no choices)
                reason = self.redact(f"malformed response: {type(exc).__name__}: {exc}")[:300]
            if attempt < self.retries and stopping.wait(min(wait, self.max_wait)):
                raise CallFailed(f"stopped while waiting to retry ({reason})", attempt + 1)
        raise CallFailed(reason, self.retries + 1)


# --------------------------------------------------------------------------- offline


_TEMPLATES = {  # only question words and stopwords besides the slots: every content word is a chunk term
    "en": {
        "factual": (
            "What does {a} do with {b}?",
            "Where is {a} used in {b}?",
            "Which {a} works with {b}?",
            "What is the difference between {a} and {b}?",
        ),
        "procedural": ("How do I use {a} with {b}?", "How can I get {b} from {a}?", "How do I set {a} for {b}?"),
        "two_chunk": ("How does {a} work with {b}?", "What is the difference between {a} and {b}?"),
        "negative": ("How do I use {a} with {b}?", "Can I use {a} with {b}?", "What does {a} do with {b}?"),
    },
    "pt": {
        "factual": ("O que {a} faz com {b}?", "Onde {a} é usado em {b}?", "Qual é a diferença entre {a} e {b}?"),
        "procedural": ("Como posso usar {a} com {b}?", "Como faço para usar {a} em {b}?"),
        "two_chunk": ("Como {a} funciona com {b}?", "Qual é a diferença entre {a} e {b}?"),
        "negative": ("Como posso usar {a} com {b}?", "O que {a} faz com {b}?"),
    },
    "es": {
        "factual": ("¿Qué hace {a} con {b}?", "¿Dónde se usa {a} en {b}?", "¿Cuál es la diferencia entre {a} y {b}?"),
        "procedural": ("¿Cómo puedo usar {a} con {b}?", "¿Cómo hago para usar {a} en {b}?"),
        "two_chunk": ("¿Cómo funciona {a} con {b}?", "¿Cuál es la diferencia entre {a} y {b}?"),
        "negative": ("¿Cómo puedo usar {a} con {b}?", "¿Qué hace {a} con {b}?"),
    },
    "ja": {
        "factual": ("{a}は{b}で何をしますか？", "{a}はどの{b}で使われますか？", "{a}と{b}の違いは何ですか？"),
        "procedural": ("{a}を{b}で使うにはどうすればいいですか？", "{b}から{a}を得るにはどうすればいいですか？"),
        "two_chunk": ("{a}は{b}とどう関係しますか？", "{a}と{b}の違いは何ですか？"),
        "negative": ("{a}を{b}で使うにはどうすればいいですか？", "{a}は{b}で使えますか？", "{a}は{b}で何をしますか？"),
    },
    "zh": {
        "factual": ("{a}在{b}中有什么作用？", "{a}和{b}有什么区别？"),
        "procedural": ("如何在{b}中使用{a}？", "怎样用{a}得到{b}？"),
        "two_chunk": ("{a}和{b}是什么关系？", "{a}和{b}有什么区别？"),
        "negative": ("如何在{b}中使用{a}？", "{a}能和{b}一起使用吗？"),
    },
}
SALIENT = 6  # terms of a chunk the templates choose from


def _content_terms(terms: np.ndarray, language: str) -> np.ndarray:
    """Which vocabulary terms the templates may use: no stopword or question word, no number; of three
    characters or more in a spaced language, nouns of two or more in an unspaced one (where two
    characters make most nouns, and a verb's term is one of its inflected forms)."""
    lengths = np.fromiter((len(t) for t in terms), dtype=np.int64, count=len(terms))
    digits = np.fromiter((t.isdigit() for t in terms), dtype=bool, count=len(terms))
    ignored = np.fromiter(
        (t in IGNORED[language] if language not in SPACED else t in IGNORED_ANY for t in terms),
        dtype=bool,
        count=len(terms),
    )
    if language in SPACED:
        return (lengths >= 3) & ~ignored & ~digits
    analyser = language_record(language).analyser()
    nouns = np.fromiter((analyser.content_terms(t, nouns=True) == [t] for t in terms), dtype=bool, count=len(terms))
    return (lengths >= 2) & nouns & ~ignored & ~digits


class OfflineGenerator:
    """Template questions from a chunk's salient terms; no model, no network (see the module docstring)."""

    model = "offline-templates-v1"
    can_judge = False

    def __init__(self, retrieval: Retrieval) -> None:
        index = retrieval.index
        self._tf = retrieval.tf.tocsr()
        self._by_term = retrieval.tf.tocsc()
        self._terms = np.asarray(index.vocabulary, dtype=object)
        self._content = _content_terms(self._terms, retrieval.chunks.language.code)
        self._idf = index.idf
        self._doc_pos = retrieval.chunks.doc_pos

    def describe(self) -> dict:
        return {"kind": "offline", "model": self.model}

    def _rng(self, task: Task, seed: int) -> np.random.Generator:
        digest = hashlib.sha256("|".join((*task.chunk_ids, task.kind, task.qtype)).encode()).digest()
        return np.random.default_rng([int(seed), int.from_bytes(digest[:8], "little")])

    def _salient(self, chunk: int, exclude: np.ndarray | None = None) -> np.ndarray:
        """Term ids of the chunk's top content terms by tf-idf, best first."""
        lo, hi = self._tf.indptr[chunk], self._tf.indptr[chunk + 1]
        ids, tf = self._tf.indices[lo:hi], self._tf.data[lo:hi]
        keep = self._content[ids]
        if exclude is not None:
            keep &= ~np.isin(ids, exclude)
        ids, score = ids[keep], tf[keep] * self._idf[ids[keep]]
        return ids[np.lexsort((ids, -score))][:SALIENT]

    def _chunks_with(self, term: int) -> np.ndarray:
        return self._by_term.indices[self._by_term.indptr[term] : self._by_term.indptr[term + 1]]

    def complete(self, task: Task, *, seed: int, stopping: threading.Event | None = None) -> str:
        rng = self._rng(task, seed)
        if task.kind == REPHRASE:
            return self._rephrase(task, rng)
        if task.kind != QUESTION:
            raise ValueError("the offline generator cannot judge; uniqueness falls back to near-duplicate text")
        templates = _TEMPLATES[task.language][task.qtype]
        first = self._salient(task.chunks[0])
        if task.qtype == "two_chunk":
            second = self._salient(task.chunks[1], exclude=first)
            if len(first) < 1 or len(second) < 1:
                return DISCARD_WORDS[task.language]
            a, b = first[rng.integers(min(3, len(first)))], second[rng.integers(min(3, len(second)))]
        elif task.qtype == "negative":
            pair = self._swap(task.chunks[0], first, rng)
            if pair is None:
                return DISCARD_WORDS[task.language]
            a, b = pair
        else:
            if len(first) < 2:
                return DISCARD_WORDS[task.language]
            a, b = rng.choice(first[:4], size=2, replace=False)
        template = templates[rng.integers(len(templates))]
        return template.format(a=self._terms[a], b=self._terms[b])

    def _swap(self, chunk: int, salient: np.ndarray, rng: np.random.Generator):
        """(a term of this chunk, a term of another document) that no chunk of the corpus holds together."""
        if not len(salient):
            return None
        others = np.flatnonzero(self._doc_pos != self._doc_pos[chunk])
        for _ in range(10):
            a = salient[rng.integers(len(salient))]
            foreign = self._salient(int(others[rng.integers(len(others))]), exclude=salient)
            if not len(foreign):
                continue
            b = foreign[0]
            if not np.intersect1d(self._chunks_with(a), self._chunks_with(b)).size:
                return a, b
        return None

    def _rephrase(self, task: Task, rng: np.random.Generator) -> str:
        """Swap about half of the question's chunk terms for terms of the same document's other chunks."""
        question = task.question or ""
        passage: set[str] = set()
        for c in task.chunks:
            passage.update(self._terms[self._tf.indices[self._tf.indptr[c] : self._tf.indptr[c + 1]]].tolist())
        leaking = [w for w in content_words(question, task.language) if w in passage]
        if not leaking:
            return question
        doc = self._doc_pos[task.chunks[0]]
        siblings = np.setdiff1d(np.flatnonzero(self._doc_pos == doc), task.chunks)
        replacements = []
        for c in rng.permutation(siblings)[:8]:
            replacements.extend(self._terms[t] for t in self._salient(int(c)) if self._terms[t] not in passage)
        replacements = list(dict.fromkeys(replacements))
        swaps = -(-len(leaking) // 2)
        if len(replacements) < swaps:
            return question  # nothing to swap in: it stays leaky, and the filter drops it
        chosen = rng.choice(len(leaking), size=swaps, replace=False)
        # A word of an unspaced language has letters on both sides: it is found without word boundaries.
        edges = ("(?<!\\w)", "(?!\\w)") if task.language in SPACED else ("", "")
        for i, word in zip(chosen, rng.choice(replacements, size=swaps, replace=False)):
            question = re.sub(edges[0] + re.escape(leaking[i]) + edges[1], word, question, count=1, flags=re.IGNORECASE)
        return question
