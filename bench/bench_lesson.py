"""Next, Back and control moves of the Lesson page in a real browser, against a bare Streamlit slider
measured in the same run.

Starts ``streamlit run app.py`` and ``streamlit run bench/browser_floor.py`` (one slider, one line of
text) on loopback and drives Debian's chromium through Playwright.  Times are from the key press or
pointer down (a capturing listener in the page) to the last DOM change inside the lesson's root, once
its ``data-step`` / ``data-value`` name what was asked and ``data-pending`` is 0, and nothing in the
root has changed for ``--quiet`` ms:

  next/back    the Next and Back buttons (clicks) and the keys (PageDown / PageUp, ArrowRight /
               ArrowLeft) across all seven steps and back, twice: the first pass draws each step's figure,
               the second shows the figures kept.  Between moves the bench pauses as a teacher would, until
               the figures a next move would show are drawn hidden (``data-predrawn`` 1), then 150 ms.
  control      every step's control: the toggles of steps 1 and 5, step 2's sample count (arrow keys and
               clicks along the track), step 3's draw button, the sliders of steps 4, 6 and 7 (arrow keys).
  floor        the floor page's slider: the last DOM change before the page has been quiet for
               ``--quiet`` ms with the new value shown (what a Streamlit rerun costs at the least).

Prints p50/p95 in ms, the ratio of each to the floor's p50, CPU seconds of the browser and the server,
the load average and the targets (≤ 100 ms p50 and p95).

    python bench/bench_lesson.py [--size 1280x720] [--quiet 300]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_browser import CHROMIUM, CHROMIUM_ARGS, floor_moves, instrument, served, wait_for  # noqa: E402

LESSON = '[data-testid="ragunc-lesson"]'
# Also records the time of the last change inside the lesson's root, but for the figures it adds and draws
# hidden while the reader pauses (what a next move would show) and its bookkeeping attributes.
INSTRUMENT = instrument(
    'const BOOKKEEPING = ["data-synced", "data-predrawn"]; window.__lastLesson = 0;',
    """if (r.type === "attributes" && BOOKKEEPING.includes(r.attributeName)) continue;
    const hidden = (n) => n.nodeType === 1 && n.matches(".figure:not([data-shown])");
    if (r.type === "childList" && r.addedNodes.length && [...r.addedNodes].every(hidden)) continue;
    const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    if (node && node.closest('[data-testid="ragunc-lesson"]') && !node.closest(".figure:not([data-shown])"))
      window.__lastLesson = now;""",
)
TARGET_MS = 100.0


def settled(page, step: int, value: str | None, quiet_ms: float) -> float:
    """ms from the last input to the last change in the lesson's root, once it shows ``step`` at ``value``."""
    shown = f'{LESSON}[data-step="{step}"][data-pending="0"]'
    if value is not None:
        shown = f'{LESSON}[data-step="{step}"][data-value="{value}"][data-pending="0"]'
    page.wait_for_selector(shown, timeout=60_000)
    while page.evaluate("performance.now() - Math.max(window.__lastLesson, window.__input)") < quiet_ms:
        page.wait_for_timeout(20)
    return page.evaluate("window.__lastLesson - window.__input")


def pause(page) -> None:
    """A teacher's pause between moves: until the figures a next move would show are drawn (at most 10 s), and
    150 ms more."""
    try:
        page.wait_for_selector(f'{LESSON}[data-predrawn="1"]', timeout=10_000)
    except Exception:  # noqa: BLE001 - a busy machine: the next move comes anyway
        pass
    page.wait_for_timeout(150)


def lesson_state(page) -> tuple[int, str]:
    root = page.locator(LESSON)
    return int(root.get_attribute("data-step")), root.get_attribute("data-value")


def walk(page, quiet_ms: float) -> dict[str, list[float]]:
    """Next to step 7 and Back to step 1, twice over: clicks, then (the second time) clicks and keys by turns."""
    times = {"next/back, first visit": [], "next/back": []}
    keys = {1: ("PageDown", "ArrowRight"), -1: ("PageUp", "ArrowLeft")}
    for lap in range(2):
        for by, button in ((1, "Next →"), (-1, "← Back")):
            for i in range(6):
                step = lesson_state(page)[0] + by
                if lap == 0 or i % 2 == 0:
                    page.get_by_role("button", name=button).click()
                else:
                    page.keyboard.press(keys[by][i // 2 % 2])
                first = lap == 0 and by > 0
                times["next/back, first visit" if first else "next/back"].append(settled(page, step, None, quiet_ms))
                pause(page)
    return times


def go_to(page, step: int, quiet_ms: float) -> None:
    while lesson_state(page)[0] != step:
        by = 1 if lesson_state(page)[0] < step else -1
        target = lesson_state(page)[0] + by
        page.keyboard.press("PageDown" if by > 0 else "PageUp")
        settled(page, target, None, quiet_ms)


def controls(page, quiet_ms: float) -> list[float]:
    """Moves of every step's control; each waited out until drawn."""
    out = []
    page.evaluate("document.activeElement.blur()")  # focus off any control
    for step in range(1, 8):
        go_to(page, step, quiet_ms)
        box = page.locator(f"{LESSON} .control:not([hidden])")
        kind = box.get_attribute("class").split()[-1]
        for i in range(5):
            if kind == "toggle":
                box.locator("input").click()
            elif kind == "cycle":
                box.locator("button").click()
            elif kind == "count" and i % 2:
                track = box.locator("input").bounding_box()
                share = (0.2, 0.6, 0.9)[i % 3]
                page.mouse.click(track["x"] + track["width"] * share, track["y"] + track["height"] / 2)
            else:
                box.locator("input").focus()
                page.keyboard.press("ArrowLeft" if i % 2 else "ArrowRight")
            value = page.evaluate(
                f"new URL(location.href).searchParams.get(document.querySelector('{LESSON} .control:not([hidden])')"
                ".dataset.param)"
            )
            out.append(settled(page, step, value, quiet_ms))
            pause(page)
        page.evaluate("document.activeElement.blur()")
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its children that ended (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", type=float, default=300.0, help="ms without a DOM change that count as settled")
    parser.add_argument("--moves", type=int, default=10, help="floor moves")
    parser.add_argument("--size", default="1280x720", help="viewport, WIDTHxHEIGHT")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    with served("bench/browser_floor.py") as (floor, _), served("app.py") as (app, server), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.add_init_script(INSTRUMENT)

        page.goto(floor, timeout=120_000)
        wait_for(page, "document.body.innerText.includes('K = 20')")
        times = {"floor": floor_moves(page, args.moves, args.quiet)}

        began = time.perf_counter()
        page.goto(f"{app}/lesson?step=1", timeout=600_000)
        page.wait_for_selector(f'{LESSON}[data-step="1"][data-pending="0"]', timeout=600_000)
        load_s = time.perf_counter() - began
        server_cpu = cpu_seconds(server.pid)
        times.update(walk(page, args.quiet))
        times["control"] = controls(page, args.quiet)
        server_cpu = cpu_seconds(server.pid) - server_cpu
        browser.close()

    p50 = {kind: float(np.percentile(v, 50)) for kind, v in times.items()}
    p95 = {kind: float(np.percentile(v, 95)) for kind, v in times.items()}
    print(
        f"bench_lesson: chromium {width}x{height}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
        f"before, {os.getloadavg()[0]:.1f} after; lesson loaded in {load_s:.1f} s; server CPU during the moves "
        f"{server_cpu:.2f} s"
    )
    print(f"{'kind':<24} {'n':>3} {'p50 ms':>8} {'p95 ms':>8} {'p50 / floor':>12}")
    for kind, values in times.items():
        print(f"{kind:<24} {len(values):>3} {p50[kind]:>8.0f} {p95[kind]:>8.0f} {p50[kind] / p50['floor']:>12.2f}")
    for kind in times:
        if kind != "floor":
            met = p50[kind] <= TARGET_MS and p95[kind] <= TARGET_MS
            print(f"  {'met   ' if met else 'MISSED'} {kind}: p50 and p95 <= {TARGET_MS:.0f} ms")


if __name__ == "__main__":
    main()
