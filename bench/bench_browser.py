"""Slider moves of the dashboard in a real browser, until the view has settled, against Streamlit's own floor.

Starts ``streamlit run app.py`` and ``streamlit run bench/browser_floor.py`` (one slider, one line of
text) on loopback, drives Debian's chromium through Playwright at 1400x1000 and times each kind of
move from the key press to the moment the view has settled: the run that used the new value has
ended (the URL, or the floor's text, shows it) and the page has made no DOM change for
``--quiet`` ms (new numbers and figures drawn, Streamlit idle).  The settle time is the last DOM
change after the key press.

Kinds of move, on the app's landing view (B = R = 1,000, coverage simulation on):
  K seen       K to a value this session has already shown or prefetched: arrow keys (target: <= 150 ms p50)
  K new        K to a value never shown nor prefetched: a click on the slider's track (<= 300 ms p50)
  size new     chunk size to a size not bundled, on the stdlib sample (<= 1 s each)
  floor        the floor page's slider: what a Streamlit rerun costs at the least

Prints p50/p95 in ms per kind and the ratio of each p50 to the floor's p50 measured in the same run.

    python bench/bench_browser.py [--moves 15] [--quiet 300]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
TARGETS_MS = {"K seen": 150.0, "K new": 300.0, "size new": 1000.0}
# Where the clicks jump: far enough apart (on a 230-pixel slider of some 600 documents) that none is a neighbour
# of another, around the default K = 20.
NEW_K = (40, 60, 30, 80, 50, 100, 35, 70, 45, 90, 55, 120, 65, 110, 75)
# Records the time of the page's last DOM change (performance.now(), ms).
OBSERVER = """
window.__lastChange = performance.now();
new MutationObserver(() => { window.__lastChange = performance.now(); })
  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(script: str):
    """``streamlit run script`` on a free loopback port; yields its URL once healthy."""
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
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
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError(f"streamlit run {script} did not start")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def _running(page) -> bool:
    return page.evaluate(
        "() => { const w = document.querySelector('[data-testid=stStatusWidget]');"
        " return !!w && /Stop|Running/.test(w.innerText || ''); }"
    )


def settle(page, done, quiet_ms: float, timeout_s: float = 120.0) -> float:
    """Wait until ``done(page)`` holds, Streamlit is idle and the DOM has been quiet for ``quiet_ms``;
    return ``performance.now()`` of the last DOM change."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if done(page) and not _running(page):
            last = page.evaluate("window.__lastChange")
            if page.evaluate("performance.now()") - last >= quiet_ms:
                return last
        page.wait_for_timeout(20)
    raise TimeoutError("the view did not settle")


def _thumb(page, label: str):
    return page.locator('[data-testid="stSlider"]').filter(has_text=label).locator('input[type="range"]').first


def move(page, label: str, key: str, done, quiet_ms: float) -> float:
    """Press ``key`` on the slider labelled ``label``; ms from the press until the view settled."""
    thumb = _thumb(page, label)
    thumb.focus()
    t0 = page.evaluate("performance.now()")
    page.keyboard.press(key)
    return settle(page, done, quiet_ms) - t0


def click_to(page, label: str, value: int, low: int, high: int, quiet_ms: float) -> tuple[float, int]:
    """Click the slider labelled ``label`` (range ``low``..``high``) where ``value`` lies, as a reader jumps there;
    returns (ms until the view settled, the value the URL then holds)."""
    box = (
        page.locator('[data-testid="stSlider"]')
        .filter(has_text=label)
        .locator('[role="group"] > [data-orientation="horizontal"]')
        .first
    )
    rect = box.bounding_box()
    before = re.search(r"[?&]k=(\d+)", page.url)
    x = rect["x"] + rect["width"] * (value - low) / (high - low)
    t0 = page.evaluate("performance.now()")
    page.mouse.click(x, rect["y"] + rect["height"] / 2)

    def moved(pg) -> bool:
        now = re.search(r"[?&]k=(\d+)", pg.url)
        return bool(now) and (before is None or now.group(1) != before.group(1))

    ms = settle(page, moved, quiet_ms) - t0
    return ms, int(re.search(r"[?&]k=(\d+)", page.url).group(1))


def _url_has(name: str, value) -> callable:
    pattern = re.compile(rf"[?&]{name}={re.escape(str(value))}(&|$)")
    return lambda page: bool(pattern.search(page.url))


def _k_moves(page, label: str, start: int, steps: list[int], quiet_ms: float, done_for) -> list[float]:
    out, k = [], start
    for step in steps:
        k += step
        out.append(move(page, label, "ArrowRight" if step > 0 else "ArrowLeft", done_for(k), quiet_ms))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=15, help="moves timed per kind")
    parser.add_argument("--quiet", type=float, default=300.0, help="ms without a DOM change that count as settled")
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[75, 150, 300, 25, 400],
        help="chunk sizes not bundled, in words (reached from 100 words by the slider)",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {}
    with served("app.py") as app, served("bench/browser_floor.py") as floor, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script(OBSERVER)

        page.goto(floor, timeout=120_000)
        settle(page, lambda pg: pg.get_by_text("K = 20").count() > 0, args.quiet)
        label = "K: documents per sample"
        steps = [1, -1] * (args.moves // 2 + 1)
        floor_done = lambda k: lambda pg: pg.get_by_text(f"K = {k}", exact=True).count() > 0  # noqa: E731
        times["floor"] = _k_moves(page, label, 20, steps[: args.moves], args.quiet, floor_done)

        page.goto(app, timeout=120_000)
        settle(page, _url_has("k", 20), args.quiet)
        high = int(_thumb(page, label).get_attribute("max"))
        # New K: a click on the track, a jump to a K neither shown nor prefetched (K +- 1) before;
        # then K seen: back and forth with the arrow keys over K already shown.
        shown = []
        for target in NEW_K[: args.moves]:
            ms, k = click_to(page, label, target, 2, high, args.quiet)
            times.setdefault("K new", []).append(ms)
            shown.append(k)
        times["K seen"] = _k_moves(
            page,
            label,
            shown[-1],
            [-1, 1] * (args.moves // 2) + [-1] * (args.moves % 2),
            args.quiet,
            lambda k: _url_has("k", k),
        )

        page.goto(f"{app}/?source=sample&sim=0", timeout=120_000)
        settle(page, _url_has("config", "100w"), args.quiet)
        grid = [25, 50, 75, 100, 150, 200, 300, 400]  # dashboard.sources.SIZE_GRID; 50, 100, 200 are bundled
        at, seen, sized = grid.index(100), {50, 100, 200}, []
        for words in args.sizes:
            while grid[at] != words:
                step = 1 if grid.index(words) > at else -1
                at += step
                ms = move(
                    page,
                    "Chunk size",
                    "ArrowRight" if step > 0 else "ArrowLeft",
                    _url_has("config", f"{grid[at]}w"),
                    args.quiet,
                )
                if grid[at] not in seen:  # the first time this size is shown: chunked, queried and ranked
                    sized.append(ms)
                    seen.add(grid[at])
        times["size new"] = sized
        browser.close()

    floor_p50 = float(np.percentile(times["floor"], 50))
    load = os.getloadavg()[0]
    print(
        f"bench_browser: chromium 1400x1000, settled = run ended + {args.quiet:.0f} ms without a DOM change; "
        f"load average {load:.1f}"
    )
    print(f"{'move':<10} {'n':>3} {'p50 ms':>8} {'p95 ms':>8} {'p50/floor':>10} {'target p50':>11}")
    for kind in ("floor", "K seen", "K new", "size new"):
        values = np.array(times[kind])
        p50, p95 = np.percentile(values, [50, 95])
        target = TARGETS_MS.get(kind)
        verdict = "" if target is None else f"{target:>8.0f} ms {'met' if p50 <= target else 'missed'}"
        print(f"{kind:<10} {values.size:>3} {p50:>8.0f} {p95:>8.0f} {p50 / floor_p50:>9.1f}x {verdict}")


if __name__ == "__main__":
    main()
