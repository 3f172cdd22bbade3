"""The web server ``streamlit run app.py`` starts: Streamlit's own, with each page's URL telling the browser
where that server is.

Streamlit's browser code finds its server from the address it was opened at: at ``/design_effect`` it
first asks ``/design_effect/_stcore/health`` and ``/design_effect/_stcore/host-config``, which answer 404
(two errors in the browser's console, and a retry 100 ms later), and only then ``/``.  It asks
just one place when the page names it in ``window.__streamlit.BACKEND_BASE_URL`` before Streamlit's script
runs.  So each page's own URL is answered here with Streamlit's ``index.html`` carrying that setting:
the folder the page's URL is in, taken from the browser's address, so a proxy's path prefix is kept.
The app's root needs no setting (Streamlit asks the root itself first).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from streamlit import config, file_util
from streamlit.url_util import make_url_path

SERVER_AT_PAGE_FOLDER = '<script>window.__streamlit = {BACKEND_BASE_URL: new URL(".", location.href).href}</script>'


@cache
def page_html() -> str:
    """Streamlit's ``index.html`` (the one its server sends for every page) naming the server's base URL."""
    index = Path(file_util.get_static_dir()) / "index.html"
    return index.read_text(encoding="utf-8").replace("<head>", f"<head>{SERVER_AT_PAGE_FOLDER}", 1)


async def _page(_request: Request) -> HTMLResponse:
    return HTMLResponse(page_html(), headers={"Cache-Control": "no-cache"})  # as Streamlit sends its index.html


def page_routes(url_paths: Iterable[str]) -> list[Route]:
    """The route of each page's own URL (its ``url_path``, under ``server.baseUrlPath``), for ``st.App``."""
    base = config.get_option("server.baseUrlPath")
    return [Route(make_url_path(base, path), _page) for path in url_paths]
