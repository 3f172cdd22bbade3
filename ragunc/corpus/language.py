"""Languages: one text analyser per language (a registry, like ``stats.methods``), and detection per corpus.

An analyser cuts a text into *units*, what a chunk size counts, and gives units their index
*terms*, what BM25 matches:

- spaced scripts (English, Portuguese, Spanish): a unit is a whitespace-separated word and its
  terms are its lowercase ``\\w+`` runs (``"os.path"`` gives ``os`` and ``path``);
- Japanese: a unit is a morpheme of MeCab with the UniDic dictionary (fugashi + unidic-lite, the
  extra ``ragunc[ja]``); Chinese: a word of jieba (``ragunc[zh]``). A unit's term is its
  NFKC-normalised lowercase surface when that holds a letter or a digit (punctuation has none).

So 100 units of Japanese hold about as much text as 100 English words, where 100 whitespace
runs of Japanese are 100 clauses. Segmenters are optional extras imported when a corpus needs
one; a missing one raises :class:`MissingAnalyser`, which names the extra to install.

:func:`detect_language` tells Japanese and Chinese by the share of kana and CJK ideographs among
letters, and English, Portuguese and Spanish by the stopwords only one of them has.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

STOPWORDS = {
    "en": frozenset(
        "a about above after again against all am an and any are as at be because been before being "
        "below between both but by can could did do does doing down during each few for from further "
        "had has have having he her here hers herself him himself his how i if in into is it its "
        "itself just me more most my myself no nor not now of off on once only or other our ours "
        "ourselves out over own same she should so some such than that the their theirs them "
        "themselves then there these they this those through to too under until up very was we were "
        "what when where which while who whom why will with would you your yours yourself yourselves".split()
    ),
    "pt": frozenset(
        "a ao aos aquela aquelas aquele aqueles aquilo as até com como da das de dela delas dele deles "
        "depois do dos e ela elas ele eles em entre era eram essa essas esse esses esta estas este "
        "estes eu foi foram há isso isto já lhe lhes mais mas me mesmo meu meus minha minhas muito na "
        "nas nem no nos nós num numa o os ou para pela pelas pelo pelos por qual quando que quem se "
        "sem ser seu seus só sua suas também te tem têm tu tua tuas um uma umas uns você vocês vos".split()
    ),
    "es": frozenset(
        "a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante "
        "e el ella ellas ellos en entre era eran es esa esas ese eso esos esta estas este esto estos "
        "fue fueron ha han hay la las le les lo los más me mi mis mucho muy nada ni no nos nosotros o "
        "os otra otros para pero poco por porque que quien se sea ser si sin sobre su sus también "
        "te tiene tu tus un una uno unos y ya yo".split()
    ),
}
TOKEN_PATTERN = re.compile(r"\w+", re.UNICODE)
# Scripts written without spaces between words.
UNSPACED_SCRIPTS = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
)
_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_SPACED_WORD = re.compile(rf"[^\W{UNSPACED_SCRIPTS}]+", re.UNICODE)
_HAS_WORD_CHAR = re.compile(r"\w")
# Kana and ideographs among letters at or above which a text is Japanese or Chinese; kana among
# those at or above which it is Japanese (Japanese prose is about half kana; Chinese has none).
CJK_SHARE, KANA_SHARE = 0.2, 0.1
DETECT_PIECES, DETECT_CHARS = 200, 2_000  # detection reads this many pieces of this many characters


class MissingAnalyser(ValueError):
    """A corpus needs a segmenter that is not installed; the message names the extra."""


@dataclass(frozen=True)
class Analysis:
    """A text cut into units: each unit's characters ``text[starts[i]:ends[i]]`` and the index terms,
    term ``j`` belonging to unit ``term_units[j]`` (ascending; a unit may have none, or several)."""

    starts: np.ndarray  # int64
    ends: np.ndarray  # int64
    terms: np.ndarray  # str objects
    term_units: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.starts)


def spaced_terms(text: str) -> list[str]:
    """The terms of a spaced script: lowercase ``\\w+`` runs, nothing removed (BM25's default tokenizer)."""
    return TOKEN_PATTERN.findall(text.lower())


class WhitespaceAnalyser:
    """Spaced scripts: whitespace-separated words, lowercase ``\\w+`` terms."""

    description = "whitespace; terms: lowercase \\w+ runs"
    terms = staticmethod(spaced_terms)
    _WORD = re.compile(r"\S+")

    def analyse(self, text: str) -> Analysis:
        spans = np.array([m.span() for m in self._WORD.finditer(text)], dtype=np.int64).reshape(-1, 2)
        per_word = [self.terms(text[a:b]) for a, b in spans.tolist()]
        return Analysis(
            starts=spans[:, 0],
            ends=spans[:, 1],
            terms=np.array([t for terms in per_word for t in terms], dtype=object),
            term_units=np.repeat(np.arange(len(per_word)), [len(t) for t in per_word]).astype(np.int64),
        )


# Whether a code point is one ``str.split()`` splits at (all lie below U+3001; the last entry stands for
# every code point from U+3001 on).
_IS_SPACE = np.array([chr(c).isspace() for c in range(0x3002)])


@functools.lru_cache(maxsize=1 << 20)
def _index_term(surface: str) -> str:
    """A segment's index term: NFKC-normalised and lowercase, empty when it holds no letter or digit."""
    term = unicodedata.normalize("NFKC", surface).lower()
    return term if _HAS_WORD_CHAR.search(term) else ""


class _Segmenter:
    """An analyser over a segmenter returning a text's segments in order, every non-whitespace
    character of the text in one of them."""

    description: str

    def segments(self, text: str) -> list[str]:
        raise NotImplementedError

    def content_terms(self, text: str, *, nouns: bool = False) -> list[str]:
        """Index terms of the content words (nouns, verbs, adjectives, adverbs; or ``nouns`` only) of
        ``text``, in order."""
        raise NotImplementedError

    def terms(self, text: str) -> list[str]:
        return [t for t in map(_index_term, self.segments(text)) if t]

    def analyse(self, text: str) -> Analysis:
        """Units are the segments without whitespace; their spans align them with the text's
        non-whitespace characters, which they hold in order."""
        pieces = " ".join(self.segments(text)).split()
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        solid = np.flatnonzero(~_IS_SPACE[np.minimum(codes, len(_IS_SPACE) - 1)])
        if int(lengths.sum()) != len(solid) or "".join(pieces) != "".join(text.split()):
            raise ValueError(f"{self.description}: the segments do not hold the text's characters in order")
        last = np.cumsum(lengths) - 1
        terms = np.array(list(map(_index_term, pieces)), dtype=object)
        has = terms != ""
        return Analysis(
            starts=solid[last - lengths + 1], ends=solid[last] + 1, terms=terms[has], term_units=np.flatnonzero(has)
        )


def _missing(label: str, packages: str, extra: str) -> MissingAnalyser:
    return MissingAnalyser(
        f"a {label} corpus is segmented by {packages}, which is not installed: pip install 'ragunc[{extra}]'"
    )


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


# UniDic's parts of speech that carry content; "non-independent" verbs and nouns (する, こと) do not.
_JA_CONTENT = frozenset({"名詞", "動詞", "形容詞", "形状詞", "副詞"})
_JA_NOUN = frozenset({"名詞"})


class MecabAnalyser(_Segmenter):
    """Japanese: MeCab morphemes with the UniDic dictionary of unidic-lite (through fugashi)."""

    def __init__(self) -> None:
        try:
            import fugashi
            import unidic_lite
        except ImportError:
            raise _missing("Japanese", "fugashi with unidic-lite", "ja") from None
        args = f'-d "{unidic_lite.DICDIR}" -r "{unidic_lite.DICDIR}/mecabrc"'
        self._wakati = fugashi.GenericTagger(args + " -Owakati")
        self._tagger = fugashi.Tagger(args)
        self.description = f"MeCab with UniDic: fugashi {_version('fugashi')}, unidic-lite {_version('unidic-lite')}"

    def segments(self, text: str) -> list[str]:
        return self._wakati.parse(text).split()

    def content_terms(self, text: str, *, nouns: bool = False) -> list[str]:
        kinds = _JA_NOUN if nouns else _JA_CONTENT
        out = []
        for word in self._tagger(text):
            feature = word.feature
            if feature.pos1 in kinds and feature.pos2 != "非自立可能":
                term = _index_term(word.surface)
                if term:
                    out.append(term)
        return out


# jieba's part-of-speech flags of content words: nouns, verbs, adjectives, adverbs, idioms, English words.
_ZH_CONTENT = ("n", "v", "a", "d", "i", "l", "j", "eng")  # "m" numerals, "r" pronouns, "u" particles: not
_ZH_NOUN = ("n", "eng")


class JiebaAnalyser(_Segmenter):
    """Chinese: the words of jieba's default dictionary (with its HMM for unknown words)."""

    def __init__(self) -> None:
        try:
            import jieba
            from jieba import posseg
        except ImportError:
            raise _missing("Chinese", "jieba", "zh") from None
        jieba.setLogLevel(60)  # no "Building prefix dict" chatter on stderr
        self._tokenizer = jieba.Tokenizer()
        self._pos = posseg.POSTokenizer(self._tokenizer)
        self.description = f"jieba {_version('jieba')}"

    def segments(self, text: str) -> list[str]:
        return self._tokenizer.lcut(text)

    def content_terms(self, text: str, *, nouns: bool = False) -> list[str]:
        kinds = _ZH_NOUN if nouns else _ZH_CONTENT
        out = []
        for pair in self._pos.lcut(text):
            if pair.flag.startswith(kinds):
                term = _index_term(pair.word)
                if term:
                    out.append(term)
        return out


@functools.cache
def _whitespace() -> WhitespaceAnalyser:
    return WhitespaceAnalyser()


@functools.cache
def _mecab() -> MecabAnalyser:
    return MecabAnalyser()


@functools.cache
def _jieba() -> JiebaAnalyser:
    return JiebaAnalyser()


@dataclass(frozen=True)
class Language:
    """What everything needs to know of one language: its name, what a chunk size counts, its analyser."""

    code: str  # the key: --language, the summary, the manifest
    label: str  # what tables and the dashboard call it
    unit: str  # what a chunk size counts, plural ("words", "morphemes")
    suffix: str  # the unit's letter in a config label ("100w", "100m")
    analyser: Callable[[], WhitespaceAnalyser | _Segmenter]  # loads it once
    extra: str | None = None  # the pip extra holding the segmenter (None: nothing to install)

    @property
    def spaced(self) -> bool:
        """Words are separated by whitespace (units are whitespace-separated words)."""
        return self.analyser is _whitespace

    def config(self, size: int, overlap: int = 0) -> str:
        """The results' ``config`` label of chunks of ``size`` units: ``"100w"``, ``"100m20o"``."""
        return f"{size}{self.suffix}" + (f"{overlap}o" if overlap else "")


LANGUAGES: tuple[Language, ...] = (
    Language("en", "English", "words", "w", _whitespace),
    Language("pt", "Portuguese", "words", "w", _whitespace),
    Language("es", "Spanish", "words", "w", _whitespace),
    Language("ja", "Japanese", "morphemes", "m", _mecab, extra="ja"),
    Language("zh", "Chinese", "tokens", "t", _jieba, extra="zh"),
)
_BY_CODE = {lang.code: lang for lang in LANGUAGES}
LANGUAGE_CODES = tuple(_BY_CODE)
UNIT_SUFFIXES = {lang.suffix: lang.unit for lang in LANGUAGES}  # config letter -> unit name


def language(code: str) -> Language:
    """The registry's record of ``code`` (``"en"``, ``"ja"``, ...)."""
    try:
        return _BY_CODE[code]
    except KeyError:
        raise ValueError(f"language must be one of {', '.join(_BY_CODE)}, got {code!r}") from None


# Words only one of the three stopword lists holds: what tells en, pt and es apart.
_MARKERS = {
    code: words - frozenset().union(*(w for other, w in STOPWORDS.items() if other != code))
    for code, words in STOPWORDS.items()
}


def detect_language(texts: Iterable[str]) -> str:
    """The language code of ``texts``: ``"ja"`` or ``"zh"`` when kana and ideographs make up at least
    ``CJK_SHARE`` of the letters (Japanese when kana are at least ``KANA_SHARE`` of those), else
    ``"en"``, ``"pt"`` or ``"es"``: the one whose own stopwords occur most (English when none does,
    as in code)."""
    kana = han = letters = 0
    counts = dict.fromkeys(STOPWORDS, 0)
    for text in texts:
        kana += len(_KANA.findall(text))
        han += len(_HAN.findall(text))
        letters += len(_LETTER.findall(text))
        for token in _SPACED_WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
            for code in counts:
                counts[code] += token in _MARKERS[code]
    if letters and kana + han >= CJK_SHARE * letters:
        return "ja" if kana >= KANA_SHARE * (kana + han) else "zh"
    best = max(counts, key=lambda code: (counts[code], code == "en"))
    return best if counts[best] else "en"


def sample_texts(texts: Sequence[str]) -> list[str]:
    """What detection reads of a corpus: ``DETECT_PIECES`` pieces of ``DETECT_CHARS`` characters spread
    evenly over its text (a long document untranslated in parts is read all along, not at its head)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(lengths)
    if not len(texts) or ends[-1] == 0:
        return []
    starts = np.unique(np.linspace(0, ends[-1], DETECT_PIECES, endpoint=False).astype(np.int64))
    docs = np.searchsorted(ends, starts, side="right")
    offsets = starts - (ends[docs] - lengths[docs])
    return [texts[d][o : o + DETECT_CHARS] for d, o in zip(docs.tolist(), offsets.tolist())]


@dataclass(frozen=True)
class LanguageChoice:
    """A corpus' language and whether it was detected (else given, as ``--language``)."""

    language: Language
    detected: bool

    @property
    def code(self) -> str:
        return self.language.code

    def to_dict(self) -> dict:
        """What summaries and manifests record."""
        lang = self.language
        return {
            "code": lang.code,
            "label": lang.label,
            "detected": self.detected,
            "unit": lang.unit,
            "analyser": lang.analyser().description,
        }


def choose_language(texts: Sequence[str], code: str | LanguageChoice | None = None) -> LanguageChoice:
    """``code``'s language when given, else the language detected from ``texts`` (see :func:`sample_texts`)."""
    if isinstance(code, LanguageChoice):
        return code
    if code is not None:
        return LanguageChoice(language(code), detected=False)
    return LanguageChoice(language(detect_language(sample_texts(texts))), detected=True)
