"""app.py's routed pages, read from its source: importing app.py would build its server."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"


def routed_pages() -> tuple[tuple[str, str, str], ...]:
    """app.py's ``PAGES``: (file in pages/, title, icon) of each page, the default first."""
    tree = ast.parse(APP.read_text(encoding="utf-8"))
    return next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets)
    )
