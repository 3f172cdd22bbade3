"""Page "Uncertainty explorer": naive vs cluster intervals, DEFF, effective n and coverage as K, chunk size, B move."""
from __future__ import annotations

import streamlit as st

from dashboard import sources, widgets
from dashboard.cache import cached, coverage_progress, figure
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, one_of, parse_bool, stop, sync_url
from ragunc.present import figures, judged_figures
from ragunc.present import summary as report
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.intervals import interval_report
from ragunc.stats.judged import AUDIT_LABELS, AUDIT_UNITS, judged_coverage, judged_report, simulated_audit
from ragunc.stats.linearization import estimate
from ragunc.stats.multiple import compare_configs
from ragunc.stats.sample import draw_sample

require_app()  # before anything: a first visitor's deep link reruns through app.py

BOOTS = (200, 500, 1000, 2000, 5000)
REPS = (200, 500, 1000, 2000, 5000)
EXPLANATION = """
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

# ---------------------------------------------------------------- analytic part (every rerun, fast)
population_key = (source.key, population.config)
sample = cached(draw_sample, population, key=population_key, k=k, rng=seed)
try:
    rep = cached(interval_report, sample, key=(*population_key, k, seed),
                 estimator=estimator, level=level, boot=boot, rng=seed)
except ValueError as exc:
    stop(f"Cannot compute intervals for this sample: {exc}")
truth = estimate(population, estimator)
d = rep.diagnostics

# ---------------------------------------------------------------- coverage (cached simulation)
result, coverage_note = None, None
if not simulate:
    coverage_note = "Coverage simulation is off (toggle it in the sidebar)."
elif k >= n_docs:
    coverage_note = f"K = D = {n_docs:,}: every document is in the sample, there is nothing to resample."
else:
    result = cached(coverage_experiment, population, key=population_key,
                    progress_label=coverage_progress("Coverage simulation", reps=reps, boot=boot, k=k),
                    k=k, reps=reps, boot=boot, estimator=estimator, level=level, rng=seed)

# ---------------------------------------------------------------- render
st.success(report.recommendation_line(rep), icon=":material/verified:")

tiles = st.columns(5)
tiles[0].metric("DEFF", widgets.number(d.deff, ".2f"), help="Cluster variance / binomial variance (no FPC).")
tiles[1].metric("ICC", widgets.number(d.icc, ".3f"), help="Intraclass correlation of chunks within a document (ANOVA).")
tiles[2].metric("Effective n", widgets.number(d.n_eff, ",.0f"), help="Chunks / DEFF: independent-chunk equivalents.")
tiles[3].metric("Chunks", f"{rep.n_chunks:,}", help=f"In the {rep.n_docs:,} sampled documents.")
tiles[4].metric("Bernoulli-equivalent n", widgets.number(d.bernoulli_n, ",.0f"),
                help="p(1−p) / variance of the estimate (with the finite-population correction).")

interval_fig = figures.interval_figure(rep, population_value=truth, coverage=result)
st.plotly_chart(interval_fig, key="interval_chart")
if result is not None:
    st.caption(f"Each label's coverage: the share of {result.reps:,} fresh samples of K = {k} documents from "
               "these data whose interval of that method held the population value (below).")
st.markdown("\n".join(f"- {line}" for line in report.plain_reading(rep)))
if source.key in sources.SAMPLE_NOTES:
    st.markdown(sources.SAMPLE_NOTES[source.key])

st.subheader("Coverage from repeated resampling")
if result is None:
    st.info(coverage_note)
else:
    st.plotly_chart(figure(figures.coverage_figure, result), key="coverage_chart")
    st.markdown(report.plain_reading(rep, result)[-1])

    @st.fragment
    def _plots(result) -> None:
        # Plot-only controls: moving them reruns this fragment alone, never the simulation.
        n = st.slider("Repetitions to stack", 10, min(300, result.reps), step=10,
                      key=bind("stack", 100, parse=int, fix=clamp(10, min(300, result.reps))))
        left, right = st.columns(2)
        left.plotly_chart(figure(figures.stacked_intervals_figure, result, n=n), key="stacked_chart")
        right.plotly_chart(figure(figures.sampling_distribution_figure, result), key="distribution_chart")
        sync_url()

    _plots(result)

# ---------------------------------------------------------------- labels from a judge
judged = results.judged.get(population.config)
if judged is not None:
    st.subheader("Labels from a judge, audited by a person")
    judged_rep, truth = None, None
    if judged.fully_audited:  # gold and judge on every row: a population, the audit simulated in the K documents
        cols = st.columns(2)
        audit = cols[0].radio("Audit", AUDIT_UNITS, format_func=AUDIT_LABELS.get, horizontal=True,
                              key=bind("audit", "rows", fix=one_of(AUDIT_UNITS, "rows")))
        share = cols[1].slider("Audited share (%)", 5, 60, step=5,
                               key=bind("audit_pct", 20, parse=int, fix=clamp(5, 60)),
                               help="Rows: each row's chance of an audit. Whole documents: the share of the K "
                                    "documents audited.")
        truth = estimate(judged.gold_sample(), estimator)
        try:
            audited = cached(simulated_audit, judged, key=(*population_key, "audit"), k=k, audit=audit,
                             audit_share=share / 100, rng=seed)
            judged_rep = judged_report(audited, estimator=estimator, level=level)
        except ValueError as exc:
            st.error(f"Cannot simulate this audit: {exc}")
    else:
        st.caption(f"The data hold gold labels on {judged.n_audited:,} of their {judged.n_rows:,} rows: they are "
                   "the sample itself, so the three estimates are of all of it (K does not apply here).")
        try:
            judged_rep = cached(judged_report, judged, key=population_key, estimator=estimator, level=level)
        except ValueError as exc:
            st.error(f"Cannot estimate from these judged labels: {exc}")
    if judged_rep is not None:
        tiles = st.columns(4)
        bias = judged_rep["judge_bias"]
        tiles[0].metric("Judge's bias", f"{100 * bias.estimate:+.1f} pp",
                        help="The judge's mean minus the person's on the audited rows.")
        tiles[1].metric("λ", f"{judged_rep.lam:.2f}", help="How much of the judge's information the "
                        "prediction-powered estimate uses (0: the audited rows alone, 1: plain PPI).")
        tiles[2].metric("Audited rows", f"{judged_rep.audit.n_audited:,}")
        tiles[3].metric("Audited documents", f"{judged_rep.audit.n_audited_docs:,}")
        st.plotly_chart(judged_figures.judged_figure(judged_rep, truth=truth), key="judged_chart")
        st.markdown("\n".join(f"- {line}" for line in report.judged_reading(judged_rep)))
    if not judged.fully_audited:
        st.info("The coverage experiment needs gold labels on every row (the truth it is measured against).")
    elif result is None:
        st.info(coverage_note)
    elif judged_rep is not None:
        judged_cov = cached(judged_coverage, judged, key=population_key,
                            progress_label=coverage_progress("Audit simulation", reps=reps, boot=1, k=k),
                            k=k, reps=reps, audit=audit, audit_share=share / 100, estimator=estimator,
                            level=level, rng=seed)
        st.plotly_chart(figure(judged_figures.judged_coverage_figure, judged_cov), key="judged_coverage_chart")
        st.caption(f"Each of {judged_cov.reps:,} repetitions draws K = {k} documents, audits inside them and "
                   "computes the three intervals; a bar is the share that held the population's gold mean.")

# ---------------------------------------------------------------- downloads
st.subheader("Share and export")
st.caption("Every control is in the URL: copy the address bar to share this exact view.")
context = {"source": source.label, "config": sources.config_label(source, population.config), "K": k, "B": boot,
           "level": level, "estimator": estimator, "seed": seed, "R": reps if result is not None else None}
figs = {"intervals": interval_fig}
if result is not None:
    figs["coverage"] = figure(figures.coverage_figure, result)
    figs["stacked"] = figure(figures.stacked_intervals_figure, result, n=st.session_state.get("stack", 100))
    figs["distribution"] = figure(figures.sampling_distribution_figure, result)
cols = st.columns(4)
cols[0].download_button("Summary (CSV)", lambda: report.summary_table(rep, result).to_csv(index=False),
                        file_name="ragunc_summary.csv", mime="text/csv", on_click="ignore")
cols[1].download_button("Summary (JSON)", lambda: report.summary_json(rep, result, **context),
                        file_name="ragunc_summary.json", mime="application/json", on_click="ignore")
cols[2].download_button("Figures (HTML)", lambda: report.figures_html(figs, title="ragunc: uncertainty explorer"),
                        file_name="ragunc_figures.html", mime="text/html", on_click="ignore")

def _one_page_report() -> str:
    # With several configs, the report says which one, and how sure (explored config as the baseline).
    many = None
    if len(results.configs) >= 2:
        baseline = population.config if population.config in results.configs else widgets.default_config(results.configs)
        many = cached(compare_configs, results.samples, key=(source.key, tuple(results.configs)),
                      baseline=baseline, estimator=estimator, level=level, rng=seed)
    return report.summary_page(rep, figs, coverage=result, comparison=many, context=context)


cols[3].download_button("One-page report (HTML)", _one_page_report,
                        file_name="ragunc_report.html", mime="text/html", on_click="ignore", type="primary")
sync_url()
