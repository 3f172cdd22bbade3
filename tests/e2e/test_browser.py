"""Real browser: `streamlit run app.py` in headless Debian chromium driven by Playwright.

Skipped with a reason when chromium or Playwright is missing, except under CI=true, where that is a
failure (tests/support/browser.py).  Never downloads a browser.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.browser import launched_chromium, require_chromium

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
TIMEOUT_MS = 90_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _served_app():
    """``streamlit run app.py`` on a free loopback port; yields its URL once healthy."""
    require_chromium()
    port = _free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / f"streamlit-{port}.log", "w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start; see {log.name}")
            time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def app_url():
    with _served_app() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as chromium:
        yield chromium


EXPLORER = '[data-testid="ragunc-explorer"]'
SETTLED = f'{EXPLORER}[data-pending="0"]'  # the explorer, every part drawn for the K on its control


def _wait_idle(page, ready: str = f'[data-testid="stMetric"], {SETTLED}') -> None:
    """Wait until the app has finished running (``ready`` shown, then no "Running..." status widget for a while)."""
    page.wait_for_selector(ready, timeout=TIMEOUT_MS)
    quiet_since = None
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        running = page.locator('[data-testid="stStatusWidget"]').filter(has_text="Running").count() > 0
        if running:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 1.5:
            return
        page.wait_for_timeout(150)
    raise AssertionError("the app kept running")


def _screenshot(page, name: str) -> None:
    # Streamlit scrolls inside its main container, so grow the viewport to capture the whole page.
    height = page.evaluate("document.querySelector('[data-testid=stMain]')?.scrollHeight || 1000")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 6000)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / name))


def _k_control(page):
    """The explorer's K control: a range input drawn by the explorer component itself."""
    return page.locator(f'{EXPLORER} input[type="range"][name="k"]')


def _move_k(page, steps: int) -> int:
    """Move K ``steps`` to the right with the arrow keys; return the new K once every part is drawn for it."""
    target = int(_k_control(page).input_value()) + steps
    _k_control(page).focus()
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    page.wait_for_selector(f'{EXPLORER}[data-k="{target}"][data-pending="0"]', timeout=TIMEOUT_MS)
    return target


def _slot(page, slot: str) -> str:
    """The explorer's text in ``slot`` (a headline, a tile, a figure's title)."""
    return page.locator(f'{EXPLORER} [data-slot="{slot}"]').inner_text().strip()


def _alike_row(k: int) -> dict:
    """The engine's numbers at ``k`` on the landing view (the alike-documents sample, R = 1,000, seed 0)."""
    from dashboard import sources
    from ragunc.data.results import load_results
    from ragunc.stats.all_k import k_table

    population = load_results(sources.SAMPLE_DIR / "debian_copyright_100w.csv.gz").population("100w")
    return k_table(population, reps=1000, seed=0).row(k)


def _tile(page, label: str) -> str:
    tile = (
        page.locator('[data-testid="stMetric"]')
        .filter(has=page.locator('[data-testid="stMetricLabel"]', has_text=label))
        .first
    )
    return tile.locator('[data-testid="stMetricValue"]').inner_text().strip()


def test_the_landing_view_shows_the_naive_interval_failing_and_k_moves_the_numbers(app_url, browser):
    from ragunc.present import numbers

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_url, timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator("h1", has_text="Uncertainty explorer").count() == 1
    assert _slot(page, "headline").startswith("Chunks of one document are strongly alike here")
    naive = float(re.search(r"held the true hit@1 only ([\d.]+)% of the time", _slot(page, "headline_coverage"))[1])
    assert naive <= 70
    chunks = _slot(page, "sample_chunks")

    k = _move_k(page, 5)
    assert _slot(page, "sample_chunks") != chunks, f"the sample's chunks stayed at {chunks} after moving K to {k}"
    row = _alike_row(k)  # what is drawn is the engine's, at the K drawn
    assert _slot(page, "sample_chunks") == numbers.count(row["n_chunks"])
    assert _slot(page, "design_deff") == numbers.deff(row["design_deff"])
    assert _slot(page, "sample_interval") == numbers.interval(row["recommended_low"], row["recommended_high"])
    assert numbers.percent(row["coverage_naive"]) in _slot(page, "headline_coverage")
    assert re.search(rf"[?&]k={k}(&|$)", page.url)  # the URL follows
    assert page.locator('[data-testid="stException"]').count() == 0
    _wait_idle(page)
    _screenshot(page, "explorer_after_k.png")

    # The stakeholder report downloads as one self-contained file describing this very view.
    with page.expect_download(timeout=TIMEOUT_MS) as download:
        page.get_by_role("button", name="One-page report (HTML)").click()
    path = ARTIFACTS / "report.html"
    download.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "plotly-graph-div" in text
    assert f"K: {k}" in text
    page.close()


def test_the_downloads_match_the_screen(app_url, browser):
    import io

    import pandas as pd

    from ragunc.present import numbers

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?k=40", timeout=TIMEOUT_MS)
    _wait_idle(page)
    k = _move_k(page, -3)
    _wait_idle(page)
    with page.expect_download(timeout=TIMEOUT_MS) as download:
        page.get_by_role("button", name="Summary (CSV)").click()
    table = pd.read_csv(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))).set_index("method")
    assert set(table["n_docs"]) == {k}
    assert numbers.count(table["n_chunks"].iloc[0]) == _slot(page, "sample_chunks")
    recommended = table.loc["korn_graubard_bm"]
    assert numbers.interval(recommended["low"], recommended["high"]) == _slot(page, "sample_interval")
    page.close()


def test_a_shared_link_reproduces_the_view(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?k=31&level=0.9&boot=500", timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert _k_control(page).input_value() == "31"
    assert page.locator(EXPLORER).get_attribute("data-k") == "31"
    assert _slot(page, "intervals_title").startswith("90% intervals")
    assert page.locator(f'{EXPLORER} output[data-value="boot"]').inner_text() == "500"
    _screenshot(page, "explorer_shared_link.png")
    page.close()


def test_a_copied_link_restores_what_was_on_screen(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_url, timeout=TIMEOUT_MS)
    _wait_idle(page)
    k = _move_k(page, 7)
    shown = {slot: _slot(page, slot) for slot in ("headline", "sample_interval", "design_deff", "intervals_title")}
    copied = page.url
    assert re.search(rf"[?&]k={k}(&|$)", copied)
    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    other.goto(copied, timeout=TIMEOUT_MS)
    _wait_idle(other)
    assert other.locator(EXPLORER).get_attribute("data-k") == str(k)
    assert {slot: _slot(other, slot) for slot in shown} == shown
    other.close()
    page.close()


def test_a_first_visitors_deep_link_runs_under_the_router(browser):
    # A fresh server (Streamlit starts in its pages/-folder mode) whose very first request is a page's link:
    # the page must still come with app.py's titled menu and data sidebar, not as a lone v1 page.
    with _served_app() as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/design_effect?sim=0", timeout=TIMEOUT_MS)
        page.wait_for_selector('h1:has-text("Design effect")', timeout=TIMEOUT_MS)
        _wait_idle(page)
        nav = page.locator('[data-testid="stSidebarNav"]')
        assert nav.get_by_text("Uncertainty explorer", exact=True).count() == 1
        assert nav.get_by_text("app", exact=True).count() == 0
        assert page.locator('[data-testid="stSidebar"]').get_by_text("Source", exact=True).count() == 1
        assert page.url.rstrip("/").split("?")[0].endswith("/design_effect")
        page.close()


@pytest.mark.parametrize(
    ("link", "title"),
    [("Design effect", "Design effect"), ("Planning and comparison", "Planning and comparison")],
)
def test_every_page_renders_in_the_browser(app_url, browser, link, title):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_url, timeout=TIMEOUT_MS)
    _wait_idle(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_text(link, exact=True).click()
    page.wait_for_selector(f'h1:has-text("{title}")', timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 1
    _screenshot(page, f"{title.lower().replace(' ', '_')}.png")
    page.close()


def test_dark_theme_renders(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, color_scheme="dark")
    page.goto(app_url, timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    # the figures' text takes the theme's colour (light on the dark background)
    fill = page.locator(f'{EXPLORER} [data-figure="intervals"] .xtitle').first.evaluate("e => getComputedStyle(e).fill")
    assert sum(map(int, re.findall(r"\d+", fill)[:3])) > 3 * 160, fill
    _screenshot(page, "explorer_dark.png")
    page.close()


def test_moving_the_chunk_size_slider_computes_a_new_size_in_the_browser(app_url, browser):
    """Chunk the stdlib corpus at 75 words for real (one step left of 100 on the slider); the next
    reruns (a K move) must not fail."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?source=sample&sim=0", timeout=TIMEOUT_MS)
    _wait_idle(page)
    size = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="Chunk size")
    assert "25 words" in size.inner_text()  # the bundled stdlib sample offers the whole size grid
    size.locator('input[type="range"]').focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"[?&]config=75w(&|$)"), timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "75 words" in size.inner_text()
    _move_k(page, 1)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert re.search(r"[?&]config=75w(&|$)", page.url)  # still on the computed size
    page.close()


def test_your_corpus_uploaded_in_japanese_is_chunked_in_morphemes_and_the_slider_moves(app_url, browser, tmp_path):
    import gzip
    import json
    import zipfile

    with gzip.open(ROOT / "sample_data" / "debian_reference_ja.jsonl.gz", "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines][:50]
    archive = tmp_path / "reference.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for row in rows:
            out.writestr(f"{row['doc_type']}/{row['doc_id']}.txt", row["text"])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?source=corpus&sim=0", timeout=TIMEOUT_MS)
    _wait_idle(page)
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(str(archive))
    size = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="100 morphemes")
    size.wait_for(timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stSidebar"]', has_text="(Japanese, detected: chunks of morphemes)").count() == 1
    size.locator('input[type="range"]').focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"[?&]config=75m(&|$)"), timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert (
        "75 morphemes"
        in page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="Chunk size").inner_text()
    )
    _screenshot(page, "your_corpus_japanese.png")
    page.close()


def test_a_link_restores_the_ranking_view(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/ranking_metrics?rk_source=example&rk_k=4", timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator("h1", has_text="Ranking metrics").count() == 1
    tiles = ("in the top 4 chunks", "in the first 4 distinct documents", "counting every matching chunk")
    assert [_tile(page, label) for label in tiles] == [
        "1.000",
        "1.000",
        "2.000",
    ]
    _screenshot(page, "ranking_metrics.png")
    page.close()


def test_the_sample_runs_show_the_forest_plot_and_adjusted_p_values(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/ranking_metrics?rk_source=runs&rk_adjust=holm", timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator("h3", has_text="4 runs on the same queries").count() == 1
    assert page.locator(".js-plotly-plot", has_text="Differences against 100w on 2,000 shared queries").count() == 1
    assert page.locator('[data-testid="stMarkdownContainer"]', has_text="shared by every run").count() >= 1
    _screenshot(page, "ranking_runs.png")
    page.close()


def _open_set(page, chunks: int, *, build: bool) -> str:
    """The offline evaluation set of the stdlib corpus from ``chunks`` sampled chunks (built when ``build``):
    the review list its selector shows, once the page is idle."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.locator('[data-testid="stNumberInput"]').filter(has_text="Chunks to sample").locator("input")
    box.fill(str(chunks))
    box.press("Enter")
    page.wait_for_timeout(500)
    _wait_idle(page, '[data-testid="stNumberInput"]')
    if build:
        page.get_by_role("button", name="Build", exact=True).click()
        page.wait_for_timeout(500)
    _wait_idle(page, '[data-testid="stSelectbox"]:has-text("List")')
    # The main area's box labelled exactly "List" (has_text alone matches any box mentioning "list").
    selector = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has=page.locator('[data-testid="stWidgetLabel"]', has_text=re.compile(r"^List$"))
    )
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while selector.count() != 1 and time.monotonic() < deadline:  # the previous run's elements fade out
        page.wait_for_timeout(200)
    shown = selector.locator('input[role="combobox"]').input_value()
    for _ in range(10):  # a click while the page still settles can leave the list closed: click again
        selector.get_by_role("button", name="Open").click()
        try:
            page.wait_for_selector('[role="option"]', timeout=5_000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    options = [o.strip() for o in page.locator('[role="option"]').all_inner_texts()]
    page.keyboard.press("Escape")
    assert shown in options, f"the selector shows {shown!r}, not one of this set's lists {options}"
    return shown


def test_the_plan_and_design_effect_downloads_hold_what_the_page_shows(app_url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/planning_comparison?source=sample", timeout=TIMEOUT_MS)
    _wait_idle(page, '[data-testid="stPlotlyChart"]')
    needed = _tile(page, "Documents needed")
    with page.expect_download(timeout=TIMEOUT_MS) as download:
        page.get_by_role("button", name="Plan (JSON)", exact=True).click()
    download.value.save_as(tmp_path / "plan.json")
    plan = json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))
    assert f"{plan['docs_needed']:,}" == needed

    page.goto(f"{app_url}/design_effect?source=sample", timeout=TIMEOUT_MS)
    _wait_idle(page, '[data-testid="stPlotlyChart"]')
    with page.expect_download(timeout=TIMEOUT_MS) as download:
        page.get_by_role("button", name="Figures (HTML)", exact=True).click()
    download.value.save_as(tmp_path / "figures.html")
    text = (tmp_path / "figures.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "ragunc: design effect" in text and "plotly-graph-div" in text
    page.close()


def test_the_review_list_selector_shows_the_counts_of_the_set_on_screen(app_url, browser):
    # The selector kept the first set's labels: "round trip failures (15)" on a set with 163.
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/evaluation_set", timeout=TIMEOUT_MS)
    _wait_idle(page, '[data-testid="stNumberInput"]')
    small = _open_set(page, 20, build=True)
    large = _open_set(page, 60, build=True)
    assert small != large  # the two sets' lists differ in size
    assert _open_set(page, 20, build=False) == small  # back to the first set, already built
    assert page.locator('[data-testid="stException"]').count() == 0
    _screenshot(page, "evaluation_set.png")
    page.close()


COUNT_LOADING = """() => {
  window.__mostLoading = 0;
  const count = () => {
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main) return;
    // Innermost elements that say it, as Playwright's get_by_text counts them.
    const saying = [...main.querySelectorAll("*")].filter((el) => el.textContent.includes("Loading the encoder")
      && ![...el.children].some((child) => child.textContent.includes("Loading the encoder")));
    window.__mostLoading = Math.max(window.__mostLoading, saying.length);
  };
  new MutationObserver(count).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def test_loading_the_encoder_is_never_said_twice(browser):
    # A fresh server, so the encoder is not cached yet; the page said "Loading the encoder…" twice
    # (a progress bar's text and a spinner) while it loaded.
    pytest.importorskip("torch")
    with _served_app() as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/positional_bias", timeout=TIMEOUT_MS)
        _wait_idle(page, '[data-testid="stPlotlyChart"]')
        page.get_by_text("Run a new setting").click()
        box = page.locator('[data-testid="stNumberInput"]').filter(has_text="Passages").locator("input")
        box.fill("10")
        box.press("Enter")
        page.wait_for_timeout(500)
        _wait_idle(page, '[data-testid="stPlotlyChart"]')
        # The page itself records the most messages on screen at once: a load that takes a few
        # milliseconds on a fast machine falls between two polls from here.
        page.evaluate(COUNT_LOADING)
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("Encoded").first.wait_for(timeout=TIMEOUT_MS)
        # Streamlit shows a spinner only after 0.5 s, so a machine that loads the encoder faster sees none.
        most = page.evaluate("window.__mostLoading")
        assert most <= 1, f"'Loading the encoder…' shown {most} times at once"
        page.close()


def test_the_default_page_answers_at_its_own_name(app_url, browser):
    # Streamlit serves the default page at "/" only: "/uncertainty_explorer" opened a "Page not found" modal
    # (once the server routes through app.py, which a first visit to "/" makes sure of).
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?sim=0", timeout=TIMEOUT_MS)
    _wait_idle(page)
    page.goto(f"{app_url}/uncertainty_explorer?sim=0", timeout=TIMEOUT_MS)
    _wait_idle(page)
    assert page.get_by_text("Page not found").count() == 0
    assert page.locator("h1", has_text="Uncertainty explorer").count() == 1
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_the_explorer_draws_with_the_pinned_plotly_bundle_the_app_serves(app_url, browser):
    # 30 students' browsers each fetch and compile it: the partial bundle, never also the full 4.8 MB one.
    bundle = ROOT / "dashboard" / "plotly" / "plotly-basic.min.js"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    plotly = []
    page.on("response", lambda response: "plotly" in response.url.lower() and plotly.append(response))
    page.goto(app_url, timeout=TIMEOUT_MS)
    _wait_idle(page, SETTLED)
    assert [r.url for r in plotly] == [f"{app_url}/_stcore/bidi-components/ragunc.plotly/{bundle.name}"]
    assert plotly[0].body() == bundle.read_bytes()
    assert page.evaluate("window.Plotly.version") == json.loads((bundle.parent / "package.json").read_text())["version"]
    assert page.locator(f"{EXPLORER} .js-plotly-plot").count() == 2
    page.close()


def test_the_server_log_is_free_of_file_watcher_noise(browser):
    # With the file watcher on, each page load wrote about 40 "Inotify queue overflowed" lines, burying
    # any real error; .streamlit/config.toml turns the watcher off.
    with _served_app() as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/?sim=0", timeout=TIMEOUT_MS)
        _wait_idle(page)
        page.close()
        log = (ARTIFACTS / f"streamlit-{url.rsplit(':', 1)[1]}.log").read_text()
    assert "Inotify" not in log and "File change" not in log
    assert "Local URL" in log or "You can now view" in log  # the log is the server's own


@pytest.mark.parametrize(
    "source, kinds",
    [("upload", ("CSV", "TSV", "Parquet", "JSON", ".gz")), ("corpus", ("JSON lines", "CSV", ".zip", ".txt", ".html"))],
)
def test_the_sidebar_uploader_says_what_it_takes_without_cutting_it(app_url, browser, source, kinds):
    # Its type hint read "CSV, TSV, PARQUE…" (results) and "JSONL, NDJSON, J…" (a corpus): the extensions
    # do not fit the sidebar's width.
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?source={source}&sim=0", timeout=TIMEOUT_MS)
    _wait_idle(page)
    cut = page.evaluate("""() => [...document.querySelectorAll(
        '[data-testid="stSidebar"] [data-testid="stFileUploader"] *')]
        .filter((e) => e.children.length === 0 && e.textContent.trim() && e.scrollWidth > e.clientWidth + 1)
        .map((e) => e.textContent)""")
    assert cut == []
    label = page.locator('[data-testid="stSidebar"] [data-testid="stFileUploader"] [data-testid="stWidgetLabel"]')
    assert all(kind in label.inner_text() for kind in kinds)
    page.close()
