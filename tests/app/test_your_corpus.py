"""AppTest: "Your corpus" (any language) and the bundled Japanese sample: chunked, queried and ranked in the
app, the chunk-size slider on them as on the stdlib sample, and a clear error in place for a bad corpus."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import pytest

from dashboard import sources

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def _japanese_rows(n: int = 40) -> list[dict]:
    with gzip.open(SAMPLE / "debian_reference_ja.jsonl.gz", "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines][:n]


def _english_jsonl(n_docs: int = 30) -> bytes:
    words = (
        "the valve closes when the sensor detects a leak in the pipe and the panel shows a red light "
        "for the zone whose timer ran out while the garden was already wet"
    ).split()
    rows = [
        {
            "doc_id": f"doc{d}",
            "text": " ".join(words[(d * 7 + i) % len(words)] + str(i % (d + 3)) for i in range(60 + 23 * (d % 5))),
        }
        for d in range(n_docs)
    ]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _upload(at, name: str, data: bytes):
    at.file_uploader(key="corpus_file").set_value((name, data, "application/octet-stream"))
    return at.run()


def _slider(at):
    return at.select_slider(key="config")


def test_the_japanese_sample_is_chunked_in_morphemes_and_any_size_is_computed(open_app):
    at = open_app(source="japanese", sim="0")
    assert not at.exception and not at.error
    assert "Debian Reference in Japanese" in at.sidebar.caption[-1].value
    assert _slider(at).value == "100m" and "75 morphemes" in _slider(at).options
    at = _slider(at).set_value("75m").run()
    assert not at.exception and not at.error
    assert _slider(at).value == "75m" and at.query_params["config"] in ("75m", ["75m"])


def test_your_corpus_is_chunked_queried_and_ranked_and_the_slider_works_on_it(open_app, explorer_text):
    at = _upload(open_app(source="corpus", sim="0"), "docs.jsonl", _english_jsonl())
    assert not at.exception and not at.error
    caption = at.sidebar.caption[-1].value
    assert caption.startswith("docs.jsonl (English, detected: chunks of words)") and "config 100w" in caption
    assert _slider(at).value == "100w" and _slider(at).options == [f"{w} words" for w in sources.SIZE_GRID]
    chunks = explorer_text(at, "sample_chunks")
    at = _slider(at).set_value("25w").run()
    assert not at.exception and not at.error and at.query_params["config"] in ("25w", ["25w"])
    assert int(explorer_text(at, "sample_chunks").replace(",", "")) > 3 * int(chunks.replace(",", ""))


def test_a_zip_of_japanese_files_is_detected_and_its_language_can_be_set(open_app):
    files = {f"{row['doc_type']}/{row['doc_id']}.txt": row["text"] for row in _japanese_rows()}
    at = _upload(open_app(source="corpus", sim="0"), "reference.zip", _zip(files))
    assert not at.exception and not at.error
    assert "(Japanese, detected: chunks of morphemes)" in at.sidebar.caption[-1].value
    assert _slider(at).value == "100m" and "100 morphemes" in _slider(at).options
    at = at.selectbox(key="lang").set_value("en").run()  # as whitespace words: whole clauses
    assert not at.exception and not at.error
    assert "(English: chunks of words)" in at.sidebar.caption[-1].value and _slider(at).value == "100w"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.jsonl", b"", "empty.jsonl is an empty file"),
        ("noise.csv", bytes(range(256)) * 40, "binary data, not UTF-8 text"),
        ("one.jsonl", b'{"doc_id": "a", "text": "only one document here"}\n', "at least two non-empty documents"),
        (
            "big-one.jsonl",
            (
                json.dumps({"doc_id": "big", "text": "word " * 5000})
                + "\n"
                + json.dumps({"doc_id": "small", "text": "word " * 100})
                + "\n"
            ).encode(),
            "one document, 'big', holds 98% of the text",
        ),
        ("images.zip", _zip({"a.png": "\x89PNG", "b.jpg": "x"}), "the archive holds no .txt, .md or .html file"),
        ("broken.zip", b"PK\x03\x04 not really", "not a readable .zip archive"),
        ("report.pdf", b"%PDF-1.7 text", "not a corpus file; expected JSON lines, CSV or Parquet"),
    ],
)
def test_a_bad_corpus_gets_a_clear_error_in_place_and_the_controls_stay(open_app, name, data, message):
    at = _upload(open_app(source="corpus", sim="0"), name, data)
    assert not at.exception
    (error,) = at.error
    assert message in error.value and error.value.startswith(f"Could not use {name}")
    assert _slider(at) is not None  # the page's controls are still there


def test_a_corpus_over_the_limit_is_refused_before_any_work(open_app, monkeypatch):
    monkeypatch.setattr(sources, "CORPUS_MAX_MB", 1)
    data = _english_jsonl(n_docs=30) * 200  # the same documents again: refused for its size first
    assert len(data) > 2**20
    at = _upload(open_app(source="corpus", sim="0"), "docs.jsonl", data)
    assert not at.exception
    (error,) = at.error
    assert "the dashboard takes corpora up to 1 MB" in error.value


def test_the_limits_and_the_privacy_note_are_on_screen(open_app):
    at = open_app(source="corpus", sim="0")
    assert not at.exception and not at.error
    note = " ".join(c.value for c in at.sidebar.caption)
    assert f"Up to {sources.CORPUS_MAX_MB} MB and {sources.CORPUS_MAX_DOCS:,} documents" in note
    assert "nothing you upload leaves it" in note and "No corpus yet" in note
