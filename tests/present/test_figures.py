"""Figure builders: pure functions returning go.Figure whose drawn numbers are the results' numbers."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ragunc.present import design_effect_figures, explorer_figures, numbers, planning_figures, style
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.intervals import interval_report
from ragunc.stats.methods import METHODS
from ragunc.stats.paired import paired_comparison
from ragunc.stats.planning import plan_difference, plan_documents
from ragunc.stats.sample import ClusterStats

OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"}
# Colour-blind-safe colours the builders may use: Okabe-Ito plus Paul Tol's muted wine, indigo, teal,
# olive, rose, green and purple (Tol's "muted" scheme, https://personal.sron.nl/~pault/; the methods beyond eight).
SAFE = OKABE_ITO | {"#882255", "#332288", "#44AA99", "#999933", "#CC6677", "#117733", "#AA4499", "#88CCEE"}


def _population(n_docs=200, rho=0.3, p=0.2, seed=1, config="100w"):
    """Beta-binomial documents with unequal sizes (built here, independent of ragunc.synth)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 60, n_docs)
    ab = 1 / rho - 1
    rate = rng.beta(p * ab, (1 - p) * ab, n_docs)
    sum_y = rng.binomial(n, rate).astype(float)
    return ClusterStats(
        cluster_id=np.array([f"d{i}" for i in range(n_docs)]),
        sum_y=sum_y,
        n=n.astype(np.int64),
        sum_y2=sum_y.copy(),
        config=config,
    )


@pytest.fixture(scope="module")
def population():
    return _population()


@pytest.fixture(scope="module")
def report(population):
    return interval_report(population.subset(np.arange(30)), boot=300, rng=0)


@pytest.fixture(scope="module")
def coverage(population):
    return coverage_experiment(population, k=15, reps=150, boot=100, rng=3)


def _colors(fig: go.Figure) -> set[str]:
    found = set()
    for trace in fig.data:
        marker = getattr(trace, "marker", None)
        color = getattr(marker, "color", None) if marker is not None else None
        if isinstance(color, str):
            found.add(color.upper())
        elif color is not None:
            found.update(c.upper() for c in color)
        line = getattr(trace, "line", None)
        if line is not None and isinstance(line.color, str):
            found.add(line.color.upper())
    return found


def test_interval_figure_draws_every_interval_at_its_bounds(report):
    fig = explorer_figures.interval_figure(report, population_value=0.2)
    drawn = {t.y[0]: t for t in fig.data}
    assert len(drawn) == len(METHODS)
    for method in METHODS:
        low, high = report.interval(method.name).ci
        trace = drawn[method.label]
        est = trace.x[0]
        assert est == pytest.approx(100 * report.estimate)
        assert est - trace.error_x.arrayminus[0] == pytest.approx(100 * low)
        assert est + trace.error_x.array[0] == pytest.approx(100 * high)
        assert trace.marker.color == style.PALETTE[method.color]
    assert fig.layout.shapes[0].x0 == pytest.approx(20.0)  # the population line, in percent
    assert "%" in fig.layout.xaxis.title.text


def test_interval_figure_lists_the_methods_in_the_registry_order(report):
    # Cluster methods before the bootstrap ones, whatever order a report was built in.
    shuffled = dataclasses.replace(report, intervals=dict(reversed(report.intervals.items())))
    for r in (report, shuffled):
        fig = explorer_figures.interval_figure(r)
        assert [t.y[0] for t in fig.data] == [m.label for m in METHODS]


def test_every_registered_method_has_a_distinct_label_and_a_safe_distinct_colour():
    labels = [style.method_label(m.name) for m in METHODS]
    colours = [style.method_color(m.name) for m in METHODS]
    assert len(set(labels)) == len(labels) and len(set(colours)) == len(colours)
    assert {c.upper() for c in colours} <= SAFE
    with pytest.raises(ValueError, match="unknown interval method 'paired'"):
        style.method_label("paired")


def test_coverage_figure_shows_coverage_mcse_and_nominal_line(coverage):
    fig = explorer_figures.coverage_figure(coverage)
    (trace,) = fig.data
    methods = list(coverage.methods)
    assert list(trace.y) == [style.method_label(m) for m in methods]
    np.testing.assert_allclose(trace.x, [100 * coverage.methods[m].coverage for m in methods])
    # ±1.96 Monte Carlo SE, with the binomial MCSE recomputed here: sqrt(c(1-c)/R)
    c = np.array([coverage.methods[m].coverage for m in methods])
    np.testing.assert_allclose(trace.error_x.array, 196 * np.sqrt(c * (1 - c) / coverage.reps), atol=1e-9)
    assert fig.layout.shapes[0].x0 == pytest.approx(100 * coverage.level)


def test_coverage_figure_writes_undefined_rather_than_drawing_zero(population):
    # K = 2: the studentized bootstraps are undefined in every repetition
    r = coverage_experiment(population, k=2, reps=100, boot=30, rng=4)
    fig = explorer_figures.coverage_figure(r)
    markers, undefined = fig.data
    labels = [style.method_label(m) for m in ("bootstrap_t", "bootstrap_t_logit")]
    for label in labels:
        assert np.isnan(markers.x[list(markers.y).index(label)])  # no point at 0%
    assert list(undefined.y) == labels and list(undefined.text) == ["undefined"] * 2
    assert undefined.x[0] == fig.layout.xaxis.range[0]  # written at the row's start, inside the axis
    assert np.isfinite(fig.layout.xaxis.range).all()
    assert "undefined in all 100 repetitions" in undefined.hovertemplate


def test_stacked_intervals_count_undefined_intervals_apart(population):
    r = coverage_experiment(population, k=2, reps=40, boot=30, rng=5)
    fig = explorer_figures.stacked_intervals_figure(r, n=40, methods=("cluster", "bootstrap_t"))
    assert fig.layout.annotations[1].text == "Cluster bootstrap (studentized)<br>0 of 40 miss, 40 undefined"


def test_coverage_figure_side_by_side_has_one_trace_per_scenario(population, coverage):
    iid = coverage_experiment(population, k=15, reps=150, boot=100, rng=3, control="iid")
    fig = explorer_figures.coverage_figure({"real": coverage, "iid": iid}, methods=("naive", "cluster"))
    assert [t.name for t in fig.data] == ["real", "iid"]
    np.testing.assert_allclose(fig.data[1].x, [100 * iid.methods[m].coverage for m in ("naive", "cluster")])


def test_stacked_intervals_colours_exactly_the_misses(coverage):
    n = 60
    fig = explorer_figures.stacked_intervals_figure(coverage, n=n)
    truth = coverage.population_value
    for col, method in enumerate(("naive", "cluster")):
        miss = (coverage.methods[method].lower[:n] > truth) | (coverage.methods[method].upper[:n] < truth)
        hold_trace, miss_trace = fig.data[3 * col], fig.data[3 * col + 1]
        assert miss_trace.line.color == style.MISS_COLOR
        # each segment is (low, high, gap): count segments by their non-gap starts
        assert np.isfinite(np.asarray(miss_trace.x, float)[::3]).sum() == miss.sum()
        assert np.isfinite(np.asarray(hold_trace.x, float)[::3]).sum() == n - miss.sum()
        assert f"{miss.sum()} of {n} miss" in fig.layout.annotations[col].text


def test_sampling_distribution_curves_use_the_mean_standard_errors(coverage):
    fig = explorer_figures.sampling_distribution_figure(coverage, bins=25)
    hist = fig.data[0]
    # binned here: 25 bars of the estimates' density (per percentage point), not every estimate
    density, edges = np.histogram(100 * coverage.estimates, bins=25, density=True)
    assert hist.type == "bar" and len(hist.y) == 25
    np.testing.assert_allclose(hist.y, density)
    np.testing.assert_allclose(hist.x, (edges[:-1] + edges[1:]) / 2)
    assert np.sum(np.asarray(hist.y) * np.asarray(hist.width)) == pytest.approx(1.0)
    for trace, method in zip(fig.data[1:], ("naive", "cluster")):
        sd = 100 * coverage.methods[method].se_mean
        x, y = np.asarray(trace.x), np.asarray(trace.y)
        np.testing.assert_allclose(y, stats.norm.pdf(x, 100 * coverage.estimates.mean(), sd))
        # the curve is a density in per-percentage-point units: it integrates to ~1 on its grid
        assert np.trapezoid(y, x) == pytest.approx(1.0, abs=0.01)


def test_deff_curve_follows_kish_and_approaches_k_over_rho():
    rho, k = 0.25, 20
    fig = design_effect_figures.deff_curve_figure(rho=rho, k=k, m_max=400, observed={"100w": (25.8, 7.0)})
    deff, chunks, n_eff = fig.data[0], fig.data[1], fig.data[2]
    m = np.asarray(deff.x)
    assert deff.y[0] == pytest.approx(1.0)  # one chunk per document: no design effect
    np.testing.assert_allclose(deff.y, 1 + (m - 1) * rho)
    np.testing.assert_allclose(chunks.y, k * m)
    assert n_eff.y[-1] < k / rho and n_eff.y[-1] == pytest.approx(k / rho, rel=0.02)
    assert np.all(np.diff(n_eff.y) > 0)
    ceiling = fig.data[3]
    assert (
        list(ceiling.y) == pytest.approx([k / rho] * 2)
        and ceiling.name == f"ceiling K/ρ = {numbers.effective_n(k / rho)}"
    )
    assert fig.data[4].x[0] == 25.8 and fig.data[4].y[0] == 7.0


def test_document_rates_figure_bins_shares_of_documents_in_percent():
    rates = np.array([0.0, 0.0, 0.5, 1.0])
    fig = design_effect_figures.document_rates_figure({"a": rates}, bins=4)
    (bars,) = fig.data
    np.testing.assert_allclose(bars.x, [12.5, 37.5, 62.5, 87.5])
    # numpy puts 0.5 in [50, 75) and 1.0 in the closed last bin [75, 100]
    np.testing.assert_allclose(bars.y, [50.0, 0.0, 25.0, 25.0])
    assert np.sum(bars.y) == pytest.approx(100.0)


def test_plan_figure_marks_the_documents_needed(population):
    plan = plan_documents(population, half_width=0.03)
    fig = planning_figures.plan_figure(plan)
    np.testing.assert_allclose(fig.data[0].y, 100 * plan.curve_half_width)
    np.testing.assert_allclose(fig.data[1].y, 100 * plan.curve_naive_half_width)
    assert fig.data[3].x[0] == plan.docs_needed
    target = fig.data[2]  # named in the legend, drawn across the curve's K
    assert target.name == "target ± 3.00 pp" and list(target.y) == [3.0, 3.0]
    assert list(target.x) == [plan.k[0], plan.k[-1]]


def test_power_figure_titles_the_planned_difference_in_the_pilots_direction(population):
    # It read "+2.0 pp (50w − 100w)" beside a pilot 50w − 100w of −1.23 pp: the plan is a two-sided test
    # of a 2 pp difference either way, and the title must not say the planned direction is the opposite one.
    fewer = np.floor(0.8 * population.sum_y)
    worse = dataclasses.replace(population, sum_y=fewer, sum_y2=fewer, config="50w")
    plan = plan_difference(population, worse, difference=0.02)
    assert plan.pilot_difference < 0  # the premise
    title = planning_figures.power_figure(plan).layout.title.text
    assert "2.00 pp" in title and f"pilot 50w − 100w {100 * plan.pilot_difference:+.2f} pp" in title
    signs = {sign for sign in re.findall(r"([+−-])\d+(?:\.\d+)? pp", title)}
    assert signs <= {"-", "−"}, title  # no signed difference of the other direction


def test_comparison_figure_draws_naive_paired_and_bootstrap(population):
    other = _population(seed=2, config="200w")
    other = ClusterStats(
        cluster_id=population.cluster_id, sum_y=other.sum_y, n=other.n, sum_y2=other.sum_y2, config="200w"
    )
    cmp = paired_comparison(population, other, boot=200, rng=0)
    fig = planning_figures.comparison_figure(cmp)
    for trace, est in zip(fig.data, (cmp.interval("naive"), cmp.interval("paired"), cmp.interval("bootstrap"))):
        diff = trace.x[0]
        assert diff == pytest.approx(100 * cmp.difference)
        assert diff - trace.error_x.arrayminus[0] == pytest.approx(100 * est.ci[0])
        assert diff + trace.error_x.array[0] == pytest.approx(100 * est.ci[1])
    assert fig.layout.shapes[0].x0 == 0.0


def test_builders_use_okabe_ito_and_leave_the_theme_alone(report, coverage):
    built = [
        explorer_figures.interval_figure(report),
        explorer_figures.coverage_figure(coverage),
        explorer_figures.stacked_intervals_figure(coverage, n=20),
        explorer_figures.sampling_distribution_figure(coverage),
        design_effect_figures.deff_curve_figure(rho=0.3, k=20),
    ]
    for fig in built:
        assert isinstance(fig, go.Figure)
        assert _colors(fig) <= SAFE
        # no hard-coded background: the host's light or dark theme applies
        assert fig.layout.plot_bgcolor is None and fig.layout.paper_bgcolor is None
        assert fig.layout.template == go.Figure().layout.template  # the default, which Streamlit's theme replaces
        assert all(t.hovertemplate for t in fig.data)


@settings(max_examples=30, deadline=None)
@given(
    low=st.floats(0.0, 0.5),
    width=st.floats(0.0, 0.5),
    n=st.integers(1, 50),
)
def test_segments_draw_one_gap_separated_segment_per_row(low, width, n):
    lows = np.full(n, low)
    highs = lows + width
    x, y = explorer_figures._segments(lows, highs, np.arange(n))
    assert len(x) == 3 * n and np.isnan(x[2::3]).all() and np.isnan(y[2::3]).all()
    np.testing.assert_array_equal(x[0::3], lows)
    np.testing.assert_array_equal(x[1::3], highs)
    np.testing.assert_array_equal(y[0::3], y[1::3])


def test_interval_figure_stars_the_recommended_interval_and_labels_coverage(report, coverage):
    fig = explorer_figures.interval_figure(report, coverage=coverage)
    recommended = style.method_label(report.recommendation.method)
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    assert list(ticks) == [style.method_label(m.name) for m in METHODS]
    assert ticks[recommended].startswith(f"<b>★ {recommended} (recommended)</b>")
    for m in METHODS:
        assert ticks[m.label].endswith(f" · {100 * coverage.methods[m.name].coverage:.1f}% coverage here")
    sizes = {t.y[0]: t.marker.size for t in fig.data}
    assert sizes[recommended] > max(size for label, size in sizes.items() if label != recommended)
    plain = explorer_figures.interval_figure(report)
    assert "coverage" not in " ".join(plain.layout.yaxis.ticktext)


def test_the_short_list_shows_three_intervals_under_plain_names(report, coverage):
    short = [m.name for m in METHODS if m.shown_first]
    assert short == ["naive", "korn_graubard_bm", "bootstrap"]  # the naive one, the recommended one, one bootstrap
    fig = explorer_figures.interval_figure(report, coverage, methods=short, plain=True)
    assert [t.y[0] for t in fig.data] == [explorer_figures.interval_label(m, plain=True) for m in short]
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    assert ticks["Documents as clusters (recommended)"].startswith("<b>★ Documents as clusters (recommended)</b> · ")
    assert all("coverage here" in t for t in ticks.values())
    cov = explorer_figures.coverage_figure(coverage, methods=short, plain=True)
    assert list(cov.data[0].y) == [explorer_figures.interval_label(m, plain=True) for m in short]


def test_explorer_figures_are_lean(report, coverage):
    """The figures redrawn on every K move: no subplot grid, a few traces whatever the repetitions, shapes
    for reference lines, and the histogram sent as its bars."""
    stacked = explorer_figures.stacked_intervals_figure(coverage, n=100, methods=("naive", "korn_graubard_bm"))
    assert len(stacked.data) == 6  # per panel: held, missed, estimates
    assert len(explorer_figures.sampling_distribution_figure(coverage).data[0].x) == 40
    for fig in (
        explorer_figures.interval_figure(report, population_value=0.2),
        explorer_figures.coverage_figure(coverage),
        stacked,
        explorer_figures.sampling_distribution_figure(coverage),
    ):
        assert fig.layout.shapes and all(s.type == "line" for s in fig.layout.shapes)
        assert fig.layout.grid.rows is None  # not make_subplots


def test_stacked_panels_hold_every_interval_and_their_titles_do_not_overlap(population):
    # Wide intervals (K = 3): every drawn bound inside the shared x range, panel titles centred on their panel
    r = coverage_experiment(population, k=3, reps=60, boot=30, rng=8)
    fig = explorer_figures.stacked_intervals_figure(r, n=60, methods=("naive", "bootstrap"))
    low, high = fig.layout.xaxis.range
    assert tuple(fig.layout.xaxis2.range) == (low, high)
    for trace in fig.data:
        x = np.asarray(trace.x, dtype=float)
        assert np.all((x[np.isfinite(x)] >= low) & (x[np.isfinite(x)] <= high))
    (a0, a1), (d0, d1) = fig.layout.annotations, (fig.layout.xaxis.domain, fig.layout.xaxis2.domain)
    assert a0.xanchor == a1.xanchor == "center"
    assert a0.x == pytest.approx(sum(d0) / 2) and a1.x == pytest.approx(sum(d1) / 2) and d0[1] < d1[0]
