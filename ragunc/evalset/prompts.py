"""The prompts, in the corpus' language (en, pt, es, ja, zh), and their hashes.

A question prompt asks for one question that a person who has not read the chunk would
ask, forbids copied phrases and references to "the document", and asks for the
language's DISCARD word when the chunk cannot answer a question (after a published
Spanish prompt). A rephrase prompt rewrites a question that leaks the chunk's words; a
judge prompt asks YES or NO: does this other chunk answer the question too.

Replies are keyed in the journal by the hash of the exact messages sent
(:func:`prompt_hash`), so a changed template or chunk is asked again and nothing else is.
"""

from __future__ import annotations

import hashlib
import json
import re

from ..corpus.language import UNSPACED_SCRIPTS

DISCARD_WORDS = {"en": "DISCARD", "pt": "DESCARTAR", "es": "DESCARTAR", "ja": "DISCARD", "zh": "DISCARD"}

_RULES = {
    "en": (
        "Rules:\n"
        "- Write the question as someone who has not read the passage would write it.\n"
        "- Do not copy phrases of the passage or its exact terminology.\n"
        '- No "according to the document" and no reference to the text.\n'
        "- Write the question in the language of the passage, and reply with the question only.\n"
        "- If the passage does not hold enough information, reply exactly: DISCARD\n"
    ),
    "pt": (
        "Regras:\n"
        "- Formule a pergunta como a escreveria alguém que não leu o trecho.\n"
        "- Não copie frases literais do trecho nem a sua terminologia exata.\n"
        '- Nada de "segundo o documento" nem referências ao texto.\n'
        "- Escreva a pergunta em português e responda apenas com a pergunta.\n"
        "- Se o trecho não contiver informação suficiente, responda exatamente: DESCARTAR\n"
    ),
    "es": (
        "Reglas:\n"
        "- Formula la pregunta como la escribiría alguien que no ha leído el fragmento.\n"
        "- No copies frases literales del fragmento ni su terminología exacta.\n"
        '- Nada de "según el documento" ni referencias al texto.\n'
        "- Escribe la pregunta en español y responde solo con la pregunta.\n"
        "- Si el fragmento no contiene información suficiente, responde exactamente: DESCARTAR\n"
    ),
    "ja": (
        "ルール:\n"
        "- 文章を読んでいない人が書くように質問を書いてください。\n"
        "- 文章の言い回しや専門用語をそのまま写さないでください。\n"
        "- 「文書によると」のような、本文を指す表現は使わないでください。\n"
        "- 質問は日本語で書き、質問だけを返してください。\n"
        "- 文章に十分な情報がない場合は、DISCARD とだけ返してください。\n"
    ),
    "zh": (
        "规则：\n"
        "- 像没有读过这段文字的人那样提出问题。\n"
        "- 不要照抄这段文字中的语句或确切术语。\n"
        "- 不要使用“根据文档”之类的说法，也不要提及文本本身。\n"
        "- 用中文写问题，只回复问题本身。\n"
        "- 如果这段文字没有足够的信息，请只回复：DISCARD\n"
    ),
}

_ASK = {
    "en": {
        "intro": "You are an employee looking things up in the internal documentation.\n",
        "factual": "Read the passage and write one single question that this passage answers completely.\n",
        "procedural": (
            'Read the passage and write one single "how do I ...?" question about a task that this '
            "passage explains how to do. If it explains no task, reply exactly: DISCARD\n"
        ),
        "two_chunk": (
            "Read the two consecutive passages and write one single question that needs both of them "
            "to be answered: neither passage answers it alone.\n"
        ),
        "negative": (
            "Read the passage and write one single question that a user of this documentation could "
            "plausibly ask about the same topic, but that asks about something the passage does not "
            "contain (another option, feature, product or entity), so that the passage cannot answer it.\n"
        ),
        "passage": "Passage",
        "passages": ("Passage 1", "Passage 2"),
    },
    "pt": {
        "intro": "Você é um funcionário que consulta a documentação interna.\n",
        "factual": "Leia o trecho e escreva uma única pergunta que este trecho responda por completo.\n",
        "procedural": (
            'Leia o trecho e escreva uma única pergunta do tipo "como faço para ...?" sobre uma tarefa '
            "que este trecho explica como fazer. Se não explicar nenhuma, responda exatamente: DESCARTAR\n"
        ),
        "two_chunk": (
            "Leia os dois trechos consecutivos e escreva uma única pergunta que precise dos dois para "
            "ser respondida: nenhum dos trechos a responde sozinho.\n"
        ),
        "negative": (
            "Leia o trecho e escreva uma única pergunta que um usuário desta documentação poderia fazer "
            "sobre o mesmo tema, mas sobre algo que o trecho não contém (outra opção, função, produto ou "
            "entidade), de modo que o trecho não a possa responder.\n"
        ),
        "passage": "Trecho",
        "passages": ("Trecho 1", "Trecho 2"),
    },
    "es": {
        "intro": "Eres un empleado que consulta la documentación interna.\n",
        "factual": "Lee el fragmento y escribe una sola pregunta que este fragmento responda por completo.\n",
        "procedural": (
            'Lee el fragmento y escribe una sola pregunta del tipo "¿cómo hago para ...?" sobre una '
            "tarea que este fragmento explica cómo hacer. Si no explica ninguna, responde exactamente: "
            "DESCARTAR\n"
        ),
        "two_chunk": (
            "Lee los dos fragmentos consecutivos y escribe una sola pregunta que necesite los dos para "
            "responderse: ninguno de los fragmentos la responde por sí solo.\n"
        ),
        "negative": (
            "Lee el fragmento y escribe una sola pregunta que un usuario de esta documentación podría "
            "hacer sobre el mismo tema, pero sobre algo que el fragmento no contiene (otra opción, "
            "función, producto o entidad), de modo que el fragmento no pueda responderla.\n"
        ),
        "passage": "Fragmento",
        "passages": ("Fragmento 1", "Fragmento 2"),
    },
    "ja": {
        "intro": "あなたは社内ドキュメントを調べている社員です。\n",
        "factual": "文章を読み、この文章が完全に答えている質問を一つだけ書いてください。\n",
        "procedural": (
            "文章を読み、この文章がやり方を説明している作業について「どうすれば…できますか？」という"
            "質問を一つだけ書いてください。作業を説明していない場合は DISCARD とだけ返してください。\n"
        ),
        "two_chunk": (
            "連続する二つの文章を読み、両方がなければ答えられない質問を一つだけ書いてください。"
            "どちらの文章も単独では答えられないようにしてください。\n"
        ),
        "negative": (
            "文章を読み、このドキュメントの利用者が同じ話題について尋ねそうだが、文章に含まれていないこと"
            "（別のオプション、機能、製品、対象）を尋ねる質問を一つだけ書いてください。"
            "文章ではその質問に答えられないようにしてください。\n"
        ),
        "passage": "文章",
        "passages": ("文章1", "文章2"),
    },
    "zh": {
        "intro": "你是一名正在查阅内部文档的员工。\n",
        "factual": "阅读这段文字，写出一个这段文字能够完整回答的问题。\n",
        "procedural": (
            "阅读这段文字，针对它讲解如何完成的某项任务，写出一个“如何……？”的问题。"
            "如果它没有讲解任何任务，请只回复：DISCARD\n"
        ),
        "two_chunk": "阅读这两段连续的文字，写出一个需要两段文字才能回答的问题：任何一段都不能单独回答它。\n",
        "negative": (
            "阅读这段文字，写出一个该文档的用户可能就同一主题提出、但询问的是这段文字没有包含的内容"
            "（其他选项、功能、产品或对象）的问题，使这段文字无法回答它。\n"
        ),
        "passage": "文字",
        "passages": ("文字1", "文字2"),
    },
}

_REPHRASE = {
    "en": (
        "The question below copies too many words from the passage it was written from. Rewrite the "
        "question so that it asks the same thing in the words of someone who has not read the passage: use "
        "synonyms and everyday words, and do not reuse the passage's terms where another word will do. Reply "
        "with the rewritten question only."
    ),
    "pt": (
        "A pergunta abaixo copia palavras demais do trecho a partir do qual foi escrita. Reescreva a pergunta "
        "para que pergunte o mesmo com as palavras de alguém que não leu o trecho: use sinônimos e palavras "
        "do dia a dia e não reutilize os termos do trecho quando outra palavra servir. Responda apenas com "
        "a pergunta reescrita."
    ),
    "es": (
        "La pregunta de abajo copia demasiadas palabras del fragmento desde el que se escribió. Reescribe la "
        "pregunta para que pregunte lo mismo con las palabras de alguien que no ha leído el fragmento: usa "
        "sinónimos y palabras cotidianas, y no reutilices los términos del fragmento cuando otra palabra "
        "sirva. Responde solo con la pregunta reescrita."
    ),
    "ja": (
        "次の質問は、もとになった文章の言葉をそのまま使いすぎています。文章を読んでいない人の言葉で同じことを"
        "尋ねるよう、質問を書き直してください。同義語や日常的な言葉を使い、別の言葉で言える場合は文章の用語を"
        "使わないでください。書き直した質問だけを返してください。"
    ),
    "zh": (
        "下面的问题从其来源文字中照抄了太多词语。请改写这个问题，用没有读过这段文字的人的话问同样的事情："
        "使用同义词和日常用语，能用别的词时不要重复使用这段文字的术语。只回复改写后的问题。"
    ),
}
_QUESTION = {"en": "Question", "pt": "Pergunta", "es": "Pregunta", "ja": "質問", "zh": "问题"}

_JUDGE = {
    "en": "Does the passage below answer the question completely? Answer YES or NO only.",
    "pt": "O trecho abaixo responde à pergunta por completo? Responda SIM ou NÃO, e nada mais.",
    "es": "¿El fragmento de abajo responde la pregunta por completo? Responde SÍ o NO, y nada más.",
    "ja": "次の文章はこの質問に完全に答えていますか？ YES か NO だけで答えてください。",
    "zh": "下面这段文字是否完整回答了这个问题？只回答 YES 或 NO。",
}

TEMPLATES = {
    lang: {"ask": _ASK[lang], "rules": _RULES[lang], "rephrase": _REPHRASE[lang], "judge": _JUDGE[lang]}
    for lang in _ASK
}


def _check(language: str) -> dict:
    if language not in TEMPLATES:
        raise ValueError(f"language must be one of {', '.join(TEMPLATES)}, got {language!r}")
    return _ASK[language]


def question_messages(qtype: str, texts: tuple[str, ...], language: str) -> list[dict]:
    """The prompt asking for a question of type ``qtype`` about the chunk ``texts`` (two for two-chunk)."""
    ask = _check(language)
    if qtype == "two_chunk":
        first, second = ask["passages"]
        body = f"{first}:\n{texts[0]}\n\n{second}:\n{texts[1]}"
    else:
        body = f"{ask['passage']}:\n{texts[0]}"
    return [{"role": "user", "content": f"{ask['intro']}{ask[qtype]}\n{_RULES[language]}\n{body}"}]


def rephrase_messages(question: str, texts: tuple[str, ...], language: str) -> list[dict]:
    """The prompt asking to reword a question that leaks its chunk's words."""
    ask = _check(language)
    passage = "\n\n".join(texts)
    return [
        {
            "role": "user",
            "content": f"{_REPHRASE[language]}\n\n{_QUESTION[language]}: {question}\n\n{ask['passage']}:\n{passage}",
        }
    ]


def judge_messages(question: str, text: str, language: str) -> list[dict]:
    """The yes/no prompt: does this chunk answer the question?"""
    ask = _check(language)
    return [
        {
            "role": "user",
            "content": f"{_JUDGE[language]}\n\n{_QUESTION[language]}: {question}\n\n{ask['passage']}:\n{text}",
        }
    ]


def _digest(payload) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def prompt_hash(messages: list[dict]) -> str:
    """Hash of the exact messages sent: the journal's key for "the same prompt"."""
    return _digest(messages)


def templates_hash(language: str) -> str:
    """Hash of every template of ``language``: the manifest's record of which prompts made the set."""
    _check(language)
    return _digest(TEMPLATES[language])


_UNSPACED = re.compile(f"[{UNSPACED_SCRIPTS}]")


def estimate_tokens(messages: list[dict]) -> int:
    """Rough prompt tokens: about four characters per token (English BPE), one per character of a script
    written without spaces (a planning figure, not a bill)."""
    return -(-sum(len(m["content"]) + 3 * len(_UNSPACED.findall(m["content"])) for m in messages) // 4)
