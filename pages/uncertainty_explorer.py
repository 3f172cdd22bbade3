"""Page "Uncertainty explorer": the naive interval beside the honest one, the design's DEFF and effective n beside
this sample's, and coverage over repeated samples, as K, chunk size and B move.

K, B and R move in the browser (:mod:`dashboard.explorer_view`): the page sends the view of every K once and
answers, when a control is released, with the bootstrap's parts for that K and B.
"""

from __future__ import annotations

import streamlit as st

from dashboard import sources, widgets, work
from dashboard.cache import cached, coverage_progress, figure
from dashboard.explorer_view import KEY as EXPLORER_KEY
from dashboard.explorer_view import explorer
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, one_of, parse_bool, stop, sync_url
from ragunc.present import explorer as view_text, explorer_figures
from ragunc.present import judged_figures
from ragunc.present import summary as report
from ragunc.present.export import csv_text
from ragunc.stats.all_k import k_table
from ragunc.stats.design import NESTED_REPS
from ragunc.stats.explore import explore
from ragunc.stats.judged.coverage import judged_coverage, simulated_audit
from ragunc.stats.judged.report import judged_report
from ragunc.stats.judged.sample import AUDIT_LABELS, AUDIT_UNITS
from ragunc.stats.linearization import estimate
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
* **how many times less a chunk tells you** (the design effect, DEFF) is how many times larger the
  estimate's real variance is than the binomial one, and the sample is **as informative as** its chunks / DEFF
  independent ones;
* **the design's values** are what repeated samples of K documents from these data give; **this sample's**
  numbers are those of the one sample drawn;
* **coverage** repeats the whole evaluation R times on fresh samples of K documents and counts how often
  each interval holds the population value. A 95% interval should hold it about 95% of the time.

Moving K adds or removes one document: the samples are nested (the first K documents of one seeded
shuffle), as are the R repetitions.
"""

source, results = sources.page_results()
widgets.page_intro("Uncertainty explorer", EXPLANATION)


def _released(name: str) -> None:
    # The component's control was released: the bound key (and so the URL and the downloads) follow it.
    st.session_state[name] = st.session_state[EXPLORER_KEY][name]


# ---------------------------------------------------------------- controls (K, B and R are in the explorer itself)
with st.sidebar:
    st.header("Explorer")
    population = widgets.chunk_size_select(source, results)
    level = widgets.level_slider()
    estimator = widgets.estimator_radio(
        help="micro: hits / chunks (ratio estimator); macro: mean of per-document rates."
    )
    seed = widgets.seed_input()
    shown, plain = widgets.methods_toggle()

sources.stop_unless_loaded(source)  # after the controls, so they stay in place
n_docs = population.n_docs
if n_docs < 3:
    st.info(f"The explorer draws samples of 2 or more documents from at least 3; these data hold {n_docs}.")
    stop()
k = st.session_state[bind("k", min(20, n_docs), parse=int, fix=clamp(2, n_docs))]
boot = st.session_state[bind("boot", 1000, parse=int, fix=one_of(BOOTS, 1000))]
reps = st.session_state[bind("reps", NESTED_REPS, parse=int, fix=one_of(REPS, NESTED_REPS))]

# ---------------------------------------------------------------- the table of every K, then the bootstrap at K
settings = dict(estimator=estimator, level=level, seed=seed)
try:
    table = cached(k_table, population, reps=reps, spinner="Computing every K…", **settings)
    view = cached(
        view_text.explorer_view,
        table,
        methods=shown,
        plain=plain,
        boots=BOOTS,
        reps_options=REPS,
    )
    # The bootstrap at K is the one part whose work grows with R x B x K: a shared server's budget applies to it.
    run_reps, run_boot, budget_note = work.within_budget(reps, boot, k)
    seen = cached(explore, population, k=k, boot=run_boot, reps=run_reps, **settings)
except ValueError as exc:
    stop(f"Cannot compute intervals for this sample: {exc}")
rep, the_design, result = seen.report, seen.design, seen.coverage
answer = view_text.bootstrap_answer(rep, result, methods=shown, plain=plain, table=table, boot=boot, reps=reps)
explorer(view, answer, k=k, boot=boot, reps=reps, on_change=_released)
if budget_note:
    st.caption(budget_note)
if source.key in sources.SAMPLE_NOTES:
    note, other, other_label = sources.SAMPLE_NOTES[source.key]
    st.caption(note)  # the button on its own line: beside the note, a narrow column cut its label short
    st.button(other_label, on_click=sources.choose_source, args=(other,), key="other_sample")


# ---------------------------------------------------------------- the repetitions, on demand (at the released K)
if result is not None and st.toggle(
    "Show the repetitions",
    key=bind("repetitions", False, parse=parse_bool),
    help="The first repetitions' intervals stacked against the population value, and the spread "
    "of the estimates against what each interval assumes.",
):
    stack = st.slider(
        "Repetitions to stack",
        10,
        min(300, result.reps),
        step=10,
        key=bind("stack", 100, parse=int, fix=clamp(10, min(300, result.reps))),
    )
    st.plotly_chart(
        figure(
            explorer_figures.stacked_intervals_figure,
            result,
            n=stack,
            methods=("naive", RECOMMENDED_METHOD),
            plain=True,
        ),
        key="stacked_chart",
    )
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.plotly_chart(figure(explorer_figures.sampling_distribution_figure, result), key="distribution_chart")
    right.markdown(report.distribution_reading(result))


# ---------------------------------------------------------------- labels from a judge
judged = results.judged.get(population.config)
if judged is not None:
    st.subheader("Labels from a judge, audited by a person")
    judged_rep, truth = None, None
    if judged.fully_audited:  # gold and judge on every row: a population, the audit simulated in the K documents
        cols = st.columns(2)
        audit = cols[0].radio(
            "Audit",
            AUDIT_UNITS,
            format_func=AUDIT_LABELS.get,
            horizontal=True,
            key=bind("audit", "rows", fix=one_of(AUDIT_UNITS, "rows")),
        )
        share = cols[1].slider(
            "Audited share (%)",
            5,
            60,
            step=5,
            key=bind("audit_pct", 20, parse=int, fix=clamp(5, 60)),
            help="Rows: each row's chance of an audit. Whole documents: the share of the K documents audited.",
        )
        truth = estimate(judged.gold_sample(), estimator)
        try:
            audited = cached(
                simulated_audit,
                judged,
                k=k,
                audit=audit,
                audit_share=share / 100,
                rng=seed,
            )
            judged_rep = judged_report(audited, estimator=estimator, level=level)
        except ValueError as exc:
            st.error(f"Cannot simulate this audit: {exc}")
    else:
        st.caption(
            f"The data hold gold labels on {judged.n_audited:,} of their {judged.n_rows:,} rows: they are "
            "the sample itself, so the three estimates are of all of it (K does not apply here)."
        )
        try:
            judged_rep = cached(judged_report, judged, estimator=estimator, level=level)
        except ValueError as exc:
            st.error(f"Cannot estimate from these judged labels: {exc}")
    if judged_rep is not None:
        tiles = st.columns(4)
        bias = judged_rep["judge_bias"]
        tiles[0].metric(
            "Judge's bias",
            f"{100 * bias.estimate:+.1f} pp",
            help="The judge's mean minus the person's on the audited rows.",
        )
        tiles[1].metric(
            "λ",
            f"{judged_rep.lam:.2f}",
            help="How much of the judge's information the "
            "prediction-powered estimate uses (0: the audited rows alone, 1: plain PPI).",
        )
        tiles[2].metric("Audited rows", f"{judged_rep.audit.n_audited:,}")
        tiles[3].metric("Audited documents", f"{judged_rep.audit.n_audited_docs:,}")
        st.plotly_chart(judged_figures.judged_figure(judged_rep, truth=truth), key="judged_chart")
        st.markdown("\n".join(f"- {line}" for line in report.judged_reading(judged_rep)))
    if not judged.fully_audited:
        st.info("The coverage experiment needs gold labels on every row (the truth it is measured against).")
    elif result is None:
        st.info(f"K = D = {n_docs:,}: every document is in the sample, there is nothing to resample.")
    elif judged_rep is not None:
        judged_cov = cached(
            judged_coverage,
            judged,
            progress_label=coverage_progress("Audit simulation", reps=reps, boot=1, k=k),
            k=k,
            reps=reps,
            audit=audit,
            audit_share=share / 100,
            estimator=estimator,
            level=level,
            rng=seed,
        )
        st.plotly_chart(figure(judged_figures.judged_coverage_figure, judged_cov), key="judged_coverage_chart")
        st.caption(
            f"Each of {judged_cov.reps:,} repetitions draws K = {k} documents, audits inside them and "
            "computes the three intervals; a bar is the share that held the population's gold mean."
        )

# ---------------------------------------------------------------- downloads
st.subheader("Share and export")
st.caption("Every control is in the URL: copy the address bar to share this exact view.")
context = {
    "source": source.label,
    "config": sources.config_label(source, population.config),
    "K": k,
    "B": boot,
    "level": level,
    "estimator": estimator,
    "seed": seed,
    "R": reps if result is not None else None,
}


def _figures() -> dict:
    figs = {
        "intervals": figure(
            explorer_figures.interval_figure,
            rep,
            result,
            population_value=table.population_value,
            methods=shown,
            plain=plain,
        )
    }
    if result is not None:
        figs["coverage"] = figure(explorer_figures.coverage_figure, result, methods=shown, plain=plain)
        figs["stacked"] = figure(
            explorer_figures.stacked_intervals_figure,
            result,
            n=st.session_state.get("stack", 100),
            methods=("naive", RECOMMENDED_METHOD),
            plain=True,
        )
        figs["distribution"] = figure(explorer_figures.sampling_distribution_figure, result)
    return figs


def _one_page_report() -> str:
    # With several configs, the report says which one, and how sure (explored config as the baseline).
    many = None
    if len(results.configs) >= 2:
        baseline = (
            population.config if population.config in results.configs else widgets.default_config(results.configs)
        )
        many = cached(
            compare_configs,
            results.populations,
            baseline=baseline,
            estimator=estimator,
            level=level,
            rng=seed,
        )
    return report.summary_page(rep, _figures(), coverage=result, design=the_design, comparison=many, context=context)


cols = st.columns(4)
cols[0].download_button(
    "Summary (CSV)",
    lambda: csv_text(report.summary_table(rep, result)),
    file_name="ragunc_summary.csv",
    mime="text/csv",
    on_click="ignore",
)
cols[1].download_button(
    "Summary (JSON)",
    lambda: report.summary_json(rep, result, design=the_design, **context),
    file_name="ragunc_summary.json",
    mime="application/json",
    on_click="ignore",
)
widgets.figures_download(
    "Figures (HTML)", _figures, "ragunc: uncertainty explorer", "ragunc_figures.html", where=cols[2]
)
cols[3].download_button(
    "One-page report (HTML)",
    _one_page_report,
    file_name="ragunc_report.html",
    mime="text/html",
    on_click="ignore",
    type="primary",
)
sync_url()
