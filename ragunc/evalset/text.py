"""Words of questions and chunks: language detection, content words, overlap and near-duplicate measures.

Content words are what a question is *about*: lowercase tokens without the language's
stopwords, question words and generic verbs. Scripts written without spaces (Chinese,
Japanese, Thai, Lao, Khmer, Myanmar) have no words to split on, so a run of such
characters becomes its overlapping character bigrams (a single character stays a
unigram), the usual indexing unit for these languages.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..retrieval.bm25 import STOPWORDS

LANGUAGES = ("en", "pt", "es")

# Beyond the retrieval stopwords: the words every question template and generated question
# uses whatever it is about ("how do I use ...", "¿cómo puedo ...", "qual é a diferença ...").
QUESTION_WORDS = {
    "en": frozenset(
        "what which who whom whose when where why how many much can could should would does do did done use used "
        "using work works working make makes happen happens get gets set sets way ways need needs want "
        "there difference differ between also something anything thing things possible kind type".split()
    ),
    "pt": frozenset(
        "que qual quais quem quando onde porque porquê como quanto quanta quantos quantas posso pode podem devo deve usar uso usa "
        "fazer faz funciona funcionar acontece diferença entre é são está estão ser há forma maneira "
        "algum alguma coisa tipo preciso precisa".split()
    ),
    "es": frozenset(
        "qué cuál cuáles quién quiénes cuándo dónde por porqué cómo cuánto cuánta cuántos cuántas puedo puede pueden debo debe usar "
        "uso usa hacer hace funciona funcionar pasa ocurre diferencia entre está están hay forma manera "
        "algún alguna cosa tipo necesito necesita".split()
    ),
}
IGNORED = {lang: STOPWORDS[lang] | QUESTION_WORDS[lang] for lang in LANGUAGES}
IGNORED_ANY = frozenset().union(*IGNORED.values())

# Words only one of the three stopword lists holds: what tells en, pt and es apart.
_MARKERS = {lang: STOPWORDS[lang] - frozenset().union(*(STOPWORDS[o] for o in LANGUAGES if o != lang))
            for lang in LANGUAGES}

_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
)
_TOKEN = re.compile(rf"[{_UNSPACED}]+|[^\W{_UNSPACED}]+", re.UNICODE)
_IS_UNSPACED = re.compile(rf"[{_UNSPACED}]")


def tokens(text: str) -> list[str]:
    """Lowercase word tokens; runs of unspaced scripts become overlapping character bigrams."""
    out = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _IS_UNSPACED.match(token):
            out.extend([token] if len(token) == 1 else [token[i : i + 2] for i in range(len(token) - 1)])
        else:
            out.append(token)
    return out


def content_words(text: str, language: str | None = None) -> list[str]:
    """Distinct content tokens of ``text`` in first-seen order (stopwords of ``language``, or of all three, removed).

    Single characters are not content, except in unspaced scripts (a one-character word there).
    """
    ignored = IGNORED.get(language, IGNORED_ANY) if language else IGNORED_ANY
    seen: dict[str, None] = {}
    for token in tokens(text):
        if token in ignored or token in seen:
            continue
        if len(token) < 2 and not _IS_UNSPACED.match(token):
            continue
        seen[token] = None
    return list(seen)


def detect_language(texts: Iterable[str]) -> str:
    """``"en"``, ``"pt"`` or ``"es"``: the language whose own stopwords occur most in ``texts``.

    Text with none of them (code, another language) reads as ``"en"``, whose prompts ask for
    the question in the passage's own language anyway.
    """
    counts = dict.fromkeys(LANGUAGES, 0)
    for text in texts:
        for token in tokens(text):
            for lang in LANGUAGES:
                counts[lang] += token in _MARKERS[lang]
    best = max(LANGUAGES, key=lambda lang: (counts[lang], lang == "en"))
    return best if counts[best] else "en"


def leakage(question: str, passage_words: set[str], language: str | None = None) -> float:
    """Share of the question's content words found literally in the passage (0 when it has none)."""
    words = content_words(question, language)
    if not words:
        return 0.0
    return sum(w in passage_words for w in words) / len(words)


def normalized(text: str) -> str:
    """Casefolded, accents and punctuation removed, spaces collapsed: equal for texts that differ only in form."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.findall(r"\w+", bare))


def shingles(text: str, size: int = 3) -> set[tuple[str, ...]]:
    """Word ``size``-grams of ``text`` (the text itself when shorter)."""
    words = tokens(text)
    if len(words) < size:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def jaccard(a: set, b: set) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def pairwise_jaccard(sets: Sequence[Iterable[str]]) -> sp.csr_matrix:
    """Upper-triangle Jaccard similarity of every pair of sets that share an element (sparse, i < j)."""
    vocabulary: dict[str, int] = {}
    rows, cols = [], []
    for i, items in enumerate(sets):
        for item in set(items):
            rows.append(i)
            cols.append(vocabulary.setdefault(item, len(vocabulary)))
    n = len(sets)
    member = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, max(len(vocabulary), 1)))
    shared = sp.triu(member @ member.T, k=1).tocoo()
    sizes = np.asarray(member.sum(axis=1)).ravel()
    similarity = shared.data / (sizes[shared.row] + sizes[shared.col] - shared.data)
    return sp.csr_matrix((similarity, (shared.row, shared.col)), shape=(n, n))
