"""The lesson page's support: its data (the synthetic population cut at several sizes, or the bundled
real text), the projector layout and the step navigation.

The lesson's thought experiment has 20 documents holding 10,000 chunks, about 500 each; the bundled
synthetic population has about 26 chunks of 100 words per document.  So the lesson cuts the same
synthetic documents finer, down to 5 words a chunk, where 20 documents hold about 10,000 chunks, and says
so under "About these data"; step 6 walks the sizes in between.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from ragunc.stats.sample import ClusterStats
from ragunc.stats.synthetic import synthesize_chunk_sizes

from . import sources
from .cache import cached
from .url_state import bind, clamp, one_of

DATA = {
    "synthetic": "Synthetic documents",
    "stdlib": "Real text: Python docs",
    "alike": "Real text: Debian copyright files",
}
SYNTHETIC_META = sources.SAMPLE_DIR / "synthetic_population.json"
WORDS = (100, 50, 25, 10, 5)  # the synthetic documents' cuts: 100 words is the bundled file's
REFERENCE_WORDS = 100  # the cut whose ICC step 4 uses
STEP = "step"  # the URL parameter of the step shown

# Large type for a projector; the sidebar starts collapsed (app.py), its toggle stays.  Headings balance
# their lines, so a wrapped one never leaves a lone word on its last line; the top padding is just clear of
# the header (which covers what lies under it), so a 720 px screen holds the heading and the whole figure.
PROJECTOR_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.6rem; padding-bottom: 1rem; max-width: 100%; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2rem; padding: 0; }
[data-testid="stMainBlockContainer"] h2 { font-size: 1.9rem; padding: 0.1rem 0 0.4rem; }
[data-testid="stMainBlockContainer"] :is(h1, h2) { text-wrap: balance; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p { font-size: 1.5rem; line-height: 1.45; }
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] p { font-size: 1.05rem; }
[data-testid="stMainBlockContainer"] [data-testid="stWidgetLabel"] p { font-size: 1.25rem; }
.st-key-lesson_previous button p, .st-key-lesson_next button p, .st-key-lesson_draw button p { font-size: 1.25rem; }
</style>
"""


@dataclass(frozen=True)
class LessonData:
    """The populations a lesson runs on, by words per chunk, or the error that kept them from loading."""

    key: str
    label: str  # what the data are, for the line under every step
    cuts: dict[int, ClusterStats]  # words per chunk -> the whole corpus at that size (the population)
    error: str | None = None
    icc_source: str = ""  # where step 4's ICC comes from, in words

    @property
    def population(self) -> ClusterStats:
        """The finest cut: the population samples of documents are drawn from (steps 1-3, 5, 7)."""
        return self.cuts[min(self.cuts)]

    @property
    def reference(self) -> ClusterStats:
        """The cut whose ICC step 4 uses: 100 words when there is one, else the coarsest."""
        return self.cuts.get(REFERENCE_WORDS) or self.cuts[max(self.cuts)]


def _synthetic_cuts() -> dict[int, ClusterStats]:
    meta = json.loads(SYNTHETIC_META.read_text(encoding="utf-8"))
    params = {name: value for name, value in meta["parameters"].items() if name != "config"}
    return synthesize_chunk_sizes(WORDS, base_words=REFERENCE_WORDS, **params, rng=meta["seed"])


def _synthetic() -> LessonData:
    try:
        cuts = cached(_synthetic_cuts, kept=1, spinner="Generating the synthetic population…")
    except (OSError, KeyError, ValueError) as exc:
        return LessonData("synthetic", "synthetic population", {}, error=f"{SYNTHETIC_META.name}: {exc}")
    finest, reference = cuts[min(cuts)], cuts[REFERENCE_WORDS]
    label = (
        f"A synthetic population: {reference.n_docs:,} documents, {reference.n_chunks:,} chunks of "
        f"{REFERENCE_WORDS} words, shaped like a measured retrieval study (hit rate about 18%, ICC 0.29). The lesson cuts "
        f"the same documents into {min(cuts)}-word chunks ({finest.n_chunks:,} in all), so that 20 of them hold "
        "about 10,000 chunks, as in the lesson's title."
    )
    return LessonData(
        "synthetic",
        label,
        cuts,
        icc_source=f"this population's {REFERENCE_WORDS}-word chunks",
    )


def _real(key: str) -> LessonData:
    source = sources.alike_sample_source() if key == "alike" else sources.sample_source()
    if source.error:
        return LessonData(key, source.label, {}, error=source.error)
    results = source.results
    cuts = {sources.chunk_words(c): results.population(c) for c in results.configs if sources.chunk_words(c)}
    if not cuts:
        return LessonData(key, source.label, {}, error="no config of these data names a chunk size (e.g. 100w)")
    finest = cuts[min(cuts)]
    label = (
        f"Real text, the {source.label}: {finest.n_docs:,} documents, the corpus taken as the population. "
        f"Samples are drawn from its {min(cuts)}-word chunks ({finest.n_chunks:,} in all)."
    )
    reference = REFERENCE_WORDS if REFERENCE_WORDS in cuts else max(cuts)
    return LessonData(key, label, cuts, icc_source=f"these documents' {reference}-word chunks")


def lesson_data(key: str) -> LessonData:
    """The lesson's data: ``"synthetic"`` or a bundled real-text sample (``"stdlib"``, ``"alike"``)."""
    return _synthetic() if key == "synthetic" else _real(key)


def projector_layout() -> None:
    """Large type for the lesson (a style element only, it takes no room on the page)."""
    st.html(PROJECTOR_CSS)


def data_choice() -> str:
    """The lesson's data switch (``?ls_data=``): synthetic documents, or real text."""
    return st.selectbox(
        "Data of the lesson",
        list(DATA),
        format_func=DATA.get,
        key=bind("ls_data", "synthetic", fix=one_of(DATA, "synthetic")),
    )


def current_step(titles: Sequence[str]) -> int:
    """The step shown (``?step=``, 1-based; out of range or unreadable falls back into range)."""
    return st.session_state[bind(STEP, 1, parse=int, fix=clamp(1, len(titles)))]


def _go(to: int) -> None:
    st.session_state[STEP] = to


def step_buttons(step: int, titles: Sequence[str]) -> None:
    """Previous / next (disabled at either end), each naming its step on hover; a presentation clicker's
    Page Up / Page Down press them."""
    back, forward = st.columns(2)
    back.button(
        "← Back",
        key="lesson_previous",
        disabled=step == 1,
        on_click=_go,
        args=(step - 1,),
        help=titles[step - 2] if step > 1 else None,
        shortcut="PageUp",
        width="stretch",
    )
    forward.button(
        "Next →",
        key="lesson_next",
        disabled=step == len(titles),
        on_click=_go,
        args=(step + 1,),
        help=titles[step] if step < len(titles) else None,
        shortcut="PageDown",
        width="stretch",
        type="primary",
    )


def data_error(data: LessonData) -> str:
    """What to say when the lesson's data did not load."""
    return f"Could not use {DATA[data.key].lower()}: {data.error}"
