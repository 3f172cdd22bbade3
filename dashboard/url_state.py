"""Controls bound to the URL: a shared link (``?k=13&level=0.9``) reproduces the view it was copied from.

``bind`` gives a widget its key, reading ``?key=`` on first load and normalising the value on every run;
``sync_url`` writes every bound control back into the URL at the end of a run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import streamlit as st

_BOUND = "_ragunc_bound_keys"
_KEPT = "_ragunc_kept_values"  # last value of every bound control, kept while its page is not shown


def bind(key: str, default, *, parse: Callable[[str], object] = str, fix: Callable | None = None) -> str:
    """Bind a widget key to ``?key=`` in the URL: read on first load, normalised every run.

    ``fix`` maps a value to a valid one for this run (clamp to the slider's range,
    fall back when an option disappeared); write the URL back with :func:`sync_url`.
    """
    kept = st.session_state.get(_KEPT, {})
    if key in st.session_state:
        value = st.session_state[key]
    elif key in kept:  # the widget was on another page: Streamlit dropped its state meanwhile
        value = kept[key]
    else:
        value = default
        raw = st.query_params.get(key)
        if raw is not None:
            try:
                value = parse(raw)
            except (TypeError, ValueError):
                value = default
    # Re-assigning every run keeps the value when another page's widget shares the key.
    st.session_state[key] = fix(value) if fix is not None else value
    st.session_state.setdefault(_BOUND, {})[key] = True
    return key


def forget(*keys: str) -> None:
    """Drop bound controls' values (state, kept value and URL) so their defaults apply on the next run.

    For controls whose default depends on other input, e.g. as an ``on_change`` of the data they read.
    """
    kept = st.session_state.get(_KEPT, {})
    for key in keys:
        st.session_state.pop(key, None)
        kept.pop(key, None)
        if key in st.query_params:
            del st.query_params[key]


def new_run() -> None:
    """Forget the previous run's bound keys (``app.py`` calls this first, so page switches start clean)."""
    st.session_state[_BOUND] = {}


def sync_url() -> None:
    """Write every bound control's current value into the URL (only those that changed)."""
    kept = st.session_state.setdefault(_KEPT, {})
    for key in st.session_state.get(_BOUND, {}):
        if key in st.session_state:
            kept[key] = st.session_state[key]
            value = _url_text(st.session_state[key])
            if st.query_params.get(key) != value:
                st.query_params[key] = value


def stop(message: str | None = None) -> NoReturn:
    """End the page's run here, after showing ``message`` as an error: the URL still gets the controls."""
    if message is not None:
        st.error(message)
    sync_url()
    st.stop()


def _url_text(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def parse_bool(raw: str) -> bool:
    return raw.lower() in ("1", "true", "yes", "on")


def clamp(low, high) -> Callable:
    """A ``fix`` that keeps a number inside [low, high]."""
    return lambda v: min(max(v, low), high)


def one_of(options, default) -> Callable:
    """A ``fix`` that falls back to ``default`` when the value is not an option."""
    return lambda v: v if v in options else default
