"""AppTest of the page "Positional bias": instant on the bundled sweep, a clear message without the
positional extra, and a small run of its own with the packaged MiniLM."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import ragunc.positional

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "positional_bias.py")
BUNDLED = ROOT / "sample_data" / "positional_stdlib.json"


def page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=300).run()


def test_the_bundled_sweep_is_shown_without_running_anything():
    at = page()
    assert not at.exception and not at.error
    sweep = ragunc.positional.load_sweep(BUNDLED)
    assert at.title[0].value == "Positional bias"
    assert any("Bundled results" in c.value and "all-MiniLM-L6-v2" in c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Unevenness, stock encoder"] == f"{sweep.reference.metrics['psi']:.3f}"
    assert metrics["Answers cut off by truncation"] == f"{100 * sweep.passages['truncated_share']:.1f}%"
    assert len(at.get("plotly_chart")) == 4
    table = at.dataframe[0].value
    assert len(table) == len(sweep.settings) and table["λ"].iloc[0] == 0.0
    # Another lambda line of the sweep (another basket size) redraws the figures from the same file.
    at.selectbox(key="pb_series").set_value(1).run()
    assert not at.exception
    assert any(m.label.startswith("nDCG@10 change at λ") for m in at.metric)


def test_without_the_extra_the_page_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(ragunc.positional, "extra_missing", lambda: ("torch",))
    at = page()
    assert not at.exception and not at.error
    assert any(ragunc.positional.INSTALL_HINT in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 4  # the bundled results need no torch


def test_a_small_run_replaces_the_bundled_results(tmp_path, monkeypatch):
    if importlib.util.find_spec("torch") is None:
        if os.environ.get("CI"):
            pytest.fail("the positional extra is required under CI")
        pytest.skip("the positional extra is not installed")
    monkeypatch.setenv("RAGUNC_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    words = "socket thread buffer decimal encoding context module class value error path file".split()
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"doc_id": f"d{i}", "text": " ".join(rng.choice(words, 160))}) + "\n" for i in range(12))
    )
    monkeypatch.setenv("RAGUNC_CORPUS_FOLDERS", str(corpus))  # the operator offers it
    at = page()
    at.radio(key="pb_corpus").set_value("server").run()
    at.number_input(key="pb_passages").set_value(10)
    at.slider(key="pb_tokens").set_value((100, 150))
    at.selectbox(key="pb_reps").set_value(500)
    at.button(key="pb_run").click().run()
    assert not at.exception and not at.error
    assert any(
        "Your run" in c.value and "10 passages" in c.value and "from corpus.jsonl" in c.value for c in at.caption
    )
    assert not any(str(tmp_path) in c.value for c in at.caption)
    assert len(at.dataframe[0].value) == 2  # stock and lambda = 0.5
    at.button(key="pb_back").click().run()
    assert any("Bundled results" in c.value for c in at.caption)
