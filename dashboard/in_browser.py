"""What the app's components drawn in the browser share: their served files and the views they fetch.

A component (``components/<name>.js`` and ``.css``) is mounted inline in the page (no iframe).  Its view,
everything it draws for every value of its controls, is published once as a JSON file the browser fetches
and keeps, so a rerun re-sends only the file's name.  The scripts, Plotly.js (npm's
``plotly.js-basic-dist-min``: scatter, bar and pie traces, pinned in ``plotly/package.json`` beside its
licence) and the views are served by Streamlit's component asset route,
``/_stcore/bidi-components/ragunc.<name>/<file>``, so nothing is fetched from the internet.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

import streamlit as st
from streamlit.components.v2.get_bidi_component_manager import get_bidi_component_manager
from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

COMPONENTS = Path(__file__).resolve().parent / "components"
PLOTLY = Path(__file__).resolve().parent / "plotly"  # the pinned npm package's files
VIEWS = Path(tempfile.mkdtemp(prefix="ragunc-views-"))  # the published views, one JSON file each
VIEWS_KEPT = 64
# (package root, asset folder under that root) of the files every component reads: Plotly.js, the views
_SHARED = {
    "plotly": (PLOTLY.parent, PLOTLY.name),
    "views": (VIEWS.parent, VIEWS.name),
}
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


def component(name: str):
    """The component ``ragunc.<name>`` (``components/<name>.js`` and ``.css``), its files and the shared ones served."""
    # The asset folders are declared on the running server's component manager (a package's
    # pyproject.toml would declare them for an installed component); AppTest starts a new one per test.
    manager = get_bidi_component_manager()
    folders = {name: (COMPONENTS.parent, COMPONENTS.name), **_SHARED}
    for component_name, (root, folder) in folders.items():
        if manager.get_component_asset_root(f"ragunc.{component_name}") is None:
            manager.register_from_manifest(
                ComponentManifest(name="ragunc", version="1", components=[ComponentConfig(component_name, folder)]),
                root,
            )
    return st.components.v2.component(f"ragunc.{name}", js=f"{name}.js", css=f"{name}.css", isolate_styles=False)
