"""Page "Uncertainty explorer": naive vs cluster intervals, DEFF, effective n and coverage as K, chunk size, B move."""
from __future__ import annotations

import _cache
import streamlit as st

from ragunc.present import figures
from ragunc.present import summary as report
from ragunc.stats import linearization as design

LEVELS = (0.8, 0.9, 0.95, 0.99)
BOOTS = (200, 500, 1000, 2000, 5000)
REPS = (200, 500, 1000, 2000, 5000)
OTHER_SIZE = "Compute another size…"
NEXT_CONFIG = "_ragunc_next_config"

c = _cache
source, results = c.require_results()

st.title("Uncertainty explorer")
with st.expander("What am I looking at?"):
    st.markdown(
        """
The loaded data are treated as the **population**: D documents, every chunk judged (hit or miss).
An evaluation samples **K documents** and looks at all their chunks.
Chunks of one document resemble each other, so they are not independent trials:

* the **naive binomial interval** pretends every chunk is an independent coin flip;
* the **cluster intervals** (linearization, t, bootstrap over documents) treat documents as the sampling units;
* **DEFF** (design effect) is how much larger the true variance is than the binomial one, and
  **effective n** = chunks / DEFF is how many independent chunks the sample is worth;
* **coverage** repeats the whole evaluation R times on fresh samples of K documents and counts how often each
  interval holds the population value. A 95% interval should hold it about 95% of the time.
"""
    )

# ---------------------------------------------------------------- controls
with st.sidebar:
    st.header("Explorer")
    configs = list(results.configs)
    extra = c.extra_configs(source)
    wanted = st.query_params.get("config", "")
    if ("config" not in st.session_state and wanted not in configs and wanted not in extra
            and wanted[:-1].isdigit() and wanted.endswith("w") and 20 <= int(wanted[:-1]) <= 1000
            and c.can_compute_sizes(source)):
        # A shared link to a computed size: compute it again so the link shows the same view.
        c.compute_size(source, int(wanted[:-1]))
        extra = c.extra_configs(source)
    if NEXT_CONFIG in st.session_state:
        st.session_state["config"] = st.session_state.pop(NEXT_CONFIG)
    options = configs + list(extra) + ([OTHER_SIZE] if c.can_compute_sizes(source) else [])
    config = st.selectbox(
        "Chunk size (config)", options,
        key=c.config_key(configs, options),
        help="The configs present in the data; for the bundled stdlib sample you can compute another size.",
    )
    if config == OTHER_SIZE:
        words = st.number_input("Words per chunk", 20, 1000, step=10,
                                key=c.bind("words", 75, parse=int, fix=c.clamp(20, 1000)))
        if st.button("Compute this chunk size", type="primary"):
            # The selectbox already exists in this run: switch to the new size on the next one.
            st.session_state[NEXT_CONFIG] = c.compute_size(source, int(words))
            st.rerun()
        config = c.default_config(configs)
        st.info(f"Pick a word count and compute it; meanwhile {config} is shown.")
    population = extra.get(config) or results.sample(config)
    n_docs = population.n_docs
    k = c.k_slider(n_docs, n_docs)
    boot = st.select_slider("B: bootstrap replicates", BOOTS,
                            key=c.bind("boot", 1000, parse=int, fix=c.one_of(BOOTS, 1000)))
    reps = st.select_slider("R: repetitions (coverage)", REPS,
                            key=c.bind("reps", 1000, parse=int, fix=c.one_of(REPS, 1000)))
    level = st.select_slider("Confidence level", LEVELS, format_func="{:.0%}".format,
                             key=c.bind("level", 0.95, parse=float, fix=c.one_of(LEVELS, 0.95)))
    estimator = st.radio("Estimator", ("micro", "macro"), horizontal=True,
                         key=c.bind("estimator", "micro", fix=c.one_of(("micro", "macro"), "micro")),
                         help="micro: hits / chunks (ratio estimator); macro: mean of per-document rates.")
    seed = st.number_input("Seed", 0, 2**31 - 1, key=c.bind("seed", 0, parse=int, fix=c.clamp(0, 2**31 - 1)))
    simulate = st.toggle("Coverage simulation", key=c.bind("sim", True, parse=c.parse_bool),
                         help="Repeat the evaluation R times on fresh samples of K documents (cached).")

# ---------------------------------------------------------------- analytic part (every rerun, fast)
sample = c.draw_documents(source, population, k, seed)
try:
    rep = c.interval(source, sample, k=k, seed=seed, estimator=estimator, level=level, boot=boot)
except ValueError as exc:
    st.error(f"Cannot compute intervals for this sample: {exc}")
    c.sync_url()
    st.stop()
truth = design.estimate(population, estimator)
d = rep.diagnostics


tiles = st.columns(5)
tiles[0].metric("DEFF", c.number(d.deff, ".2f"), help="Cluster variance / binomial variance (no FPC).")
tiles[1].metric("ICC", c.number(d.icc, ".3f"), help="Intraclass correlation of chunks within a document (ANOVA).")
tiles[2].metric("Effective n", c.number(d.n_eff, ",.0f"), help="Chunks / DEFF: independent-chunk equivalents.")
tiles[3].metric("Chunks", f"{rep.n_chunks:,}", help=f"In the {rep.n_docs:,} sampled documents.")
tiles[4].metric("Bernoulli-equivalent n", c.number(d.bernoulli_n, ",.0f"),
                help="p(1−p) / variance of the estimate (with the finite-population correction).")

interval_fig = figures.interval_figure(rep, population_value=truth)
st.plotly_chart(interval_fig, key="interval_chart")
st.markdown("\n".join(f"- {line}" for line in report.plain_reading(rep)))

# ---------------------------------------------------------------- coverage (cached simulation)
st.subheader("Coverage from repeated resampling")
result = None
if not simulate:
    st.info("Coverage simulation is off (toggle it in the sidebar).")
elif k >= n_docs:
    st.info(f"K = D = {n_docs:,}: every document is in the sample, there is nothing to resample.")
else:
    result = c.coverage(source, population, k=k, reps=reps, boot=boot, estimator=estimator,
                        level=level, seed=seed, label="Coverage simulation")
    st.plotly_chart(c.figure(figures.coverage_figure, result), key="coverage_chart")
    st.markdown(report.plain_reading(rep, result)[-1])

    @st.fragment
    def _plots(result) -> None:
        # Plot-only controls: moving them reruns this fragment alone, never the simulation.
        n = st.slider("Repetitions to stack", 10, min(300, result.reps), step=10,
                      key=c.bind("stack", 100, parse=int, fix=c.clamp(10, min(300, result.reps))))
        left, right = st.columns(2)
        left.plotly_chart(c.figure(figures.stacked_intervals_figure, result, n=n), key="stacked_chart")
        right.plotly_chart(c.figure(figures.sampling_distribution_figure, result), key="distribution_chart")
        c.sync_url()

    _plots(result)

# ---------------------------------------------------------------- downloads
st.subheader("Share and export")
st.caption("Every control is in the URL: copy the address bar to share this exact view.")
context = {"source": source.label, "config": population.config, "K": k, "B": boot, "level": level,
           "estimator": estimator, "seed": seed, "R": reps if result is not None else None}
figs = {"intervals": interval_fig}
if result is not None:
    figs["coverage"] = c.figure(figures.coverage_figure, result)
    figs["stacked"] = c.figure(figures.stacked_intervals_figure, result, n=st.session_state.get("stack", 100))
    figs["distribution"] = c.figure(figures.sampling_distribution_figure, result)
cols = st.columns(4)
cols[0].download_button("Summary (CSV)", lambda: report.summary_table(rep, result).to_csv(index=False),
                        file_name="ragunc_summary.csv", mime="text/csv", on_click="ignore")
cols[1].download_button("Summary (JSON)", lambda: report.summary_json(rep, result, **context),
                        file_name="ragunc_summary.json", mime="application/json", on_click="ignore")
cols[2].download_button("Figures (HTML)", lambda: report.figures_html(figs, title="ragunc: uncertainty explorer"),
                        file_name="ragunc_figures.html", mime="text/html", on_click="ignore")
cols[3].download_button("One-page report (HTML)",
                        lambda: report.summary_page(rep, figs, coverage=result, context=context),
                        file_name="ragunc_report.html", mime="text/html", on_click="ignore", type="primary")
c.sync_url()
