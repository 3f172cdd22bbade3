"""Words of questions and chunks: content words, overlap and near-duplicate measures, in the corpus' language.

Content words are what a question is *about*. In a spaced language they are lowercase
tokens without the language's stopwords, question words and generic verbs; a run of a
script written without spaces (a Japanese name in an English text, say) becomes its
overlapping character bigrams there. In Japanese and Chinese, tokens are the language
analyser's terms and content words those it tags as nouns, verbs, adjectives or adverbs
(:mod:`ragunc.corpus.language`), less the question words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..corpus.language import STOPWORDS, UNSPACED_SCRIPTS, language as language_record

LANGUAGES = ("en", "pt", "es", "ja", "zh")  # the languages with prompts and templates
SPACED = ("en", "pt", "es")

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
    # Content words (as the analyser cuts them) that questions use whatever they are about,
    # the offline templates' among them.
    "ja": frozenset(
        "どう どの どれ どこ いつ なぜ 何故 誰 方法 仕方 やり方 違い 違う 使う 使わ 使い 使え 使用 得る 関係 "
        "場合 必要 可能 出来る できる いい 良い よい 教え 知り 分かる わかる 意味 目的 役割 動作 行う 行い "
        "ため 時 もの こと".split()
    ),
    "zh": frozenset(
        "什么 怎么 怎样 如何 哪 哪个 哪些 为什么 谁 何时 使用 用 方法 区别 不同 可以 能 需要 是 有 做 进行 "
        "问题 作用 得到 配合 一起 适用 关系".split()
    ),
}
IGNORED = {lang: STOPWORDS.get(lang, frozenset()) | QUESTION_WORDS[lang] for lang in LANGUAGES}
IGNORED_ANY = frozenset().union(*(IGNORED[lang] for lang in SPACED))

_TOKEN = re.compile(rf"[{UNSPACED_SCRIPTS}]+|[^\W{UNSPACED_SCRIPTS}]+", re.UNICODE)
_IS_UNSPACED = re.compile(rf"[{UNSPACED_SCRIPTS}]")


def tokens(text: str, language: str | None = None) -> list[str]:
    """Lowercase word tokens: the analyser's terms in Japanese and Chinese; else words, where runs of
    unspaced scripts become overlapping character bigrams."""
    if language is not None and language not in SPACED:
        return language_record(language).analyser().terms(text)
    out = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _IS_UNSPACED.match(token):
            out.extend([token] if len(token) == 1 else [token[i : i + 2] for i in range(len(token) - 1)])
        else:
            out.append(token)
    return out


def content_words(text: str, language: str | None = None) -> list[str]:
    """Distinct content tokens of ``text`` in first-seen order (see the module docstring; with no
    ``language``, the stopwords of all three spaced ones are removed).

    Single characters are not content, except in unspaced scripts (a one-character word there).
    """
    if language is not None and language not in SPACED:
        terms = language_record(language).analyser().content_terms(text)
        return list(dict.fromkeys(t for t in terms if t not in IGNORED[language]))
    ignored = IGNORED.get(language, IGNORED_ANY) if language else IGNORED_ANY
    seen: dict[str, None] = {}
    for token in tokens(text):
        if token in ignored or token in seen:
            continue
        if len(token) < 2 and not _IS_UNSPACED.match(token):
            continue
        seen[token] = None
    return list(seen)


def leakage(question: str, passage_words: set[str], language: str | None = None) -> float:
    """Share of the question's content words found literally in the passage (0 when it has none)."""
    words = content_words(question, language)
    if not words:
        return 0.0
    return sum(w in passage_words for w in words) / len(words)


# Kana voicing marks are combining characters that make another letter (か, が), not accents.
_KANA_MARKS = "\u3099\u309a"
_VOICED = re.compile(f".[{_KANA_MARKS}]")


def normalized(text: str) -> str:
    """Casefolded, accents and punctuation removed, spaces collapsed: equal for texts that differ only in form."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c) or c in _KANA_MARKS)
    bare = _VOICED.sub(lambda m: unicodedata.normalize("NFC", m.group()), bare)
    return " ".join(re.findall(r"\w+", bare))


def shingles(text: str, size: int = 3, language: str | None = None) -> set[tuple[str, ...]]:
    """Word ``size``-grams of ``text`` (the text itself when shorter)."""
    words = tokens(text, language)
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
