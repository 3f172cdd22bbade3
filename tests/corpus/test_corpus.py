"""Corpus loaders, bad input, and the stdlib corpus (built from source, never imported)."""

from __future__ import annotations

import gzip
import json
import sys

import pandas as pd
import pytest

from ragunc.corpus.loaders import html_to_text, load_corpus, stdlib_corpus
from ragunc.corpus.model import corpus_from_frame
from ragunc.corpus.stdlib import (
    STDLIB_SKIP,
    build_stdlib_frame,
    stdlib_cache_path,
    stdlib_modules,
)


def test_folder_of_txt_md_html(tmp_path):
    (tmp_path / "guides").mkdir()
    (tmp_path / "a.txt").write_text("plain text here")
    (tmp_path / "guides" / "b.md").write_text("# Title\n\nsome *markdown*")
    (tmp_path / "c.html").write_text(
        "<html><head><title>T</title><style>p{}</style></head><body><p>Hello <b>world</b></p>"
        "<script>var x = 1;</script><div>second&amp;block</div></body></html>"
    )
    (tmp_path / "ignored.bin").write_bytes(b"\x00\x01")
    corpus = load_corpus(tmp_path)
    assert corpus.doc_ids == ("a.txt", "c.html", "guides/b.md")
    assert corpus.doc_types == ("default", "default", "guides")
    assert corpus.texts[1] == "Hello world\nsecond&block"


def test_html_to_text_drops_invisible_parts():
    text = html_to_text("<head><script>x()</script></head><p>a</p><template>t</template><li>b  c</li>")
    assert text == "a\nb c"


def test_non_utf8_is_replaced_and_warned(tmp_path):
    (tmp_path / "good.txt").write_text("fine")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9 au lait")
    with pytest.warns(UnicodeWarning, match="1 file.*not valid UTF-8.*bad.txt"):
        corpus = load_corpus(tmp_path)
    assert corpus.texts[0] == "caf\ufffd au lait"
    assert corpus.n_decode_replaced == 1


def test_empty_documents_are_skipped_and_counted():
    frame = pd.DataFrame({"doc_id": ["a", "b", "c", "d"], "text": ["x y", "   \n", None, "z"]})
    corpus = corpus_from_frame(frame)
    assert corpus.doc_ids == ("a", "d") and corpus.n_empty_skipped == 2
    assert corpus.to_dict()["n_words"] == 3


def test_duplicate_doc_id_is_named():
    frame = pd.DataFrame({"doc_id": ["a", "b", "a", "c", "c"], "text": list("vwxyz")})
    with pytest.raises(ValueError, match=r"duplicate doc_id 'a', 'c'"):
        corpus_from_frame(frame, source="docs.csv")


def test_fewer_than_two_documents():
    with pytest.raises(ValueError, match="at least two non-empty documents, got 1 \\(1 empty skipped\\)"):
        corpus_from_frame(pd.DataFrame({"doc_id": ["a", "b"], "text": ["only", ""]}))


def test_missing_doc_id_names_the_rows():
    frame = pd.DataFrame({"doc_id": ["a", None, "c", None], "text": list("wxyz")}, index=[10, 11, 12, 13])
    with pytest.raises(ValueError, match=r"column 'doc_id' is empty in rows 2, 4"):
        corpus_from_frame(frame)


def test_blank_doc_id_in_a_csv_names_the_row(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text("doc_id,text\na,one two\n,three four\n  ,five six\nd,seven\n")
    with pytest.raises(ValueError, match=r"column 'doc_id' is empty in rows 2, 3"):
        load_corpus(path)


def test_blank_doc_type_is_default_so_results_load(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text("doc_id,text,doc_type\na,one two,law\nb,three four, \nc,five six,\n")
    assert load_corpus(path).doc_types == ("law", "default", "default")
    frame = pd.DataFrame({"doc_id": ["a", "b"], "text": ["x y", "z w"], "doc_type": [None, ""]})
    assert corpus_from_frame(frame).doc_types == ("default", "default")


def test_missing_column_is_named():
    with pytest.raises(ValueError, match="missing column 'text'"):
        corpus_from_frame(pd.DataFrame({"doc_id": ["a", "b"], "body": ["x", "y"]}))


def test_jsonl_csv_and_gzip(tmp_path):
    rows = [{"doc_id": "1", "text": "one two", "doc_type": "faq"}, {"doc_id": "2", "text": "three"}]
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    with gzip.open(tmp_path / "c.jsonl.gz", "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in rows))
    pd.DataFrame(rows).to_csv(tmp_path / "c.csv", index=False)
    for name in ("c.jsonl", "c.jsonl.gz", "c.csv"):
        corpus = load_corpus(tmp_path / name)
        assert corpus.doc_ids == ("1", "2") and corpus.texts == ("one two", "three")
        assert corpus.doc_types[0] == "faq"
    (tmp_path / "broken.jsonl").write_text('{"doc_id": 1, "text": "a"}\n{oops\n')
    with pytest.raises(ValueError, match="line 2 is not valid JSON"):
        load_corpus(tmp_path / "broken.jsonl")
    with pytest.raises(FileNotFoundError, match="no corpus at"):
        load_corpus(tmp_path / "missing.jsonl")


def test_stdlib_modules_skip_side_effects_and_tests():
    names = {name for name, _ in stdlib_modules()}
    assert {"json", "json.decoder", "email.mime.text", "_pydecimal", "asyncio.tasks"} <= names
    for name in names:
        parts = set(name.split("."))
        assert not parts & STDLIB_SKIP, name
        assert not name.endswith("__main__")
    assert not {"antigravity", "this", "tkinter", "idlelib.run", "test.support"} & names


def test_stdlib_builder_reads_source_without_running_it(tmp_path):
    root = tmp_path / "lib"
    (root / "pkg").mkdir(parents=True)
    marker = tmp_path / "ran"
    (root / "boom.py").write_text(
        f'"""Boom module.\n\nDoes things."""\nopen({str(marker)!r}, "w").write("x")\n'
        "class Base:\n    def helper(self, x):\n        'Help with x.'\n"
        "class Child(Base, Exception):\n    'A child.'\n    def own(self, *, flag=True) -> int:\n        'Own.'\n"
        "def public(a, b=2):\n    'Add.'\ndef _private():\n    'Hidden.'\nLIMIT = 10\n"
    )
    (root / "pkg" / "__init__.py").write_text('"""A package."""\nfrom .core import Thing\n')
    (root / "pkg" / "core.py").write_text("class Thing(dict):\n    'A thing.'\n")
    (root / "antigravity.py").write_text("import webbrowser\nwebbrowser.open('x')\n")
    frame = build_stdlib_frame(root)
    assert not marker.exists()
    assert set(frame["doc_id"]) == {"boom", "pkg", "pkg.core"}
    text = frame.set_index("doc_id").loc["boom", "text"]
    for piece in (
        "NAME\n    boom - Boom module.",
        "class Child(Base, Exception)",
        "own(self, *, flag=True) -> int",
        "Methods inherited from boom.Base:",
        "helper(self, x)",
        "Help with x.",
        "Methods inherited from builtins.BaseException:",
        "with_traceback",
        "FUNCTIONS\n    public(a, b=2)\n        Add.",
        "DATA\n    LIMIT = 10",
    ):
        assert piece in text, piece
    assert "_private" not in text
    thing = frame.set_index("doc_id").loc["pkg.core"]
    assert thing["doc_type"] == "pkg" and "Methods inherited from builtins.dict:" in thing["text"]


def test_stdlib_corpus_is_cached_by_python_version(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGUNC_CACHE_DIR", str(tmp_path))
    modules_before = set(sys.modules)
    built = stdlib_corpus()
    path = stdlib_cache_path()
    assert path.parent == tmp_path and f"py{sys.version_info[0]}.{sys.version_info[1]}" in path.name
    assert not {"antigravity", "this", "tkinter"} & (set(sys.modules) - modules_before)
    assert len(built) > 300 and built.n_words > 300_000
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
    assert stdlib_corpus() == built
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setattr("ragunc.corpus.stdlib.build_stdlib_frame", lambda: built.to_frame())
    with pytest.warns(RuntimeWarning, match="could not cache the stdlib corpus"):
        assert stdlib_corpus(cache_dir=blocked) == built
    doc_types = set(built.doc_types)
    assert {"email", "asyncio", "numeric", "topics", "text"} <= doc_types
