"""The app's one thin cache/state module: data sources, cached ragunc calls, URL-bound controls.

Pages import it as ``import _cache`` (``app.py`` puts ``pages/`` on ``sys.path``;
``streamlit run pages/x.py`` and ``AppTest.from_file("pages/x.py")`` do so themselves).
Nothing here computes a statistic: every number comes from ``ragunc``.

Caches are keyed by a cheap source key (kind + digest of the bytes or
parameters), never by hashing the arrays.  Results are frozen dataclasses that
pages only read, so ``st.cache_resource`` hands out the object itself instead of
pickling a copy on every rerun (that copy would eat the 100 ms budget at large D).
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import streamlit as st

from ragunc.data.results import (
    DataError,
    Results,
    infer_file_type,
    load_results,
    results_from_frame,
)
from ragunc.data.runs import (
    Qrels,
    Run,
    load_chunk_map,
    load_qrels,
    load_run,
    qrels_from_frame,
    run_from_frame,
)
from ragunc.ranking.metrics import JudgedRun, judge
from ragunc.stats.coverage import CoverageResult, coverage_experiment, iid_control
from ragunc.stats.diagnostics import Diagnostics, diagnostics
from ragunc.stats.intervals import IntervalReport, interval_report
from ragunc.stats.paired import ComparisonResult, paired_comparison
from ragunc.stats.planning import PlanResult, plan_from_pilot
from ragunc.stats.sample import ClusterSample, draw_sample
from ragunc.stats.synthetic import synthesize

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"
STDLIB_SAMPLES = ("stdlib_50w.csv.gz", "stdlib_100w.csv.gz", "stdlib_200w.csv.gz")
FALLBACK_SAMPLE = "synthetic_population.csv.gz"
SAMPLE_RUN = SAMPLE_DIR / "stdlib_run_100w.csv.gz"  # the ranking page's run and qrels (not the sidebar's source)
SAMPLE_QRELS = SAMPLE_DIR / "stdlib_qrels_100w.csv.gz"
SOURCE_STATE = "_ragunc_source"  # session_state slot where app.py leaves the sidebar's DataSource
PROGRESS_AFTER_S = 1.0  # show a progress bar only for work expected to take longer than this
SIMULATIONS_KEPT = 32
_EXTRA = "_ragunc_extra_sizes"  # session_state: chunk sizes computed in this session (config -> words)


@dataclass(frozen=True)
class DataSource:
    """What the sidebar loaded: ``results`` or the ``error`` to show, and a cheap cache ``key``."""

    key: str
    label: str
    results: Results | None = None
    error: str | None = None


# ---------------------------------------------------------------- data sources


@st.cache_resource(show_spinner="Loading the bundled sample…")
def _sample_results() -> Results:
    files = [SAMPLE_DIR / name for name in STDLIB_SAMPLES if (SAMPLE_DIR / name).is_file()]
    if not files:
        files = [SAMPLE_DIR / FALLBACK_SAMPLE]
    loaded = [load_results(path) for path in files]
    samples = {config: s for r in loaded for config, s in r.samples.items()}
    return Results(
        samples=samples,
        n_rows=sum(r.n_rows for r in loaded),
        source=", ".join(path.name for path in files),
    )


def sample_source() -> DataSource:
    """The bundled sample: the stdlib chunk sizes when present, else the synthetic population."""
    try:
        results = _sample_results()
    except (DataError, ValueError, FileNotFoundError) as exc:
        return DataSource(key="sample", label="bundled sample", error=str(exc))
    return DataSource(key="sample", label=f"bundled sample ({results.source})", results=results)


@st.cache_resource(show_spinner="Generating the synthetic population…", max_entries=8)
def _synthetic_results(params: tuple[tuple[str, float], ...], seed: int) -> Results:
    frame = synthesize(**dict(params), rng=seed)
    return results_from_frame(frame, source="synthetic population")


def synthetic_source(*, seed: int, **params) -> DataSource:
    """A synthetic population (``ragunc.synth.synthesize``) whose truth is known."""
    items = tuple(sorted(params.items()))
    key = "synth:" + hashlib.sha1(repr((items, seed)).encode()).hexdigest()[:16]
    label = "synthetic population (" + ", ".join(f"{k}={v}" for k, v in items) + f", seed={seed})"
    try:
        return DataSource(key=key, label=label, results=_synthetic_results(items, seed))
    except ValueError as exc:
        return DataSource(key=key, label=label, error=str(exc))


def _named_buffer(name: str, data: bytes) -> io.BytesIO:
    """Uploaded bytes as a file object whose name the loaders read the format from."""
    handle = io.BytesIO(data)
    handle.name = name
    return handle


@st.cache_resource(show_spinner="Validating and aggregating the upload…", max_entries=8)
def _uploaded_results(digest: str, name: str, columns: tuple[tuple[str, str], ...], _data: bytes) -> Results:
    return load_results(_named_buffer(name, _data), columns=dict(columns) or None)


def upload_source(name: str, data: bytes, columns: dict[str, str] | None = None) -> DataSource:
    """An uploaded CSV/Parquet/JSONL (optionally gzip); validation errors come back as ``error``."""
    digest = hashlib.sha1(data).hexdigest()
    mapping = tuple(sorted((columns or {}).items()))
    key = f"upload:{digest[:16]}:" + hashlib.sha1(repr(mapping).encode()).hexdigest()[:8]
    try:
        results = _uploaded_results(digest, name, mapping, data)
    except (DataError, ValueError) as exc:
        message = str(exc)  # the loader names the file first; the page's "Could not use <name>:" already does
        return DataSource(key=key, label=name, error=message.removeprefix(f"{name}: "))
    return DataSource(key=key, label=name, results=results)


def peek_columns(name: str, data: bytes) -> list[str]:
    """Column names of an upload, for the column-mapping step (reads the header only)."""
    try:
        kind = infer_file_type(name)  # the loader's own reading of the name, so both agree
        raw = gzip.decompress(data) if name.lower().endswith(".gz") else data
        if kind == "parquet":
            return list(pq.read_schema(io.BytesIO(raw)).names)
        if kind == "jsonl":
            first = next((line for line in raw.splitlines() if line.strip()), b"{}")
            return list(json.loads(first))
        return [str(c) for c in pd.read_csv(io.BytesIO(raw), nrows=0).columns]
    except (ValueError, OSError, pd.errors.ParserError):  # DataError (unknown type) is a ValueError
        return []  # load_results names the problem when the file is read for real


def current_source() -> DataSource:
    """The source chosen in the sidebar; the bundled sample when a page runs on its own."""
    return st.session_state.get(SOURCE_STATE) or sample_source()


def default_config(configs: list[str]) -> str:
    """The config a page opens on: the study's 100-word chunks when present, else the first."""
    return "100w" if "100w" in configs else configs[0]


def config_key(configs: list[str], options: list[str] | None = None) -> str:
    """The URL-bound key of a page's chunk-size (config) selector, opening on :func:`default_config`."""
    default = default_config(configs)
    return bind("config", default, fix=one_of(options or configs, default))


def require_results() -> tuple[DataSource, Results]:
    """The current source and its results; shows the error and stops the page when loading failed."""
    source = current_source()
    if source.error or source.results is None:
        st.error(f"Could not use {source.label}: {source.error}")
        sync_url()
        st.stop()
    return source, source.results


# ---------------------------------------------------------------- ranking: runs and qrels (the ranking page's own data)

Judged = tuple[Run, Qrels, JudgedRun]


def has_sample_run() -> bool:
    """Whether the bundled sample run and qrels are in this checkout."""
    return SAMPLE_RUN.is_file() and SAMPLE_QRELS.is_file()


@st.cache_resource(show_spinner="Loading the sample run…")
def sample_run() -> Judged:
    """The bundled stdlib run and qrels, judged."""
    run, qrels = load_run(SAMPLE_RUN), load_qrels(SAMPLE_QRELS)
    return run, qrels, judge(run, qrels)


@st.cache_resource(show_spinner=False, max_entries=8)
def frames_run(key: str, _run: pd.DataFrame, _qrels: pd.DataFrame) -> Judged:
    """A run and qrels given as frames (e.g. a page's worked example), judged; cached by ``key``."""
    run, qrels = run_from_frame(_run, source=f"{key} run"), qrels_from_frame(_qrels, source=f"{key} qrels")
    return run, qrels, judge(run, qrels)


@st.cache_resource(show_spinner="Validating the upload…", max_entries=8)
def _uploaded_run(digest: str, names: tuple[str, str, str | None], _data: tuple[bytes, bytes, bytes | None]) -> Judged:
    run_name, qrels_name, map_name = names
    chunk_map = load_chunk_map(_named_buffer(map_name, _data[2])) if map_name else None
    run = load_run(_named_buffer(run_name, _data[0]), chunk_map=chunk_map)
    qrels = load_qrels(_named_buffer(qrels_name, _data[1]), chunk_map=chunk_map)
    return run, qrels, judge(run, qrels)


def uploaded_run(names: tuple[str, str, str | None], data: tuple[bytes, bytes, bytes | None]) -> Judged:
    """An uploaded run, qrels and optional chunk map (name, bytes each), judged; raises ``ValueError`` when invalid."""
    digest = hashlib.sha1(b"\0".join(d or b"" for d in data) + repr(names).encode()).hexdigest()
    return _uploaded_run(digest, names, data)


# ---------------------------------------------------------------- other chunk sizes (stdlib sample only)


def can_compute_sizes(source: DataSource) -> bool:
    """Whether "compute another size" applies: the bundled stdlib sample and the retrieval pipeline exist."""
    if source.key != "sample" or not source.results.source.startswith("stdlib"):
        return False
    try:
        # Imported lazily (here and below): only this option needs the retrieval stack.
        from ragunc.retrieval import chunk_eval  # noqa: F401
    except ImportError:
        return False
    return True


SIZES_KEPT = 16


@st.cache_resource(show_spinner=False)
def _size_store() -> OrderedDict:
    return OrderedDict()


def _chunk_size(words: int, progress: Callable[[int, int], None] | None) -> ClusterSample:
    # A plain store, not st.cache_resource on this function: the progress bar drawn while it runs
    # would be recorded and replayed on a cache hit, into a container that no longer exists.
    store = _size_store()
    if words in store:
        store.move_to_end(words)
        return store[words]
    from ragunc.corpus import stdlib_corpus
    from ragunc.retrieval import chunk_eval

    frame = chunk_eval(stdlib_corpus(), chunk_words=words, progress=progress)
    store[words] = results_from_frame(frame, source=f"stdlib corpus, {words} words").sample(f"{words}w")
    while len(store) > SIZES_KEPT:
        store.popitem(last=False)
    return store[words]


def compute_size(source: DataSource, words: int) -> str:
    """Run the retrieval pipeline at ``words`` per chunk on the stdlib corpus (cached); returns its config."""
    progress = _LazyProgress(st.empty(), f"Chunking and retrieving at {words} words…")
    try:
        sample = _chunk_size(int(words), progress)
    finally:
        progress.close()
    st.session_state.setdefault(_EXTRA, {})[sample.config] = int(words)
    return sample.config


def extra_configs(source: DataSource) -> dict[str, ClusterSample]:
    """Chunk sizes computed in this session (config -> sample), for the stdlib sample."""
    if not can_compute_sizes(source):
        return {}
    known = set(source.results.configs)
    return {
        config: _chunk_size(words, None)
        for config, words in st.session_state.get(_EXTRA, {}).items()
        if config not in known
    }


# ---------------------------------------------------------------- cached computations


@st.cache_resource(show_spinner=False, max_entries=256)
def _draw(source_key: str, config: str, k: int, seed: int, _population: ClusterSample) -> ClusterSample:
    return draw_sample(_population, k, rng=seed)


def draw_documents(source: DataSource, population: ClusterSample, k: int, seed: int) -> ClusterSample:
    """K documents drawn without replacement (seeded) from the loaded population of D documents."""
    return _draw(source.key, population.config, int(k), int(seed), population)


@st.cache_resource(show_spinner=False, max_entries=256)
def _interval(
    source_key: str, config: str, k: int, seed: int, estimator: str, level: float, boot: int,
    _sample: ClusterSample,
) -> IntervalReport:
    return interval_report(_sample, estimator=estimator, level=level, boot=boot, rng=seed)


def interval(
    source: DataSource, sample: ClusterSample, *, k: int, seed: int, estimator: str, level: float, boot: int
) -> IntervalReport:
    """``ragunc.design.interval_report`` for the seeded sample of K documents, cached."""
    return _interval(source.key, sample.config, int(k), int(seed), estimator, float(level), int(boot), sample)


@st.cache_resource(show_spinner=False, max_entries=64)
def _diagnostics(source_key: str, config: str, variant: str, estimator: str, _sample: ClusterSample) -> Diagnostics:
    return diagnostics(_sample, estimator=estimator)


def population_diagnostics(
    source: DataSource, population: ClusterSample, estimator: str = "micro", *, variant: str = ""
) -> Diagnostics:
    """``ragunc.design.diagnostics`` of a whole loaded config (``variant`` tags e.g. its iid control), cached."""
    return _diagnostics(source.key, population.config, variant, estimator, population)


@st.cache_resource(show_spinner=False, max_entries=16)
def _iid(source_key: str, config: str, seed: int, _population: ClusterSample) -> ClusterSample:
    return iid_control(_population, np.random.default_rng(seed))


def iid_population(source: DataSource, population: ClusterSample, seed: int) -> ClusterSample:
    """The population with y permuted across chunks (``ragunc.simulate.iid_control``), cached."""
    return _iid(source.key, population.config, int(seed), population)


@st.cache_resource(show_spinner=False, max_entries=64)
def _plan(source_key: str, config: str, fpc: bool, half_width: float, estimator: str, level: float,
          _population: ClusterSample) -> PlanResult:
    return plan_from_pilot(_population, half_width=half_width, whole_corpus=fpc, estimator=estimator, level=level)


def plan(source: DataSource, population: ClusterSample, *, half_width: float, estimator: str, level: float,
         finite: bool) -> PlanResult:
    """``ragunc.plan.plan_documents`` with the loaded config as pilot (FPC when ``finite``), cached."""
    return _plan(source.key, population.config, bool(finite), float(half_width), estimator, float(level), population)


@st.cache_resource(show_spinner=False, max_entries=32)
def _compare(source_key: str, config_a: str, config_b: str, estimator: str, level: float, boot: int, seed: int,
             _a: ClusterSample, _b: ClusterSample) -> ComparisonResult:
    return paired_comparison(_a, _b, estimator=estimator, level=level, boot=boot, rng=seed)


def compare(source: DataSource, a: ClusterSample, b: ClusterSample, *, estimator: str, level: float, boot: int,
            seed: int) -> ComparisonResult:
    """``ragunc.compare.paired_comparison`` of two configs, cached."""
    return _compare(source.key, a.config, b.config, estimator, float(level), int(boot), int(seed), a, b)


@st.cache_resource(show_spinner=False)
def _simulation_store() -> OrderedDict:
    return OrderedDict()


class _LazyProgress:
    """A ``progress(done, total)`` callback that draws a bar only once the work looks slow."""

    def __init__(self, container, label: str):
        self.container, self.label = container, label
        self.start = time.perf_counter()
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.start
        expected = elapsed * total / max(done, 1)
        if self.bar is None and expected > PROGRESS_AFTER_S and done < total:
            self.bar = self.container.progress(0.0, text=self.label)
        if self.bar is not None:
            self.bar.progress(min(done / total, 1.0), text=f"{self.label} {done:,}/{total:,}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.empty()


def coverage(
    source: DataSource,
    population: ClusterSample,
    *,
    k: int,
    reps: int,
    boot: int,
    estimator: str,
    level: float,
    seed: int,
    control: str | None = None,
    two_stage_fraction: float | None = None,
    label: str = "Simulating",
) -> CoverageResult:
    """``ragunc.simulate.coverage_experiment`` cached by its inputs, with a progress bar when slow."""
    key = (source.key, population.config, int(k), int(reps), int(boot), estimator, float(level),
           int(seed), control, None if two_stage_fraction is None else float(two_stage_fraction))
    store = _simulation_store()
    if key in store:
        store.move_to_end(key)
        return store[key]
    progress = _LazyProgress(st.empty(), label)
    try:
        result = coverage_experiment(
            population, k=int(k), reps=int(reps), boot=int(boot), estimator=estimator, level=float(level),
            control=control, two_stage_fraction=two_stage_fraction, rng=int(seed), progress=progress,
        )
    finally:
        progress.close()
    store[key] = result
    while len(store) > SIMULATIONS_KEPT:
        store.popitem(last=False)
    return result


@st.cache_resource(show_spinner=False)
def _figure_store() -> OrderedDict:
    return OrderedDict()


def figure(builder: Callable, result, **options):
    """``builder(result, **options)`` built once per cached result (figures of a simulation are reused)."""
    key = (builder.__module__, builder.__qualname__, id(result), tuple(sorted(options.items())))
    store = _figure_store()
    hit = store.get(key)
    if hit is not None and hit[0] is result:  # the id belongs to this very object
        store.move_to_end(key)
        return hit[1]
    fig = builder(result, **options)
    store[key] = (result, fig)
    while len(store) > 4 * SIMULATIONS_KEPT:
        store.popitem(last=False)
    return fig


def number(value: float | None, fmt: str) -> str:
    """A tile's text: "—" when undefined (None, NaN), "∞" when infinite."""
    if value is None or math.isnan(value):
        return "—"
    return format(value, fmt) if math.isfinite(value) else "∞"


# ---------------------------------------------------------------- URL-bound controls

_BOUND = "_ragunc_bound_keys"
_KEPT = "_ragunc_kept_values"  # last value of every bound control, kept while its page is not shown


def bind(key: str, default, *, parse: Callable[[str], object] = str, fix: Callable | None = None) -> str:
    """Bind a widget key to ``?key=`` in the URL: read on first load, normalised every run.

    ``fix`` maps a value to a valid one for this run (clamp to the slider's range,
    fall back when an option disappeared); write the URL back with :func:`sync_url`.
    """
    kept = st.session_state.get(_KEPT, {})
    if key in st.session_state:
        value = st.session_state[key]
    elif key in kept:  # the widget was on another page: Streamlit dropped its state meanwhile
        value = kept[key]
    else:
        value = default
        raw = st.query_params.get(key)
        if raw is not None:
            try:
                value = parse(raw)
            except (TypeError, ValueError):
                value = default
    # Re-assigning every run keeps the value when another page's widget shares the key.
    st.session_state[key] = fix(value) if fix is not None else value
    st.session_state.setdefault(_BOUND, {})[key] = True
    return key


def k_slider(high: int, n_docs: int, *, label: str = "K: documents per sample", default: int = 20) -> int:
    """The URL-bound K slider over 2..``high``; when there is nothing to choose (``high`` <= 2), K = 2 and a caption.

    (Streamlit refuses a slider whose ends coincide, which a two- or three-document upload would give.)
    """
    if high <= 2:
        st.caption(f"{label}: 2 (the data hold {n_docs:,} documents)")
        return 2
    return st.slider(label, 2, high, key=bind("k", min(default, high), parse=int, fix=clamp(2, high)))


def forget(*keys: str) -> None:
    """Drop bound controls' values (state, kept value and URL) so their defaults apply on the next run.

    For controls whose default depends on other input, e.g. as an ``on_change`` of the data they read.
    """
    kept = st.session_state.get(_KEPT, {})
    for key in keys:
        st.session_state.pop(key, None)
        kept.pop(key, None)
        if key in st.query_params:
            del st.query_params[key]


def new_run() -> None:
    """Forget the previous run's bound keys (``app.py`` calls this first, so page switches start clean)."""
    st.session_state[_BOUND] = {}


def sync_url() -> None:
    """Write every bound control's current value into the URL (only those that changed)."""
    kept = st.session_state.setdefault(_KEPT, {})
    for key in st.session_state.get(_BOUND, {}):
        if key in st.session_state:
            kept[key] = st.session_state[key]
            value = _url_text(st.session_state[key])
            if st.query_params.get(key) != value:
                st.query_params[key] = value


def _url_text(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def parse_bool(raw: str) -> bool:
    return raw.lower() in ("1", "true", "yes", "on")


def clamp(low, high) -> Callable:
    """A ``fix`` that keeps a number inside [low, high]."""
    return lambda v: min(max(v, low), high)


def one_of(options, default) -> Callable:
    """A ``fix`` that falls back to ``default`` when the value is not an option."""
    return lambda v: v if v in options else default
