"""Tolerant reading of model replies: one clean question, a DISCARD, or "unparsable" (never into the set).

What models send back besides a bare question, and what is done with it:

- reasoning blocks (``<think>...</think>``), code fences, markdown emphasis: removed;
- DISCARD in any case, with punctuation or quotes, or the Spanish/Portuguese DESCARTAR,
  DESCARTE, DESCARTADO...: a discard, also when followed by an explanation;
- preambles ("Here is a question:", "Claro, aquí tienes:"), labels ("Question:", "1.",
  "- "), and quotes around the question: stripped;
- several questions: the first one (up to its first question mark, from an opening "¿");
- a lead-in "According to the document," / "Según el texto,": stripped; a question that
  still points at "the passage" / "el fragmento" cannot stand alone and is unparsable;
- refusals, empty replies, no question at all, fewer than 3 or more than 60 words: unparsable.

Japanese and Chinese replies are read the same way: a full-width question mark is a question
mark, a sentence ending in か / 吗 / 呢 is a question, and words are the analyser's
(:mod:`ragunc.corpus.language`), counted when ``language`` names one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..corpus.language import language as language_record
from .text import SPACED, normalized

PARSED_QUESTION = "question"
DISCARD = "discard"
UNPARSABLE = "unparsable"

DISCARD_VARIANTS = frozenset(
    {
        "discard",
        "discarded",
        "descartar",
        "descarte",
        "descartado",
        "descartada",
        "descarto",
        "descartamos",
        "descartavel",
        "descartable",
        "破棄",
        "丢弃",
    }
)
MIN_WORDS, MAX_WORDS = 3, 60

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z]*")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)")
_QUOTES = "\"'“”‘’«»„`"
_LABEL = re.compile(
    r"^(?:\d+\s*[.)]\s*|[-*•]\s+|(?:question|q|pregunta|pergunta|answer|respuesta|resposta|reply|質問|问题)"
    r"\s*\d*\s*[:：.-]\s*)",
    re.IGNORECASE,
)
_PREAMBLE = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|here(?:'s| is| are)|great|alright|claro|por supuesto|desde luego|"
    r"aquí|aqui|vale|perfecto|com certeza|certo|segue|eis|muy bien|está bien)\b|^(?:はい|以下|こちら|好的|以下是)",
    re.IGNORECASE,
)
_PREAMBLE_WORDS = re.compile(
    r"\b(?:question|pregunta|pergunta|here|aquí|aqui|segue|eis|sure|claro)\b|質問|问题", re.IGNORECASE
)
_REFUSAL = re.compile(
    r"^(?:i'?m sorry|i am sorry|sorry|i cannot|i can't|i can not|as an ai|unfortunately|lo siento|"
    r"no puedo|lamentablemente|desculpe|sinto muito|não posso|infelizmente)\b|^(?:申し訳|すみません|抱歉|对不起|很抱歉)",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:according to|based on|as stated in|as described in|in)\s+(?:the|this)\s+"
    r"(?:document|documentation|text|passage|fragment|excerpt|chunk|section)\s*[,:]?\s*"
    r"|^(?:según|de acuerdo con|conforme a|basándote en|en)\s+(?:el|este|la|esta)\s+"
    r"(?:documento|documentación|texto|fragmento|pasaje|extracto)\s*[,:]?\s*"
    r"|^(?:segundo|de acordo com|conforme|com base n)\s*(?:o|este|a|esta)\s+"
    r"(?:documento|documentação|texto|trecho|fragmento|excerto)\s*[,:]?\s*"
    r"|^(?:この|その)?(?:文書|文章|本文|ドキュメント)(?:によると|によれば|では)[、,]?\s*"
    r"|^(?:根据|按照)(?:该|这个|这段|本)?(?:文档|文字|文本|段落)[，,]?\s*",
    re.IGNORECASE,
)
_POINTS_AT_TEXT = re.compile(
    r"\b(?:the|this|that)\s+(?:passage|excerpt|fragment|chunk|text above|above text)\b"
    r"|\b(?:el|este)\s+(?:fragmento|pasaje|extracto)\b|\b(?:o|este)\s+(?:trecho|excerto)\b"
    r"|(?:この|上記の|上の)(?:文章|一節|本文|箇所)|这段文字|上文|本段",
    re.IGNORECASE,
)
# A Japanese or Chinese sentence ending in a question particle asks, with or without a mark.
_ASKS = re.compile(r"(?:か|吗|呢)[。.]?$")
_INTERROGATIVE = frozenset(
    "what which who whom whose when where why how can could should would is are does do did will "
    "qué que cuál cual cuáles quién quien cuándo cuando dónde donde por cómo como puedo puede es hay "
    "qual quais quem onde porque posso pode existe".split()
)
_VERDICTS = {
    "yes": True,
    "y": True,
    "si": True,
    "sim": True,
    "true": True,
    "はい": True,
    "是": True,
    "是的": True,
    "no": False,
    "n": False,
    "nao": False,
    "false": False,
    "いいえ": False,
    "否": False,
    "不是": False,
    "不": False,
}


@dataclass(frozen=True)
class ParsedReply:
    """What a reply held: ``outcome`` is ``"question"``, ``"discard"`` or ``"unparsable"``."""

    outcome: str
    text: str  # the question; for the others, the cleaned reply
    note: str = ""  # what was stripped, or why it is unparsable


def _clean(reply: str | None) -> str:
    text = _THINK.sub("", reply or "").replace("？", "?")
    text = _FENCE.sub("", text)
    return _EMPHASIS.sub("", text).strip()


def _strip_quotes(line: str) -> str:
    line = line.strip()
    while len(line) >= 2 and line[0] in _QUOTES and line[-1] in _QUOTES + "?":
        inner = line[1:-1] if line[-1] in _QUOTES else line[1:]
        if line[-1] == "?" and inner.endswith(tuple(_QUOTES)):
            inner = inner[:-1] + "?"
        line = inner.strip()
    return line.strip(_QUOTES + " ") if line[:1] in _QUOTES else line


def _strip_label(line: str) -> str:
    previous = None
    while previous != line:
        previous = line
        line = _strip_quotes(_LABEL.sub("", line, count=1))
    return line


def _is_discard(lines: list[str]) -> bool:
    """The first line starts with a discard word (not a question using the verb), or any line is only one."""
    for i, line in enumerate(lines):
        words = normalized(line).split()
        if not words:
            continue
        if words == [words[0]] and words[0] in DISCARD_VARIANTS:
            return True
        if i == 0 and words[0] in DISCARD_VARIANTS:
            stripped = _strip_label(line).lstrip("¿¡")
            after = stripped[len(stripped.split()[0]) :] if stripped.split() else ""
            if "?" not in line or after[:1] in ".:;,!—–-)" or not after:
                return True
    return False


def _first_question(line: str) -> str:
    end = line.index("?")
    start = line.rfind("¿", 0, end)
    if start < 0:
        head, sep, _ = line[:end].rpartition(":")
        start = len(head) + 1 if sep and (_PREAMBLE_WORDS.search(head) or _LABEL.match(head + ":")) else 0
    return _strip_label(line[start : end + 1])


def _n_words(question: str, language: str | None) -> int:
    if language is None or language in SPACED:
        return len(question.split())
    return len(language_record(language).analyser().terms(question))


def parse_question(reply: str | None, language: str | None = None) -> ParsedReply:
    """The question of a model reply, or why there is none (see the module docstring); ``language``
    (default: a spaced one) counts its words."""
    cleaned = _clean(reply)
    if not cleaned:
        return ParsedReply(UNPARSABLE, "", "empty reply")
    lines = [_strip_label(line) for line in cleaned.splitlines()]
    lines = [line for line in lines if line]
    if _is_discard(lines):
        return ParsedReply(DISCARD, cleaned)
    if _REFUSAL.match(lines[0]):
        return ParsedReply(UNPARSABLE, cleaned, "a refusal, not a question")
    notes = []
    body = [line for line in lines if "?" in line or not (line.endswith(":") or _PREAMBLE.match(line))]
    if len(body) < len(lines):
        notes.append("preamble stripped")
    with_mark = [line for line in body if "?" in line]
    if with_mark:
        question = _first_question(with_mark[0])
        if len(with_mark) > 1 or with_mark[0].count("?") > 1:
            notes.append("several questions: the first kept")
    elif len(body) == 1 and normalized(body[0]).split()[:1] and normalized(body[0]).split()[0] in _INTERROGATIVE:
        question = body[0].rstrip(".") + "?"
        notes.append("question mark added")
    elif len(body) == 1 and _ASKS.search(body[0]):
        question = body[0].rstrip("。.") + "?"
        notes.append("question mark added")
    else:
        return ParsedReply(UNPARSABLE, cleaned, "no question found")
    lead = _LEAD_IN.match(question)
    if lead:
        question = question[lead.end() :]
        if language is None or language in SPACED:
            question = question[:1].upper() + question[1:]
        notes.append("reference to the document stripped")
    if _POINTS_AT_TEXT.search(question):
        return ParsedReply(UNPARSABLE, cleaned, "the question points at the passage and cannot stand alone")
    n_words = _n_words(question, language)
    if not MIN_WORDS <= n_words <= MAX_WORDS:
        return ParsedReply(UNPARSABLE, cleaned, f"{n_words} words (a question has {MIN_WORDS} to {MAX_WORDS})")
    return ParsedReply(PARSED_QUESTION, question, "; ".join(notes))


def parse_verdict(reply: str | None) -> bool | None:
    """A judge's YES/NO (SÍ/SIM/NÃO, any case or punctuation); None when the reply is neither."""
    words = normalized(_clean(reply)).split()
    return _VERDICTS.get(words[0]) if words else None
