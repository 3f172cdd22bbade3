"""Page "Design effect": DEFF against chunks per document and chunk size, the ICC on the data, the iid control,
two-stage sampling."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import sources, widgets
from dashboard.cache import cached
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, sync_url
from ragunc.present import design_effect_figures, explorer_figures
from ragunc.present.design_effects import DISCLOSURE, why_these_differ
from ragunc.present.numbers import about, deff, effective_n, icc, number, percent, points
from ragunc.present.summary import chunk_size_reading, chunk_size_table, design_tiles, headline
from ragunc.stats.coverage import coverage_experiment, iid_control
from ragunc.stats.design import chunk_size_diagnostics, nested_design
from ragunc.stats.diagnostics import diagnostics, k_over_rho
from ragunc.stats.sample import document_rates

require_app()  # before anything: a first visitor's deep link reruns through app.py

REPS = (200, 500, 1000, 2000)
BOOTS = (200, 500, 1000)
EXPLANATION = """
* **ICC (ρ)**: how alike two chunks of the same document are, on a 0–1 scale. Retrieval hits cluster:
  some documents are easy (many hits), others hopeless (none).
* **DEFF**: the variance of the estimate under document sampling divided by the binomial variance.
  For equal documents of m chunks, DEFF = 1 + (m − 1)ρ: cutting documents finer adds chunks but
  barely adds information.
* **Effective n** = chunks / DEFF never exceeds **K/ρ** however many chunks each document has.
* The **iid control** shuffles the hits across all chunks (destroying the document structure):
  the naive binomial interval then covers as promised, which shows that the clustering is what breaks it.
* **Two-stage sampling** keeps only a fraction of the chunks of each sampled document.
"""

source, results = sources.page_results()
widgets.page_intro("Design effect", EXPLANATION)

with st.sidebar:
    st.header("Design effect")
    population = widgets.chunk_size_select(source, results)
    config = population.config
    n_docs = population.n_docs
    k = widgets.k_slider(n_docs - 1, n_docs)
    reps = widgets.choice_slider("R: repetitions", REPS, key="de_reps", default=500)
    boot = widgets.choice_slider("B: bootstrap replicates", BOOTS, key="de_boot", default=200)
    level = widgets.level_slider()
    seed = widgets.seed_input()
    fraction = st.slider(
        "Two-stage: share of each document's chunks kept",
        0.05,
        1.0,
        step=0.05,
        key=bind("fraction", 0.5, parse=float, fix=clamp(0.05, 1.0)),
    )

sources.stop_unless_loaded(source)  # after the controls, so they stay in place
d = cached(diagnostics, population, estimator="micro")
the_design = cached(nested_design, population, k=k, seed=seed)  # the explorer's design at K, on its R

st.subheader(f"The data: {n_docs:,} documents, {population.n_chunks:,} chunks ({sources.config_label(source, config)})")
st.markdown(f"**{headline(the_design)[0]}**")
design_box, data_box = st.container(border=True), st.container(border=True)
why = st.expander(DISCLOSURE)  # filled once the coverage run below has its variance ratio
design_box.markdown(f"**The design:** repeated samples of K = {k} documents")
tiles = design_tiles(the_design)
for start in range(0, len(tiles), 2):  # two a row: a tile's label is one line, cut where it does not fit
    for column, (label, value, help_text) in zip(design_box.columns(2), tiles[start : start + 2]):
        column.metric(label, value, help=help_text)
data_box.markdown("**The documents:** their sizes and structure")
data_tiles = (
    (
        "Chunks per document, on average",
        number(d.mean_size, ".1f"),
        f"Mean chunks per document m̄; the CV of sizes (their spread) is {number(d.cv_size, '.2f')}.",
    ),
    (
        "How alike neighbouring chunks are",
        icc(d.lag1_autocorr),
        "Lag-1 autocorrelation of within-document residuals of neighbouring chunks.",
    ),
    (
        "Spread due to document type",
        percent(d.doc_type_share),
        "Share of the variance of document rates explained by the document type (doc_type).",
    ),
)
for column, (label, value, help_text) in zip(data_box.columns(3), data_tiles):
    column.metric(label, value, help=help_text)

every_config = {**results.populations, **sources.computed_sizes(source)}
observed = {
    sources.config_label(source, name): (
        float(p.n.mean()),
        cached(nested_design, p, k=min(k, p.n_docs), seed=seed).deff,
    )
    for name, p in every_config.items()
}
m_max = max(2 * max(m for m, _ in observed.values()), 20.0)
exports = {"figures": {}, "results": {"diagnostics": d.to_dict(), "design": the_design.to_dict()}}
deff_fig = design_effect_figures.deff_curve_figure(rho=d.icc, k=k, m_max=m_max, observed=observed)
exports["figures"]["deff"] = deff_fig
st.plotly_chart(deff_fig, key="deff_chart")
st.markdown(
    f"With ρ = {icc(d.icc)}, {k} documents are worth at most "
    f"**{effective_n(float(k_over_rho(k, d.icc)))}** independent chunks (K/ρ), however finely "
    f"they are cut. The curves assume documents of equal size, 1 + (m − 1)ρ; the circles are the design's "
    f"DEFF at K = {k} for each chunk size in the data, measured over repeated samples, so they also carry "
    f"the unequal document sizes (see “{DISCLOSURE.lower()}” above)."
)

sizes = sources.size_populations(source, results)
if sizes:
    st.subheader("Chunk size: every size computed so far")
    size_k = min(k, *(p.n_docs for p in sizes.values()))
    by_size = cached(chunk_size_diagnostics, sizes, k=size_k, rng=seed)
    unit = sources.unit_name(config) if sources.chunk_words(config) else "words"
    size_fig = design_effect_figures.chunk_size_figure(by_size, current=sources.chunk_words(config), unit=unit)
    exports["figures"]["chunk_size"] = size_fig
    exports["results"]["chunk_sizes"] = [row.to_dict() for row in by_size]
    st.plotly_chart(size_fig, key="size_chart")
    st.markdown(chunk_size_reading(by_size, unit=unit))
    st.dataframe(chunk_size_table(by_size, unit=unit), hide_index=True, key="size_table")

st.subheader("The ICC on the data: real documents vs the same hits shuffled (iid control)")
if population.binary:
    shuffled = cached(iid_control, population, np.random.default_rng(seed))
    iid_design = cached(nested_design, shuffled, k=k, seed=seed)
    left, right = st.columns([3, 2])
    left.plotly_chart(
        design_effect_figures.document_rates_figure(
            {
                "documents as they are": document_rates(population),
                "iid control (hits shuffled across chunks)": document_rates(shuffled),
            }
        ),
        key="rates_chart",
    )
    right.markdown(
        f"Same chunks, same number of hits. In the real data the per-document rates spread far wider "
        f"than shuffling alone produces: that spread **is** the ICC ({icc(d.icc)}; "
        f"{icc(iid_design.icc)} once shuffled; the design effect at K = {k} goes from {deff(the_design.deff)} "
        f"to {deff(iid_design.deff)}). "
        f"A chunk tells you a lot about its neighbours in the same document, so the second, third, … "
        f"chunk of a document adds little new information."
    )
else:
    st.info("The iid control and two-stage sampling need 0/1 y; this data holds scores.")

st.subheader(f"Coverage with and without the document structure (K = {k}, R = {reps:,})")
real = None
if k >= n_docs:
    st.info("K must be smaller than D to resample.")
elif population.binary:
    common = dict(k=k, reps=reps, boot=boot, estimator="micro", level=level, rng=seed)
    real = cached(coverage_experiment, population, progress_label="Simulating the real design", **common)
    iid = cached(coverage_experiment, population, control="iid", progress_label="Simulating the iid control", **common)
    shown, plain = widgets.methods_toggle()
    iid_fig = explorer_figures.coverage_figure(
        {"documents as they are": real, "iid control": iid}, methods=shown, plain=plain
    )
    exports["figures"]["iid_control"] = iid_fig
    exports["results"].update(coverage=real.to_dict(), coverage_iid=iid.to_dict())
    st.plotly_chart(iid_fig, key="iid_chart")

    st.subheader(f"Two-stage sampling: keep {fraction:.0%} of each sampled document's chunks")
    if fraction < 1.0:
        two = cached(
            coverage_experiment,
            population,
            two_stage_fraction=fraction,
            progress_label="Simulating two-stage sampling",
            **common,
        )
        two_fig = explorer_figures.coverage_figure(
            {"all chunks": real, f"{fraction:.0%} of chunks": two}, methods=shown, plain=plain
        )
        exports["figures"]["two_stage"] = two_fig
        exports["results"]["coverage_two_stage"] = two.to_dict()
        st.plotly_chart(two_fig, key="two_stage_chart")
        st.markdown(
            f"Keeping {fraction:.0%} of the chunks ({about(two.mean_chunks)} instead of "
            f"{about(the_design.expected_chunks)} per sample on average) moves the estimator's SD from {points(real.sd_empirical)} to "
            f"{points(two.sd_empirical)}: most of the uncertainty comes from which "
            f"documents were drawn, not from how many of their chunks were judged."
        )
    else:
        st.info("Move the two-stage slider below 100% to compare.")

for line in why_these_differ(the_design, d, coverage=real):
    why.markdown(f"- {line}")

st.subheader("Export")
cols = st.columns(2)
widgets.json_download("Results (JSON)", lambda: exports["results"], "ragunc_design_effect.json", where=cols[0])
widgets.figures_download(
    "Figures (HTML)", lambda: exports["figures"], "ragunc: design effect", "ragunc_design_effect.html", where=cols[1]
)
sync_url()
