"""Page "Uncertainty explorer": the naive interval beside the honest one, the design's DEFF and effective n beside
this sample's, and coverage over repeated samples, as K, chunk size and B move."""
from __future__ import annotations

import streamlit as st

from dashboard import sources, widgets
from dashboard.cache import cached, coverage_progress, figure, prefetch
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, parse_bool, stop, sync_url
from ragunc.present import figures
from ragunc.present import summary as report
from ragunc.stats.explore import explore
from ragunc.stats.methods import interval_methods
from ragunc.stats.multiple import compare_configs
from ragunc.stats.recommend import RECOMMENDED_METHOD

require_app()  # before anything: a first visitor's deep link reruns through app.py

BOOTS = (200, 500, 1000, 2000, 5000)
REPS = (200, 500, 1000, 2000, 5000)
EXPLANATION = """
The loaded data are the **population**: D documents, every chunk judged (hit or miss). An evaluation
draws **K documents** and judges all their chunks. Chunks of one document resemble each other, so they
are not independent cases:

* the **naive binomial interval** counts every chunk as an independent coin flip;
* the **recommended interval** treats documents as the sampling units (a cluster interval);
* **DEFF** (design effect) is how many times larger the estimate's real variance is than the binomial one,
  and **effective n** = chunks / DEFF is how many independent chunks the sample is worth;
* **the design's values** are what repeated samples of K documents from these data give; **this sample's
  estimates** are the same quantities estimated from the one sample drawn, and are noisy;
* **coverage** repeats the whole evaluation R times on fresh samples of K documents and counts how often
  each interval holds the population value. A 95% interval should hold it about 95% of the time.
"""

source, results = sources.page_results()
widgets.page_intro("Uncertainty explorer", EXPLANATION)

# ---------------------------------------------------------------- controls
with st.sidebar:
    st.header("Explorer")
    population = widgets.chunk_size_select(source, results)
    n_docs = population.n_docs
    k = widgets.k_slider(n_docs, n_docs)
    boot = widgets.choice_slider("B: bootstrap replicates", BOOTS, key="boot", default=1000)
    reps = widgets.choice_slider("R: repetitions (coverage)", REPS, key="reps", default=1000)
    level = widgets.level_slider()
    estimator = widgets.estimator_radio(help="micro: hits / chunks (ratio estimator); macro: mean of per-document rates.")
    seed = widgets.seed_input()
    simulate = st.toggle("Coverage simulation", key=bind("sim", True, parse=parse_bool),
                         help="Repeat the evaluation R times on fresh samples of K documents (cached).")

sources.stop_unless_loaded(source)  # after the controls, so they stay in place

# ---------------------------------------------------------------- one ragunc call (cached), its neighbours prefetched
population_key = (source.key, population.config)
settings = dict(boot=boot, reps=reps if simulate else None, estimator=estimator, level=level, seed=seed)
try:
    seen = cached(explore, population, key=population_key, k=k, **settings,
                  progress_label=coverage_progress("Coverage simulation", reps=reps, boot=boot, k=k))
except ValueError as exc:
    stop(f"Cannot compute intervals for this sample: {exc}")
for neighbour in (k + 1, k - 1):  # where the K slider goes next, computed while the reader reads
    if 2 <= neighbour <= n_docs:
        prefetch(explore, population, key=population_key, k=neighbour, **settings)
rep, the_design, result = seen.report, seen.design, seen.coverage
if not simulate:
    coverage_note = "Coverage simulation is off (toggle it in the sidebar)."
elif result is None:
    coverage_note = f"K = D = {n_docs:,}: every document is in the sample, there is nothing to resample."

# ---------------------------------------------------------------- the point, in plain words
lead = report.headline(the_design, result, level=level)
st.markdown(f"#### {lead[0]}\n\n{' '.join(lead[1:])}")
if source.key in sources.SAMPLE_NOTES:
    note, other, other_label = sources.SAMPLE_NOTES[source.key]
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.caption(note)
    right.button(other_label, on_click=sources.choose_source, args=(other,), key="other_sample")

# ---------------------------------------------------------------- the design's values beside this sample's
design_box, sample_box = st.columns(2, border=True)
design_box.markdown(f"**The design:** repeated samples of K = {k} documents")
for column, (label, value, help_text) in zip(design_box.columns(4), report.design_tiles(the_design)):
    column.metric(label, value, help=help_text)
sample_box.markdown(f"**This sample:** the {rep.n_docs:,} documents drawn")
for column, (label, value, help_text) in zip(sample_box.columns(4), report.sample_tiles(rep)):
    column.metric(label, value, help=help_text)
note = report.deff_note(the_design, rep)
if note:
    st.caption(note)

# ---------------------------------------------------------------- intervals
st.markdown(report.estimate_line(rep))
every = st.toggle("All methods", key=bind("all", False, parse=parse_bool),
                  help="Show the twelve interval methods ragunc computes, not only the naive one, the "
                       "recommended one and one bootstrap interval.")
shown = [m.name for m in interval_methods(shown_first=not every)]
interval_fig = figure(figures.interval_figure, rep, result, population_value=the_design.population_value,
                      methods=tuple(shown), plain=not every)
st.plotly_chart(interval_fig, key="interval_chart")
with st.expander("Why this interval"):
    st.markdown(report.why_this_interval(rep))

# ---------------------------------------------------------------- coverage
st.subheader("Coverage from repeated resampling")
if result is None:
    st.info(coverage_note)
else:
    st.plotly_chart(figure(figures.coverage_figure, result, methods=tuple(shown), plain=not every),
                    key="coverage_chart")
    st.markdown(report.coverage_sentence(result))

    @st.fragment
    def _repetitions(result) -> None:
        # Plot-only control: moving it reruns this fragment alone, never the simulation.
        n = st.slider("Repetitions to stack", 10, min(300, result.reps), step=10,
                      key=bind("stack", 100, parse=int, fix=clamp(10, min(300, result.reps))))
        st.plotly_chart(figure(figures.stacked_intervals_figure, result, n=n, methods=("naive", RECOMMENDED_METHOD),
                               plain=True), key="stacked_chart")
        sync_url()

    _repetitions(result)
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.plotly_chart(figure(figures.sampling_distribution_figure, result), key="distribution_chart")
    right.markdown(report.distribution_reading(result))

with st.expander("The reading in full sentences (as in the report)"):
    st.markdown("\n".join(f"- {line}" for line in report.plain_reading(rep, result, design=the_design)))

# ---------------------------------------------------------------- downloads
st.subheader("Share and export")
st.caption("Every control is in the URL: copy the address bar to share this exact view.")
context = {"source": source.label, "config": population.config, "K": k, "B": boot, "level": level,
           "estimator": estimator, "seed": seed, "R": reps if result is not None else None}


def _figures() -> dict:
    figs = {"intervals": interval_fig}
    if result is not None:
        figs["coverage"] = figure(figures.coverage_figure, result, methods=tuple(shown), plain=not every)
        figs["stacked"] = figure(figures.stacked_intervals_figure, result, n=st.session_state.get("stack", 100),
                                 methods=("naive", RECOMMENDED_METHOD), plain=True)
        figs["distribution"] = figure(figures.sampling_distribution_figure, result)
    return figs


def _one_page_report() -> str:
    # With several configs, the report says which one, and how sure (explored config as the baseline).
    many = None
    if len(results.configs) >= 2:
        baseline = population.config if population.config in results.configs else widgets.default_config(results.configs)
        many = cached(compare_configs, results.samples, key=(source.key, tuple(results.configs)),
                      baseline=baseline, estimator=estimator, level=level, rng=seed)
    return report.summary_page(rep, _figures(), coverage=result, design=the_design, comparison=many, context=context)


cols = st.columns(4)
cols[0].download_button("Summary (CSV)", lambda: report.summary_table(rep, result).to_csv(index=False),
                        file_name="ragunc_summary.csv", mime="text/csv", on_click="ignore")
cols[1].download_button("Summary (JSON)", lambda: report.summary_json(rep, result, design=the_design, **context),
                        file_name="ragunc_summary.json", mime="application/json", on_click="ignore")
cols[2].download_button("Figures (HTML)", lambda: report.figures_html(_figures(), title="ragunc: uncertainty explorer"),
                        file_name="ragunc_figures.html", mime="text/html", on_click="ignore")
cols[3].download_button("One-page report (HTML)", _one_page_report,
                        file_name="ragunc_report.html", mime="text/html", on_click="ignore", type="primary")
sync_url()
