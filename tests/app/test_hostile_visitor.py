"""A hostile visitor of a shared dashboard: the operator's key, the server's files and its memory stay the
operator's. Every test puts a canary key in the operator's environment and a listener on 127.0.0.1 that must
receive nothing a visitor chose."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragunc.corpus.stdlib import build_stdlib_frame
from tests.support.chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "pages"


@pytest.fixture
def canary(monkeypatch, tmp_path) -> str:
    """A key in every variable the operator's key may sit in; the pages' working folders under ``tmp_path``."""
    key = f"sk-canary-{uuid.uuid4().hex}"
    for variable in ("OPENAI_API_KEY", "RAGUNC_LLM_API_KEY"):
        monkeypatch.setenv(variable, key)
    for variable in ("RAGUNC_LLM_MODEL", "RAGUNC_LLM_BASE_URL", "RAGUNC_LLM_VISITOR_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return key


def shown(at: AppTest) -> str:
    """Everything the page shows as text (values of inputs included)."""
    parts = [e.value for kind in (at.markdown, at.caption, at.info, at.warning, at.error, at.success) for e in kind]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [df.value.to_csv() for df in at.dataframe]
    parts += [str(w.value) for w in at.text_input]
    parts += [e.proto.SerializeToString().decode("utf-8", "replace") for e in at.get("download_button")]
    return "\n".join(map(str, parts))


def evaluation_set_page() -> AppTest:
    frame = build_stdlib_frame(modules=("bisect", "heapq", "colorsys", "fnmatch", "netrc"), topics=False)
    at = AppTest.from_file(str(PAGES / "evaluation_set.py"), default_timeout=120).run()
    at.radio(key="es_corpus").set_value("upload").run()
    data = frame.to_json(orient="records", lines=True).encode()
    at.file_uploader(key="es_upload").set_value(("docs.jsonl", data, "application/json")).run()
    at.number_input(key="es_n").set_value(6).run()
    return at


# ------------------------------------------------------------------ the operator's key


def test_a_visitor_cannot_type_an_endpoint_unless_the_operator_allows_it(canary):
    with ChatServer() as listener:
        at = evaluation_set_page()
        assert at.radio(key="es_generator").options == ["Offline templates (no model, no network)"]
        assert not at.text_input  # no base URL, no model, no key to type
        at.button(key="es_build").click().run()
        assert not at.exception
        assert listener.requests == []


def test_the_operators_key_is_never_sent_to_a_url_the_visitor_typed(canary, monkeypatch):
    monkeypatch.setenv("RAGUNC_LLM_VISITOR_URL", "1")
    with ChatServer() as listener:
        at = evaluation_set_page()
        at.radio(key="es_generator").set_value("openai").run()
        at.text_input(key="es_base_url").set_value(listener.url)
        at.text_input(key="es_model").set_value("scripted")
        at.button(key="es_build").click().run()  # the key field left empty
        sent = {r.authorization for r in listener.requests}
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert listener.requests, "the visitor's own endpoint is called"
    assert not any(canary in (a or "") for a in sent), sent


def test_the_operators_endpoint_gets_the_key_and_the_visitor_never_sees_it(canary, monkeypatch, tmp_path):
    with ChatServer() as operator_server:
        monkeypatch.setenv("RAGUNC_LLM_BASE_URL", operator_server.url)
        monkeypatch.setenv("RAGUNC_LLM_MODEL", "scripted")
        at = evaluation_set_page()
        at.radio(key="es_generator").set_value("operator").run()
        assert not at.text_input  # nothing of the endpoint to type or read
        at.button(key="es_build").click().run()
        sent = {r.authorization for r in operator_server.requests}
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert sent == {f"Bearer {canary}"}
    assert canary not in shown(at) and canary not in str(dict(at.query_params))
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert canary.encode() not in path.read_bytes(), path


def test_each_visitor_builds_in_a_folder_of_their_own(canary, tmp_path):
    first, second = evaluation_set_page(), evaluation_set_page()
    for at in (first, second):
        at.button(key="es_build").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    sets = sorted(p.parent for p in tmp_path.rglob("questions.jsonl"))
    assert len(sets) == 2 and sets[0].name == sets[1].name  # the same settings, two folders
