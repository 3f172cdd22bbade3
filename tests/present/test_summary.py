"""Summary table, plain-language reading and the self-contained HTML report."""

from __future__ import annotations

import dataclasses
import html
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from ragunc.present import explorer_figures, numbers, planning_figures, style
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.offline import get_plotlyjs

from ragunc.present import summary as report
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.intervals import interval_report
from ragunc.stats.methods import METHODS
from ragunc.stats.multiple import compare_configs
from ragunc.stats.planning import plan_difference
from ragunc.stats.sample import ClusterStats


def _sample(n_docs=120, seed=4):
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 50, n_docs)
    rate = rng.beta(0.5, 2.0, n_docs)
    sum_y = rng.binomial(n, rate).astype(float)
    return ClusterStats(
        cluster_id=np.array([f"d{i}" for i in range(n_docs)]),
        sum_y=sum_y,
        n=n.astype(np.int64),
        sum_y2=sum_y.copy(),
        config="100w",
    )


@pytest.fixture(scope="module")
def population():
    return _sample()


@pytest.fixture(scope="module")
def rep(population):
    return interval_report(population.subset(np.arange(25)), boot=200, rng=1)


@pytest.fixture(scope="module")
def cov(population):
    return coverage_experiment(population, k=10, reps=100, boot=50, rng=2)


def test_summary_table_rows_are_the_reports_intervals(rep, cov):
    table = report.summary_table(rep, cov)
    by_method = table.set_index("method")
    assert (by_method.loc["naive", "low"], by_method.loc["naive", "high"]) == rep.interval("naive").ci
    assert by_method.loc["cluster", "se"] == rep.interval("cluster").se
    assert by_method.loc["bootstrap_bca", "high"] == rep.interval("bootstrap_bca").ci[1]
    np.testing.assert_allclose(table["half_width_pp"], 50 * (table["high"] - table["low"]))
    assert by_method.loc["cluster", "coverage"] == cov.methods["cluster"].coverage
    # CSV round trip keeps the numbers
    back = pd.read_csv(io.StringIO(table.to_csv(index=False)))
    np.testing.assert_allclose(back["low"], table["low"])


def test_an_interval_undefined_in_every_repetition_reads_undefined_not_zero(population):
    small = interval_report(population.subset(np.arange(2)), boot=50, rng=1)
    k2 = coverage_experiment(population, k=2, reps=60, boot=20, rng=3)
    table = report.summary_table(small, k2).set_index("method")
    assert np.isnan(table.loc["bootstrap_t", "coverage"]) and table.loc["bootstrap_t", "coverage_undefined"] == 60
    assert table.loc["cluster", "coverage_undefined"] == 0
    readable = report._readable(small, k2).set_index("interval")["coverage (% ± 1.96 Monte Carlo SE)"]
    assert readable[style.method_label("bootstrap_t")] == "undefined in all 60 repetitions"
    c, s = k2.methods["cluster"].coverage, k2.methods["cluster"].mcse
    assert readable[style.method_label("cluster")] == f"{100 * c:.1f} ± {196 * s:.1f}"
    # a method the simulation did not run (no bootstrap) is "—", not "undefined"
    no_boot = coverage_experiment(population, k=5, reps=30, boot=0, rng=3)
    readable = report._readable(small, no_boot).set_index("interval")["coverage (% ± 1.96 Monte Carlo SE)"]
    assert readable[style.method_label("bootstrap")] == "—"


def test_summary_json_is_valid_json_with_context(rep, cov):
    payload = json.loads(report.summary_json(rep, cov, source="test", K=25))
    assert payload["context"] == {"source": "test", "K": 25}
    assert payload["interval"]["estimate"] == pytest.approx(rep.estimate)
    assert payload["coverage"]["k"] == 10
    assert payload["interval"]["cluster"]["ci"] == list(rep.interval("cluster").ci)


def test_plain_reading_quotes_the_numbers(rep, cov):
    lines = report.plain_reading(rep, cov)
    d = rep.diagnostics
    text = " ".join(lines)
    # every number by the rule of its kind, as the headline and the tiles say it (ragunc.present.numbers)
    assert (
        f"This sample's own estimates: its {rep.n_chunks:,} chunks carry about as much information as "
        f"{numbers.effective_n(d.n_eff)} independent ones (design effect {d.deff:.1f})"
    ) in text
    # recompute the half-widths and their ratio from the intervals
    honest, naive = rep.recommended().ci, rep.interval("naive").ci
    ratio = (honest.high - honest.low) / (naive.high - naive.low)
    assert f"claims ±{50 * (naive.high - naive.low):.2f} pp" in text and f"{ratio:.1f}× as wide" in text
    # the coverage sentence names the recommended interval, not the linearization one
    assert f"{100 * cov.methods['naive'].coverage:.1f}% of the time" in lines[-1]
    held = 100 * cov.methods["korn_graubard_bm"].coverage
    assert f"the recommended interval (Korn–Graubard, Bell–McCaffrey df) {held:.1f}%" in lines[-1]


def test_every_figure_says_whose_it_is(population, rep, cov):
    values = design(population, 10, rng=3)
    lines = report.plain_reading(rep, cov, design=values)
    design_line = next(line for line in lines if line.startswith("The design: "))
    assert "over repeated samples of 10 documents" in design_line
    assert f"design effect {values.deff:.1f}" in design_line
    assert f"{numbers.effective_n(values.n_eff)} independent ones" in design_line
    assert f"a sample's chunks, about {values.expected_chunks:,.0f} on average" in design_line
    assert any(line.startswith("This sample's own estimates") for line in lines)
    # Plain labels, and each number rounded by the one rule of its kind (ragunc.present.numbers).
    tiles = [(label, value) for label, value, _ in report.design_tiles(values)]
    assert tiles == [
        ("How many times less a chunk tells you here", f"{values.deff:.1f}"),
        (
            "As informative as this many independent chunks",
            f"{values.n_eff:,.1f}" if values.n_eff < 100 else f"{values.n_eff:,.0f}",
        ),
        ("How far the estimate moves between samples", f"{100 * values.sd:.2f} pp"),
        ("How alike two chunks of one document are", f"{values.icc:.3f}"),
    ]
    mine = dict((label, value) for label, value, _ in report.sample_tiles(rep))
    assert mine["How many times less a chunk tells you here"] == f"{rep.diagnostics.deff:.1f}"
    assert mine["Its chunks"] == f"{rep.n_chunks:,}"


@pytest.mark.parametrize(
    ("naive", "words"),
    [(0.47, "only 47.0% of the time;"), (0.87, "87.0% of the time, a little short;"), (0.94, "94.0% of the time;")],
)
def test_headline_says_how_far_the_naive_interval_falls_short(population, cov, naive, words):
    values = design(population, 10, rng=3)
    coverage = dataclasses.replace(
        cov, methods={**cov.methods, "naive": dataclasses.replace(cov.methods["naive"], coverage=naive)}
    )
    first, second = report.headline(values, coverage)
    assert f"tell you as much as {numbers.effective_n(values.n_eff)} independent ones" in first
    assert f"holds about {values.expected_chunks:,.0f} chunks on average" in first
    assert words in second and f"held it {100 * cov.methods['korn_graubard_bm'].coverage:.1f}%" in second
    # without a simulation: what the design effect implies, said as an approximation
    assert "normal approximation" in report.headline(values)[1]


def test_a_sample_deff_below_one_is_explained(population):
    values = design(population, 10, rng=3)
    # ten documents with the same rate: no spread between them, the sample's DEFF is 0 < 1
    alike = ClusterStats(
        cluster_id=np.array([f"d{i}" for i in range(10)]),
        sum_y=np.full(10, 2.0),
        n=np.full(10, 10),
        sum_y2=np.full(10, 2.0),
    )
    r = interval_report(alike, boot=50, rng=0)
    assert r.diagnostics.deff < 1
    note = report.deff_note(values, r)
    assert "below 1" in note and f"the design's is {values.deff:.1f}" in note
    near = dataclasses.replace(r, diagnostics=dataclasses.replace(r.diagnostics, deff=values.deff * 1.1))
    assert report.deff_note(values, near) is None
    # Shown as 1.0 (the Japanese sample at 150 morphemes): not "1.0, below 1".
    one = dataclasses.replace(values, deff=1.0)
    shown_as_one = dataclasses.replace(r, diagnostics=dataclasses.replace(r.diagnostics, deff=0.96))
    assert report.deff_note(one, shown_as_one) is None


def test_why_this_interval_names_the_method_its_df_and_the_study(rep):
    text = report.why_this_interval(rep)
    assert text.startswith("**Korn–Graubard, Bell–McCaffrey df** (`korn_graubard_bm`)")
    assert f"{rep.recommendation.df:.1f} degrees of freedom" in text and rep.recommendation.reason in text
    assert "bench/study_small_k.py" in text


def test_the_report_follows_the_pages_order(population, rep, cov):
    values = design(population, 10, rng=3)
    page = report.summary_page(rep, coverage=cov, design=values)
    order = [
        page.index(html.escape(report.headline(values, cov)[0])),
        page.index("The design: repeated samples"),
        page.index("<h3>This sample: "),
        page.index(html.escape(report.estimate_line(rep))),
        page.index("<h2>Intervals"),
        page.index("Why this interval"),
        page.index("<h2>Reading"),
        page.index("<h2>Every interval method"),
    ]
    assert order == sorted(order)
    intervals = page[page.index("<h2>Intervals") : page.index("Why this interval")]
    assert intervals.count("<tr>") == 1 + 3  # the header and the three intervals shown first
    assert json.loads(report.summary_json(rep, cov, design=values))["design"]["deff"] == pytest.approx(values.deff)


def test_html_report_is_self_contained(rep, cov):
    figs = {"intervals": explorer_figures.interval_figure(rep), "coverage": explorer_figures.coverage_figure(cov)}
    page = report.summary_page(rep, figs, coverage=cov, context={"source": "unit <test>"})
    assert page.startswith("<!DOCTYPE html>")
    # plotly.js inlined exactly once, nothing fetched from the network
    assert page.count(get_plotlyjs()) == 1
    assert not re.search(r"<script[^>]+src=", page)
    assert "http" not in page.replace(get_plotlyjs(), "")  # (plotly.js itself names an unused topojson URL)
    assert page.count('class="plotly-graph-div"') == 2
    # context is escaped, numbers are there
    assert "unit &lt;test&gt;" in page
    assert f"{rep.n_chunks:,}" in page
    assert f"{100 * rep.interval('cluster').ci.low:.2f}" in page
    # every column says what its numbers are: half-widths in pp, coverage with its Monte Carlo error
    assert "<th>half-width (± pp)</th>" in page and "<th>coverage (% ± 1.96 Monte Carlo SE)</th>" in page
    # the caller's figures are not restyled in place
    assert figs["intervals"].layout.template == explorer_figures.interval_figure(rep).layout.template


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(3, 40))
def test_reading_and_table_hold_for_any_sample(population, seed, k):
    idx = np.sort(np.random.default_rng(seed).permutation(population.n_docs)[:k])
    r = interval_report(population.subset(idx), boot=50, rng=seed)
    table = report.summary_table(r)
    assert (table["low"] <= table["high"]).all()
    assert list(table["method"]) == list(r.intervals) == [m.name for m in METHODS]
    lines = report.plain_reading(r)
    assert lines[0].startswith(f"The estimated hit@1 is {100 * r.estimate:.1f}%")


def test_figures_html_embeds_every_figure_and_plotly_once(rep, cov):
    page = report.figures_html(
        [explorer_figures.interval_figure(rep), explorer_figures.coverage_figure(cov)], title="F <1>"
    )
    assert page.count(get_plotlyjs()) == 1
    assert page.count('class="plotly-graph-div"') == 2
    assert "<h1>F &lt;1&gt;</h1>" in page


def test_reading_of_a_census_and_of_a_sample_without_hits(population):
    census = interval_report(population.with_population(population.n_docs), boot=50, rng=0)
    text = " ".join(report.plain_reading(census))
    assert "no sampling error left" in text and "times wider" not in text
    assert census.interval("cluster").ci[0] == pytest.approx(
        census.interval("cluster").ci[1]
    )  # the premise: a zero-width interval

    # No hits in three documents: both variances are 0, so DEFF = 0/0 and n_eff are undefined,
    # and the reading must say so instead of quoting "nan" independent chunks.
    zero = ClusterStats(
        cluster_id=np.array(["a", "b", "c"]), sum_y=np.zeros(3), n=np.array([3, 4, 5]), sum_y2=np.zeros(3)
    )
    r = interval_report(zero, boot=50, rng=0)
    assert r.diagnostics.cluster_variance == 0 and r.diagnostics.binomial_variance == 0
    assert np.isnan(r.diagnostics.deff) and np.isnan(r.diagnostics.n_eff)
    lines = report.plain_reading(r)
    assert any("design effect, ICC and effective n are undefined" in line for line in lines)
    assert not any("nan" in line for line in lines)


def _configs():
    base = _sample(n_docs=80, seed=9)
    rng = np.random.default_rng(3)
    out = {"100w": base}
    for name, lift in (("50w", 0.0), ("200w", 0.15)):
        extra = rng.binomial(base.n - base.sum_y.astype(int), lift).astype(float)
        out[name] = ClusterStats(base.cluster_id, base.sum_y + extra, base.n, base.sum_y + extra, config=name)
    return out


def test_report_says_which_configuration_and_how_sure(rep):
    many = compare_configs(_configs(), "100w", boot=500, rng=0)
    page = report.summary_page(rep, comparison=many)
    assert "<h2>Which configuration, and how sure</h2>" in page
    lines = report.comparison_reading(many)
    assert "3 configurations compared on the 80 documents" in lines[0] and "highest hit@1 is 200w" in lines[0]
    better = next(line for line in lines if line.startswith("200w − 100w"))
    assert "better than 100w, even allowing for every comparison made" in better
    same = next(line for line in lines if line.startswith("50w − 100w"))
    assert "not distinguishable" in same  # 50w is 100w exactly: difference 0
    table = report.comparison_table(many)
    assert list(table["comparison"]) == ["50w − 100w", "200w − 100w"]
    assert table["p adjusted"].tolist() == [report.p_value_text(c.p_adjusted) for c in many.comparisons]
    # the sentence and the table say each difference and its interval to the same digits
    for c, (_, row) in zip(many.comparisons, table.iterrows()):
        line = next(line for line in lines if line.startswith(f"{c.b} − {c.a}: "))
        lo, hi = c.interval("simultaneous").ci
        assert row["simultaneous interval"] == f"[{100 * lo:+.2f}, {100 * hi:+.2f}]".replace("-", "−")
        assert f"interval {row['simultaneous interval']} pp" in line
        assert f": {100 * c.difference:+.2f} pp".replace("-", "−") in line
    assert "Which configuration" not in report.summary_page(rep)


def test_p_values_read_as_the_pages_show_them():
    assert [report.p_value_text(p) for p in (0.6113333542552888, 0.0104, 0.001, 0.00049975, 1.0, float("nan"))] == [
        "0.611",
        "0.010",
        "0.001",
        "< 0.001",
        "1.000",
        "—",
    ]


def test_the_reports_comparison_table_prints_p_values_rounded_not_as_raw_floats(rep):
    many = compare_configs(_configs(), "100w", boot=500, rng=0)
    page = report.summary_page(rep, comparison=many)
    section = page[page.index("<h2>Which configuration") :]
    section = section[: section.index("</table>")]  # its own table (every interval method's follows)
    head = re.findall(r"<th>(.*?)</th>", section[: section.index("</thead>")])
    rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", section)[1:]]
    for row, comparison in zip(rows, many.comparisons, strict=True):
        cells = dict(zip(head, row, strict=True))
        for column, p in (("p", comparison.p_value), ("p adjusted", comparison.p_adjusted)):
            assert re.fullmatch(r"\d\.\d{3}|&lt; 0\.001", cells[column]), cells[column]  # not 0.6113333542552888
            assert cells[column] in (f"{p:.3f}", "&lt; 0.001")
    assert any(
        f"adjusted p = {c.p_adjusted:.3f}" in line or "adjusted p < 0.001" in line
        for c in many.comparisons
        for line in report.comparison_reading(many)
    )


def test_forest_and_power_figures_are_labelled():
    configs = _configs()
    many = compare_configs(configs, "100w", adjust="holm")
    fig = planning_figures.forest_figure(many)
    assert [t.name.split(" (")[0] for t in fig.data] == ["naive binomial", "paired cluster", "simultaneous paired"]
    assert fig.layout.xaxis.title.text == "difference (percentage points)"
    assert list(fig.layout.yaxis.ticktext) == ["50w − 100w", "200w − 100w"]
    plan = plan_difference(configs["100w"], configs["200w"], difference=0.02)
    fig = planning_figures.power_figure(plan)
    assert fig.layout.yaxis.title.text == "power (%)" and len(fig.data) == 4
    assert fig.data[2].name == "target power 80%"
    assert f"{plan.docs_needed:,} documents needed" == fig.data[3].name


def test_recommendation_line_names_the_method_its_bounds_and_the_reason(rep):
    low, high = rep.interval("korn_graubard_bm").ci
    line = report.recommendation_line(rep)
    assert line == (
        f"ragunc recommends Korn–Graubard, Bell–McCaffrey df: [{100 * low:.1f}%, {100 * high:.1f}%] — "
        f"{rep.recommendation.reason}"
    )


def test_the_report_says_which_documents_dominate():
    from ragunc.present.leverage_figures import leverage_figure
    from ragunc.present.summary import dominant_documents_table, sample_tiles, summary_page
    from ragunc.stats.intervals import interval_report
    from ragunc.stats.sample import ClusterStats

    n = np.array([400, 150, 60, 20, 9, 6, 5, 4, 4, 3, 3, 3] * 2)
    hits = np.array([0.0, 0, 12, 0, 2, 0, 0, 0, 1, 0, 0, 0] * 2)
    ids = np.array([f"doc{i:02d}" for i in range(24)])
    report = interval_report(ClusterStats(ids, hits, n, hits), boot=50, rng=0)
    lev = report.leverage
    label, value, _ = sample_tiles(report)[-1]
    assert label == "Worth this many documents (G*)" and value == f"about {lev.g_star:,.0f}"
    table = dominant_documents_table(lev, 3)
    assert table["document"].tolist() == ["doc00", "doc12", "doc01"]  # ties keep the sample's order
    assert table["share of the chunks"].iloc[0] == f"{100 * 400 / n.sum():.1f}%"
    page = summary_page(report)
    assert "Which documents dominate" in page and "doc00" in page
    fig = leverage_figure(lev, top=5)
    bar = fig.data[0]
    assert list(bar.y) == ["doc00", "doc12", "doc01", "doc13", "doc02", "the other 19 documents"]
    assert sum(bar.x) == pytest.approx(100)
    assert f"G* = {lev.g_star:.1f}" in fig.layout.title.text
