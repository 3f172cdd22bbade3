"""The lesson page's support: its data (the synthetic population cut at several sizes, or the bundled
real text), every step computed once per data choice, and the component that draws it in the browser
(``components/lesson.js``: steps, controls and figures switch there, without asking the server).

The lesson's thought experiment has 20 documents holding 10,000 chunks, about 500 each; the bundled
synthetic population has about 26 chunks of 100 words per document.  So the lesson cuts the same
synthetic documents finer, down to 5 words a chunk, where 20 documents hold about 10,000 chunks, and says
so under "About these data"; step 6 walks the sizes in between.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import streamlit as st

from ragunc.present import lesson as show
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_report
from ragunc.stats.sample import ClusterStats, draw_sample
from ragunc.stats.synthetic import synthesize_chunk_sizes

from . import in_browser, sources
from .cache import cached
from .url_state import bind, one_of, parse_bool

DATA = {
    "synthetic": "Synthetic documents",
    "stdlib": "Real text: Python docs",
    "alike": "Real text: Debian copyright files",
}
REAL_TEXT = {  # what the real text is, in plain words (the caption names no file)
    "stdlib": "pages of the Python documentation",
    "alike": "the copyright files of Debian packages, much alike",
}
SYNTHETIC_META = sources.SAMPLE_DIR / "synthetic_population.json"
WORDS = (100, 50, 25, 10, 5)  # the synthetic documents' cuts: 100 words is the bundled file's
REFERENCE_WORDS = 100  # the cut whose ICC step 4 uses
STEP = "step"  # the URL parameter of the step shown
KEY = "lesson"  # the component's key in st.session_state
STATE = "lesson_state"  # the step and control values the reader last paused on, as the URL writes them
K = 20  # documents per sample, as in the lesson's title
R = 500  # repetitions of the simulated steps: coverage to about ±2 points (the sentences say R)
BOOT = 200  # step 1's report also computes bootstrap intervals, which the lesson does not show: few replicates
# Step 1's draw (draw 1 of step 3): on the synthetic population its 20 documents hold 10,100 chunks, the
# title's "10,000"; any draw tells the same story.
SEED = 7
DRAWS = 10  # step 3's draws, drawn once; its button cycles through them
KS = (5, 10, 20, 40, 80, 160)
MS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000)


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
        f"Real text, {REAL_TEXT[key]}: {finest.n_docs:,} documents, the corpus taken as the population. "
        f"Samples are drawn from its {min(cuts)}-word chunks ({finest.n_chunks:,} in all)."
    )
    reference = REFERENCE_WORDS if REFERENCE_WORDS in cuts else max(cuts)
    return LessonData(key, label, cuts, icc_source=f"these documents' {reference}-word chunks")


def lesson_data(key: str) -> LessonData:
    """The lesson's data: ``"synthetic"`` or a bundled real-text sample (``"stdlib"``, ``"alike"``)."""
    return _synthetic() if key == "synthetic" else _real(key)


def data_choice() -> str:
    """The lesson's data switch (``?ls_data=``): synthetic documents, or real text."""
    return st.selectbox(
        "Data of the lesson",
        list(DATA),
        format_func=DATA.get,
        key=bind("ls_data", "synthetic", fix=one_of(DATA, "synthetic")),
    )


def data_error(data: LessonData) -> str:
    """What to say when the lesson's data did not load."""
    return f"Could not use {DATA[data.key].lower()}: {data.error}"


def _view(data: LessonData) -> dict:
    population = data.population
    draws = [draw_sample(population, K, rng=SEED + d) for d in range(DRAWS)]
    coverage = {
        k: coverage_experiment(population, k=k, reps=R, boot=0, rng=SEED) for k in {*KS, K} if k < population.n_docs
    }
    return show.lesson_view(
        population,
        draws,
        interval_report(draws[0], boot=BOOT, rng=SEED),
        coverage,
        coverage_experiment(population, k=K, reps=R, boot=0, rng=SEED, control="iid"),
        {w: design(cut, k=K, rng=SEED) for w, cut in data.cuts.items()},
        k=K,
        icc=diagnostics(data.reference).icc,
        icc_source=data.icc_source,
        ms=MS,
        about=data.label,
    )


def lesson_view(data: LessonData) -> dict:
    """Every step of the lesson on ``data`` at every value of its control (computed once per data choice)."""
    return cached(_view, data, spinner="Preparing the lesson…")


def _read(control: dict, raw: str | None) -> str:
    """A control's value as the URL writes it, read from ``raw`` (the URL's, or the last one the reader
    paused on); its default when ``raw`` is none of its values."""
    kind = control["kind"]
    if kind == "count":
        number = int(raw) if raw is not None and raw.strip().isdigit() else control["min"]
        return str(min(max(number, control["min"]), control["max"]))
    if raw is not None and kind == "toggle":
        raw = "1" if parse_bool(raw) else "0"
    elif raw is not None and raw.strip().isdigit():
        raw = str(int(raw))
    return raw if raw in control["values"] else control["values"][control["default"]]


def shown_state(view: dict) -> dict[str, str]:
    """The step and every step's control as the URL writes them (``?step=3&ls_m=500``): those the reader
    last paused on in this session, else the link's, else the defaults.

    The browser keeps the URL (it writes these parameters as the reader moves); the server only reads
    them, so a rerun never writes back a state the reader has already left.
    """
    kept = st.session_state.get(STATE, {})
    raw = {
        name: kept.get(name, st.query_params.get(name))
        for name in (STEP, *(s["control"]["param"] for s in view["steps"]))
    }
    step = int(raw[STEP]) if raw[STEP] is not None and raw[STEP].strip().isdigit() else 1
    state = {STEP: str(min(max(step, 1), len(view["steps"])))}
    for shown in view["steps"]:
        control = shown["control"]
        state[control["param"]] = _read(control, raw[control["param"]])
    return state


def _released() -> None:
    # The reader paused on this step and these control values: the server keeps them for the next run.
    st.session_state[STATE] = dict(st.session_state[KEY]["state"])


def draw(view: dict, state: dict[str, str]):
    """Mount the lesson on ``view``, showing ``state`` (:func:`shown_state`) at first; it tells the server the
    step and control values the reader pauses on."""
    mount = in_browser.component("lesson")
    return mount(
        key=KEY,
        data={"view": in_browser.publish(view), "state": state},
        default={"state": state},
        on_state_change=_released,
    )
