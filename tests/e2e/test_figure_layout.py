"""Figures as a browser lays them out: plotly.js (inlined, no network) in headless Chromium, at the widths
the dashboard gives a chart at 1400x1000 (the main column, or one of two columns).

What only the layout shows: a label a curve strikes through, an axis title touching the legend, a bar's
text cut off at the plot's edge, tick labels that do not read as the numbers at their places.
"""

from __future__ import annotations

import json
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from ragunc.data.results import load_results, merge_results
from ragunc.positional import load_sweep
from ragunc.present import design_effect_figures, evalset_figures, planning_figures, positional_figures
from ragunc.stats.design import chunk_size_diagnostics
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.multiple import compare_configs
from ragunc.stats.paired import paired_comparison
from ragunc.stats.planning import plan_difference, plan_from_pilot
from ragunc.stats.sample import document_rates

from tests.support.browser import launched_chromium

pytestmark = pytest.mark.e2e

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
FULL, HALF = 940, 450  # px: a chart across the main column, and one of two side by side
GAP_PX = 4  # the least room between an axis title and the legend

# Everything measured in the page's pixels once plotly.js has drawn the figure.
MEASURE = """async ([data, layout]) => {
  const div = document.getElementById("figure");
  await Plotly.newPlot(div, data, layout, {staticPlot: true});
  const origin = div.getBoundingClientRect();
  const rect = (el) => { const r = el.getBoundingClientRect();
    return [r.left - origin.left, r.top - origin.top, r.right - origin.left, r.bottom - origin.top]; };
  const areas = {};
  for (const [id, plot] of Object.entries(div._fullLayout._plots)) {
    const xa = plot.xaxis, ya = plot.yaxis;
    areas[id] = [xa._offset, ya._offset, xa._offset + xa._length, ya._offset + ya._length];
  }
  const subplot = (el) => el.closest("g.subplot").classList[1];
  const lines = [];
  for (const path of div.querySelectorAll("g.scatterlayer path.js-line")) {
    const area = areas[subplot(path)], ctm = path.getScreenCTM(), length = path.getTotalLength();
    for (let at = 0; at <= length; at += 1.5) {
      const p = path.getPointAtLength(at).matrixTransform(ctm);
      const x = p.x - origin.left, y = p.y - origin.top;
      if (x >= area[0] && x <= area[2] && y >= area[1] && y <= area[3]) lines.push([x, y]);
    }
  }
  const texts = [...div.querySelectorAll("g.barlayer text, g.funnellayer text, g.scatterlayer g.textpoint text")]
    .map((t) => ({text: t.textContent, box: rect(t), area: areas[subplot(t)]}));
  const ticks = {};
  for (const t of div.querySelectorAll("g[class$='tick'] text")) {
    const axis = t.parentNode.classList[0].replace("tick", "");
    const b = rect(t);
    if (b[2] <= b[0]) continue;  // a tick plotly keeps but does not draw
    (ticks[axis] = ticks[axis] || []).push({text: t.textContent, x: (b[0] + b[2]) / 2, y: (b[1] + b[3]) / 2});
  }
  // The legend as a reader sees it: its entries, not the transparent box plotly pads around them.
  const entries = [...div.querySelectorAll("g.legend g.traces")].map(rect);
  const legend = entries.length ? [Math.min(...entries.map((b) => b[0])), Math.min(...entries.map((b) => b[1])),
                                   Math.max(...entries.map((b) => b[2])), Math.max(...entries.map((b) => b[3]))] : null;
  return {
    annotations: [...div.querySelectorAll("g.annotation")].map((a) => ({text: a.textContent, box: rect(a)})),
    axis_titles: [...div.querySelectorAll("text[class$='title']:not(.gtitle)")]
      .filter((t) => t.textContent).map((t) => ({text: t.textContent, box: rect(t)})),
    legend,
    lines, texts, ticks,
  };
}"""


@pytest.fixture(scope="module")
def canvas():
    with launched_chromium() as chromium:
        page = chromium.new_page(viewport={"width": 1400, "height": 1000})
        page.set_content(
            f"<html><head><meta charset='utf-8'><script>{get_plotlyjs()}</script></head>"
            "<body style='margin:0'><div id='figure'></div></body></html>"
        )
        yield page


def laid_out(canvas, fig: go.Figure, width: int) -> dict:
    spec = json.loads(fig.to_json())
    return canvas.evaluate(MEASURE, [spec["data"], {**spec["layout"], "width": width}])


def _inside(point, box, margin: float = 0.0) -> bool:
    x, y = point
    return box[0] + margin < x < box[2] - margin and box[1] + margin < y < box[3] - margin


def _gap(a, b) -> float:
    """Pixels between two boxes (negative when they overlap)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").replace("−", "-").replace("\u2009", ""))
    except ValueError:
        return None


def layout_problems(layout: dict) -> list[str]:
    """What a reader would see wrong in a drawn figure."""
    problems = []
    for note in layout["annotations"]:
        if any(_inside(point, note["box"], 1.0) for point in layout["lines"]):
            problems.append(f"a curve runs through the label {note['text']!r}")
    if layout["legend"] is not None:
        for title in layout["axis_titles"]:
            if _gap(title["box"], layout["legend"]) < GAP_PX:
                problems.append(f"the axis title {title['text']!r} touches the legend")
    for text in layout["texts"]:
        box, area = text["box"], text["area"]
        if box[0] < area[0] - 0.5 or box[2] > area[2] + 0.5 or box[1] < area[1] - 0.5 or box[3] > area[3] + 0.5:
            problems.append(f"the text {text['text']!r} is cut at the edge of its plot")
    for axis, ticks in layout["ticks"].items():
        values = [(_number(t["text"]), t["x"] if axis.startswith("x") else -t["y"]) for t in ticks if t["text"]]
        if values and all(v is not None for v, _ in values):
            ordered = [v for v, _ in sorted(values, key=lambda vp: vp[1])]
            if any(b <= a for a, b in zip(ordered, ordered[1:])):
                problems.append(f"the {axis} axis reads {' '.join(t['text'] for t in ticks)}")
    return problems


# ---------------------------------------------------------------- the figures, built from the bundled samples


@pytest.fixture(scope="module")
def stdlib():
    return merge_results([load_results(SAMPLES / f"stdlib_{w}w.csv.gz") for w in (50, 100, 200)])


@pytest.fixture(scope="module")
def alike():
    return merge_results([load_results(SAMPLES / f"debian_copyright_{w}w.csv.gz") for w in (50, 100, 200)])


def _deff_curve(results, k: int = 20) -> go.Figure:
    """As the Design effect page draws it."""
    d = diagnostics(results.population("100w"), estimator="micro")
    observed = {c: (diagnostics(p).mean_size, diagnostics(p).deff) for c, p in results.populations.items()}
    return design_effect_figures.deff_curve_figure(
        rho=d.icc, k=k, m_max=max(2 * max(m for m, _ in observed.values()), 20.0), observed=observed
    )


@pytest.mark.parametrize("which", ["stdlib", "alike"])
def test_the_k_over_rho_label_is_clear_of_the_curves(canvas, which, request):
    # On the alike sample the effective-n curve ran through "K/ρ = 149.9", written under the ceiling.
    fig = _deff_curve(request.getfixturevalue(which))
    assert layout_problems(laid_out(canvas, fig, FULL)) == []


def test_the_forest_plots_axis_title_keeps_clear_of_its_legend(canvas, stdlib):
    fig = planning_figures.forest_figure(compare_configs(stdlib.populations, "100w", boot=200, rng=0))
    for width in (FULL, HALF):
        assert layout_problems(laid_out(canvas, fig, width)) == []


def test_the_plans_log_axes_read_as_numbers(canvas, stdlib):
    # Plotly labels a log axis's minor ticks with their leading digit: "100 5 2 10 5 2 1".
    fig = planning_figures.plan_figure(plan_from_pilot(stdlib.population("100w"), half_width=0.02))
    assert layout_problems(laid_out(canvas, fig, FULL)) == []


def test_the_power_and_comparison_figures_lay_out_cleanly(canvas, stdlib):
    plan = plan_difference(stdlib.population("100w"), stdlib.population("50w"), difference=0.02)
    comparison = paired_comparison(stdlib.population("100w"), stdlib.population("50w"), boot=200, rng=0)
    for fig in (planning_figures.power_figure(plan), planning_figures.comparison_figure(comparison)):
        assert layout_problems(laid_out(canvas, fig, FULL)) == []


def test_the_design_effect_figures_lay_out_cleanly(canvas, stdlib):
    population = stdlib.population("100w")
    sizes = {int(c[:-1]): p for c, p in stdlib.populations.items()}
    for fig, width in (
        (design_effect_figures.chunk_size_figure(chunk_size_diagnostics(sizes, k=20), current=100), FULL),
        (design_effect_figures.document_rates_figure({"documents": document_rates(population)}), HALF),
    ):
        assert layout_problems(laid_out(canvas, fig, width)) == []


def test_the_evaluation_set_bars_keep_their_numbers_inside_and_the_axis_title_off_the_legend(canvas):
    # 600 chunks sampled: "300" factual questions written past the end of the longest bar, and cut off there.
    funnel = {"sampled": 600, "answered": 600, "parsed": 596, "not_leaking": 240, "unique": 236, "kept": 192}
    by_type = {
        "two_chunk": {"sampled": 90, "kept": 66},
        "procedural": {"sampled": 120, "kept": 84},
        "factual": {"sampled": 300, "kept": 192},
        "negative": {"sampled": 90, "kept": 90},
    }
    for fig in (evalset_figures.funnel_figure(funnel), evalset_figures.type_mix_figure(by_type)):
        assert layout_problems(laid_out(canvas, fig, HALF)) == []


def test_the_positional_figures_lay_out_cleanly(canvas):
    sweep = load_sweep(SAMPLES / "positional_stdlib.json")
    line = sweep.along_lambda(*sweep.series()[0])
    shown = [line[0], line[1]]
    for fig in (
        positional_figures.group_ndcg_figure(line, level=sweep.level),
        positional_figures.difference_figure(line, level=sweep.level),
        positional_figures.summary_figure(line, level=sweep.level),
        positional_figures.position_curve_figure(shown, level=sweep.level),
    ):
        assert layout_problems(laid_out(canvas, fig, FULL)) == []


def test_the_checks_catch_what_they_look_for(canvas):
    """Each check finds its defect in a figure made to have it."""
    struck = go.Figure(go.Scatter(x=[0, 10], y=[0, 10], mode="lines"))
    struck.add_annotation(x=5, y=5, text="on the line", showarrow=False)
    touching = go.Figure(
        [go.Scatter(x=[0, 1], y=[0, i], name=f"a long legend entry {i}") for i in range(3)],
        layout={
            "height": 260,
            "xaxis": {"title": {"text": "an axis title"}},
            "legend": {"orientation": "h", "y": -0.1, "yanchor": "top"},
        },
    )
    cut = go.Figure(go.Bar(x=[100, 40], y=["a", "b"], orientation="h", text=["100", "40"], textposition="outside"))
    log = go.Figure(go.Scatter(x=[1, 2], y=[1, 100]), layout={"yaxis": {"type": "log"}, "height": 500})
    problems = [layout_problems(laid_out(canvas, fig, HALF)) for fig in (struck, touching, cut, log)]
    assert ["a curve runs through" in p for p in problems[0]] == [True]
    assert any("touches the legend" in p for p in problems[1])
    assert any("'100' is cut" in p for p in problems[2])
    assert any("the y axis reads" in p for p in problems[3])
