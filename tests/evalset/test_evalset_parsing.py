"""Tolerant reading of replies: DISCARD variants, preambles, quotes, several questions, unparsable ones."""

from __future__ import annotations

import pytest

from ragunc.evalset.parsing import (
    DISCARD,
    PARSED_QUESTION,
    UNPARSABLE,
    parse_question,
    parse_verdict,
)


@pytest.mark.parametrize(
    "reply",
    [
        "DISCARD",
        "discard",
        "Discard.",
        "**DISCARD**",
        '"DISCARD"',
        "DISCARD!",
        "  discard  \n",
        "DESCARTAR",
        "Descartar.",
        "descarte",
        "DESCARTADO",
        "Descartada",
        "DISCARD - the passage is a table of contents",
        "DESCARTAR: el fragmento solo contiene un índice",
        "Answer: DISCARD",
        "Respuesta: DESCARTAR",
        "The passage has no content.\nDISCARD",
        "<think>No question fits.</think>DISCARD",
    ],
)
def test_discard_in_any_form(reply):
    assert parse_question(reply).outcome == DISCARD


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        ("How do I open a gzip file?", "How do I open a gzip file?"),
        ("Here is a question:\nHow do I set a timeout?", "How do I set a timeout?"),
        ("Sure! Here's the question: What does heapq.merge return?", "What does heapq.merge return?"),
        ("Claro, aquí tienes: ¿Cómo configuro el tiempo de espera?", "¿Cómo configuro el tiempo de espera?"),
        ("Pregunta: ¿Cómo abro un archivo comprimido?", "¿Cómo abro un archivo comprimido?"),
        ("Pergunta: Como faço para abrir um arquivo?", "Como faço para abrir um arquivo?"),
        ('"How do I read a CSV file?"', "How do I read a CSV file?"),
        ("“¿Qué hace el módulo zipfile?”", "¿Qué hace el módulo zipfile?"),
        ("**Question:** What is the default dialect of csv?", "What is the default dialect of csv?"),
        ("1. What is X used for? 2. Why is Y slow?", "What is X used for?"),
        ("What is the default encoding? And when is it used?", "What is the default encoding?"),
        ("Question 1: Which encoding does open() use?\nQuestion 2: When?", "Which encoding does open() use?"),
        ("According to the document, what does bisect return?", "What does bisect return?"),
        ("Según el texto, ¿cuánto dura la garantía?", "¿cuánto dura la garantía?"),
        ("How do I compress data with zlib", "How do I compress data with zlib?"),
        ("Discard unsaved changes: how do I do that in IDLE?", "Discard unsaved changes: how do I do that in IDLE?"),
        ("<think>The passage is about heaps.</think>\nHow are heaps merged?", "How are heaps merged?"),
    ],
)
def test_the_question_is_extracted(reply, question):
    parsed = parse_question(reply)
    assert (parsed.outcome, parsed.text) == (PARSED_QUESTION, question)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("", "empty"),
        (None, "empty"),
        ("Okay.", "no question"),
        ("What does the passage say about sorting?", "points at the passage"),
        ("¿Qué dice el fragmento sobre la garantía?", "points at the passage"),
        ("I'm sorry, could you give me a longer text?", "refusal"),
        ("Why?", "words"),
        ("What " + "very " * 70 + "long?", "words"),
    ],
)
def test_unparsable_replies_say_why(reply, why):
    parsed = parse_question(reply)
    assert parsed.outcome == UNPARSABLE and why in parsed.note


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("YES", True),
        ("yes.", True),
        ("Sí", True),
        ("SIM", True),
        ("**Yes**, it does.", True),
        ("NO", False),
        ("No.", False),
        ("NÃO", False),
        ("nao", False),
        ("maybe", None),
        ("", None),
    ],
)
def test_verdicts(reply, verdict):
    assert parse_verdict(reply) is verdict
