"""The per-chunk data sources of the sidebar: the bundled samples (stdlib docs; alike Debian copyright
files; Japanese Debian Reference), an upload of results, your corpus (chunked, queried and ranked here),
a synthetic population, and chunk sizes computed live from a source's corpus.

A source is loaded once per cheap key (kind + digest of the bytes or the parameters) through
:func:`dashboard.cache.cached`; app.py leaves the sidebar's choice in the session for the pages.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st

import ragunc.corpus
import ragunc.retrieval
from ragunc.data import reader
from ragunc.corpus.language import UNIT_SUFFIXES
from ragunc.data.per_document import DEFAULT_CONFIG
from ragunc.data.results import DataError, Results, load_results, merge_results, result_columns, results_from_frame
from ragunc.stats.sample import ClusterStats
from ragunc.stats.synthetic import synthesize

from .cache import cached
from .uploads import CORPUS_LIMITS, TABLE_LIMITS, public_message
from .url_state import stop

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"
STDLIB_SAMPLES = ("stdlib_50w.csv.gz", "stdlib_100w.csv.gz", "stdlib_200w.csv.gz")
FALLBACK_SAMPLE = "synthetic_population.csv.gz"
# Documents that are alike (shared templates and licence texts): built by sample_data/make_debian_copyright.py.
ALIKE_SAMPLES = ("debian_copyright_50w.csv.gz", "debian_copyright_100w.csv.gz", "debian_copyright_200w.csv.gz")
# Sections of the Debian Reference in Japanese: built by sample_data/make_debian_reference_ja.py.
JAPANESE_CORPUS = "debian_reference_ja.jsonl.gz"
JAPANESE_SAMPLES = (
    "debian_reference_ja_50m.csv.gz",
    "debian_reference_ja_100m.csv.gz",
    "debian_reference_ja_200m.csv.gz",
)
SOURCE_STATE = "_ragunc_source"  # session_state slot where app.py leaves the sidebar's DataSource
LOADED_KEPT = 8  # uploads and synthetic populations kept (each can hold 100,000s of documents)
SIZES_KEPT = 16
_COMPUTED = "_ragunc_extra_sizes"  # session_state: chunk sizes computed in this session (source key -> config -> units)
SYNTHETIC_CONFIG = "synthetic"  # the synthetic population's config: no chunk size ("<n>w") it could pass for


@dataclass(frozen=True)
class DataSource:
    """What the sidebar loaded: ``results`` or the ``error`` to show, and a cheap cache ``key``.

    ``tokens`` loads the corpus new chunk sizes are computed from (None: the source has no corpus).
    """

    key: str
    label: str
    results: Results | None = None
    error: str | None = None
    tokens: Callable[[], ragunc.retrieval.CorpusTokens] | None = None


def config_label(source: DataSource, config: str) -> str:
    """What the app calls a config of ``source``: its name, the file's name for an upload without a config
    column (whose config is "default"), "synthetic population" for the synthetic one."""
    if config == SYNTHETIC_CONFIG and source.key.startswith("synth:"):
        return "synthetic population"
    return source.label if config == DEFAULT_CONFIG else config


def configs_text(source: DataSource, results: Results) -> str:
    """The configs of loaded data, for a caption: "one configuration" when no config column named any."""
    if len(results.configs) == 1 and config_label(source, results.configs[0]) != results.configs[0]:
        return "one configuration"
    return f"config{'s' if len(results.configs) > 1 else ''} {', '.join(results.configs)}"


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


def _bundled_source(key: str, label: str, load: Callable[[], Results], tokens=None) -> DataSource:
    """A bundled sample, loaded once by ``load``; a file that does not load comes back as ``error``."""
    try:
        results = cached(load, kept=1, spinner=f"Loading the {label}…")
    except (DataError, ValueError, FileNotFoundError) as exc:
        return DataSource(key=key, label=label, error=str(exc))
    return DataSource(key=key, label=label, results=results, tokens=tokens)


def sample_source() -> DataSource:
    """The bundled sample: the stdlib chunk sizes when present, else the synthetic population."""
    source = _bundled_source("sample", "Python standard-library documentation", _bundled_results)
    if source.results is not None and source.results.source.startswith("stdlib"):
        return replace(source, tokens=_stdlib_tokens_cached)  # the fallback synthetic population has no corpus
    return replace(source, label="synthetic population") if source.results is not None else source


# What each bundled sample is, and the other one a click away: (note, other source, button label).
# The numbers are the page's own (the design's values and the coverage experiment), never written here.
SAMPLE_NOTES = {
    "alike": (
        "The **alike-documents sample**: Debian packages' copyright files, which share templates, licence "
        "paragraphs and whole files, like annual versions of one filing.",
        "sample",
        "Show the Python docs sample instead",
    ),
    "sample": (
        "The **stdlib sample**: Python's standard-library documentation, whose modules differ from each "
        "other, so chunks of one document are only mildly alike.",
        "alike",
        "Show the alike-documents sample instead",
    ),
    "judged": (
        "The **judged sample**: the stdlib 100-word results with a lenient judge beside the gold hit@1, a "
        "judge that accepts any chunk of the right document (it never misses a hit, and errs in the documents "
        "whose chunks resemble each other). The views above take the judge's labels as they come, as a report "
        "without an audit would; the section *Labels from a judge* below draws a person's audit inside the K "
        "documents and corrects them.",
        "alike",
        "Show the alike-documents sample instead",
    ),
    "japanese": (
        "The **Japanese sample**: sections of the Debian Reference in Japanese, cut into chunks of "
        "morphemes (MeCab with UniDic), so that 100 of them hold about as much text as 100 English words; "
        "any other size is computed when chosen. Your own corpus, in any language: *Your corpus* in "
        "the sidebar.",
        "corpus",
        "Use your own corpus instead",
    ),
}


def choose_source(kind: str) -> None:
    """Switch the sidebar's data source (a button's ``on_click``: it runs before the rerun draws the radio)."""
    st.session_state["source"] = kind


JUDGED_SAMPLE = "stdlib_judged_100w.csv.gz"  # gold and a lenient judge on every row: sample_data/make_stdlib_judged.py


def _judged_results() -> Results:
    return replace(load_results(SAMPLE_DIR / JUDGED_SAMPLE), source=JUDGED_SAMPLE)  # its name, as the others say


def judged_sample_source() -> DataSource:
    """The bundled judged sample: a judge's label beside the gold one on every row (the audit is simulated)."""
    return _bundled_source("judged", "Python documentation with a judge's labels", _judged_results)


def _alike_results() -> Results:
    return merge_results([load_results(SAMPLE_DIR / name) for name in ALIKE_SAMPLES], source=", ".join(ALIKE_SAMPLES))


def alike_sample_source() -> DataSource:
    """The bundled Debian-copyright sample, whose documents are alike (the binomial interval undercovers)."""
    return _bundled_source("alike", "Debian packages' copyright files", _alike_results)


def _synthetic_results(*, seed: int, **params) -> Results:
    frame = synthesize(**params, config=SYNTHETIC_CONFIG, rng=seed)
    return results_from_frame(frame, source="synthetic population")


def synthetic_source(*, seed: int, **params) -> DataSource:
    """A synthetic population (``ragunc.stats.synthetic.synthesize``) whose truth is known."""
    items = tuple(sorted(params.items()))
    key = "synth:" + hashlib.sha1(repr((items, seed)).encode()).hexdigest()[:16]
    label = (  # the sidebar's words for its controls; D and the chunks follow in the caption's counts
        f"synthetic population (rate {params['p']}, ICC {params['icc']}, size CV {params['size_cv']}, neighbour "
        f"autocorrelation {params['autocorr']}, {params['doc_types']} document types, seed {seed})"
    )
    try:
        results = cached(
            _synthetic_results, kept=LOADED_KEPT, spinner="Generating the synthetic population…", seed=seed, **params
        )
    except ValueError as exc:
        return DataSource(key=key, label=label, error=str(exc))
    return DataSource(key=key, label=label, results=results)


def _uploaded_results(data: bytes, *, name: str, columns: tuple[tuple[str, str], ...]) -> Results:
    return load_results(named_buffer(name, data), columns=dict(columns) or None, limits=TABLE_LIMITS)


def upload_source(name: str, data: bytes, columns: dict[str, str] | None = None) -> DataSource:
    """An uploaded CSV/Parquet/JSONL (optionally gzip); validation errors come back as ``error``."""
    digest = hashlib.sha1(data).hexdigest()
    mapping = tuple(sorted((columns or {}).items()))
    key = f"upload:{digest[:16]}:" + hashlib.sha1(repr(mapping).encode()).hexdigest()[:8]
    try:
        results = cached(
            _uploaded_results,
            data,
            kept=LOADED_KEPT,
            spinner="Validating and aggregating the upload…",
            name=name,
            columns=mapping,
        )
    except (DataError, ValueError) as exc:
        message = public_message(exc, name)  # the loader names the file first; "Could not use <name>:" already does
        return DataSource(key=key, label=name, error=message.removeprefix(f"{name}: "))
    return DataSource(key=key, label=name, results=results)


def saved_upload(name: str, data: bytes, folder: Path) -> tuple[Path, str]:
    """An upload's bytes as a file in ``folder`` named by their digest (written the first time only), and the digest."""
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = folder / f"{digest}-{Path(name).name}"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return path, digest


def _peek(data: bytes, *, name: str) -> tuple[list[str], str | None]:
    try:
        reader.check_limits(named_buffer(name, data), TABLE_LIMITS)
        return result_columns(named_buffer(name, data)), None
    except DataError as exc:
        return [], str(exc)


def peek_columns(name: str, data: bytes) -> list[str]:
    """Column names of an upload, for the column-mapping step: ragunc's own peek (``DataError`` when unreadable,
    or when it unpacks past :data:`~dashboard.uploads.TABLE_LIMITS`, which the peek of a header alone would
    not see). Once per upload, a refusal included: a rerun does not read the file again."""
    columns, error = cached(_peek, data, kept=LOADED_KEPT, name=name)
    if error is not None:
        raise DataError(error)
    return columns


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


# ---------------------------------------------------------------- chunk sizes computed live from a corpus

# The sizes (in the corpus' units) the explorer's slider offers on a source with a corpus
# (bench/bench_recompute.py measures a new size at 25-400 words against the 2 s target).
SIZE_GRID = (25, 50, 75, 100, 150, 200, 300, 400)
SIZE_RANGE = (20, 1000)  # a shared link may carry any size in this range (the pipeline's time grows below 25)
DEFAULT_SIZE = 100  # what an uploaded corpus is first chunked at


def chunk_words(config: str) -> int | None:
    """The units per chunk a config names (``"75w"`` -> 75 words, ``"100m"`` -> 100 morphemes), None for
    any other config."""
    return int(config[:-1]) if config[-1:] in UNIT_SUFFIXES and config[:-1].isdigit() else None


def unit_name(config: str) -> str:
    """What a config's sizes count: ``"words"``, ``"morphemes"``, ..."""
    return UNIT_SUFFIXES[config[-1]]


def can_compute_sizes(source: DataSource) -> bool:
    """Whether new chunk sizes can be computed: the source has a corpus (the stdlib sample, the Japanese
    sample, your corpus)."""
    return source.tokens is not None and source.results is not None


# The corpus and the pipeline are looked up on the packages at call time, so that a test can stand in for them.
def _stdlib_tokens() -> ragunc.retrieval.CorpusTokens:
    return ragunc.retrieval.tokenize_corpus(ragunc.corpus.stdlib_corpus())


def _stdlib_tokens_cached() -> ragunc.retrieval.CorpusTokens:
    # What does not depend on the size (the corpus, its tokens) is read and tokenised once.
    return cached(_stdlib_tokens, kept=1, spinner="Reading and tokenising the stdlib corpus…")


def _chunk_results(tokens: ragunc.retrieval.CorpusTokens, *, units: int, label: str, progress=None) -> Results:
    frame = ragunc.retrieval.chunk_eval(tokens, chunk_words=units, progress=progress)
    return results_from_frame(frame, source=label)


def _size_results(source: DataSource, units: int, unit: str) -> Results:
    return cached(
        _chunk_results,
        source.tokens(),
        kept=SIZES_KEPT,
        progress_label=f"Chunking and retrieving at {units} {unit}…",
        units=int(units),
        label=f"{source.label}, {units} {unit}",
    )


def compute_size(source: DataSource, units: int) -> ClusterStats:
    """The source's corpus at ``units`` per chunk through the retrieval pipeline: a progress bar the first
    time, then cached (and listed in this session's :func:`computed_sizes`)."""
    try:
        results = _size_results(source, units, unit_name(source.results.configs[0]))
    except ValueError as exc:  # the corpus' segmenter is not installed (MissingAnalyser names the extra)
        stop(f"Could not chunk {source.label} at {units}: {exc}")
    population = results.population(results.configs[0])
    st.session_state.setdefault(_COMPUTED, {}).setdefault(source.key, {})[population.config] = int(units)
    return population


def computed_sizes(source: DataSource) -> dict[str, ClusterStats]:
    """Chunk sizes computed in this session (config -> population) from the source's corpus."""
    if not can_compute_sizes(source):
        return {}
    known = set(source.results.configs)
    return {
        config: compute_size(source, units)
        for config, units in st.session_state.get(_COMPUTED, {}).get(source.key, {}).items()
        if config not in known
    }


def size_populations(source: DataSource, results: Results) -> dict[int, ClusterStats]:
    """Every chunk size at hand (units -> population): the data's sized configs and the sizes computed so far."""
    sized = {chunk_words(config): results.population(config) for config in results.configs if chunk_words(config)}
    sized.update({chunk_words(config): sample for config, sample in computed_sizes(source).items()})
    return dict(sorted(sized.items()))


# ---------------------------------------------------------------- your corpus, and the Japanese sample

CORPUS_MAX_MB = 25  # an upload's size: what the pipeline chunks, queries and ranks in seconds here
CORPUS_MAX_DOCS = 20_000
MAX_DOC_SHARE = 0.5  # documents are the clusters: one holding more of the text than this decides every interval


def uploaded_corpus(name: str, data: bytes) -> ragunc.corpus.Corpus:
    """An uploaded corpus, read as the library and the CLI read a file of that name
    (:func:`ragunc.corpus.corpus_from_bytes`), under :data:`~dashboard.uploads.CORPUS_LIMITS`."""
    return ragunc.corpus.corpus_from_bytes(name, data, limits=CORPUS_LIMITS)


def check_corpus_size(corpus: ragunc.corpus.Corpus) -> None:
    """The dashboard's limits on a corpus: documents, and no document holding most of the text."""
    if len(corpus) > CORPUS_MAX_DOCS:
        raise DataError(
            f"{len(corpus):,} documents; the dashboard takes up to {CORPUS_MAX_DOCS:,} (run "
            "`ragunc chunk-eval` on larger corpora and upload its results)"
        )
    sizes = [len(text) for text in corpus.texts]
    largest = max(range(len(sizes)), key=sizes.__getitem__)
    share = sizes[largest] / sum(sizes)
    if share > MAX_DOC_SHARE:
        raise DataError(
            f"one document, {corpus.doc_ids[largest]!r}, holds {share:.0%} of the text: documents are "
            "the clusters, so every interval would rest on that one; split it into its parts "
            "(sections, chapters) or add documents"
        )


def _corpus_tokens(data: bytes, *, name: str, language: str | None) -> ragunc.retrieval.CorpusTokens:
    corpus = uploaded_corpus(name, data)
    check_corpus_size(corpus)
    return ragunc.retrieval.tokenize_corpus(corpus, language)


def _language_label(tokens: ragunc.retrieval.CorpusTokens) -> str:
    choice = tokens.language
    return f"{choice.language.label}{', detected' if choice.detected else ''}: chunks of {choice.language.unit}"


def corpus_source(name: str, data: bytes, language: str | None = None) -> DataSource:
    """Your corpus: read (:func:`uploaded_corpus`), analysed in its language (detected when None), then
    chunked, queried and ranked at :data:`DEFAULT_SIZE` units with a progress bar; other sizes on demand."""
    key = f"corpus:{hashlib.sha1(data).hexdigest()[:16]}:{language or 'auto'}"
    if len(data) > CORPUS_MAX_MB * 2**20:
        return DataSource(
            key=key,
            label=name,
            error=f"{len(data) / 2**20:.0f} MB; the dashboard takes corpora "
            f"up to {CORPUS_MAX_MB} MB (run `ragunc chunk-eval` on larger ones and upload its results)",
        )
    try:
        tokens = cached(
            _corpus_tokens,
            data,
            kept=LOADED_KEPT,
            spinner="Reading and analysing your corpus…",
            name=name,
            language=language,
        )
        source = DataSource(key=key, label=f"{name} ({_language_label(tokens)})", tokens=lambda: tokens)
        results = _size_results(source, DEFAULT_SIZE, tokens.language.language.unit)
    except (DataError, ValueError) as exc:  # MissingAnalyser is a ValueError naming the extra to install
        return DataSource(key=key, label=name, error=public_message(exc, name).removeprefix(f"{name}: "))
    return DataSource(key=key, label=source.label, results=results, tokens=source.tokens)


def _japanese_results() -> Results:
    return merge_results(
        [load_results(SAMPLE_DIR / name) for name in JAPANESE_SAMPLES], source=", ".join(JAPANESE_SAMPLES)
    )


def _japanese_tokens() -> ragunc.retrieval.CorpusTokens:
    return ragunc.retrieval.tokenize_corpus(ragunc.corpus.load_corpus(SAMPLE_DIR / JAPANESE_CORPUS))


def _japanese_tokens_cached() -> ragunc.retrieval.CorpusTokens:
    return cached(_japanese_tokens, kept=1, spinner="Reading and analysing the Japanese sample…")


def japanese_sample_source() -> DataSource:
    """The bundled Japanese sample (sections of the Debian Reference), chunked in morphemes; other sizes on demand."""
    return _bundled_source(
        "japanese", "Debian Reference in Japanese", _japanese_results, tokens=_japanese_tokens_cached
    )
