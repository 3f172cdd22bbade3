"""Page "Lesson": why 10,000 chunks of 20 documents are not 10,000 cases, for teachers, one step per
screen (a figure, a control, two sentences).

Every step draws from the lesson's data (dashboard.lesson) with one cached ragunc call; its figure and
sentences come from ragunc.present.lesson.  The step is in the URL (``?step=3``), as is each step's control.
"""

from __future__ import annotations

import streamlit as st

from dashboard import lesson
from dashboard.cache import cached
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, one_of, parse_bool, stop, sync_url
from ragunc.present import lesson as show
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_report
from ragunc.stats.sample import draw_sample

require_app()  # before anything: a first visitor's deep link reruns through app.py

K = 20  # documents per sample, as in the lesson's title
R = 500  # repetitions of the simulated steps: coverage to about ±2 points, and at once (the sentences say R)
BOOT = 200  # step 1's report also computes bootstrap intervals, which the lesson does not show: few replicates
# Step 1's draw (draw 1 of step 3): on the synthetic population its 20 documents hold 10,100 chunks, the
# title's "10,000"; any draw tells the same story.
SEED = 7
KS = (5, 10, 20, 40, 80, 160)
MS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000)


def _sample(data: lesson.LessonData, draw: int = 1):
    """The K documents of draw ``draw`` (draw 1 is step 1's sample)."""
    return cached(draw_sample, data.population, key=(data.key, "population"), k=K, rng=SEED + draw - 1)


def _coverage(data: lesson.LessonData, k: int = K, control: str | None = None):
    return cached(
        coverage_experiment,
        data.population,
        key=(data.key, "population"),
        k=k,
        reps=R,
        boot=0,
        rng=SEED,
        control=control,
    )


def _sample_report(data: lesson.LessonData):
    return cached(interval_report, _sample(data), key=(data.key, "population", SEED), boot=BOOT, rng=SEED)


def step_sample(data, control):
    documents = control.toggle(f"Show the {K} documents", key=bind("ls_docs", False, parse=parse_bool))
    report, sample = _sample_report(data), _sample(data)
    return show.sample_figure(report, sample, documents=documents), show.sample_sentences(report, sample)


def step_draws(data, control):
    shown = control.slider(
        f"Samples of {K} documents drawn", 1, R + 1, key=bind("ls_draws", 1, parse=int, fix=clamp(1, R + 1))
    )
    result, report = _coverage(data), _sample_report(data)
    return show.draws_figure(result, report, shown=shown), show.draws_sentences(result, report)


def _draw_again() -> None:
    st.session_state["ls_draw"] += 1


def step_census(data, control):
    draw = st.session_state[bind("ls_draw", 1, parse=int, fix=clamp(1, 10**6))]
    control.button(f"Draw {K} other documents", key="lesson_draw", on_click=_draw_again, icon=":material/casino:")
    sample = _sample(data, draw)
    return show.census_figure(data.population, sample), show.census_sentences(data.population, sample, draw)


def step_deff(data, control):
    m = control.select_slider("Chunks per document, m", MS, key=bind("ls_m", 500, parse=int, fix=one_of(MS, 500)))
    icc = cached(diagnostics, data.reference, key=(data.key, "reference")).icc
    return show.deff_figure(icc, K, m), show.deff_sentences(icc, K, m, where=data.icc_source)


def step_iid(data, control):
    shuffled = control.toggle(
        "Shuffle the hits across all chunks (the iid control)", key=bind("ls_iid", False, parse=parse_bool)
    )
    real, iid = _coverage(data), _coverage(data, control="iid")
    return show.iid_figure(real, iid, shuffled=shuffled), show.iid_sentences(real, iid)


def step_chunk_size(data, control):
    sizes = sorted(data.cuts, reverse=True)
    words = control.select_slider(
        "Words per chunk",
        sizes,
        format_func="{} words".format,
        key=bind("ls_words", sizes[-1], parse=int, fix=one_of(sizes, sizes[-1])),
    )
    designs = {w: cached(design, data.cuts[w], key=(data.key, w), k=K, rng=SEED) for w in sizes}
    return show.chunk_size_figure(designs, words), show.chunk_size_sentences(designs, words)


def step_cluster(data, control):
    ks = [k for k in KS if k < data.population.n_docs]
    default = K if K in ks else ks[-1]
    k = control.select_slider(
        "K: documents per sample", ks, key=bind("ls_k", default, parse=int, fix=one_of(ks, default))
    )
    result = _coverage(data, k)
    return show.cluster_figure(result), show.cluster_sentences(result)


STEPS = (step_sample, step_draws, step_census, step_deff, step_iid, step_chunk_size, step_cluster)

lesson.projector_layout()


@st.fragment
def lesson_view() -> None:
    """The step on screen: a fragment, so Next and Back rerun only the step, not the app's router."""
    title, buttons = st.columns([5, 2.4], vertical_alignment="center")
    title.title("Lesson: why chunks are not cases")
    step = lesson.current_step(show.STEPS)
    with buttons:
        lesson.step_buttons(step, show.STEPS)
    st.header(f"{step} of {len(show.STEPS)} · {show.STEPS[step - 1]}")
    figure_area, side = st.columns([3, 2], gap="large")
    sentences, control, about = side.container(), side.container(), side.container()
    with about:
        data = lesson.lesson_data(lesson.data_choice())
        if not data.error:
            with st.expander("About these data"):
                st.caption(data.label)
    if data.error:
        stop(lesson.data_error(data))
    fig, said = STEPS[step - 1](data, control)
    figure_area.plotly_chart(fig, key="lesson_chart")
    for sentence in said:
        sentences.markdown(sentence)
    sync_url()


lesson_view()
