"""Controls shared by the pages, each defined once and bound to the URL, and the page intro and tile text.

Each control returns its value; its key is the URL parameter, so a page that shares a key
(``level``, ``seed``, ``k``, ``estimator``, ``config``) shares the value across pages.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import streamlit as st

from ragunc.data.results import Results
from ragunc.data.serialize import json_text
from ragunc.present.summary import figures_html
from ragunc.stats.linearization import ESTIMATORS
from ragunc.stats.methods import interval_methods
from ragunc.stats.sample import ClusterStats

from . import sources
from .url_state import bind, clamp, one_of, parse_bool

LEVELS = (0.8, 0.9, 0.95, 0.99)
SEED_MAX = 2**31 - 1


def page_intro(title: str, explanation: str, *, caption: str | None = None) -> None:
    """The page's title, an optional one-line caption and the "What am I looking at?" explanation."""
    st.title(title)
    if caption is not None:
        st.caption(caption)
    with st.expander("What am I looking at?"):
        st.markdown(explanation)


def choice_slider(
    label: str,
    options: Sequence,
    *,
    key: str,
    default,
    where=st,
    format_func: Callable | None = None,
    help: str | None = None,
):
    """A select slider over ``options`` bound to ``?key=``; a value that is not an option falls back to ``default``."""
    extra = {"format_func": format_func} if format_func is not None else {}
    return where.select_slider(
        label, options, key=bind(key, default, parse=type(default), fix=one_of(options, default)), help=help, **extra
    )


def level_slider(where=st) -> float:
    """The confidence level (``?level=``), shared by every page."""
    return choice_slider(
        "Confidence level", LEVELS, key="level", default=0.95, where=where, format_func="{:.0%}".format
    )


def seed_input(label: str = "Seed", *, where=st) -> int:
    """The seed of draws and bootstraps (``?seed=``), shared by every page."""
    return int(where.number_input(label, 0, SEED_MAX, key=bind("seed", 0, parse=int, fix=clamp(0, SEED_MAX))))


def estimator_radio(*, help: str | None = None) -> str:
    """micro (hits / chunks) or macro (mean of per-document rates) (``?estimator=``)."""
    return st.radio(
        "Estimator",
        ESTIMATORS,
        horizontal=True,
        help=help,
        key=bind("estimator", "micro", fix=one_of(ESTIMATORS, "micro")),
    )


def methods_toggle(where=st) -> tuple[tuple[str, ...], bool]:
    """The "All methods" toggle (``?all=``), shared by every page: the interval methods to show and whether
    under plain names (the short list: naive, recommended, one bootstrap) or all twelve under their own."""
    every = where.toggle(
        "All methods",
        key=bind("all", False, parse=parse_bool),
        help="Show every interval method ragunc computes, not only the naive one, the recommended "
        "one and one bootstrap interval.",
    )
    return tuple(m.name for m in interval_methods(shown_first=not every)), not every


def k_slider(high: int, n_docs: int, *, label: str = "K: documents per sample", default: int = 20) -> int:
    """The URL-bound K slider over 2..``high``; when there is nothing to choose (``high`` <= 2), K = 2 and a caption.

    (Streamlit refuses a slider whose ends coincide, which a two- or three-document upload would give.)
    """
    if high <= 2:
        st.caption(f"{label}: 2 (the data hold {n_docs:,} documents)")
        return 2
    return st.slider(label, 2, high, key=bind("k", min(default, high), parse=int, fix=clamp(2, high)))


def default_config(configs: list[str]) -> str:
    """The config a page opens on: the study's chunks of 100 (words, or morphemes) when present, else the first."""
    return next((c for c in configs if sources.chunk_words(c) == 100), configs[0])


def config_select(
    label: str,
    source: sources.DataSource,
    configs: list[str],
    *,
    options: list[str] | None = None,
    help: str | None = None,
) -> str:
    """The chunk-size (config) selector (``?config=``), opening on :func:`default_config`; each config
    shown as :func:`dashboard.sources.config_label` calls it."""
    default = default_config(configs)
    return st.selectbox(
        label,
        options or configs,
        help=help,
        format_func=lambda c: sources.config_label(source, c),
        key=bind("config", default, fix=one_of(options or configs, default)),
    )


def _size_label(config: str) -> str:
    return f"{sources.chunk_words(config)} {sources.unit_name(config)}"


def chunk_size_select(source: sources.DataSource, results: Results) -> ClusterStats:
    """The chunk size to explore (``?config=``); returns that config's population.

    On a source with a corpus (the stdlib and Japanese samples, your corpus) a slider over
    :data:`dashboard.sources.SIZE_GRID` in the corpus' units (plus the data's sizes, those computed in
    this session and a size a shared link names): a size not at hand is computed when first chosen,
    with a progress bar, then cached. Other data keep their own configs: a slider when they are all
    sizes ("50w", "100w", ...), else a select box.
    """
    configs = list(results.configs)
    default = default_config(configs)
    unit = sources.unit_name(default) if sources.chunk_words(default) else "words"
    label = "Chunk size"
    help_text = f"{unit.capitalize()} per chunk: each size is a config of the data (the population explored)."
    if not sources.can_compute_sizes(source):
        if len(configs) > 1 and all(sources.chunk_words(c) for c in configs):
            config = choice_slider(
                label,
                sorted(configs, key=sources.chunk_words),
                key="config",
                default=default,
                format_func=_size_label,
                help=help_text,
            )
        else:
            config = config_select("Chunk size (config)", source, configs, help=help_text)
        return results.population(config)
    sizes = set(sources.SIZE_GRID) | {sources.chunk_words(c) for c in configs}
    sizes |= {sources.chunk_words(c) for c in sources.computed_sizes(source)}
    linked = sources.chunk_words(st.query_params.get("config", ""))
    low, high = sources.SIZE_RANGE
    if "config" not in st.session_state and linked is not None and low <= linked <= high:
        sizes.add(linked)  # a shared link to a size off the grid opens on it
    letter = default[-1]
    config = choice_slider(
        label,
        [f"{w}{letter}" for w in sorted(sizes)],
        key="config",
        default=default,
        format_func=_size_label,
        help=help_text + " Other sizes are computed on the corpus when chosen (a second or "
        "so), then kept for the session.",
    )
    if config in configs:
        return results.population(config)
    return sources.compute_size(source, sources.chunk_words(config))


def number(value: float | None, fmt: str) -> str:
    """A tile's text: "—" when undefined (None, NaN), "∞" when infinite."""
    if value is None or math.isnan(value):
        return "—"
    return format(value, fmt) if math.isfinite(value) else "∞"


def json_download(label: str, make: Callable[[], dict], file_name: str, *, where=st) -> None:
    """A button that downloads ``make()`` as JSON; it is built only when clicked."""
    where.download_button(
        label, lambda: json_text(make()), file_name=file_name, mime="application/json", on_click="ignore"
    )


def figures_download(label: str, make: Callable[[], list | dict], title: str, file_name: str, *, where=st) -> None:
    """A button that downloads the figures ``make()`` returns as one offline HTML page; built only when clicked."""
    where.download_button(
        label, lambda: figures_html(make(), title=title), file_name=file_name, mime="text/html", on_click="ignore"
    )
