"""Page "Planning and comparison": documents needed for a target half-width; many configs compared with a
baseline (simultaneous paired intervals); documents needed to detect a difference; two configs in detail."""

from __future__ import annotations

import streamlit as st

from dashboard import sources, widgets
from dashboard.cache import cached
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, one_of, parse_bool, sync_url
from ragunc.present import judged_figures, numbers, planning_figures
from ragunc.present.headlines import plan_headline
from ragunc.present.summary import comparison_reading, comparison_table, rank_reading
from ragunc.stats.multiple import ADJUSTMENTS, adjustment, compare_configs, rank_configs
from ragunc.stats.paired import paired_comparison
from ragunc.stats.planning import plan_difference, plan_from_pilot

require_app()  # before anything: a first visitor's deep link reruns through app.py

BOOTS = (200, 500, 1000, 2000)
EXPLANATION = """
* **Planning** uses the loaded data as a pilot: its per-document variance says how the cluster
  half-width shrinks as you judge more documents (K). The naive curve is what the binomial formula
  promises for the same number of chunks; it reaches any target far too early.
* **Which configuration?** Every config on the documents they all share, each compared with a baseline.
  With several comparisons, some look "significant" by chance: the **simultaneous** intervals hold every
  difference at once at the chosen level, and the adjusted p-values account for the number of comparisons.
* **Which is best?** Each config's rank among them and the chance it is the best, from the same
  cluster bootstrap (documents resampled whole, the same documents for every config): a rank interval
  of [1, 1] and P(best) near 100% say one config leads; two configs near 50% each are a tie.
* **Power**: how many documents a future evaluation needs to detect a given difference between two configs.
* **Comparison**: two configs (e.g. two chunk sizes) evaluated on the same documents. Pairing by
  document removes the documents' shared difficulty, so the paired cluster interval for the difference
  is honest, while the naive unpaired binomial interval treats every chunk of both runs as independent.
"""

source, results = sources.page_results()
widgets.page_intro("Planning and comparison", EXPLANATION)

configs = list(results.configs)
with st.sidebar:
    st.header("Planning and comparison")
    config = widgets.config_select("Pilot config", source, configs)
    estimator = widgets.estimator_radio()
    level = widgets.level_slider()
    seed = widgets.seed_input()  # every bootstrap of the page: many configs, ranks, the paired comparison

sources.stop_unless_loaded(source)  # after the controls, so they stay in place

headline = st.empty()  # the page's finding in one sentence, filled once the plan below is computed

# ---------------------------------------------------------------- planning
st.subheader("How many documents for a target half-width?")
population = results.population(config)
left, right = st.columns([1, 1])
half_width = left.slider(
    "Target half-width (± percentage points)",
    0.25,
    10.0,
    step=0.25,
    key=bind("hw", 2.0, parse=float, fix=clamp(0.25, 10.0)),
)
finite = right.toggle(
    f"These {population.n_docs:,} documents are the whole corpus",
    key=bind("fpc", False, parse=parse_bool),
    help="Then the plan applies the finite-population correction: documents left out are few.",
)
try:
    plan = cached(
        plan_from_pilot,
        population,
        half_width=half_width / 100,
        whole_corpus=finite,
        estimator=estimator,
        level=level,
    )
except ValueError as exc:
    st.error(str(exc))
else:
    what = f"hit@1 ({estimator}, {sources.config_label(source, config)})"
    headline.markdown(f"**{plan_headline(plan, what=what)}**")
    tiles = st.columns(3)
    tiles[0].metric("Documents needed", numbers.count(plan.docs_needed))
    tiles[1].metric("Chunks they hold", numbers.about(plan.chunks_expected))
    tiles[2].metric("Chunks the binomial formula asks for", numbers.count(plan.naive_chunks_needed))
    plan_fig = planning_figures.plan_figure(plan)
    st.plotly_chart(plan_fig, key="plan_chart")
    if not finite and plan.docs_needed > population.n_docs:
        st.info(
            f"That is more documents than the {population.n_docs:,} in the data: the plan is for a larger corpus "
            f"like this one. If these {population.n_docs:,} documents are the whole corpus, say so with the "
            "switch above."
        )
    cols = st.columns(2)
    widgets.json_download("Plan (JSON)", plan.to_dict, "ragunc_plan.json", where=cols[0])
    widgets.figures_download(
        "Plan figure (HTML)", lambda: [plan_fig], "ragunc: plan", "ragunc_plan.html", where=cols[1]
    )

# ---------------------------------------------------------------- many configs
st.subheader("Which configuration, and how sure?")
if len(configs) >= 2:
    cols = st.columns(4)
    baseline = cols[0].selectbox(
        "Baseline",
        configs,
        key=bind("baseline", widgets.default_config(configs), fix=one_of(configs, widgets.default_config(configs))),
    )
    adjust = cols[1].selectbox(
        "Adjustment",
        ADJUSTMENTS,
        format_func=lambda a: adjustment(a).label,
        key=bind("adjust", "maxt", fix=one_of(ADJUSTMENTS, "maxt")),
    )
    all_pairs = cols[2].toggle("All pairs", key=bind("pairs", False, parse=parse_bool))
    many_boot = widgets.choice_slider(
        "Replicates (intervals that hold together)", BOOTS, key="mt_boot", default=2000, where=cols[3]
    )
    with st.expander("Method"):
        st.markdown(
            "The intervals that hold for every comparison at once come from a **max-|t| cluster bootstrap** "
            "(Westfall and Young): whole documents are resampled, the same ones for every configuration, and "
            "each difference is read against the largest |t| of the replicate. The adjustment menu offers the "
            "p-value corrections by their names."
        )
    try:
        many = cached(
            compare_configs,
            results.populations,
            baseline=baseline,
            all_pairs=all_pairs,
            adjust=adjust,
            estimator=estimator,
            level=level,
            boot=many_boot,
            rng=seed,
        )
    except ValueError as exc:
        st.error(str(exc))
    else:
        forest = planning_figures.forest_figure(many)
        st.plotly_chart(forest, key="forest_chart")
        st.dataframe(comparison_table(many), hide_index=True)
        st.markdown("\n".join(f"- {line}" for line in comparison_reading(many)))

    st.subheader("Which is best?")
    try:
        ranks = cached(
            rank_configs,
            results.populations,
            estimator=estimator,
            level=level,
            boot=many_boot,
            rng=seed,
        )
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.plotly_chart(judged_figures.rank_figure(ranks), key="rank_chart")
        st.markdown(rank_reading(ranks))
        widgets.json_download("Ranks (JSON)", ranks.to_dict, "ragunc_ranks.json")

    st.subheader("How many documents to detect a difference?")
    cols = st.columns(4)
    power_a = cols[0].selectbox("Config A", configs, key=bind("pw_a", baseline, fix=one_of(configs, baseline)))
    others = [c for c in configs if c != power_a]
    power_b = cols[1].selectbox("Config B", others, key=bind("pw_b", others[0], fix=one_of(others, others[0])))
    delta = cols[2].slider(
        "Difference to detect (pp)", 0.25, 10.0, step=0.25, key=bind("delta", 2.0, parse=float, fix=clamp(0.25, 10.0))
    )
    power = cols[3].slider("Power", 0.5, 0.99, step=0.01, key=bind("power", 0.8, parse=float, fix=clamp(0.5, 0.99)))
    try:
        dplan = cached(
            plan_difference,
            results.population(power_a),
            results.population(power_b),
            difference=delta / 100,
            power=power,
            estimator=estimator,
            level=level,
        )
    except ValueError as exc:
        st.error(str(exc))
    else:
        tiles = st.columns(3)
        tiles[0].metric("Documents needed (paired)", f"{dplan.docs_needed:,}")
        tiles[1].metric(
            "Naive binomial formula",
            f"{dplan.naive_docs_needed:,}",
            help="Unpaired chunks taken as independent, divided by the mean chunks per document.",
        )
        tiles[2].metric(f"Pilot difference {power_b} − {power_a}", numbers.signed_points(dplan.pilot_difference))
        st.plotly_chart(planning_figures.power_figure(dplan), key="power_chart")
        widgets.json_download("Power plan (JSON)", dplan.to_dict, "ragunc_power.json")

# ---------------------------------------------------------------- comparison
st.subheader("Paired comparison of two configs")
if len(configs) < 2:
    st.info(
        f"The data hold one config ({sources.config_label(source, configs[0])}); load data with several "
        "(e.g. the bundled chunk sizes)."
    )
else:
    cols = st.columns(3)
    config_a = cols[0].selectbox("Config A", configs, key=bind("cmp_a", configs[0], fix=one_of(configs, configs[0])))
    config_b = cols[1].selectbox("Config B", configs, key=bind("cmp_b", configs[1], fix=one_of(configs, configs[1])))
    boot = widgets.choice_slider("B: bootstrap replicates", BOOTS, key="cmp_boot", default=1000, where=cols[2])
    if config_a == config_b:
        st.info("Pick two different configs.")
    else:
        try:
            cmp = cached(
                paired_comparison,
                results.population(config_a),
                results.population(config_b),
                estimator=estimator,
                level=level,
                boot=boot,
                rng=seed,
            )
        except ValueError as exc:
            st.error(str(exc))
        else:
            tiles = st.columns(4)
            tiles[0].metric(f"{config_b} − {config_a}", numbers.signed_points(cmp.difference))
            tiles[1].metric(
                "Shared documents",
                f"{cmp.n_docs:,}",
                help=f"dropped: {cmp.dropped_a} only in {config_a}, {cmp.dropped_b} only in {config_b}",
            )
            for tile, (label, method) in zip(
                tiles[2:], (("Naive interval", "naive"), ("Paired cluster interval", "paired"))
            ):
                low, high = cmp.interval(method).ci
                tile.metric(label, numbers.plus_minus((high - low) / 2))
            cmp_fig = planning_figures.comparison_figure(cmp)
            st.plotly_chart(cmp_fig, key="comparison_chart")
            cols = st.columns(2)
            widgets.json_download("Comparison (JSON)", cmp.to_dict, "ragunc_comparison.json", where=cols[0])
            widgets.figures_download(
                "Comparison figure (HTML)",
                lambda: [cmp_fig],
                "ragunc: paired comparison",
                "ragunc_comparison.html",
                where=cols[1],
            )
sync_url()
