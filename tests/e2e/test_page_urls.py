"""Each page opened by its own URL, as a shared link opens it: nothing the browser asks for fails, nothing
is logged as an error, and nothing is asked from outside this machine."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_browser import (  # noqa: F401 (fixtures)
    EXPLORER,
    SETTLED,
    TIMEOUT_MS,
    _wait_idle,
    app_url,
    browser,
)
from tests.support.app_pages import routed_pages

NAV = '[data-testid="stSidebarNav"]'
LINK_CONTROLS = "source=sample"  # a control every page binds to the URL (the sidebar's data source)


def _open(page, url: str) -> None:
    """Open ``url`` and wait until the app has finished running (the menu is there once app.py's router ran;
    a projector page keeps it in a collapsed sidebar)."""
    page.goto(url, timeout=TIMEOUT_MS)
    page.wait_for_selector(NAV, state="attached", timeout=TIMEOUT_MS)
    _wait_idle(page, '[data-testid="stMain"]')
    if page.locator(EXPLORER).count():  # its component, Plotly.js and view come after the run
        page.wait_for_selector(SETTLED, timeout=TIMEOUT_MS)


def _page_urls(browser, app_url) -> list[str]:  # noqa: F811
    """The root, every page of the app's menu and the default page by name, each with and without controls."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    _open(page, app_url)
    menu = page.locator(f"{NAV} a").evaluate_all("links => links.map((a) => a.href)")
    page.close()
    assert len(menu) >= 2, menu
    urls = [f"{app_url}/", *menu, f"{app_url}/{Path(routed_pages()[0][0]).stem}"]
    return list(dict.fromkeys(url for plain in urls for url in (plain, f"{plain}?{LINK_CONTROLS}")))


def _watch(page) -> dict[str, list[str]]:
    """What ``page`` asks for (every URL), what fails (responses of 400 and more) and what it logs as an error."""
    seen = {"asked": [], "failed": [], "errors": []}
    page.on("request", lambda request: seen["asked"].append(request.url))
    page.on("response", lambda r: r.status >= 400 and seen["failed"].append(f"{r.status} {r.url}"))
    page.on("console", lambda m: m.type == "error" and seen["errors"].append(f"{m.text} ({m.location['url']})"))
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    return seen


def test_every_page_opened_by_its_own_url_asks_nothing_that_fails_or_leaves_the_machine(app_url, browser):  # noqa: F811
    # Outside: a site that must not tell a third party who visits it, and a machine offline would wait on it
    # (the page icon once came from Google's font server).
    local = (app_url, "data:", "blob:", "about:")
    problems = {}
    for url in _page_urls(browser, app_url):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        seen = _watch(page)
        _open(page, url)
        page.wait_for_load_state("networkidle", timeout=TIMEOUT_MS)
        assert url in seen["asked"]  # the watch sees the page's own requests
        outside = [asked for asked in seen["asked"] if not asked.startswith(local)]
        if page.locator('[data-testid="stException"]').count():
            seen["errors"].append("an exception on the page")
        if seen["failed"] or seen["errors"] or outside:
            problems[url] = {"responses >= 400": seen["failed"], "console errors": seen["errors"], "outside": outside}
        page.close()
    assert problems == {}
