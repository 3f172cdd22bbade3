"""ragunc dashboard: router and the sidebar data source shared by every page.

Run with ``streamlit run app.py``, which serves it through ``app`` at the end (Streamlit's server, with
each page's own URL answered by ``dashboard.serving``).  No statistics here: the pages in ``pages/`` call ``ragunc``,
with the support code of the ``dashboard`` package (data sources, cached calls, URL state, widgets).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard import routing, serving, sources, work
from dashboard.uploads import CORPUS_LIMITS, TABLE_LIMITS, limits_help
from dashboard.url_state import bind, clamp, new_run, one_of, sync_url
from ragunc.corpus.language import LANGUAGE_CODES, language
from ragunc.data import (
    CONTRACT_COLUMNS,
    REQUIRED,
    DataError,
    check_columns,
    is_per_document,
)

PAGES_DIR = Path(__file__).resolve().parent / "pages"
FAVICON = Path(__file__).resolve().parent / "dashboard" / "favicon.svg"

SOURCES = {  # the first is the default: alike documents, where the naive interval visibly fails
    "alike": "Alike documents (Debian)",
    "sample": "Python stdlib docs",
    "judged": "Labels from a judge",
    "japanese": "Japanese (Debian Reference)",
    "corpus": "Your corpus (any language)",
    "upload": "Upload results",
    "synthetic": "Synthetic population",
}
DEFAULT_SOURCE = next(iter(SOURCES))
UNMAPPED = "(none)"
PAGES = (  # file in pages/, title, icon; the first is the default page
    ("uncertainty_explorer.py", "Uncertainty explorer", ":material/straighten:"),
    ("lesson.py", "Lesson: why chunks are not cases", ":material/school:"),
    ("design_effect.py", "Design effect", ":material/grid_view:"),
    ("planning_comparison.py", "Planning and comparison", ":material/compare_arrows:"),
    ("ranking_metrics.py", "Ranking metrics", ":material/leaderboard:"),
    ("evaluation_set.py", "Evaluation set", ":material/quiz:"),
    ("positional_bias.py", "Positional bias", ":material/format_align_left:"),
)
# pages with data of their own, not the per-chunk source
OWN_DATA = {"ranking_metrics.py", "evaluation_set.py", "positional_bias.py", "lesson.py"}
PROJECTOR = {"lesson.py"}  # pages shown to a room: the sidebar starts collapsed (its toggle stays)


def _upload_source() -> sources.DataSource | None:
    upload = (
        st.file_uploader(  # no type list: its hint of eight extensions is cut in the sidebar; the loader names them
            "Per-chunk results or per-document statistics: CSV or TSV, Parquet, JSON lines or JSON (.gz allowed)",
            type=None,
            key="upload_file",
            help="One row per chunk: doc_id and y (0/1 hit or a score in [0, 1]) are required. "
            "Or one row per document, as `ragunc aggregate` or Spark writes it. " + limits_help(TABLE_LIMITS),
        )
    )
    if upload is None:
        st.caption("No file yet: the pages show the bundled sample until you upload one.")
        return None
    st.caption("An upload stays in this browser session: a shared link cannot carry the file itself.")
    data = upload.getvalue()
    try:
        present = sources.peek_columns(upload.name, data)
    except DataError:  # unreadable: the loader says why, in the words `ragunc interval` uses
        return sources.upload_source(upload.name, data)
    if is_per_document(present):  # already per document: no chunk columns to map
        return sources.upload_source(upload.name, data)
    columns = {}
    with st.expander("Column mapping", expanded=bool(check_columns(present).missing)):
        st.caption("Which column of your file holds each field of the data contract.")
        for name in CONTRACT_COLUMNS:
            options = [UNMAPPED, *present]
            default = name if name in present else UNMAPPED
            chosen = st.selectbox(
                f"{name}{' (required)' if name in REQUIRED else ''}",
                options,
                index=options.index(default),
                key=f"map_{name}",
            )
            if chosen != UNMAPPED and chosen != name:
                columns[name] = chosen
    check = check_columns(present, columns)
    if check.missing:  # say which field to map, pointing to the mapping step rather than to columns=
        return sources.DataSource(
            key="upload:unmapped",
            label=upload.name,
            error=f"{check.message}. Choose the column that holds each under “Column mapping” in the sidebar.",
        )
    source = sources.upload_source(upload.name, data, columns)
    for config in source.results.configs if source.results else ():  # an Inspect log: its own stderr beside ours
        if (reading := source.results.recorded_reading(config)) is not None:
            st.info(reading)
    return source


AUTO = "auto"


def _language_label(code: str) -> str:
    return "detected from the text" if code == AUTO else f"{language(code).label} ({code})"


def _corpus_source() -> sources.DataSource | None:
    upload = st.file_uploader(
        "Your corpus: JSON lines or CSV (doc_id, text[, doc_type]), or a .zip of .txt, .md or .html files",
        type=None,  # as for results: the hint of seven extensions is cut in the sidebar; the loader names them
        key="corpus_file",
        max_upload_size=sources.CORPUS_MAX_MB,
        help="Each row, or each file of the .zip, is a document; documents are the clusters. The corpus is "
        "chunked, given one simulated query per chunk and ranked with BM25 here, in its language. "
        + limits_help(CORPUS_LIMITS, sources.CORPUS_MAX_MB),
    )
    st.caption(
        f"Up to {sources.CORPUS_MAX_MB} MB and {sources.CORPUS_MAX_DOCS:,} documents. Read on this "
        "machine, in this session: nothing you upload leaves it."
    )
    code = st.selectbox(
        "Language",
        [AUTO, *LANGUAGE_CODES],
        format_func=_language_label,
        key=bind("lang", AUTO, fix=one_of([AUTO, *LANGUAGE_CODES], AUTO)),
        help="Its analyser cuts chunks and words: whitespace words for English, Portuguese and "
        "Spanish, morphemes (MeCab) for Japanese, jieba's words for Chinese.",
    )
    if upload is None:
        st.caption("No corpus yet: the pages show the bundled sample until you upload one.")
        return None
    return sources.corpus_source(upload.name, upload.getvalue(), None if code == AUTO else code)


def _synthetic_source() -> sources.DataSource:
    n_docs = st.number_input(
        "Documents (D)",
        10,
        200_000,
        step=100,
        key=bind("syn_docs", 1300, parse=int, fix=clamp(10, 200_000)),
    )
    mean_chunks = st.number_input(
        "Mean chunks per document",
        1.0,
        500.0,
        step=1.0,
        key=bind("syn_chunks", 25.8, parse=float, fix=clamp(1.0, 500.0)),
    )
    size_cv = st.slider(
        "Size CV (spread of document sizes)",
        0.0,
        3.0,
        step=0.05,
        key=bind("syn_cv", 0.8, parse=float, fix=clamp(0.0, 3.0)),
    )
    p = st.slider("Rate p", 0.01, 0.99, step=0.01, key=bind("syn_p", 0.18, parse=float, fix=clamp(0.01, 0.99)))
    icc = st.slider("ICC", 0.0, 0.95, step=0.01, key=bind("syn_icc", 0.3, parse=float, fix=clamp(0.0, 0.95)))
    autocorr = st.slider(
        "Neighbour autocorrelation", 0.0, 0.95, step=0.01, key=bind("syn_ac", 0.17, parse=float, fix=clamp(0.0, 0.95))
    )
    doc_types = st.number_input("Document types", 1, 20, key=bind("syn_types", 4, parse=int, fix=clamp(1, 20)))
    seed = st.number_input("Seed", 0, 2**31 - 1, key=bind("syn_seed", 0, parse=int, fix=clamp(0, 2**31 - 1)))
    n_docs, note = work.synthetic_docs(int(n_docs), float(mean_chunks))  # what a link may make the server hold
    if note:
        st.caption(note)
    return sources.synthetic_source(
        seed=int(seed),
        n_docs=n_docs,
        mean_chunks=float(mean_chunks),
        size_cv=float(size_cv),
        p=float(p),
        icc=float(icc),
        autocorr=float(autocorr),
        doc_types=int(doc_types),
    )


def sidebar_source(*, used: bool = True) -> sources.DataSource:
    """The data source widgets; returns what was loaded (or the error to show).

    A page that does not use it still gets the widgets (hiding them would drop an
    upload from the session), with a line saying so.
    """
    st.header("Data")
    if not used:
        st.caption("This page reads data chosen on the page itself, not this per-chunk source; the other pages use it.")
    kind = st.selectbox(  # one line, however many sources: the page's own controls stay in the first screen
        "Source",
        list(SOURCES),
        format_func=SOURCES.get,
        help="Bundled samples: alike documents (Debian packages' copyright files), the Python standard library's "
        "documentation, the stdlib with labels from a judge, Japanese text. Or your own corpus (chunked, "
        "queried and ranked here), a file of per-chunk results, or a synthetic population whose truth is known.",
        key=bind("source", DEFAULT_SOURCE, fix=one_of(SOURCES, DEFAULT_SOURCE)),
    )
    source = None
    if kind == "upload":
        source = _upload_source()
    elif kind == "synthetic":
        source = _synthetic_source()
    elif kind == "sample":
        source = sources.sample_source()
    elif kind == "judged":
        source = sources.judged_sample_source()
    elif kind == "japanese":
        source = sources.japanese_sample_source()
    elif kind == "corpus":
        source = _corpus_source()
    source = source or sources.alike_sample_source()
    if source.error:
        if not used:  # a page that uses the source shows the error itself, in the main area
            st.error(f"Could not use {source.label}: {source.error}")
    else:
        r = source.results
        docs = max(population.n_docs for population in r.populations.values())
        st.caption(f"{source.label}: {r.n_rows:,} chunks of {docs:,} documents · {sources.configs_text(source, r)}")
    return source


def main() -> None:
    st.set_page_config(  # the icon from this folder: a ":material/…:" icon makes browsers ask Google's font server
        page_title="ragunc: how sure is this retrieval evaluation?", page_icon=str(FAVICON), layout="wide"
    )
    new_run()
    routing.entered_through_app()
    pages = {
        name: st.Page(PAGES_DIR / name, title=title, icon=icon, default=name == PAGES[0][0])
        for name, title, icon in PAGES
    }
    routing.default_at_its_name(Path(PAGES[0][0]).stem)
    page = st.navigation(list(pages.values()))
    # Set on every run: a page's sidebar state stays until another run sets it.
    projector = {pages[name].url_path for name in PROJECTOR}
    st.set_page_config(initial_sidebar_state="collapsed" if page.url_path in projector else "auto")
    own_data = {pages[name].url_path for name in OWN_DATA}
    with st.sidebar:
        st.session_state[sources.SOURCE_STATE] = sidebar_source(used=page.url_path not in own_data)
    page.run()
    sync_url()


if __name__ == "__main__":  # streamlit runs app.py as __main__; importing it (a test, a tool) runs nothing
    main()
else:  # `streamlit run app.py` imports app.py first and, finding this, serves app.py through it
    app = st.App(__file__, routes=serving.page_routes(Path(name).stem for name, _, _ in PAGES))
