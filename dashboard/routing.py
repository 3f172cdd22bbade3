"""Every page runs under app.py's router, also for a first visitor who opens a deep link.

A ``pages/`` folder beside app.py puts Streamlit (1.67) in its multipage-v1 mode, server-wide, from
start until some run calls ``st.navigation``: until then a link to ``/design_effect`` runs
``pages/design_effect.py`` on its own, without app.py's data sidebar, page titles or URL sync, and
the lower-case v1 menu shows.  So app.py marks each session it routes, and a page that finds its
session unmarked while app.py is the entrypoint turns that mode off (what ``st.navigation`` does
first) and reruns: the rerun executes app.py, whose ``st.navigation`` routes the same URL.
A page run on its own (``streamlit run pages/x.py``, an AppTest of one page) is left alone.

Streamlit serves the default page at ``/`` only: a link to it by its own name (``/uncertainty_explorer``,
as every other page is named) would open a "Page not found" modal. :func:`default_at_its_name` takes
that name for ``/`` before ``st.navigation`` resolves the URL.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

APP = Path(__file__).resolve().parents[1] / "app.py"
ROUTED = "ragunc_routed"  # session state: app.py has routed a run of this session


def entered_through_app() -> None:
    """app.py, every run: this session's pages run under the router."""
    st.session_state[ROUTED] = True


def require_app() -> None:
    """A page, before anything else: rerun through app.py when Streamlit ran this page without it."""
    if ROUTED in st.session_state:
        return
    ctx = get_script_run_ctx()
    if ctx is None or Path(ctx.main_script_path).resolve() != APP:
        return
    PagesManager.uses_pages_directory = False
    st.rerun()


def default_at_its_name(name: str) -> None:
    """app.py, before ``st.navigation``: a request for the default page by its ``name`` is one for ``/``."""
    ctx = get_script_run_ctx()
    if ctx is not None and ctx.pages_manager.intended_page_name == name:
        ctx.pages_manager.set_script_intent("", "")  # no intent: navigation opens the default page
