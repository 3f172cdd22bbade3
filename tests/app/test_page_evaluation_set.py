"""AppTest of the page "Evaluation set": an offline build of a tiny uploaded corpus, and an endpoint build
against a local chat server whose API key the page never shows."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from ragunc.corpus.stdlib import build_stdlib_frame

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "evaluation_set.py")
from tests.support.chat_server import ChatServer  # noqa: E402


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the page's sets and uploads go here
    frame = build_stdlib_frame(modules=("bisect", "heapq", "colorsys", "fnmatch", "netrc"), topics=False)
    data = frame.to_json(orient="records", lines=True).encode()
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.radio(key="es_corpus").set_value("upload").run()
    at.file_uploader(key="es_upload").set_value(("docs.jsonl", data, "application/json")).run()
    at.number_input(key="es_n").set_value(20).run()
    return at


def texts(at: AppTest) -> list[str]:
    shown = [e.value for kind in (at.markdown, at.caption, at.info, at.warning, at.error, at.success) for e in kind]
    shown += [f"{m.label} {m.value}" for m in at.metric]
    shown += [df.value.to_csv() for df in at.dataframe]
    return [str(s) for s in shown]


def test_an_offline_build_shows_the_funnel_lists_mix_download_and_intervals(page, tmp_path):
    at = page.button(key="es_build").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    kept = int(next(m.value for m in at.metric if m.label == "Questions kept").replace(",", ""))
    assert kept > 0
    titles = [chart.proto.spec for chart in at.get("plotly_chart")]
    assert len(titles) == 3 and any("sampled pairs kept" in t for t in titles)
    review = next(box for box in at.selectbox if box.key.startswith("es_review"))  # one selector per set
    assert any(o.startswith("round trip failures (") for o in review.options)
    assert at.get("download_button")
    assert any("Recall@10 =" in t for t in texts(at))
    review.set_value("leaks").run()
    assert not at.exception
    assert at.button(key="es_stop").disabled  # the build finished: nothing to stop


def test_stop_is_disabled_until_a_build_runs(page):
    # Clicked before any build, it wrote an empty set and showed an error naming a temporary folder.
    assert page.button(key="es_stop").disabled
    assert not page.button(key="es_build").disabled


def test_a_build_cut_short_can_be_stopped_and_the_stop_keeps_the_replies_received(page, monkeypatch, tmp_path):
    import ragunc.evalset

    real, asked = ragunc.evalset.build_evalset, []

    def cut_short(*args, **kwargs):
        asked.append(kwargs["max_calls"])
        if len(asked) == 1:  # some replies arrive, then the run ends before the build does, as a Stop click ends it
            real(*args, **{**kwargs, "max_calls": 6})
            st.stop()
        return real(*args, **kwargs)

    monkeypatch.setattr(ragunc.evalset, "build_evalset", cut_short)
    at = page.button(key="es_build").click().run()
    assert not at.exception and not at.button(key="es_stop").disabled  # a build started and has not finished
    at.button(key="es_stop").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert asked == [None, 0]  # the stop asks for nothing more: the set is written from the journal
    assert any("holds the 6 replies received before the stop" in i.value for i in at.info)
    assert not any(str(tmp_path) in t for t in texts(at))  # the page's working folder is no business of the reader
    assert at.button(key="es_stop").disabled


def test_an_endpoint_build_never_shows_the_key(page, tmp_path, monkeypatch):
    canary = f"sk-canary-{uuid.uuid4().hex}"
    monkeypatch.setenv("RAGUNC_LLM_VISITOR_URL", "1")  # the operator lets visitors call their own endpoint
    with ChatServer() as server:
        at = page.run()
        at.radio(key="es_generator").set_value("openai").run()
        at.text_input(key="es_base_url").set_value(server.url)
        at.text_input(key="es_model").set_value("scripted")
        at.text_input(key="es_api_key").set_value(canary)
        at.number_input(key="es_n").set_value(8)
        at.button(key="es_build").click().run()
        sent = {r.authorization for r in server.requests}
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert sent == {f"Bearer {canary}"}
    assert not any(canary in t for t in texts(at))
    assert canary not in str(dict(at.query_params))
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert canary.encode() not in path.read_bytes(), path


def test_an_audit_file_corrects_recall_and_a_bad_one_is_named(page, tmp_path):
    import json

    import pandas as pd

    at = page.button(key="es_build").click().run()
    assert not at.exception and not at.error
    folder = next(tmp_path.glob("ragunc-visitors/*/evalset/sets/*"))
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    answerable = [q for q in questions if q["relevant_doc_ids"]]
    rows = [(q["question_id"], q["relevant_chunk_ids"][0], 1) for q in answerable[:4]]
    rows.append((answerable[0]["question_id"], answerable[0]["relevant_chunk_ids"][0].rpartition("#")[0] + "#999", 1))
    audit = pd.DataFrame(rows, columns=["question_id", "chunk_id", "relevant"]).to_csv(index=False).encode()
    at.file_uploader(key="es_audit").set_value(("audit.csv", audit, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("corrected by the audit" in t for t in texts(at))
    assert any("Three estimates of Recall@10" in chart.proto.spec for chart in at.get("plotly_chart"))
    bad = b"question_id,chunk_id,relevant\nnobody,x#0,1\n"
    at.file_uploader(key="es_audit").set_value(("bad.csv", bad, "text/csv")).run()
    assert not at.exception
    assert any("naming no answerable question" in e.value for e in at.error)
    assert at.number_input(key="es_k")  # the controls stay
