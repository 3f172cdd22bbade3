"""K moves of the explorer in a real browser, against a bare Streamlit slider measured in the same run.

Starts ``streamlit run app.py`` and ``streamlit run bench/browser_floor.py`` (one slider, one line of
text) on loopback and drives Debian's chromium through Playwright at 1400x1000.  Times are from the
key press or pointer down (a capturing listener in the page) to the last DOM change of the drawn view:

  explorer     the explorer's K control (drawn in the browser): the moment its root's ``data-k`` names
               the new K, set once its numbers and figures are drawn (a MutationObserver records it).
               10 arrow-key moves to new K, 10 back, 10 clicks far along the track.
  floor        the floor page's slider: the last DOM change before the page has been quiet for
               ``--quiet`` ms with the new value shown (what a Streamlit rerun costs at the least).
  drag         a one-second drag across 40% of the K track: how many K values get drawn on the way.
  bootstrap    10 stops on a new K (one arrow key press each, below the landing K = 20): from the press
               until ``data-pending`` is 0 for that K, i.e. the server's bootstrap intervals and their
               coverage at (K, B) are drawn, at B = R = 1,000 (the far clicks' stops are printed too).

Prints p50/p95 in ms, the ratio of the explorer's p50 to the floor's, and the targets.

    python bench/bench_browser.py [--quiet 300]
"""

from __future__ import annotations

import argparse
import os
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
EXPLORER = '[data-testid="ragunc-explorer"]'


def instrument(setup: str, each_record: str) -> str:
    """A page script recording the time of the last input (key press or pointer down) in ``window.__input``
    and of every DOM change in ``window.__lastChange`` (performance.now(), ms); it runs ``setup`` first and
    ``each_record`` (JavaScript seeing ``r``, a mutation record, and ``now``) for every change."""
    return f"""
{setup}
window.__input = 0; window.__lastChange = performance.now();
for (const type of ["keydown", "pointerdown"]) {{
  document.addEventListener(type, () => {{ window.__input = performance.now(); }}, true);
}}
new MutationObserver((records) => {{
  const now = performance.now();
  window.__lastChange = now;
  for (const r of records) {{
    {each_record}
  }}
}}).observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
"""


# Also records every data-k / data-pending value the explorer's root takes.
INSTRUMENT = instrument(
    "window.__drawn = []; window.__settled = [];",
    """if (r.type !== "attributes" || r.target.dataset.testid !== "ragunc-explorer") continue;
    if (r.attributeName === "data-k") window.__drawn.push([now, +r.target.dataset.k]);
    if (r.attributeName === "data-pending" && r.target.dataset.pending === "0")
      window.__settled.push([now, +r.target.dataset.k]);""",
)
TARGETS = {"p50": 50.0, "p95": 100.0, "floor ratio": 0.5, "drag": 15, "bootstrap p50": 500.0}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(script: str):
    """``streamlit run script`` on a free loopback port; yields (its URL, its process) once healthy."""
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
        yield url, server
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def wait_for(page, predicate: str, timeout_s: float = 60.0):
    """Poll the page until the JavaScript expression ``predicate`` is truthy; return its value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = page.evaluate(predicate)
        if value:
            return value
        page.wait_for_timeout(10)
    raise TimeoutError(predicate)


def explorer_k(page) -> int:
    return int(page.get_attribute(EXPLORER, "data-k"))


def _since_input(page, records: str, k: int, timeout_s: float = 60.0) -> float:
    return wait_for(
        page,
        f"(() => {{ const s = window.{records}.filter(([t, k]) => k === {k} && t >= window.__input).pop();"
        " return s ? s[0] - window.__input : 0; })()",
        timeout_s,
    )


def drawn_after(page, k: int) -> float:
    """ms from the last input until the explorer's root named ``k`` as drawn."""
    return _since_input(page, "__drawn", k)


def settled_after(page, k: int) -> float:
    """ms from the last input until every part of the view (the bootstrap's too) was drawn for ``k``."""
    return _since_input(page, "__settled", k)


def key_moves(page, key: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        target = explorer_k(page) + (1 if key == "ArrowRight" else -1)
        page.keyboard.press(key)
        out.append(drawn_after(page, target))
        page.wait_for_timeout(120)  # a reader's pause between presses
    return out


def track(page):
    return page.locator(f'{EXPLORER} input[name="k"]').bounding_box()


def stops(page, n: int) -> list[float]:
    """``n`` presses of ArrowLeft, each waited out until every part of the view is drawn for the new K."""
    out = []
    for _ in range(n):
        target = explorer_k(page) - 1
        page.keyboard.press("ArrowLeft")
        out.append(settled_after(page, target))
    return out


def click_moves(page, targets: list[int], low: int, high: int) -> tuple[list[float], list[float]]:
    """Clicks on the K track where each target lies: (ms until drawn, ms until the bootstrap parts were drawn)."""
    box = track(page)
    drawn, settled = [], []
    for target in targets:
        x = box["x"] + 8 + (box["width"] - 16) * (target - low) / (high - low)
        page.mouse.click(x, box["y"] + box["height"] / 2)
        k = wait_for(page, "(window.__drawn.filter(([t]) => t >= window.__input).pop() || [0, 0])[1]")
        drawn.append(drawn_after(page, k))
        settled.append(settled_after(page, k))
    return drawn, settled


def drag(page, share: float = 0.4, seconds: float = 1.0, steps: int = 60) -> int:
    """Drag the K thumb across ``share`` of the track in ``seconds``; the number of K values drawn on the way."""
    box = track(page)
    start = page.evaluate("window.__drawn.length")
    low, high = (
        int(page.get_attribute(f'{EXPLORER} input[name="k"]', "min")),
        int(page.get_attribute(f'{EXPLORER} input[name="k"]', "max")),
    )
    k = explorer_k(page)
    x0 = box["x"] + 8 + (box["width"] - 16) * (k - low) / (high - low)
    y = box["y"] + box["height"] / 2
    page.mouse.move(x0, y)
    page.mouse.down()
    began = time.perf_counter()
    for i in range(1, steps + 1):
        page.mouse.move(x0 + box["width"] * share * i / steps, y)
        wait = began + seconds * i / steps - time.perf_counter()
        if wait > 0:
            page.wait_for_timeout(1000 * wait)
    page.mouse.up()
    page.wait_for_timeout(300)
    return len({k for _, k in page.evaluate("window.__drawn")[start:]})


def floor_moves(page, n: int, quiet_ms: float) -> list[float]:
    out, k = [], 20
    page.locator('[data-testid="stSlider"] input[type="range"]').first.focus()
    for i in range(n):
        k += 1 if i % 2 == 0 else -1
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        wait_for(page, f"/K = {k}(?!\\d)/.test(document.body.innerText)")
        while page.evaluate("performance.now() - window.__lastChange") < quiet_ms:
            page.wait_for_timeout(20)
        out.append(page.evaluate("window.__lastChange - window.__input"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", type=float, default=300.0, help="ms without a DOM change that count as settled")
    parser.add_argument("--moves", type=int, default=10, help="moves per kind")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with served("bench/browser_floor.py") as (floor, _), served("app.py") as (app, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script(INSTRUMENT)

        page.goto(floor, timeout=120_000)
        wait_for(page, "document.body.innerText.includes('K = 20')")
        times = {"floor": floor_moves(page, args.moves, args.quiet)}

        began = time.perf_counter()
        page.goto(app, timeout=600_000)
        page.wait_for_selector(f'{EXPLORER}[data-pending="0"]', timeout=600_000)
        load_s = time.perf_counter() - began
        page.locator(f'{EXPLORER} input[name="k"]').focus()
        times["explorer"] = key_moves(page, "ArrowRight", args.moves) + key_moves(page, "ArrowLeft", args.moves)
        page.wait_for_selector(f'{EXPLORER}[data-pending="0"]', timeout=60_000)
        times["bootstrap"] = stops(page, args.moves)
        high = int(page.get_attribute(f'{EXPLORER} input[name="k"]', "max"))
        targets = [int(t) for t in np.linspace(60, min(high, 560), args.moves)[::-1]]
        targets = targets[::2] + targets[1::2]  # far apart: every click jumps hundreds of K
        clicked, settled = click_moves(page, targets, 2, high)
        times["explorer"] += clicked
        times["far stop"] = settled
        page.locator(f'{EXPLORER} input[name="k"]').focus()
        page.keyboard.press("Home")
        page.wait_for_timeout(500)
        drawn_on_drag = drag(page)
        browser.close()

    p50 = {kind: float(np.percentile(v, 50)) for kind, v in times.items()}
    p95 = {kind: float(np.percentile(v, 95)) for kind, v in times.items()}
    ratio = p50["explorer"] / p50["floor"]
    print(
        f"bench_browser: chromium 1400x1000, load average {os.getloadavg()[0]:.1f}; landing view loaded in "
        f"{load_s:.1f} s"
    )
    print(f"{'kind':<10} {'n':>3} {'p50 ms':>8} {'p95 ms':>8}")
    for kind, values in times.items():
        print(f"{kind:<10} {len(values):>3} {p50[kind]:>8.0f} {p95[kind]:>8.0f}")
    verdict = [
        ("explorer p50 <= 50 ms", p50["explorer"] <= TARGETS["p50"]),
        ("explorer p95 <= 100 ms", p95["explorer"] <= TARGETS["p95"]),
        (f"explorer p50 / floor p50 = {ratio:.2f} <= 0.5", ratio <= TARGETS["floor ratio"]),
        (f"drag drew {drawn_on_drag} K values >= 15", drawn_on_drag >= TARGETS["drag"]),
        ("bootstrap parts p50 <= 500 ms", p50["bootstrap"] <= TARGETS["bootstrap p50"]),
    ]
    for text, met in verdict:
        print(f"  {'met   ' if met else 'MISSED'} {text}")


if __name__ == "__main__":
    main()
