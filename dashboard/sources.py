"""The per-chunk data sources of the sidebar: the bundled samples (stdlib docs; alike Debian copyright
files), an upload, a synthetic population, and chunk sizes of the bundled stdlib corpus computed live.

A source is loaded once per cheap key (kind + digest of the bytes or the parameters) through
:func:`dashboard.cache.cached`; app.py leaves the sidebar's choice in the session for the pages.
"""
from __future__ import annotations

import hashlib
import io
import tempfile
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import ragunc.corpus
import ragunc.retrieval
from ragunc.data import reader
from ragunc.data.results import DataError, Results, load_results, merge_results, results_from_frame
from ragunc.stats.sample import ClusterSample
from ragunc.stats.synthetic import synthesize

from .cache import cached
from .url_state import stop

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"
STDLIB_SAMPLES = ("stdlib_50w.csv.gz", "stdlib_100w.csv.gz", "stdlib_200w.csv.gz")
FALLBACK_SAMPLE = "synthetic_population.csv.gz"
# Documents that are alike (shared templates and licence texts): built by sample_data/make_debian_copyright.py.
ALIKE_SAMPLES = ("debian_copyright_50w.csv.gz", "debian_copyright_100w.csv.gz", "debian_copyright_200w.csv.gz")
SOURCE_STATE = "_ragunc_source"  # session_state slot where app.py leaves the sidebar's DataSource
LOADED_KEPT = 8  # uploads and synthetic populations kept (each can hold 100,000s of documents)
SIZES_KEPT = 16
_COMPUTED = "_ragunc_extra_sizes"  # session_state: chunk sizes computed in this session (config -> words)


@dataclass(frozen=True)
class DataSource:
    """What the sidebar loaded: ``results`` or the ``error`` to show, and a cheap cache ``key``."""

    key: str
    label: str
    results: Results | None = None
    error: str | None = None


def named_buffer(name: str, data: bytes) -> io.BytesIO:
    """Uploaded bytes as a file object whose name the loaders read the format from."""
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def _bundled_results() -> Results:
    files = [SAMPLE_DIR / name for name in STDLIB_SAMPLES if (SAMPLE_DIR / name).is_file()]
    if not files:
        files = [SAMPLE_DIR / FALLBACK_SAMPLE]
    return merge_results([load_results(path) for path in files], source=", ".join(path.name for path in files))


def sample_source() -> DataSource:
    """The bundled sample: the stdlib chunk sizes when present, else the synthetic population."""
    try:
        results = cached(_bundled_results, kept=1, spinner="Loading the bundled sample…")
    except (DataError, ValueError, FileNotFoundError) as exc:
        return DataSource(key="sample", label="bundled sample", error=str(exc))
    return DataSource(key="sample", label=f"bundled sample ({results.source})", results=results)


# What each bundled sample is, and the other one a click away: (note, other source, button label).
# The numbers are the page's own (the design's values and the coverage experiment), never written here.
SAMPLE_NOTES = {
    "alike": ("The **alike-documents sample**: Debian packages' copyright files, which share templates, licence "
              "paragraphs and whole files, like annual versions of one filing.", "sample",
              "Python docs sample"),
    "sample": ("The **stdlib sample**: Python's standard-library documentation, whose modules differ from each "
               "other, so chunks of one document are only mildly alike.", "alike", "Alike-documents sample"),
    "judged": ("The **judged sample**: the stdlib 100-word results with a lenient judge beside the gold hit@1, a "
               "judge that accepts any chunk of the right document (it never misses a hit, and errs in the documents "
               "whose chunks resemble each other). The views above take the judge's labels as they come, as a report "
               "without an audit would; the section *Labels from a judge* below draws a person's audit inside the K "
               "documents and corrects them.", "alike", "Alike-documents sample"),
}


def choose_source(kind: str) -> None:
    """Switch the sidebar's data source (a button's ``on_click``: it runs before the rerun draws the radio)."""
    st.session_state["source"] = kind


JUDGED_SAMPLE = "stdlib_judged_100w.csv.gz"  # gold and a lenient judge on every row: sample_data/make_stdlib_judged.py


def _judged_results() -> Results:
    return load_results(SAMPLE_DIR / JUDGED_SAMPLE)


def judged_sample_source() -> DataSource:
    """The bundled judged sample: a judge's label beside the gold one on every row (the audit is simulated)."""
    try:
        results = cached(_judged_results, kept=1, spinner="Loading the bundled judged sample…")
    except (DataError, ValueError, FileNotFoundError) as exc:
        return DataSource(key="judged", label="bundled judged sample", error=str(exc))
    return DataSource(key="judged", label=f"bundled judged sample ({results.source})", results=results)


def _alike_results() -> Results:
    return merge_results([load_results(SAMPLE_DIR / name) for name in ALIKE_SAMPLES], source=", ".join(ALIKE_SAMPLES))


def alike_sample_source() -> DataSource:
    """The bundled Debian-copyright sample, whose documents are alike (the binomial interval undercovers)."""
    try:
        results = cached(_alike_results, kept=1, spinner="Loading the bundled Debian-copyright sample…")
    except (DataError, ValueError, FileNotFoundError) as exc:
        return DataSource(key="alike", label="bundled Debian-copyright sample", error=str(exc))
    return DataSource(key="alike", label=f"bundled Debian-copyright sample ({results.source})", results=results)


def _synthetic_results(*, seed: int, **params) -> Results:
    return results_from_frame(synthesize(**params, rng=seed), source="synthetic population")


def synthetic_source(*, seed: int, **params) -> DataSource:
    """A synthetic population (``ragunc.stats.synthetic.synthesize``) whose truth is known."""
    items = tuple(sorted(params.items()))
    key = "synth:" + hashlib.sha1(repr((items, seed)).encode()).hexdigest()[:16]
    label = "synthetic population (" + ", ".join(f"{k}={v}" for k, v in items) + f", seed={seed})"
    try:
        results = cached(_synthetic_results, kept=LOADED_KEPT, spinner="Generating the synthetic population…",
                         seed=seed, **params)
    except ValueError as exc:
        return DataSource(key=key, label=label, error=str(exc))
    return DataSource(key=key, label=label, results=results)


def _uploaded_results(data: bytes, *, name: str, columns: tuple[tuple[str, str], ...]) -> Results:
    return load_results(named_buffer(name, data), columns=dict(columns) or None)


def upload_source(name: str, data: bytes, columns: dict[str, str] | None = None) -> DataSource:
    """An uploaded CSV/Parquet/JSONL (optionally gzip); validation errors come back as ``error``."""
    digest = hashlib.sha1(data).hexdigest()
    mapping = tuple(sorted((columns or {}).items()))
    key = f"upload:{digest[:16]}:" + hashlib.sha1(repr(mapping).encode()).hexdigest()[:8]
    try:
        results = cached(_uploaded_results, data, key=digest, kept=LOADED_KEPT,
                         spinner="Validating and aggregating the upload…", name=name, columns=mapping)
    except (DataError, ValueError) as exc:
        message = str(exc)  # the loader names the file first; the page's "Could not use <name>:" already does
        return DataSource(key=key, label=name, error=message.removeprefix(f"{name}: "))
    return DataSource(key=key, label=name, results=results)


def peek_columns(name: str, data: bytes) -> list[str]:
    """Column names of an upload, for the column-mapping step: ragunc's own peek (``DataError`` when unreadable)."""
    return reader.peek_columns(named_buffer(name, data))


def current_source() -> DataSource:
    """The source chosen in the sidebar; the alike-documents sample (app.py's default) when a page runs on its own."""
    return st.session_state.get(SOURCE_STATE) or alike_sample_source()


def page_results() -> tuple[DataSource, Results]:
    """The current source and the results a page draws its controls from.

    When the source failed to load, the results are the bundled sample's: the page still draws
    its controls (their values kept, the sidebar in place), then :func:`stop_unless_loaded`
    shows the error where the page's content would be.
    """
    source = current_source()
    if source.results is not None:
        return source, source.results
    shape = alike_sample_source()
    if shape.results is None:  # not even the bundled sample loads: there is nothing to draw controls from
        stop(f"Could not use {source.label}: {source.error}")
    return source, shape.results


def stop_unless_loaded(source: DataSource) -> None:
    """After a page's controls: show the source's error in the main area and end the run, when it failed."""
    if source.error or source.results is None:
        stop(f"Could not use {source.label}: {source.error}")


# ---------------------------------------------------------------- chunk sizes computed live (stdlib sample only)

# The word counts the explorer's slider offers on the bundled stdlib sample (bench/bench_recompute.py
# measures a new size at 25-400 words against the 2 s target).
SIZE_GRID = (25, 50, 75, 100, 150, 200, 300, 400)
SIZE_RANGE = (20, 1000)  # a shared link may carry any size in this range (the pipeline's time grows below 25)


def chunk_words(config: str) -> int | None:
    """The words per chunk a config names (``"75w"`` -> 75), None for any other config."""
    return int(config[:-1]) if config.endswith("w") and config[:-1].isdigit() else None


def can_compute_sizes(source: DataSource) -> bool:
    """Whether new chunk sizes can be computed: the source is the bundled stdlib sample."""
    return source.key == "sample" and source.results.source.startswith("stdlib")


# The corpus and the pipeline are looked up on the packages at call time, so that a test can stand in for them.
def _stdlib_tokens() -> ragunc.retrieval.CorpusTokens:
    return ragunc.retrieval.tokenize_corpus(ragunc.corpus.stdlib_corpus())


def _stdlib_chunk_sample(tokens: ragunc.retrieval.CorpusTokens, *, words: int, progress=None) -> ClusterSample:
    frame = ragunc.retrieval.chunk_eval(tokens, chunk_words=words, progress=progress)
    return results_from_frame(frame, source=f"stdlib corpus, {words} words").sample(f"{words}w")


def compute_size(words: int) -> ClusterSample:
    """The stdlib corpus at ``words`` per chunk through the retrieval pipeline: a progress bar the first
    time, then cached (and listed in this session's :func:`computed_sizes`)."""
    # What does not depend on the size (the corpus, its tokens) is read and tokenised once.
    tokens = cached(_stdlib_tokens, kept=1, spinner="Reading and tokenising the stdlib corpus…")
    sample = cached(_stdlib_chunk_sample, tokens, key="stdlib", kept=SIZES_KEPT,
                    progress_label=f"Chunking and retrieving at {words} words…", words=int(words))
    st.session_state.setdefault(_COMPUTED, {})[sample.config] = int(words)
    return sample


def computed_sizes(source: DataSource) -> dict[str, ClusterSample]:
    """Chunk sizes computed in this session (config -> sample), for the stdlib sample."""
    if not can_compute_sizes(source):
        return {}
    known = set(source.results.configs)
    return {config: compute_size(words) for config, words in st.session_state.get(_COMPUTED, {}).items()
            if config not in known}


def size_populations(source: DataSource, results: Results) -> dict[int, ClusterSample]:
    """Every chunk size at hand (words -> population): the data's sized configs and the sizes computed so far."""
    sized = {chunk_words(config): results.sample(config) for config in results.configs if chunk_words(config)}
    sized.update({chunk_words(config): sample for config, sample in computed_sizes(source).items()})
    return dict(sorted(sized.items()))


def uploaded_corpus(name: str, data: bytes) -> ragunc.corpus.Corpus:
    """An uploaded corpus file, read through a temporary file whose name gives the loaders its format."""
    with tempfile.TemporaryDirectory(prefix="ragunc-corpus-") as folder:
        file = Path(folder) / name
        file.write_bytes(data)
        return ragunc.corpus.load_corpus(file)
