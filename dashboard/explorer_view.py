"""The explorer's K-dependent view as one Streamlit component drawn in the browser (``components/explorer.js``).

The component receives the view of every K once (:func:`ragunc.present.explorer.explorer_view`, published as
a JSON file the browser fetches once and keeps, so a rerun re-sends only its name) and
redraws from it on every move of its K, B and R controls without asking the server; on release it
sends the values back (``result.k``, ``result.boot``, ``result.reps``), and the server answers with
the bootstrap's parts for that setting (:func:`ragunc.present.explorer.bootstrap_answer`).

Its script and Plotly.js (npm's ``plotly.js-basic-dist-min``, pinned in ``plotly/package.json`` beside its
licence) are served by Streamlit's component asset route, ``/_stcore/bidi-components/<name>/<file>``, so
nothing is fetched from the internet.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit.components.v2.get_bidi_component_manager import get_bidi_component_manager
from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

NAME = "ragunc.explorer"
KEY = "explorer"  # its key in st.session_state
VIEWS = Path(tempfile.mkdtemp(prefix="ragunc-views-"))  # the published views, one JSON file each
VIEWS_KEPT = 64
PLOTLY = Path(__file__).resolve().parent / "plotly"  # the pinned npm package's files
# (package root, component, asset folder under that root): the explorer's files, Plotly.js, the views
_ASSETS = (
    (Path(__file__).resolve().parent, "explorer", "components"),
    (PLOTLY.parent, "plotly", PLOTLY.name),
    (VIEWS.parent, "views", VIEWS.name),
)
_published: OrderedDict[int, tuple[dict, str]] = OrderedDict()  # id(view) -> (the view, its file's name)
_lock = threading.Lock()


def publish(view: dict) -> str:
    """The name of ``view``'s JSON file among the served views, written once per view (named by its content)."""
    with _lock:
        if id(view) in _published:
            _published.move_to_end(id(view))
            return _published[id(view)][1]
    text = json.dumps(view, allow_nan=False, separators=(",", ":"))
    name = hashlib.sha256(text.encode()).hexdigest()[:24] + ".json"
    path = VIEWS / name
    if not path.exists():
        partial = path.with_suffix(".part")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)  # whole or absent: a browser never fetches half a view
    with _lock:
        _published[id(view)] = (view, name)  # holding the view keeps its id from being reused
        while len(_published) > VIEWS_KEPT:
            _, (_, old) = _published.popitem(last=False)
            if old not in {n for _, n in _published.values()}:
                (VIEWS / old).unlink(missing_ok=True)
    return name


def _register_assets() -> None:
    # The asset folders are declared on the running server's component manager (a package's
    # pyproject.toml would declare them for an installed component); AppTest starts a new one per test.
    manager = get_bidi_component_manager()
    for root, component, folder in _ASSETS:
        if manager.get_component_asset_root(f"ragunc.{component}") is None:
            manager.register_from_manifest(
                ComponentManifest(name="ragunc", version="1", components=[ComponentConfig(component, folder)]), root
            )


CONTROLS = ("k", "boot", "reps")


def explorer(
    view: dict, answer: dict | None, *, k: int, boot: int, reps: int, on_change: Callable[[str], None], key: str = KEY
):
    """Mount the explorer on ``view``, with the server's ``answer`` for (``k``, ``boot``, ``reps``) when it has one.

    ``on_change(name)`` runs, before the rerun, when the reader releases the control ``name`` (one of
    :data:`CONTROLS`); ``st.session_state[key][name]`` then holds its value.
    """
    _register_assets()
    mount = st.components.v2.component(NAME, js="explorer.js", css="explorer.css", isolate_styles=False)
    values = {"k": k, "boot": boot, "reps": reps}
    callbacks = {f"on_{name}_change": functools.partial(on_change, name) for name in CONTROLS}
    data = {"view": publish(view), "answer": answer, **values}
    return mount(key=key, data=data, default=values, **callbacks)
