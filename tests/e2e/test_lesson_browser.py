"""The Lesson page in a real browser: on a projector's screen (1280x720, 1920x1080) every step's heading,
sentences, control and figure (plot area, axis titles, legend) lie inside the window, figure text is at
least 18 px and no heading ends on a lone word; Next, Back, the keys and the controls change what is drawn
and the URL at once, a copied link restores the view, and the server learns the state the reader stops on.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_browser import TIMEOUT_MS, _served_app, browser  # noqa: F401 (fixture)

pytestmark = pytest.mark.e2e

LESSON = '[data-testid="ragunc-lesson"]'
MIN_FONT_PX = 18

# Boxes of what a step shows, in the window's pixels: the heading, the sentences, the control shown, and the
# shown figure's plot area, axis titles and legend entries; every font size of the figure's text; the words
# on the heading's last line.
MEASURE = """() => {
  const root = document.querySelector('[data-testid="ragunc-lesson"]');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const fig = root.querySelector(".figure[data-shown]");
  const origin = fig.getBoundingClientRect();
  const xa = fig._fullLayout.xaxis, ya = fig._fullLayout.yaxis;
  const boxes = {
    heading: box(root.querySelector("h2")),
    sentences: box(root.querySelector(".sentences")),
    control: box(root.querySelector(".control:not([hidden])")),
    "plot area": [origin.left + xa._offset, origin.top + ya._offset,
                  origin.left + xa._offset + xa._length, origin.top + ya._offset + ya._length],
  };
  for (const t of fig.querySelectorAll("text.xtitle, text.ytitle")) if (t.textContent) boxes[t.textContent] = box(t);
  for (const [i, t] of [...fig.querySelectorAll("g.legend g.traces")].entries()) boxes[`legend entry ${i + 1}`] = box(t);
  const fonts = [...fig.querySelectorAll("svg text")].filter((t) => t.textContent.trim())
    .map((t) => [t.textContent, parseFloat(getComputedStyle(t).fontSize)]);
  const heading = root.querySelector("h2").firstChild;
  const words = [];
  const range = document.createRange();
  for (const m of heading.textContent.matchAll(/\\S+/g)) {
    range.setStart(heading, m.index);
    range.setEnd(heading, m.index + m[0].length);
    words.push([m[0], Math.round(range.getBoundingClientRect().top)]);
  }
  const last = Math.max(...words.map(([, top]) => top));
  return {
    boxes, fonts, width: innerWidth, height: innerHeight,
    lines: new Set(words.map(([, top]) => top)).size,
    lastLine: words.filter(([, top]) => top === last).map(([w]) => w),
  };
}"""


@pytest.fixture(scope="module")
def app_url():
    with _served_app() as url:
        yield url


def _shown(page, step: int, value: str | None = None) -> None:
    """Wait until the lesson shows ``step`` (at its control's ``value``), drawn."""
    selector = f'{LESSON}[data-step="{step}"][data-pending="0"]'
    if value is not None:
        selector = f'{LESSON}[data-step="{step}"][data-value="{value}"][data-pending="0"]'
    page.wait_for_selector(selector, timeout=TIMEOUT_MS)


def _param(page, name: str) -> str | None:
    return page.evaluate(f"new URL(location.href).searchParams.get({name!r})")


def screen_problems(measured: dict) -> list[str]:
    """What a room would miss or misread on the screen measured by MEASURE."""
    problems = []
    for name, (left, top, right, bottom) in measured["boxes"].items():
        if left < 0 or top < 0 or right > measured["width"] or bottom > measured["height"]:
            problems.append(f"{name} lies outside the {measured['width']}x{measured['height']} window")
    small = sorted({text for text, size in measured["fonts"] if size < MIN_FONT_PX})
    if small:
        problems.append(f"figure text under {MIN_FONT_PX} px: {small[:5]}")
    if measured["lines"] > 1 and len(measured["lastLine"]) < 2:
        problems.append(f"the heading's last line is the lone word {measured['lastLine']}")
    return problems


def test_the_checks_catch_what_they_look_for():
    fits = {"boxes": {"plot area": [10, 10, 500, 400]}, "fonts": [("0", 18)], "width": 1280, "height": 720}
    assert screen_problems({**fits, "lines": 1, "lastLine": ["a"]}) == []
    cut = {**fits, "boxes": {"hit rate (%)": [10, 700, 200, 730]}, "lines": 1, "lastLine": []}
    assert screen_problems(cut) == ["hit rate (%) lies outside the 1280x720 window"]
    small = {**fits, "fonts": [("doc 1", 14.0)], "lines": 1, "lastLine": []}
    assert screen_problems(small) == ["figure text under 18 px: ['doc 1']"]
    orphan = {**fits, "lines": 2, "lastLine": ["n"]}
    assert screen_problems(orphan) == ["the heading's last line is the lone word ['n']"]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_every_step_fits_a_projectors_screen(app_url, browser, size):  # noqa: F811
    width, height = size
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{app_url}/lesson?step=1&ls_docs=1&ls_m=2000", timeout=TIMEOUT_MS)
    problems = []
    for step in range(1, 8):
        _shown(page, step)
        problems += [f"step {step}: {p}" for p in screen_problems(page.evaluate(MEASURE))]
        if step == 1:  # the documents shown too: the most rows of any figure
            page.get_by_role("switch").click()
            _shown(page, 1, "0")
            problems += [f"step 1 without the documents: {p}" for p in screen_problems(page.evaluate(MEASURE))]
        if step < 7:
            page.get_by_role("button", name="Next →").click()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate("document.querySelector('[data-testid=stMain]').scrollTop") == 0
    assert problems == []
    page.close()


def test_next_back_keys_and_controls_redraw_in_place_and_a_copied_link_restores_the_view(app_url, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{app_url}/lesson", timeout=TIMEOUT_MS)
    _shown(page, 1)
    assert _param(page, "step") == "1" and _param(page, "ls_docs") == "0"
    heading = page.locator(f"{LESSON} h2")
    assert heading.inner_text().startswith("1 of 7")

    page.get_by_role("button", name="Next →").click()
    _shown(page, 2)
    assert heading.inner_text().startswith("2 of 7") and _param(page, "step") == "2"
    page.keyboard.press("PageDown")  # what a presentation clicker sends
    _shown(page, 3)
    assert "draw 1 picked" in page.locator(f"{LESSON} .sentences").inner_text()
    page.get_by_role("button", name="Draw 20 other documents").click()
    _shown(page, 3, "2")
    assert "draw 2 picked" in page.locator(f"{LESSON} .sentences").inner_text() and _param(page, "ls_draw") == "2"
    page.keyboard.press("ArrowLeft")  # the focus on the button: the arrow goes Back
    _shown(page, 2)
    slider = page.get_by_role("slider", name="Samples of 20 documents drawn")
    slider.focus()
    page.keyboard.press("End")  # on the slider the keys move it, not the steps
    _shown(page, 2, "501")
    legend = page.locator(f"{LESSON} .figure[data-shown] g.legend").text_content()
    assert "other samples (500 of 500 drawn)" in legend and _param(page, "ls_draws") == "501"
    page.keyboard.press("ArrowLeft")
    _shown(page, 2, "500")
    assert "(499 of 500 drawn)" in page.locator(f"{LESSON} .figure[data-shown] g.legend").text_content()
    assert _param(page, "step") == "2" and _param(page, "ls_draws") == "500"

    # A copied link shows the same step, values and figure.
    link = page.url
    assert re.search(r"[?&]ls_draw=2(&|$)", link)
    copy = browser.new_page(viewport={"width": 1400, "height": 1000})
    copy.goto(link, timeout=TIMEOUT_MS)
    _shown(copy, 2, "500")
    assert copy.locator(f"{LESSON} h2").inner_text() == heading.inner_text()
    assert (
        copy.locator(f"{LESSON} .figure[data-shown] g.legend").text_content()
        == page.locator(f"{LESSON} .figure[data-shown] g.legend").text_content()
    )
    copy.keyboard.press("PageDown")
    _shown(copy, 3, "2")  # the draw the link named
    copy.close()

    # The server heard of the state the reader stopped on: new data keep the step and its values.
    page.wait_for_selector(f'{LESSON}[data-synced="1"]', timeout=TIMEOUT_MS)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Data of the lesson").locator("input").click()
    page.keyboard.type("Python docs")
    page.get_by_role("option", name="Real text: Python docs").click()
    page.wait_for_url(re.compile(r"[?&]ls_data=stdlib(&|$)"), timeout=TIMEOUT_MS)
    page.wait_for_function(
        "document.querySelector('[data-testid=ragunc-lesson]').textContent.includes('Python documentation')",
        timeout=TIMEOUT_MS,
    )
    _shown(page, 2, "500")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_the_lesson_reads_in_the_dark_theme(app_url, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 720}, color_scheme="dark")
    page.goto(f"{app_url}/lesson?step=4", timeout=TIMEOUT_MS)
    _shown(page, 4)
    text = page.locator(f"{LESSON} .figure[data-shown] .xtitle").evaluate("e => getComputedStyle(e).fill")
    body = page.locator(f"{LESSON} .sentences p").first.evaluate("e => getComputedStyle(e).color")
    for colour in (text, body):  # light on the dark background
        assert sum(map(int, re.findall(r"\d+", colour)[:3])) > 3 * 160, colour
    page.close()
