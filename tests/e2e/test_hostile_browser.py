"""A hostile visitor in a real browser: the operator's key, endpoint and folders stay on the server.

The server runs with a canary key in the operator's environment and an operator endpoint that is a
listener on 127.0.0.1; whatever the visitor opens, the page holds neither, offers no box for a URL or
a server path, and the listener is sent nothing.
"""

from __future__ import annotations

import uuid

from tests.e2e.test_browser import TIMEOUT_MS, _served_app, _wait_idle, browser  # noqa: F401 (fixture)
from tests.support.chat_server import ChatServer


def _text_boxes(page) -> list[str]:
    return [label.lower() for label in page.locator('[data-testid="stTextInput"] label').all_inner_texts()]


def test_a_visitor_meets_no_key_no_endpoint_box_and_no_server_path(browser, monkeypatch):  # noqa: F811
    key = f"sk-canary-{uuid.uuid4().hex}"
    with ChatServer() as listener:
        for variable in ("OPENAI_API_KEY", "RAGUNC_LLM_API_KEY"):
            monkeypatch.setenv(variable, key)
        monkeypatch.setenv("RAGUNC_LLM_BASE_URL", listener.url)
        monkeypatch.setenv("RAGUNC_LLM_MODEL", "scripted")
        monkeypatch.delenv("RAGUNC_LLM_VISITOR_URL", raising=False)
        with _served_app() as url:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/evaluation_set", timeout=TIMEOUT_MS)
            _wait_idle(page, '[data-testid="stNumberInput"]')
            page.get_by_text("The server's endpoint (scripted)").click()
            page.wait_for_timeout(1500)
            _wait_idle(page, '[data-testid="stNumberInput"]')
            html = page.content()
            assert key not in html and listener.url not in html
            assert not any(word in box for box in _text_boxes(page) for word in ("url", "key")), _text_boxes(page)

            page.goto(f"{url}/positional_bias", timeout=TIMEOUT_MS)
            _wait_idle(page, '[data-testid="stMetric"]')
            assert not any(word in box for box in _text_boxes(page) for word in ("folder", "path", "file")), (
                _text_boxes(page)
            )
            assert key not in page.content()
            page.close()
    assert listener.requests == []  # nothing was sent to the operator's endpoint by looking
