"""Languages: the registry, the analyser each language gets, detection, and a missing extra's error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragunc.corpus.language import (
    LANGUAGES,
    JiebaAnalyser,
    MecabAnalyser,
    MissingAnalyser,
    WhitespaceAnalyser,
    choose_language,
    detect_language,
    language,
)
from ragunc.corpus.loaders import load_corpus

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def test_each_language_has_one_record_and_a_unit_letter_of_its_own():
    codes = [x.code for x in LANGUAGES]
    assert len(set(codes)) == len(codes) and {"en", "pt", "es", "ja", "zh"} <= set(codes)
    by_letter = {}
    for x in LANGUAGES:
        by_letter.setdefault(x.suffix, set()).add(x.unit)
    assert all(len(units) == 1 for units in by_letter.values())  # one letter, one unit
    assert language("ja").config(100) == "100m" and language("pt").config(100, 20) == "100w20o"
    with pytest.raises(ValueError, match="language must be one of en, pt, es, ja, zh, got 'xx'"):
        language("xx")


@pytest.mark.parametrize(
    ("code", "kind", "unit"),
    [
        ("en", WhitespaceAnalyser, "words"),
        ("pt", WhitespaceAnalyser, "words"),
        ("es", WhitespaceAnalyser, "words"),
        ("ja", MecabAnalyser, "morphemes"),
        ("zh", JiebaAnalyser, "tokens"),
    ],
)
def test_each_language_gets_its_analyser(code, kind, unit):
    record = language(code)
    assert isinstance(record.analyser(), kind) and record.unit == unit
    assert record.spaced == (kind is WhitespaceAnalyser)
    assert record.analyser() is record.analyser()  # loaded once


def test_spaced_terms_are_lowercase_word_runs_of_each_whitespace_word():
    analysis = language("pt").analyser().analyse("  A válvula\tFECHA os.path  ")
    assert analysis.starts.tolist() == [2, 4, 12, 18] and analysis.ends.tolist() == [3, 11, 17, 25]
    assert analysis.terms.tolist() == ["a", "válvula", "fecha", "os", "path"]
    assert analysis.term_units.tolist() == [0, 1, 2, 3, 3]


def test_japanese_units_are_morphemes_and_punctuation_has_no_term():
    text = "ファイルの一覧を\n  表示する。全角ＡＢＣ"
    analysis = language("ja").analyser().analyse(text)
    units = [text[a:b] for a, b in zip(analysis.starts, analysis.ends)]
    assert units == ["ファイル", "の", "一覧", "を", "表示", "する", "。", "全角", "ＡＢＣ"]
    assert analysis.terms.tolist() == ["ファイル", "の", "一覧", "を", "表示", "する", "全角", "abc"]  # NFKC, lowercase
    assert analysis.term_units.tolist() == [0, 1, 2, 3, 4, 5, 7, 8]


def test_chinese_units_are_jieba_words():
    text = "我们使用 Python 编写程序。"
    analysis = language("zh").analyser().analyse(text)
    units = [text[a:b] for a, b in zip(analysis.starts, analysis.ends)]
    assert "".join(units) == "".join(text.split()) and "Python" in units and len(units) < len(text) - 5
    assert "python" in analysis.terms and "。" not in analysis.terms


def test_units_hold_every_character_of_real_japanese_text_in_order():
    corpus = load_corpus(SAMPLE / "debian_reference_ja.jsonl.gz")
    analyser = language("ja").analyser()
    for text in corpus.texts[:40]:
        analysis = analyser.analyse(text)
        assert "".join(text[a:b] for a, b in zip(analysis.starts, analysis.ends)) == "".join(text.split())
        assert all(not text[a:b].isspace() for a, b in zip(analysis.starts, analysis.ends))


def test_content_terms_keep_nouns_and_verbs_not_particles_or_light_verbs():
    ja = language("ja").analyser()
    assert ja.content_terms("パケットをネットワーク上のホストに送る") == ["パケット", "ネットワーク", "ホスト", "送る"]
    assert "する" not in ja.content_terms("ファイルを表示する")
    assert language("zh").analyser().content_terms("我们使用电脑编写程序") == ["使用", "电脑", "编写程序"]


@pytest.mark.parametrize(
    ("texts", "code"),
    [
        (["ファイルの一覧を表示する。-a, --all で始まる要素を無視しない"], "ja"),
        (["ls -l --color=auto: ディレクトリの内容を表示します。 options: -a -A -b -B -c -C -d -D"], "ja"),
        (["我们使用 Python 编写程序，然后运行它。"], "zh"),
        (["The valve closes by itself when the sensor detects a leak in the pipe."], "en"),
        (["La válvula se cierra sola cuando el sensor detecta una fuga en la tubería y los avisos del panel."], "es"),
        (["A válvula fecha sozinha quando o sensor detecta um vazamento no cano e não mostra os avisos."], "pt"),
        (["def f(x): return x ** 2"], "en"),
        # An English corpus quoting a few Japanese words stays English.
        (["The Japanese word 東京 means eastern capital; the city has been the capital since 1868."] * 3, "en"),
    ],
)
def test_detect_language(texts, code):
    assert detect_language(texts) == code


def test_a_corpus_language_is_detected_unless_given():
    corpus = load_corpus(SAMPLE / "debian_reference_ja.jsonl.gz")
    detected = choose_language(corpus.texts)
    assert detected.code == "ja" and detected.detected
    given = choose_language(corpus.texts, "en")
    assert given.code == "en" and not given.detected
    assert given.to_dict() == {
        "code": "en",
        "label": "English",
        "detected": False,
        "unit": "words",
        "analyser": WhitespaceAnalyser.description,
    }


@pytest.mark.parametrize(
    ("code", "module", "extra"), [("ja", "fugashi", "ja"), ("ja", "unidic_lite", "ja"), ("zh", "jieba", "zh")]
)
def test_a_missing_segmenter_names_the_extra_to_install(monkeypatch, code, module, extra):
    monkeypatch.setitem(sys.modules, module, None)  # importing it now raises ImportError
    with pytest.raises(MissingAnalyser, match=rf"pip install 'ragunc\[{extra}\]'"):
        language(code).analyser.__wrapped__()  # a fresh load, not the cached analyser
