"""The explorer's K-dependent view as one Streamlit component drawn in the browser (``components/explorer.js``).

The component receives the view of every K once (:func:`ragunc.present.explorer.explorer_view`, published as
a JSON file the browser fetches once and keeps, so a rerun re-sends only its name) and
redraws from it on every move of its K, B and R controls without asking the server; on release it
sends the values back (``result.k``, ``result.boot``, ``result.reps``), and the server answers with
the bootstrap's parts for that setting (:func:`ragunc.present.explorer.bootstrap_answer`).

Its script, Plotly.js and the views are served as :mod:`dashboard.in_browser` says.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .in_browser import VIEWS, component, publish

KEY = "explorer"  # its key in st.session_state
__all__ = ["KEY", "VIEWS", "explorer"]  # VIEWS: where the tests read a published view

CONTROLS = ("k", "boot", "reps")


def explorer(
    view: dict, answer: dict | None, *, k: int, boot: int, reps: int, on_change: Callable[[str], None], key: str = KEY
):
    """Mount the explorer on ``view``, with the server's ``answer`` for (``k``, ``boot``, ``reps``) when it has one.

    ``on_change(name)`` runs, before the rerun, when the reader releases the control ``name`` (one of
    :data:`CONTROLS`); ``st.session_state[key][name]`` then holds its value.
    """
    mount = component("explorer")
    values = {"k": k, "boot": boot, "reps": reps}
    callbacks = {f"on_{name}_change": functools.partial(on_change, name) for name in CONTROLS}
    data = {"view": publish(view), "answer": answer, **values}
    return mount(key=key, data=data, default=values, **callbacks)
