"""The explorer in headless Chromium: every quantity it shows reads one value wherever it appears (headline,
tiles, figure titles, the disclosure, the figures' points as their hover text says them), and it fits a projector's 1280x720 screen.

Skipped with a reason when chromium or Playwright is missing, except under CI=true (tests/support/browser.py).
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from tests.e2e.test_browser import (  # noqa: F401 (fixtures)
    EXPLORER,
    SETTLED,
    TIMEOUT_MS,
    _move_k,
    app_url,
    browser,
)

pytestmark = pytest.mark.e2e

NUMBER = r"([0-9][0-9,]*(?:\.[0-9]+)?)"

# (quantity, slot or place, pattern): each pattern's group is one rendering of the quantity.
RENDERINGS = [
    ("K", "k", r"^{n} documents$"),
    ("K", "design_title", r"K = {n} documents"),
    ("K", "sample_title", r"the {n} documents drawn"),
    ("K", "headline", r"a sample of {n} documents"),
    ("K", "headline_coverage", r"samples of {n} documents"),
    ("K", "intervals_title", r": {n} documents"),
    ("K", "coverage_title", r"K = {n} documents"),
    ("R", "reps", r"^{n}$"),
    ("R", "headline_coverage", r"^Over {n} fresh samples"),
    ("R", "coverage_title", r"over {n} samples"),
    ("design effect", "headline", r"tells you {n} times less"),
    ("design effect", "design_deff", r"^{n}$"),
    ("design effect", "why", r"^The design's {n} is the one"),
    ("effective n", "headline", r"as much as {n} independent"),
    ("effective n", "design_n_eff", r"^{n}$"),
    ("chunks a sample holds on average", "headline", r"holds about {n} chunks on average"),
    ("chunks a sample holds on average", "design_chunks", r"^about {n}$"),
    ("chunks of this sample", "sample_chunks", r"^{n}$"),
    ("chunks of this sample", "intervals_title", r"{n} chunks$"),
    ("coverage of the naive interval", "headline_coverage", r"the true hit@1 (?:only )?{n}% of the time"),
    ("coverage of the naive interval", "coverage figure: naive", r"^{n}$"),
    ("coverage of the recommended interval", "headline_coverage", r"the recommended interval held it {n}%"),
    ("coverage of the recommended interval", "coverage figure: recommended", r"^{n}$"),
    ("this sample's hit@1", "sample_estimate", r"^{n}%$"),
    ("this sample's hit@1", "intervals figure: recommended estimate", r"^{n}$"),
]

# What the page shows, read in the browser: every text slot, the disclosure, the controls' outputs, and the
# figures' points as their own hover templates format them (d3's ".1f" is JavaScript's toFixed(1)).
READ = """(root) => {
  const out = {};
  for (const el of root.querySelectorAll("[data-slot]")) out[el.dataset.slot] = el.textContent.trim();
  out.why = root.querySelector('[data-template="why"]').textContent.trim();
  out.k = root.querySelector('[data-value="k"]').textContent.trim();
  out.reps = root.querySelector('[data-value="reps"]').textContent.trim();
  const fixed = (x) => (x === null || x === undefined ? null : Number(x).toFixed(1));
  const coverage = root.querySelector('[data-figure="coverage"]').data[0];
  coverage.y.forEach((label, i) => {
    const which = /recommended/.test(label) ? "recommended" : /naive/.test(label) ? "naive" : null;
    if (which) out[`coverage figure: ${which}`] = fixed(coverage.x[i]);
  });
  const recommended = root.querySelector('[data-figure="intervals"]').data.find((t) => /recommended/.test(t.name));
  out["intervals figure: recommended estimate"] = fixed(recommended.x[0]);
  return out;
}"""


def renderings(shown: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each quantity's renderings by place, parsed out of the texts the page shows."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for quantity, place, pattern in RENDERINGS:
        text = shown.get(place)
        match = re.search(pattern.format(n=NUMBER), text) if text else None
        assert match, f"{quantity}: no number in {place!r}: {text!r}"
        found[quantity][place] = match.group(1)
    return found


def mismatches(shown: dict[str, str]) -> dict[str, dict[str, str]]:
    """The quantities that read more than one value, with what each place says."""
    return {quantity: places for quantity, places in renderings(shown).items() if len(set(places.values())) > 1}


def test_the_parser_catches_a_quantity_said_two_ways():
    """A unit check of the browser test's own reading: two renderings of one quantity are a mismatch."""
    shown = {
        "k": "20 documents",
        "design_title": "The design: repeated samples of K = 20 documents",
        "sample_title": "This sample: the 20 documents drawn",
        "headline": "Chunks are alike: a sample of 20 documents holds about 545 chunks on average, but they tell "
        "you as much as 62.4 independent ones would: each chunk tells you 8.7 times less.",
        "headline_coverage": "Over 1,000 fresh samples of 20 documents, the usual binomial 95% interval held the true "
        "hit@1 only 46.2% of the time; the recommended interval held it 92.6%.",
        "intervals_title": "95% intervals for hit@1: 20 documents, 433 chunks",
        "coverage_title": "Coverage over 1,000 samples of K = 20 documents (±1.96 Monte Carlo SE)",
        "reps": "1,000",
        "design_deff": "8.7",
        "why": "The design's 8.7 is the one to read.",
        "design_n_eff": "62.4",
        "design_chunks": "about 545",
        "sample_chunks": "433",
        "coverage figure: naive": "46.2",
        "coverage figure: recommended": "92.6",
        "sample_estimate": "5.5%",
        "intervals figure: recommended estimate": "5.5",
    }
    assert mismatches(shown) == {}
    assert mismatches({**shown, "design_n_eff": "62"}) == {"effective n": {"headline": "62.4", "design_n_eff": "62"}}
    assert set(mismatches({**shown, "coverage figure: recommended": "92.5"})) == {
        "coverage of the recommended interval"
    }
    assert set(mismatches({**shown, "design_chunks": "about 381", "why": "The design's 9.1 is the one"})) == {
        "chunks a sample holds on average",
        "design effect",
    }


def _shown(page) -> dict[str, str]:
    return page.locator(EXPLORER).evaluate(READ)


def test_every_quantity_reads_one_value_in_the_headline_tiles_and_figures(app_url, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_url, timeout=TIMEOUT_MS)
    page.wait_for_selector(SETTLED, timeout=TIMEOUT_MS)
    assert mismatches(_shown(page)) == {}
    _move_k(page, 7)  # another K: every number on the screen is redrawn in the browser
    shown = _shown(page)
    assert shown["k"] == "27 documents"
    assert mismatches(shown) == {}
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)])
def test_the_explorer_fits_a_projector(app_url, browser, width, height):  # noqa: F811
    """Headline, K control, tiles and the intervals figure inside the screen's width, figure text readable."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(app_url, timeout=TIMEOUT_MS)
    page.wait_for_selector(SETTLED, timeout=TIMEOUT_MS)
    layout = page.locator(EXPLORER).evaluate(
        """(root) => {
          const right = (sel) => Math.max(...[...root.querySelectorAll(sel)].map((el) => el.getBoundingClientRect().right));
          const figure = root.querySelector('[data-figure="intervals"]');
          const box = figure.getBoundingClientRect();
          const texts = [...figure.querySelectorAll("svg text")].filter((t) => t.textContent.trim());
          return {
            page: document.documentElement.scrollWidth, screen: window.innerWidth,
            parts: ["[data-slot=headline]", 'input[name="k"]', ".tile", '[data-figure="intervals"] svg'].map(right),
            fonts: texts.map((t) => parseFloat(getComputedStyle(t).fontSize)),
            clipped: texts.map((t) => t.getBoundingClientRect()).filter((r) => r.left < box.left || r.right > box.right).length,
          };
        }"""
    )
    assert layout["page"] <= layout["screen"], "the page scrolls sideways"
    assert max(layout["parts"]) <= layout["screen"], layout["parts"]
    assert min(layout["fonts"]) >= 16, sorted(set(layout["fonts"]))
    assert layout["clipped"] == 0, "a label of the intervals figure runs past its edge"
    page.close()
