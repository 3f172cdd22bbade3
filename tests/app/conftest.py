"""Shared fixtures of the AppTests: the app or one page opened as from a link, clustered chunk rows, an upload,
a tile's value."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
PAGES = ROOT / "pages"
TIMEOUT_S = 120


@pytest.fixture()
def open_app() -> Callable[..., AppTest]:
    """``open_app(page=None, **params)``: the app opened as from a link, on ``page`` (a file in pages/)."""

    def open_app(page: str | None = None, **params: str) -> AppTest:
        # Run app.py from a script with no pages/ folder beside it: AppTest resets Streamlit's
        # "pages directory" flag before every run, which would run later reruns as v1 pages.
        at = AppTest.from_string(
            f"import runpy; runpy.run_path({str(APP)!r}, run_name='__main__')", default_timeout=TIMEOUT_S
        )
        for key, value in params.items():
            at.query_params[key] = value
        if page is not None:
            at.switch_page(str(PAGES / page))
        return at.run()

    return open_app


@pytest.fixture()
def open_page() -> Callable[..., AppTest]:
    """``open_page(page, **params)``: one page run on its own (as ``streamlit run pages/<page>`` would)."""

    def open_page(page: str, **params: str) -> AppTest:
        at = AppTest.from_file(str(PAGES / page), default_timeout=TIMEOUT_S)
        for key, value in params.items():
            at.query_params[key] = value
        return at.run()

    return open_page


@pytest.fixture()
def small_synthetic() -> dict[str, str]:
    """URL parameters of a small synthetic population and short simulations."""
    return {"source": "synthetic", "syn_docs": "150", "reps": "200", "boot": "200"}


def _chunk_rows(n_docs: int = 80, seed: int = 0, y: str = "y", configs: dict | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 30, n_docs)
    rate = rng.beta(0.4, 1.6, n_docs)
    frames = []
    for config, factor in (configs or {None: 1}).items():
        m = np.maximum(1, np.rint(size * factor).astype(int))
        doc = np.repeat([f"doc{i}" for i in range(n_docs)], m)
        hits = rng.random(m.sum()) < np.repeat(rate, m)
        frame = pd.DataFrame({"doc_id": doc, "chunk_id": np.arange(m.sum()), y: hits.astype(int)})
        if config is not None:
            frame["config"] = config
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture()
def chunk_rows() -> Callable[..., pd.DataFrame]:
    """``chunk_rows(n_docs=80, seed=0, y="y", configs=None)``: clustered 0/1 chunk results; with ``configs``
    (name -> chunks-per-document factor), one block per config."""
    return _chunk_rows


@pytest.fixture()
def upload() -> Callable[..., AppTest]:
    """``upload(at, frame, name="results.csv")``: the frame uploaded as CSV in the sidebar, and the app rerun."""

    def upload(at: AppTest, frame: pd.DataFrame, name: str = "results.csv") -> AppTest:
        at.file_uploader(key="upload_file").set_value((name, frame.to_csv(index=False).encode(), "text/csv"))
        return at.run()

    return upload


@pytest.fixture()
def tile() -> Callable[[AppTest, str], str]:
    """``tile(at, label)``: the value shown by the metric tile ``label``."""
    return lambda at, label: next(m.value for m in at.metric if m.label == label)


@pytest.fixture()
def switch_page() -> Callable[[AppTest, str], AppTest]:
    """``switch_page(at, page)``: the app switched to ``page`` (a file in pages/) as by its sidebar link, and rerun."""
    return lambda at, page: at.switch_page(str(PAGES / page)).run()


@pytest.fixture()
def explorer_text() -> Callable[[AppTest, str], str]:
    """``explorer_text(at, slot)``: what the explorer component shows in ``slot`` at the page's K (its view
    read as the browser fetches it)."""
    from dashboard import explorer_view

    def text(at: AppTest, slot: str) -> str:
        (component,) = [e for e in at.get("bidi_component") if e.proto.component_name == "ragunc.explorer"]
        data = json.loads(component.proto.json)
        view = json.loads((explorer_view.VIEWS / data["view"]).read_text(encoding="utf-8"))
        return view["rows"][data["k"] - view["k"]["min"]][view["slots"].index(slot)]

    return text
