"""Shared helpers of the AppTests: open the app as from a link, build chunk rows, upload, read a tile."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SMALL = {"source": "synthetic", "syn_docs": "150", "reps": "200", "boot": "200"}


def app_test(page: str | None = None, **params) -> AppTest:
    """The app opened as from a link: ``page`` (a file in pages/) with ``params`` in its URL."""
    # Run app.py from a script with no pages/ folder beside it: AppTest resets Streamlit's
    # "pages directory" flag before every run, which would run later reruns as v1 pages.
    at = AppTest.from_string(f"import runpy; runpy.run_path({APP!r}, run_name='__main__')", default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    if page is not None:
        at.switch_page(str(Path(APP).parent / "pages" / page))
    return at.run()


def chunk_rows(n_docs=80, seed=0, y="y", configs=None) -> pd.DataFrame:
    """Clustered 0/1 chunk results; with ``configs`` (name -> chunks-per-document factor), one block per config."""
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


def upload(at: AppTest, frame: pd.DataFrame, name: str = "results.csv") -> AppTest:
    at.file_uploader(key="upload_file").set_value((name, frame.to_csv(index=False).encode(), "text/csv"))
    return at.run()


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


