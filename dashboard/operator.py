"""What the operator of the dashboard allows its visitors: one place, environment variables read at each run.

A visitor chooses among what is listed here and types nothing the server acts on otherwise:

``RAGUNC_CORPUS_FOLDERS``
    Folders (or corpus files) a page may read a corpus from, separated by ``os.pathsep`` (``:``).
    A visitor picks one by its name (the last part of the path); unset, only uploads and the
    bundled corpora.
``RAGUNC_ENCODER_FOLDERS``
    Encoder folders (sentence-transformers layout) the Positional bias page may load, the same way;
    unset, only the packaged all-MiniLM-L6-v2.
``RAGUNC_LLM_BASE_URL``, ``RAGUNC_LLM_MODEL``, ``RAGUNC_LLM_API_KEY``
    The OpenAI-compatible endpoint the Evaluation set page may call, its model and its key (the key
    is sent to that base URL only, and never shown, downloaded or logged). Unset model: no endpoint.
``RAGUNC_LLM_VISITOR_URL``
    ``1``: a visitor may also type a base URL, a model and a key of their own; the operator's key is
    never sent there.

The README's "Sharing the dashboard" section says the same for the operator.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

CORPUS_FOLDERS = "RAGUNC_CORPUS_FOLDERS"
ENCODER_FOLDERS = "RAGUNC_ENCODER_FOLDERS"
LLM_BASE_URL = "RAGUNC_LLM_BASE_URL"
LLM_MODEL = "RAGUNC_LLM_MODEL"
LLM_API_KEY = "RAGUNC_LLM_API_KEY"
LLM_VISITOR_URL = "RAGUNC_LLM_VISITOR_URL"
_VISITOR = "_ragunc_visitor"  # session state: this visitor's id, naming their working folder


@dataclass(frozen=True)
class Endpoint:
    """The operator's LLM endpoint; ``repr`` leaves the key out (a traceback or a log never prints it)."""

    model: str
    base_url: str | None
    api_key: str | None

    def __repr__(self) -> str:
        return f"Endpoint(model={self.model!r})"


def _listed(variable: str) -> dict[str, Path]:
    """The operator's paths in ``variable``, by the name a visitor sees (the last part; a repeat gets a suffix)."""
    named: dict[str, Path] = {}
    for entry in os.environ.get(variable, "").split(os.pathsep):
        if not entry.strip():
            continue
        path = Path(entry.strip()).expanduser()
        name, n = path.name or str(path), 2
        while name in named:
            name, n = f"{path.name} ({n})", n + 1
        named[name] = path
    return named


def corpus_folders() -> dict[str, Path]:
    """Corpus folders or files the operator allows, by name."""
    return _listed(CORPUS_FOLDERS)


def encoder_folders() -> dict[str, Path]:
    """Encoder folders the operator allows, by name."""
    return _listed(ENCODER_FOLDERS)


def named(message: str) -> str:
    """``message`` with each path the operator listed replaced by the name a visitor knows it by."""
    text = str(message)
    for name, path in sorted({**corpus_folders(), **encoder_folders()}.items(), key=lambda i: -len(str(i[1]))):
        text = text.replace(str(path), name)
    return text


def endpoint() -> Endpoint | None:
    """The operator's LLM endpoint, or None when the operator set no model."""
    model = os.environ.get(LLM_MODEL, "").strip()
    if not model:
        return None
    return Endpoint(
        model=model,
        base_url=os.environ.get(LLM_BASE_URL, "").strip() or None,
        api_key=os.environ.get(LLM_API_KEY) or None,
    )


def visitor_endpoints() -> bool:
    """Whether a visitor may type an endpoint of their own (called with their key, never the operator's)."""
    return os.environ.get(LLM_VISITOR_URL, "").strip().lower() in ("1", "true", "yes")


def visitor_folder(name: str) -> Path:
    """This visitor's own working folder ``name`` (created): what one session writes, no other reads."""
    visitor = st.session_state.setdefault(_VISITOR, uuid.uuid4().hex)
    folder = Path(tempfile.gettempdir()) / "ragunc-visitors" / visitor / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
