"""Page "Positional bias": does a dense encoder find answers late in a passage, and does attention
calibration (strength lambda) help?  Opens on the bundled stdlib results; runs a new sweep on demand.

Depends on streamlit and ragunc only: ``ragunc.positional`` needs no torch to show a stored sweep,
and loads it only when a new one runs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import streamlit as st

from dashboard import operator, work
from dashboard.cache import cached
from dashboard.routing import require_app
from dashboard.sources import uploaded_corpus
from dashboard.uploads import CORPUS_LIMITS, limits_help, public_message
from ragunc import positional
from ragunc.corpus import load_corpus
from ragunc.present import numbers
from ragunc.present import positional_figures as figures
from ragunc.present.headlines import positional_headline

require_app()  # before anything: a first visitor's deep link reruns through app.py

BUNDLED = Path(__file__).resolve().parents[1] / "sample_data" / "positional_stdlib.json"
RESULT = "pb_sweep"  # session state: the sweep on screen when it is not the bundled one
RUNNING = "pb_running"  # session state: a run started and has not finished (a Stop ends it)
LAMBDAS = (0.25, 0.5, 0.75, 1.0)
CORPORA = {
    "stdlib": "Python standard library docs (embedded)",
    "upload": "Upload a corpus (.jsonl / .csv)",
    "server": "A corpus the server offers",
}
PACKAGED = "all-MiniLM-L6-v2, packaged"


def _corpus():
    """The corpus the visitor chose, or None after saying what is missing."""
    offered = operator.corpus_folders()
    kinds = [k for k in CORPORA if k != "server" or offered]
    kind = st.radio("Corpus", kinds, format_func=CORPORA.get, key="pb_corpus", horizontal=True)
    if kind == "stdlib":
        return "stdlib"
    if kind == "upload":
        upload = st.file_uploader(
            "Corpus: JSON lines or CSV with doc_id, text[, doc_type]",
            type=["jsonl", "ndjson", "csv", "gz"],
            key="pb_upload",
            help=limits_help(CORPUS_LIMITS),
        )
        if upload is None:
            st.info("Upload a corpus to run on it.")
            return None
        data = upload.getvalue()
        return cached(uploaded_corpus, upload.name, data, kept=2)
    # Only what the operator listed (dashboard/operator.py), by name: a visitor types no path.
    name = st.selectbox("Corpus on the server", list(offered), key="pb_server_corpus")
    path = offered[name]
    corpus = cached(load_corpus, path, kept=2, spinner="Reading the corpus…")
    return replace(corpus, source=name)  # the sweep records and shows the name, not the server's path


def _settings_form():
    """The run controls: ``(run options, calibration settings)``."""
    left, middle, right = st.columns(3)
    encoders = operator.encoder_folders()
    name = left.selectbox("Encoder", [PACKAGED, *encoders], key="pb_model")
    model = str(encoders[name]) if name in encoders else None
    pooling = left.selectbox("Pooling", ["model's own", *positional.POOLINGS], key="pb_pooling")
    max_len = left.number_input("max_seq_length", 16, 8192, 512, step=64, key="pb_msl")
    lams = middle.multiselect("λ (0 = stock is always run)", LAMBDAS, default=[0.5], key="pb_lams")
    basket = middle.selectbox("Basket B (content tokens)", positional.SWEEP_BASKETS, key="pb_basket")
    layers = middle.selectbox("Calibrated layers (from the last)", positional.LAYER_CHOICES, index=1, key="pb_layers")
    rows = middle.selectbox("Calibrated rows", positional.ROW_CHOICES, key="pb_rows")
    share = middle.selectbox(
        "Special tokens keep",
        positional.SHARE_CHOICES,
        key="pb_share",
        format_func={"original": "their weight", "equal": "an equal share"}.get,
    )
    n_passages = right.number_input("Passages (one per document)", 10, 2000, 200, step=10, key="pb_passages")
    low, high = right.slider("Passage length (encoder tokens)", 64, 4096, (440, 505), step=1, key="pb_tokens")
    seed = right.number_input("Seed", 0, 2**31 - 1, 0, key="pb_seed")
    reps = right.selectbox("Bootstrap replicates", (500, 1000, 2000), index=1, key="pb_reps")
    options = {
        "model": model,
        "pooling": None if pooling == "model's own" else pooling,
        "max_seq_length": int(max_len),
        "n_passages": int(n_passages),
        "min_tokens": int(low),
        "max_tokens": int(high),
        "seed": int(seed),
        "reps": int(reps),
    }
    return options, positional.sweep_settings(lams, (basket,), (layers,), rows=rows, share=share)


def run_section() -> None:
    missing = positional.extra_missing()
    if missing:
        st.warning(
            f"Running a new setting needs the positional extra ({', '.join(missing)} not installed): "
            f"`{positional.INSTALL_HINT}`. The bundled results above need nothing more."
        )
        return
    if st.session_state.pop(RUNNING, False):
        st.info(
            "Stopped. Every encoding that finished is cached on disk: running the same setting again resumes "
            "from there."
        )
    corpus = _corpus()
    options, settings = _settings_form()
    encodings = len(settings)  # the stock model is one of them
    st.caption(
        f"About {options['n_passages'] * encodings:,} passage encodings ({encodings} settings): on two CPU "
        "cores expect a few passages per second; cached encodings are reused."
    )
    if corpus is None or not st.button("Run", type="primary", key="pb_run"):
        return
    st.session_state[RUNNING] = True
    st.button("Stop", key="pb_stop", help="Stops the run at the next batch; what is encoded stays cached.")
    model = cached(
        positional.load_encoder,
        kept=2,
        spinner="Loading the encoder…",
        model=options.pop("model"),
        pooling=options.pop("pooling"),
        max_seq_length=options.pop("max_seq_length"),
    )
    bar = st.progress(0.0, text="Choosing passages and queries…")
    with work.slot():  # minutes of encoding: queued with every session's heavy work
        sweep = positional.positional_sweep(
            corpus,
            encoder=model,
            settings=settings,
            **options,
            progress=lambda done, total: bar.progress(
                min(1.0, done / total), text=f"Encoded {done:,} of {total:,} texts"
            ),
        )
    bar.empty()
    st.session_state.pop(RUNNING, None)
    st.session_state[RESULT] = sweep
    st.rerun()


def show(sweep: positional.PositionalSweep, *, bundled: bool) -> None:
    enc, pas = sweep.encoder, sweep.passages
    st.caption(
        f"{'Bundled results' if bundled else 'Your run'}: {enc['model']} ({enc['pooling']} pooling, "
        f"max_seq_length {enc['max_seq_length']}), {pas['n_passages']} passages of {pas['passage_tokens']['min']}–"
        f"{pas['passage_tokens']['max']} tokens from {pas['corpus']}, "
        f"{pas['n_queries']} queries, one per third."
    )
    series = sweep.series()
    if not series:
        st.info("This sweep holds the stock model only.")
        return
    labels = [f"B = {b}, layers {layer}, rows {rows}, {share} share" for b, layer, rows, share in series]
    chosen = (
        series[st.selectbox("Calibration series", range(len(series)), format_func=labels.__getitem__, key="pb_series")]
        if len(series) > 1
        else series[0]
    )
    line = sweep.along_lambda(*chosen)
    stock, best = line[0], max(line[1:], key=lambda s: s.metrics["hm"])
    st.markdown(positional_headline(sweep, best))
    with st.expander("Method"):
        st.markdown(
            "nDCG@10 per third of the passage; HM is the harmonic mean of the three and "
            "**PSI = 1 − min/max** (0: no positional bias). Calibration redistributes the pooling token's "
            "attention over **baskets of B tokens at strength λ** (λ = 0 is the stock model). Passage lengths "
            f"fall in the **PosIR bucket {pas['length_bucket']}**. Intervals: {sweep.level:.0%} cluster bootstrap "
            f"over passages ({sweep.reps:,} replicates), each setting paired with λ = 0 on the same passages."
        )
    # Plain labels; the headline's rules for each number (nDCG a rate, its changes in points).
    lam, pct = f"λ = {best.calibration.lam:g}", numbers.level(sweep.level)
    cols = st.columns(4)
    cols[0].metric(
        "Unevenness, stock encoder",
        numbers.icc(stock.metrics["psi"]),
        help=f"PSI, from 0 (found as well anywhere in the passage) to 1; {pct} interval "
        f"{numbers.icc(stock.ci['psi'][0])} to {numbers.icc(stock.ci['psi'][1])}.",
    )
    cols[1].metric(
        f"nDCG@10 change at {lam}",
        numbers.signed_points(best.diff["hm"]),
        help=f"The harmonic mean (HM) of the three thirds' nDCG@10 against λ = 0; paired {pct} interval "
        f"{numbers.signed_points(best.diff_ci['hm'][0])} to {numbers.signed_points(best.diff_ci['hm'][1])}.",
    )
    cols[2].metric(
        f"Unevenness change at {lam}",
        f"{best.diff['psi']:+.3f}".replace("-", "−"),
        help=f"PSI against λ = 0; paired {pct} interval {best.diff_ci['psi'][0]:+.3f} to "
        f"{best.diff_ci['psi'][1]:+.3f}.",
    )
    cols[3].metric(
        "Answers cut off by truncation",
        numbers.percent(pas["truncated_share"]),
        help="Answer spans beyond max_seq_length: the encoder never reads them. That is truncation, "
        "not positional bias, and no calibration brings those tokens back.",
    )
    if pas["truncated_share"] > 0:
        by_group = ", ".join(f"{g} {v:.0%}" for g, v in pas["truncated_by_group"].items())
        st.warning(
            f"{pas['truncated_share']:.1%} of the answers lie beyond max_seq_length ({by_group}): the end "
            "group's gap is partly truncation. Raise max_seq_length or shorten the passages to see bias alone."
        )
    st.plotly_chart(figures.group_ndcg_figure(line, level=sweep.level), key="pb_groups")
    st.plotly_chart(figures.difference_figure(line, level=sweep.level), key="pb_differences")
    st.plotly_chart(figures.summary_figure(line, level=sweep.level), key="pb_summary")
    shown = [stock, min(line[1:], key=lambda s: abs(s.calibration.lam - 0.5))]
    st.plotly_chart(figures.position_curve_figure(shown, level=sweep.level), key="pb_curve")
    st.dataframe(figures.sweep_table(sweep), hide_index=True)


st.title("Positional bias")
st.caption(
    "Dense encoders often retrieve a passage less well when the answer sits late in it. Each passage gets "
    "one question about its beginning, middle and end third, and the page measures how well each is found, "
    "for the stock encoder and with a calibration of its attention. Questions about one passage are not "
    "independent, so every interval resamples whole passages."
)
sweep = st.session_state.get(RESULT)
if sweep is None:
    if BUNDLED.exists():
        show(cached(positional.load_sweep, BUNDLED), bundled=True)
    else:
        st.info("The bundled results are not in this checkout; run a setting below.")
else:
    show(sweep, bundled=False)
    if st.button("Back to the bundled results", key="pb_back"):
        st.session_state.pop(RESULT)
        st.rerun()
with st.expander("Run a new setting", expanded=sweep is not None):
    try:
        run_section()
    except (ValueError, OSError, ImportError) as exc:
        st.session_state.pop(RUNNING, None)
        # Named as the visitor knows them: the operator's corpora and encoders by their names, an upload by its own.
        upload = st.session_state.get("pb_upload")
        st.error(f"Could not run: {operator.named(public_message(exc, upload.name if upload else 'the file'))}")
