"""AppTest of the Planning and comparison page."""

from __future__ import annotations

import json

import pytest

from ragunc.data.results import results_from_frame
from ragunc.present.summary import comparison_table, p_value_text
from ragunc.stats.multiple import compare_configs
from ragunc.stats.paired import paired_comparison
from ragunc.stats.planning import plan_difference, plan_documents


@pytest.fixture()
def page(open_app, chunk_rows, upload, switch_page):
    frame = chunk_rows(n_docs=100, seed=3, configs={"100w": 1.0, "50w": 2.0})
    at = upload(open_app(source="upload", config="100w", sim="0"), frame)
    switch_page(at, "planning_comparison.py")
    return at, results_from_frame(frame)


def test_page_loads_on_its_own_with_the_default_data(open_page):
    at = open_page("planning_comparison.py")
    assert not at.exception
    assert at.title[0].value == "Planning and comparison"


def test_documents_needed_follow_the_target(page, tile):
    at, results = page
    assert not at.exception and not at.error
    expected = plan_documents(results.population("100w"), half_width=0.02)
    assert tile(at, "Documents needed") == f"{expected.docs_needed:,}"
    # The headline says the same plan in one sentence, with the tiles' numbers.
    headline = next(m.value for m in at.markdown if m.value.startswith("**To know "))
    assert headline.startswith("**To know hit@1 (micro, 100w) within ±2.00 pp at 95%, judge ")
    assert f"judge {expected.docs_needed:,} documents (about {expected.chunks_expected:,.0f} chunks)" in headline
    assert f"would stop at {expected.naive_chunks_needed:,} chunks" in headline
    assert tile(at, "Chunks they hold") == f"about {expected.chunks_expected:,.0f}"
    at.slider(key="hw").set_value(5.0).run()
    wider = plan_documents(results.population("100w"), half_width=0.05)
    assert tile(at, "Documents needed") == f"{wider.docs_needed:,}"
    assert wider.docs_needed < expected.docs_needed
    at.toggle(key="fpc").set_value(True).run()
    finite = plan_documents(results.population("100w").with_population(100), half_width=0.05)
    assert tile(at, "Documents needed") == f"{finite.docs_needed:,}"


def test_paired_comparison_of_two_chunk_sizes(page, tile):
    at, results = page
    expected = paired_comparison(results.population("100w"), results.population("50w"), boot=1000, rng=0)
    assert tile(at, "50w − 100w") == f"{100 * expected.difference:+.2f} pp".replace("-", "−")  # a true minus sign
    low, high = expected.interval("paired").ci
    assert tile(at, "Paired cluster interval") == f"±{50 * (high - low):.2f} pp"
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "shared documents" in c.proto.spec)
    assert len(spec["data"]) == 3
    at.selectbox(key="cmp_b").set_value("100w").run()
    assert any("two different" in i.value for i in at.info)


def test_query_parameters_restore_the_planning_view(open_app):
    at = open_app("planning_comparison.py", source="synthetic", syn_docs="150", hw="3.5", level="0.9", fpc="1")
    assert not at.exception
    assert at.slider(key="hw").value == 3.5
    assert at.select_slider(key="level").value == 0.9
    assert at.toggle(key="fpc").value is True
    assert any("one config" in i.value for i in at.info)


def test_a_plan_beyond_the_documents_in_the_data_points_to_the_finite_population_correction(page, tile):
    at, results = page
    at.slider(key="hw").set_value(0.5).run()  # far more than the 100 documents uploaded
    assert int(tile(at, "Documents needed").replace(",", "")) > 100
    assert any("more documents than the 100 in the data" in i.value for i in at.info)
    at.toggle(key="fpc").set_value(True).run()
    assert not any("more documents than" in i.value for i in at.info)


def test_many_configs_against_a_baseline_and_power(page, tile):
    at, results = page
    assert not at.exception and not at.error
    expected = compare_configs(results.populations, "100w", boot=2000, rng=0)
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Differences against 100w" in c.proto.spec)
    assert [t["name"].split(" (")[0] for t in spec["data"]] == [
        "naive binomial",
        "paired cluster",
        "simultaneous paired",
    ]
    assert spec["data"][2]["x"][0] == pytest.approx(100 * expected.comparisons[0].difference)
    table = at.dataframe[0].value
    assert table["p adjusted"].iloc[0] == p_value_text(expected.comparisons[0].p_adjusted)
    assert any("simultaneous 95% interval" in m.value for m in at.markdown)
    plan = plan_difference(results.population("100w"), results.population("50w"), difference=0.02, power=0.8)
    assert tile(at, "Documents needed (paired)") == f"{plan.docs_needed:,}"
    at.selectbox(key="adjust").set_value("holm").run()
    holm = compare_configs(results.populations, "100w", adjust="holm")
    assert at.dataframe[0].value["p adjusted"].iloc[0] == p_value_text(holm.comparisons[0].p_adjusted)


def test_which_is_best_shows_each_configs_rank_and_p_best(page):
    from ragunc.stats.multiple import rank_configs

    at, results = page
    assert not at.exception and not at.error
    expected = rank_configs(results.populations, boot=2000, rng=0)
    spec = next(
        json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Which configuration is best" in c.proto.spec
    )
    ranks, bars = spec["data"]
    by_name = {c.config: c for c in expected.configs}
    assert bars["x"] == pytest.approx([100 * by_name[n].p_best for n in ranks["y"]])
    assert ranks["x"] == [by_name[n].rank for n in ranks["y"]]
    best = max(expected.configs, key=lambda c: c.p_best)
    assert any(f"**{best.config}**" in m.value for m in at.markdown)


def test_the_seed_widget_drives_every_bootstrap_of_the_page(page):
    from ragunc.stats.multiple import rank_configs

    at, results = page
    at.sidebar.number_input(key="seed").set_value(7).run()
    assert not at.exception and not at.error

    def low(r):
        return 100 * r.comparisons[0].interval("simultaneous").ci.low

    seven = compare_configs(results.populations, "100w", boot=2000, rng=7)
    assert low(seven) != pytest.approx(low(compare_configs(results.populations, "100w", boot=2000, rng=0)))
    assert at.dataframe[0].value.equals(comparison_table(seven))
    assert not at.dataframe[0].value.equals(comparison_table(compare_configs(results.populations, "100w", rng=0)))
    ranks = rank_configs(results.populations, boot=2000, rng=7)
    spec = next(
        json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Which configuration is best" in c.proto.spec
    )
    names, bars = spec["data"]
    by_name = {c.config: c for c in ranks.configs}
    assert bars["x"] == pytest.approx([100 * by_name[n].p_best for n in names["y"]])
    cmp = paired_comparison(results.population("100w"), results.population("50w"), boot=1000, rng=7)
    assert any(f"{100 * cmp.difference:+.2f} pp".replace("-", "−") == m.value for m in at.metric)
