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


# ------------------------------------------------------------------ the server's files


def positional_page() -> AppTest:
    return AppTest.from_file(str(PAGES / "positional_bias.py"), default_timeout=120).run()


def test_no_path_a_visitor_types_reaches_the_file_system(canary):
    at = positional_page()
    assert not at.exception
    assert not at.text_input  # neither a corpus path nor an encoder folder can be typed
    assert at.radio(key="pb_corpus").options == [
        "Python standard library docs (embedded)",
        "Upload a corpus (.jsonl / .csv)",
    ]
    assert at.selectbox(key="pb_model").options == ["all-MiniLM-L6-v2, packaged"]


def test_the_operators_folders_are_chosen_by_name_and_their_paths_never_shown(canary, monkeypatch, tmp_path):
    private = tmp_path / "private"
    (private / "notes").mkdir(parents=True)
    (private / "notes" / "a.txt").write_text("only one document")  # a corpus needs two: the loader refuses it
    models = tmp_path / "models" / "tiny-encoder"
    models.mkdir(parents=True)
    monkeypatch.setenv("RAGUNC_CORPUS_FOLDERS", str(private))
    monkeypatch.setenv("RAGUNC_ENCODER_FOLDERS", str(models))
    at = positional_page()
    assert at.selectbox(key="pb_model").options == ["all-MiniLM-L6-v2, packaged", "tiny-encoder"]
    at.radio(key="pb_corpus").set_value("server").run()
    assert at.selectbox(key="pb_server_corpus").options == ["private"]
    assert not at.exception
    assert at.error and str(tmp_path) not in shown(at), shown(at)


def test_malformed_uploads_show_no_temporary_path(canary, open_app, tmp_path):
    import io
    import zipfile

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a.txt", "   ")
        z.writestr("b.txt", " ")
    cases = [
        ("upload", "upload_file", "r.jsonl", b'{"doc_id": "a", "y": 1}\n{"doc_id": "b", "y": \n'),
        ("upload", "upload_file", "r.parquet", b"PAR1 not parquet PAR1"),
        ("corpus", "corpus_file", "c.zip", archive.getvalue()),
        ("corpus", "corpus_file", "c.jsonl", b'{"doc_id": "a"}\n{"doc_id": "b"}\n'),
    ]
    for source, key, name, data in cases:
        at = open_app(source=source, sim="0")
        at.file_uploader(key=key).set_value((name, data, "application/octet-stream")).run()
        assert not at.exception
        assert at.error, name
        text = shown(at) + "".join(e.value for e in at.sidebar.caption)
        assert tempfile.gettempdir() not in text and "/tmp/" not in text, text


# ------------------------------------------------------------------ uploads


def test_a_gzip_bomb_upload_is_refused_with_a_clear_message(canary, open_app, monkeypatch):
    import gzip

    from dashboard import sources
    from ragunc.data import ReadLimits

    monkeypatch.setattr(sources, "TABLE_LIMITS", ReadLimits(max_bytes=4 * 2**20, max_rows=10**9, max_line_bytes=2**20))
    rows = b"".join(b"doc%d,%d\n" % (i % 997, i % 2) for i in range(40_000))
    data = gzip.compress(b"doc_id,y\n") + gzip.compress(rows) * 200  # valid rows, about 60 MB unpacked
    at = open_app(source="upload", sim="0")
    at.file_uploader(key="upload_file").set_value(("bomb.csv.gz", data, "application/gzip")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "Could not use bomb.csv.gz: unpacks to more than 4 MB, the most this reader takes here"
    ]
    assert at.sidebar.selectbox(key="source")  # the controls stay


def test_every_uploader_states_its_limits(canary, open_app):
    helps = {}
    for source, key in (("upload", "upload_file"), ("corpus", "corpus_file")):
        at = open_app(source=source, sim="0")
        helps[key] = at.file_uploader(key=key).proto.help
    at = evaluation_set_page()
    helps["es_upload"] = at.file_uploader(key="es_upload").proto.help
    at = positional_page()
    at.radio(key="pb_corpus").set_value("upload").run()
    helps["pb_upload"] = at.file_uploader(key="pb_upload").proto.help
    for key, text in helps.items():
        assert "MB per file" in text and "may unpack to at most" in text, (key, text)


# ------------------------------------------------------------------ a link cannot stall the room


def test_a_link_asking_for_a_huge_simulation_runs_within_the_budget(canary, open_app):
    from dashboard import cache, work

    at = open_app(source="synthetic", syn_docs="400", k="300", reps="5000", boot="5000")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("this one runs R =" in c.value for c in at.caption)
    stores, _ = cache._stores()
    runs = [dict(options[1:]) for _, options in stores["ragunc.stats.explore.explore"]]  # ("mapping", *items)
    assert runs and all(o["reps"] * o["boot"] * o["k"] <= work.WORK_BUDGET for o in runs if o["reps"]), runs


def test_a_link_asking_for_a_huge_synthetic_population_gets_one_within_memory(canary, open_app):
    from dashboard import work

    at = open_app(source="synthetic", syn_docs="200000", syn_chunks="500", sim="0")
    assert not at.exception and not at.error, [e.value for e in at.error]
    (note,) = [c.value for c in at.sidebar.caption if "this server generates up to" in c.value]
    assert f"so {work.SYNTHETIC_MAX_CHUNKS // 500:,} documents" in note
