"""Where the evaluation-set page keeps a visitor's work: their uploaded corpora and audits, one folder per set.

Everything sits in the visitor's own folder (:func:`dashboard.operator.visitor_folder`).  A set's folder
is named by a digest of its corpus and settings, so Build with the same ones resumes there from the
journal of replies already received.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from ragunc.data.reader import ReadLimits, check_limits

from . import operator
from .sources import named_buffer, saved_upload

WORK = "evalset"
ENDPOINT_ONLY = ("concurrency", "max_calls")  # how the calls are made, not what the set is: not in its name


def digest(payload) -> str:
    """A short, stable digest of a JSON-able ``payload``."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def set_folder(corpus_id: str, settings: Mapping) -> Path:
    """The folder of the set ``settings`` build from the corpus ``corpus_id``."""
    named = {k: v for k, v in settings.items() if k not in ENDPOINT_ONLY}
    return operator.visitor_folder(WORK) / "sets" / digest({"corpus": corpus_id, **named})


def save_upload(name: str, data: bytes, limits: ReadLimits, kind: str) -> tuple[Path, str]:
    """An upload checked against ``limits`` before its bytes are written or read whole, then kept in the
    visitor's ``kind`` folder (``corpora``, ``audits``): its path and digest.  A :class:`DataError` says what
    limit it passes."""
    check_limits(named_buffer(name, data), limits)
    return saved_upload(name, data, operator.visitor_folder(WORK) / kind)
