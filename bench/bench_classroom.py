"""A classroom on one server: 30 browser sessions load the explorer's landing view at once and move K.

Starts ``streamlit run app.py`` (and the floor page, bench/browser_floor.py) on loopback, opens one
headless chromium with a context per student (1400x1000) and, all at once: each loads the landing
view (until the explorer has drawn every part, ``data-pending`` 0), then makes ``--moves`` K moves
with the arrow keys, a reader's pause apart.  A move is timed from the key press to the explorer's
root naming the new K as drawn (as in bench/bench_browser.py).  The server's resident memory is
sampled throughout (its process and children).

Prints page-load and move p50/p95, errors and lost connections, the server's peak RSS, the CPU seconds
per student of the server and of chromium (steadier than wall times on a shared machine), and two
references measured in the same run: the floor page's slider p50 alone (what a Streamlit rerun costs)
and the floor page loaded by as many contexts at once (what Streamlit's own page load costs a class).

    python bench/bench_classroom.py [--students 30] [--moves 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_browser import CHROMIUM, CHROMIUM_ARGS, EXPLORER, INSTRUMENT, served  # noqa: E402

TARGETS = {"move p95 ms": 100.0, "load p95 s": 8.0, "rss GB": 2.0}
PAUSE_MS = 400  # between a student's moves


def _rss_bytes(pid: int) -> int:
    """Resident memory of ``pid`` and its children (from /proc)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            total += _rss_bytes(int(child))
    fields = Path(f"/proc/{pid}/statm").read_text().split()
    return total + int(fields[1]) * os.sysconf("SC_PAGE_SIZE")


def _cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its children, those it has reaped included (from /proc)."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                total += _cpu_seconds(int(child))
            except FileNotFoundError:  # ended meanwhile: its parent's reaped time holds it
                pass
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return total + sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _browser_seconds(server_pid: int) -> float:
    """CPU seconds of this process's children but the server: chromium and Playwright's driver."""
    return _cpu_seconds(os.getpid()) - _cpu_seconds(server_pid) - sum(os.times()[:2])


def _sample_rss(pid: int, stop: threading.Event, peak: list[int]) -> None:
    while not stop.is_set():
        try:
            peak[0] = max(peak[0], _rss_bytes(pid))
        except (FileNotFoundError, ProcessLookupError):
            return
        stop.wait(0.2)


async def student(browser, url: str, moves: int, out: dict) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.add_init_script(INSTRUMENT)
    page.on("pageerror", lambda error: out["errors"].append(str(error)))
    page.on("console", lambda m: m.type == "error" and out["errors"].append(m.text))
    try:
        began = time.perf_counter()
        await page.goto(url, timeout=120_000)
        await page.wait_for_selector(f'{EXPLORER}[data-pending="0"]', timeout=120_000)
        out["load"].append(time.perf_counter() - began)
        control = page.locator(f'{EXPLORER} input[name="k"]')
        await control.focus()
        for _ in range(moves):
            target = int(await page.get_attribute(EXPLORER, "data-k")) + 1  # a K this student has not seen
            await page.keyboard.press("ArrowRight")
            ms = await page.wait_for_function(
                f"(() => {{ const s = window.__drawn.filter(([t, k]) => k === {target} && t >= window.__input).pop();"
                " return s ? s[0] - window.__input : 0; })()",
                timeout=60_000,
            )
            out["moves"].append(await ms.json_value())
            await page.wait_for_timeout(PAUSE_MS)
        if await page.locator('[data-testid="stException"]').count():
            out["errors"].append("an exception shown on the page")
        # Streamlit shows its connection-error dialog when the websocket is lost
        if await page.get_by_text("Connection error").count():
            out["lost"] += 1
    except Exception as exc:  # a student whose page failed counts as an error, the others go on
        out["errors"].append(f"{type(exc).__name__}: {exc}")
    finally:
        await context.close()


async def classroom(url: str, students: int, moves: int, server_pid: int) -> dict:
    from playwright.async_api import async_playwright

    out = {"load": [], "moves": [], "errors": [], "lost": 0}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        server_s, browser_s = _cpu_seconds(server_pid), _browser_seconds(server_pid)
        await asyncio.gather(*(student(browser, url, moves, out) for _ in range(students)))
        out["server s"] = _cpu_seconds(server_pid) - server_s
        out["browser s"] = _browser_seconds(server_pid) - browser_s
        await browser.close()
    return out


async def floor_loads(url: str, students: int) -> list[float]:
    """Seconds for ``students`` contexts loading the floor page at once (one slider, one line of text)."""
    from playwright.async_api import async_playwright

    async def one(browser) -> float:
        context = await browser.new_context(viewport={"width": 1400, "height": 1000})
        page = await context.new_page()
        began = time.perf_counter()
        await page.goto(url, timeout=300_000)
        await page.wait_for_selector("text=K = 20", timeout=300_000)
        seconds = time.perf_counter() - began
        await context.close()
        return seconds

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        seconds = await asyncio.gather(*(one(browser) for _ in range(students)))
        await browser.close()
    return list(seconds)


def floor_p50(url: str, moves: int = 10) -> float:
    from playwright.sync_api import sync_playwright

    from bench_browser import floor_moves, wait_for

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script(INSTRUMENT)
        page.goto(url, timeout=120_000)
        wait_for(page, "document.body.innerText.includes('K = 20')")
        p50 = float(np.percentile(floor_moves(page, moves, 300.0), 50))
        browser.close()
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--moves", type=int, default=10)
    args = parser.parse_args()

    with served("bench/browser_floor.py") as (floor, _):
        reference = floor_p50(floor)
        floor_load = np.array(asyncio.run(floor_loads(floor, args.students)))
    with served("app.py") as (app, server):
        stop, peak = threading.Event(), [0]
        sampler = threading.Thread(target=_sample_rss, args=(server.pid, stop, peak), daemon=True)
        sampler.start()
        began = time.perf_counter()
        out = asyncio.run(classroom(app, args.students, args.moves, server.pid))
        wall = time.perf_counter() - began
        stop.set()
        sampler.join()

    load = np.array(out["load"]) if out["load"] else np.array([np.nan])
    moves = np.array(out["moves"]) if out["moves"] else np.array([np.nan])
    rss_gb = peak[0] / 1e9
    print(
        f"bench_classroom: {args.students} chromium contexts x {args.moves} K moves, {wall:.0f} s in all; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"page load  n={load.size:>3}  p50 {np.percentile(load, 50):6.2f} s   p95 {np.percentile(load, 95):6.2f} s")
    print(
        f"K move     n={moves.size:>3}  p50 {np.percentile(moves, 50):6.0f} ms  p95 {np.percentile(moves, 95):6.0f} ms"
    )
    print(
        f"CPU per student (its load and moves): server {out['server s'] / args.students:.2f} s, "
        f"chromium {out['browser s'] / args.students:.2f} s"
    )
    print(f"floor (one session alone, same run): p50 {reference:.0f} ms")
    print(
        f"floor page loaded by {args.students} contexts at once (same run): p50 {np.percentile(floor_load, 50):.2f} s"
        f"   p95 {np.percentile(floor_load, 95):.2f} s; explorer load p95 / floor's "
        f"{np.percentile(load, 95) / np.percentile(floor_load, 95):.1f}x"
    )
    print(f"errors {len(out['errors'])}, lost connections {out['lost']}, server peak RSS {rss_gb:.2f} GB")
    for error in out["errors"][:5]:
        print(f"  error: {error[:200]}")
    verdict = [
        ("move p95 <= 100 ms", np.percentile(moves, 95) <= TARGETS["move p95 ms"]),
        ("page load p95 <= 8 s", np.percentile(load, 95) <= TARGETS["load p95 s"]),
        ("no error or lost connection", not out["errors"] and not out["lost"]),
        ("server RSS <= 2 GB", rss_gb <= TARGETS["rss GB"]),
    ]
    for text, met in verdict:
        print(f"  {'met   ' if met else 'MISSED'} {text}")


if __name__ == "__main__":
    main()
