"""Page "Evaluation set": build a frozen question set from a corpus, read what the filters dropped, measure BM25 on it.

Controls → ``ragunc.evalset`` (build, load, evaluate) → figures from ``ragunc.present``; the evaluation
goes through the dashboard's one cached-call helper. The endpoint is the operator's (``dashboard.operator``:
its key goes to its base URL and nowhere else) or, where the operator allows it, the visitor's own: typed
URL, model and key, in a password widget bound to no URL parameter, and never with the operator's key.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard import evalset_work, operator, work
from dashboard.cache import cached
from dashboard.routing import require_app
from dashboard.uploads import CORPUS_LIMITS, TABLE_LIMITS, limits_help
from ragunc.data import DataError
from ragunc.evalset import (
    DEFAULT_MIX,
    QUESTION_TYPES,
    REVIEW_LISTS,
    OpenAIGenerator,
    build_evalset,
    evaluate_evalset,
    load_evalset,
)
from ragunc.evalset.build import CHUNK_WORDS, CONCURRENCY
from ragunc.evalset.store import MANIFEST, QUESTIONS
from ragunc.present import evalset_figures, judged_figures
from ragunc.present.style import method_label
from ragunc.present.summary import judged_reading

require_app()  # before anything: a first visitor's deep link reruns through app.py

CORPORA = {"stdlib": "Python standard library documentation", "upload": "Upload a corpus"}
ENDPOINT = operator.endpoint()
GENERATORS = {
    "offline": "Offline templates (no model, no network)",
    **({"operator": f"The server's endpoint ({ENDPOINT.model})"} if ENDPOINT else {}),
    **({"openai": "Your OpenAI-compatible endpoint"} if operator.visitor_endpoints() else {}),
}
BUILDING = "es_building"  # session state: the set folder whose build started and has not finished
NOTICE = "es_notice"  # session state: what the last build said, shown by the run after it


def _corpus() -> tuple[str | None, str | None]:
    """(what build_evalset reads, a stable id for the output folder), or (None, None) while waiting."""
    kind = st.radio("Corpus", list(CORPORA), format_func=CORPORA.get, key="es_corpus", horizontal=True)
    if kind == "stdlib":
        return "stdlib", "stdlib"
    upload = st.file_uploader(
        "Documents: JSON lines or CSV with doc_id, text[, doc_type] (.gz allowed)",
        type=["jsonl", "ndjson", "csv", "gz"],
        key="es_upload",
        help=limits_help(CORPUS_LIMITS),
    )
    if upload is None:
        st.info("Upload a corpus file to build a set from it.")
        return None, None
    return _saved(upload, CORPUS_LIMITS, "corpora")


def _saved(upload, limits, kind: str) -> tuple[str | None, str | None]:
    """(the upload's path in this visitor's folder, its digest), or (None, None) after saying what it passes."""
    try:
        path, digest = evalset_work.save_upload(upload.name, upload.getvalue(), limits, kind)
    except DataError as exc:
        st.error(f"Cannot use {upload.name}: {str(exc).removeprefix(f'{upload.name}: ')}")
        return None, None
    return str(path), digest


def _audit(where) -> str | None:
    """The uploaded audit's path, or None without one."""
    upload = where.file_uploader(
        "Audit of the judged pairs (optional): question_id, chunk_id, relevant (1/0) as a person labelled them",
        type=["csv", "jsonl", "tsv", "gz"],
        key="es_audit",
        help="Corrects the judge's relevant sets: recall is then estimated from the judge's sets on every "
        "question and the person's on the audited ones (prediction-powered). " + limits_help(TABLE_LIMITS),
    )
    if upload is None:
        return None
    return _saved(upload, TABLE_LIMITS, "audits")[0]


def _settings():
    left, middle, right = st.columns(3)
    n = left.number_input("Chunks to sample (raw pairs)", 2, 2000, 50, step=10, key="es_n")
    chunk_words = middle.number_input(
        "Units per chunk",
        10,
        1000,
        CHUNK_WORDS,
        step=10,
        key="es_chunk_words",
        help="Words; morphemes for Japanese, jieba's words for Chinese.",
    )
    seed = right.number_input("Seed", 0, 2**31 - 1, 0, key="es_seed")
    types = st.multiselect(
        "Question types (the default mix, renormalised)", QUESTION_TYPES, default=list(QUESTION_TYPES), key="es_types"
    )
    kind = st.radio("Generator", list(GENERATORS), format_func=GENERATORS.get, key="es_generator", horizontal=True)
    endpoint = {}
    if kind == "openai":
        a, b = st.columns(2)
        endpoint["base_url"] = a.text_input("Base URL", "http://127.0.0.1:11434/v1", key="es_base_url")
        endpoint["model"] = b.text_input("Model", key="es_model")
        st.text_input(
            "API key (empty for a local server)",
            type="password",
            key="es_api_key",
            help="Kept in this browser session only: never shown, never put in the URL or the set's files.",
        )
    if kind != "offline":
        c, d = st.columns(2)
        endpoint["concurrency"] = c.number_input("Calls in flight", 1, 32, CONCURRENCY, key="es_concurrency")
        endpoint["max_calls"] = d.number_input(
            "Budget: at most this many calls (0: no limit)", 0, 100_000, 0, key="es_max_calls"
        )
    mix = {t: DEFAULT_MIX[t] for t in types}
    return {
        "n": int(n),
        "chunk_words": int(chunk_words),
        "seed": int(seed),
        "types": mix,
        "generator": kind,
        **endpoint,
    }


def _generator(settings: dict):
    if settings["generator"] == "offline":
        return "offline"
    if settings["generator"] == "operator":
        return OpenAIGenerator(ENDPOINT.model, base_url=ENDPOINT.base_url, api_key=ENDPOINT.api_key)
    if not settings["model"].strip():
        raise ValueError("give the model name the endpoint serves")
    return OpenAIGenerator(
        settings["model"].strip(),
        base_url=settings["base_url"].strip() or None,
        api_key=st.session_state.get("es_api_key") or None,
    )


def _build(corpus: str, out: Path, settings: dict, *, journal_only: bool) -> tuple[str, str] | None:
    """Build (or, ``journal_only``, write the set from the replies received); what to tell the reader after."""
    bar = st.progress(0.0, text="Preparing the corpus (chunking, BM25 index)…")
    shown = {"at": 0.0}

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - shown["at"] > 0.2:  # the page's stop button takes effect here
            shown["at"] = now
            bar.progress(done / max(total, 1), text=f"{done:,} of {total:,} calls (questions, rephrasings, judgments)")

    budget = settings.get("max_calls") or None
    with work.slot():  # the build's chunking, index and calls queue with every session's heavy work
        result = build_evalset(
            corpus,
            out,
            n=settings["n"],
            generator=_generator(settings),
            chunk_words=settings["chunk_words"],
            types=settings["types"],
            seed=settings["seed"],
            max_calls=0 if journal_only else budget,
            concurrency=settings.get("concurrency", 1),
            progress=progress,
        )
    bar.empty()
    if result.calls["stopped"] and not journal_only:
        return "error", (
            f"Stopped by the endpoint: {result.calls['stopped']}. Every reply received is kept; "
            "Build again to continue."
        )
    if journal_only and not result.complete:
        return "info", (
            f"Stopped. The set below holds the {result.calls['from_journal']:,} replies received "
            "before the stop; Build continues from them without asking again."
        )
    return None


def _show(out: Path) -> None:
    evalset = load_evalset(out)
    m = evalset.manifest
    funnel, counts = m["funnel"], m["counts"]
    cols = st.columns(4)
    cols[0].metric("Pairs sampled", f"{funnel['sampled']:,}")
    cols[1].metric("Questions kept", f"{funnel['kept']:,}")
    cols[2].metric("Leaky before rephrasing", f"{counts['leaky']:,}")
    cols[3].metric("Calls made / from the journal", f"{m['calls']['made']:,} / {m['calls']['from_journal']:,}")
    if not m["complete"]:
        st.warning("This build is unfinished (stopped or out of budget): Build again to continue from the journal.")
    if m["generator"]["kind"] == "offline":
        st.caption(
            "Offline questions are keyword templates over the chunk's salient terms: the leakage filter "
            "flags nearly all of them, and what survives measures lexical matching only."
        )
    left, right = st.columns(2)
    left.plotly_chart(evalset_figures.funnel_figure(funnel))
    right.plotly_chart(evalset_figures.type_mix_figure(m["by_type"]))

    st.subheader("Review lists")
    sizes = m["review_lists"]
    # One selector per set: a browser keeps a keyed selector's label text, and the counts are this set's.
    name = st.selectbox(
        "List",
        [n for n in REVIEW_LISTS if n in sizes],
        key=f"es_review_{evalset_work.digest([out.name, m['created']])}",
        format_func=lambda n: f"{n.replace('_', ' ')} ({sizes[n]}): {REVIEW_LISTS[n]}",
    )
    rows = evalset.review(name)
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    else:
        st.caption("Empty: this filter dropped nothing.")
    with st.expander(f"The {len(evalset):,} questions of the set"):
        st.dataframe(evalset.frame(), hide_index=True)
    st.download_button(
        "Download the frozen set (.zip)",
        evalset.zip_bytes(),
        file_name="evalset.zip",
        mime="application/zip",
        key="es_download",
    )

    st.subheader("Evaluation")
    left, right = st.columns([1, 3])
    k = left.number_input("k (chunks retrieved)", 1, 100, 10, key="es_k")
    audit = _audit(right)
    try:
        report = cached(
            evaluate_evalset,
            out,  # a folder: keyed by its files' sizes and dates, so a rebuilt set is evaluated again
            k=int(k),
            boot=500,
            audit=audit,
            spinner="Measuring BM25 on the set…",
        )
    except ValueError as exc:
        reason = str(exc).removeprefix(f"{out}: ")  # the folder is the page's own working space, not the user's
        if m["complete"]:
            st.error(f"Cannot evaluate this set: {reason}.")
        else:
            st.info(f"Nothing to evaluate yet: {reason}. Build again to continue.")
        return
    st.plotly_chart(evalset_figures.metric_intervals_figure(report))
    r = report.recall
    if r.recommendation is None:
        st.markdown(
            f"**Recall@{report.k} = {r.recall:.3f}** on {r.n_queries} answerable questions from "
            f"{r.n_groups} source document: no interval (it needs at least 2)."
        )
    else:
        low, high = r.recommended().ci
        naive = r.interval("naive").ci
        st.markdown(
            f"**Recall@{report.k} = {r.recall:.3f}**, recommended {report.level:.0%} interval "
            f"**[{low:.3f}, {high:.3f}]** ({method_label(r.recommendation.method)}) over {r.n_groups} "
            f"source documents; with the questions taken as independent, [{naive.low:.3f}, {naive.high:.3f}] "
            f"(DEFF {r.deff:.2f}); {r.n_queries} answerable questions."
        )
    if report.audit is not None:
        a = report.audit
        st.markdown(
            f"**Recall@{report.k} corrected by the audit = {a.report['prediction_powered'].estimate:.3f}** "
            f"({a.pairs:,} audited pairs: {a.made_irrelevant} judged relevant were not, {a.made_relevant} "
            f"unjudged were relevant"
            + (f"; {a.left_out} question(s) left without a relevant chunk" if a.left_out else "")
            + ")."
        )
        st.plotly_chart(judged_figures.judged_figure(a.report, metric=f"Recall@{report.k}"), key="es_audit_chart")
        st.markdown("\n".join(f"- {line}" for line in judged_reading(a.report, rows="questions")))
    neg = report.negatives
    if neg.n:
        line = f"Negatives ({neg.n}): a result comes back for {neg.returned.mean:.0%}"
        if neg.confident is not None:
            line += (
                f"; the top score reaches the answerable questions' median for {neg.confident.mean:.0%}, "
                "which a retriever that should abstain ought to keep low"
            )
        st.markdown(line + ".")


st.title("Evaluation set")
st.caption(
    "Generated question → chunk pairs, filtered, frozen in a folder you can commit, and the recall "
    "measured on them with intervals that cluster questions by source document."
)
with st.expander("What am I looking at?"):
    st.markdown(
        """
Chunks are **sampled** at random (never the first ones: covers and tables of contents); a generator writes
the question each chunk answers. The raw pairs then pass **filters**, and each keeps a list of what it dropped:

* **leakage**: a question whose content words are ≥ 80 % copied from its chunk is rephrased once, then dropped;
* **duplicates** of an earlier question are dropped;
* **round trip**: the source chunk must come back in the top 50 of BM25 run on the question (an independent
  retriever; filtering with the one you evaluate would favour it);
* **uniqueness**: other top chunks that answer the question too join its relevant set;
* **negatives** (unanswerable questions) that a chunk answers after all are dropped.

Every reply is journaled the moment it arrives: **Stop building** keeps them, and **Build** with the same settings
asks only for what is missing. The evaluation measures BM25 on the set: the **naive** interval treats
questions as independent, the **cluster** interval treats the questions of one source document as one unit,
and the **recommended** interval, the one `ragunc interval` recommends on the same per-question values, does too
and stays inside [0, 1].
"""
    )

corpus, corpus_id = _corpus()
settings = _settings()
out = None
if corpus is not None:
    out = evalset_work.set_folder(corpus_id, settings)
build_col, stop_col = st.columns([1, 5])
build = build_col.button("Build", type="primary", key="es_build", disabled=out is None)
if build:
    st.session_state[BUILDING] = str(out)
# A Stop click interrupts the run that builds; the run it starts finds that build unfinished and stops it.
building = out is not None and st.session_state.get(BUILDING) == str(out)
stop = (
    stop_col.button(
        "Stop building",
        key="es_stop",
        disabled=not building,
        help="Ends the asking; the set is written from the replies received, and Build continues from them.",
    )
    and building
)
if build or stop:
    try:
        notice = _build(corpus, out, settings, journal_only=stop)
    except (ValueError, OSError) as exc:
        notice = "error", f"Cannot build: {exc}"
    st.session_state.pop(BUILDING, None)  # built, stopped or failed; a run cut short never gets here
    st.session_state[NOTICE] = notice
    st.rerun()  # draws the buttons as they now are: nothing builds
if notice := st.session_state.pop(NOTICE, None):
    kind, text = notice
    (st.error if kind == "error" else st.info)(text)
if out is not None:
    if all((out / name).exists() for name in (QUESTIONS, MANIFEST)):
        try:
            _show(out)
        except (ValueError, OSError) as exc:
            st.error(f"Cannot read the set: {str(exc).removeprefix(f'{out}: ')}")
    else:
        st.info("Choose the settings and press Build.")
