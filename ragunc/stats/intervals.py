"""Running registered interval methods: :func:`interval_arrays` (batch-wise, what the coverage
experiment repeats) and :func:`interval_report` (one sample: what ``ragunc interval`` prints).

The orchestrator sits above the linearization, the bootstrap and the registry of methods."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bootstrap import check_boot, resample
from .diagnostics import Diagnostics, diagnostics
from .leverage import Leverage, leverage
from .linearization import check_options, linearize
from .methods import CLUSTER_BOOTSTRAP, WILD_BOOTSTRAP, IntervalEstimate, interval_methods
from .recommend import Recommendation, Recommends, recommend
from .sample import ClusterStats, require_documents
from .wild import WILD_REPS, wild_resample


@dataclass(frozen=True)
class IntervalArrays:
    """Batch output of :func:`interval_arrays`; every array has the leading (repetition) shape."""

    estimate: np.ndarray
    n_chunks: np.ndarray
    binomial_variance: np.ndarray  # chunk variance / N
    cluster_variance: np.ndarray  # linearization variance, FPC applied
    se: dict[str, np.ndarray | None]  # method -> SE (None for a method without one)
    lower: dict[str, np.ndarray]  # method -> lower bounds (NaN where undefined)
    upper: dict[str, np.ndarray]


def interval_arrays(
    sum_y,
    n,
    sum_y2=None,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    fpc=1.0,
    methods: Sequence[str] | None = None,
    reps: int = 0,
    rng: np.random.Generator | int | None = None,
    wild_reps: int = WILD_REPS,
) -> IntervalArrays:
    """Registered interval methods, batch-wise: documents on the last axis, repetitions on leading ones.

    ``methods`` names them (default: every method, the bootstrap ones only when ``reps`` > 0);
    the cluster-bootstrap methods share one set of ``reps`` replicates per row, the wild
    bootstrap draws ``wild_reps`` of its own, both from ``rng``.  ``sum_y2`` (sum of y**2 per
    document) defaults to ``sum_y`` (0/1 y); ``fpc`` is 1 - K/D (1 without a known population),
    applied by the linearization methods and the wild bootstrap (resampling documents with
    replacement knows none).
    """
    chosen = interval_methods(resampling=reps > 0) if methods is None else interval_methods(methods)
    rng = np.random.default_rng(rng)
    lin = linearize(sum_y, n, sum_y2, estimator=estimator, level=level, fpc=fpc)
    families = {m.family for m in chosen}
    reads = {family: lin for family in families}
    if CLUSTER_BOOTSTRAP in families:
        reads[CLUSTER_BOOTSTRAP] = resample(
            sum_y,
            n,
            estimator=estimator,
            level=level,
            reps=reps,
            rng=rng,
            with_se=any(m.needs_replicate_se for m in chosen),
        )
    if WILD_BOOTSTRAP in families:
        reads[WILD_BOOTSTRAP] = wild_resample(
            sum_y, n, estimator=estimator, level=level, fpc=fpc, reps=wild_reps, rng=rng, lin=lin
        )
    se, lower, upper = {}, {}, {}
    for m in chosen:
        se[m.name], lower[m.name], upper[m.name] = m.kernel(reads[m.family])
    return IntervalArrays(lin.estimate, lin.n_chunks, lin.binomial_variance, lin.cluster_variance, se, lower, upper)


def interval_estimates(
    sample: ClusterStats,
    methods: Sequence[str] | None = None,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> dict[str, IntervalEstimate]:
    """The intervals of one sample by method name (default: every registered method), in display order.

    The linearization methods apply the sample's FPC (1 - K/D with a known population_docs);
    the bootstrap ones (``boot`` replicates) do not.
    """
    return _estimates(_sample_arrays(sample, methods, estimator, level, boot, rng))


def undefined_estimates(methods: Sequence[str] | None = None) -> dict[str, IntervalEstimate]:
    """The intervals of a sample that has none (fewer than 2 documents): NaN bounds, NaN SE where a method has one."""
    nan = float("nan")
    return {m.name: IntervalEstimate(m.name, nan if m.has_se else None, (nan, nan)) for m in interval_methods(methods)}


def _sample_arrays(sample, methods, estimator, level, boot, rng) -> IntervalArrays:
    check_options(estimator, level)
    require_documents(sample)
    if any(m.resamples for m in interval_methods(methods)):
        check_boot(boot)
    return interval_arrays(
        sample.sum_y,
        sample.n,
        sample.sum_y2,
        estimator=estimator,
        level=level,
        fpc=sample.fpc,
        methods=[m.name for m in interval_methods(methods)],
        reps=boot,
        rng=rng,
    )


def _estimates(arr: IntervalArrays) -> dict[str, IntervalEstimate]:
    return {
        name: IntervalEstimate(
            name, None if se is None else float(se), (float(arr.lower[name]), float(arr.upper[name]))
        )
        for name, se in arr.se.items()
    }


@dataclass(frozen=True)
class IntervalReport(Recommends):
    """Everything ``ragunc interval`` prints."""

    estimator: str
    estimate: float
    n_docs: int
    n_chunks: int
    level: float
    intervals: dict[str, IntervalEstimate]  # method name -> its interval, in display order
    diagnostics: Diagnostics
    boot: int  # bootstrap replicates behind the cluster-bootstrap methods
    population_docs: int | None = None  # D used for the FPC (None: no FPC)
    recommendation: Recommendation | None = None  # which of the intervals to report, and why (stats.recommend)
    leverage: Leverage | None = None  # which documents dominate: chunk shares, leverage, G* (stats.leverage)

    def to_dict(self) -> dict:
        """The JSON contract of ``ragunc interval``: each method's bounds where its registry entry places them."""
        blocks: dict[str, dict] = {}
        resampled = {}
        for m in interval_methods(self.intervals):
            est = self.intervals[m.name]
            obj, field = m.json_path
            block = blocks.setdefault(obj, {})
            if m.has_se:
                block["se"] = est.se
            block[field] = list(est.ci)
            if m.resamples:
                resampled[obj] = self.boot if m.family == CLUSTER_BOOTSTRAP else WILD_REPS
        for obj, reps in resampled.items():
            blocks[obj]["reps"] = reps
        if self.recommendation is not None:
            blocks["recommended"] = self.recommended_dict()
        d = self.diagnostics
        return {
            "estimator": self.estimator,
            "estimate": self.estimate,
            "n_docs": self.n_docs,
            "n_chunks": self.n_chunks,
            "level": self.level,
            "population_docs": self.population_docs,
            **blocks,
            "deff": d.deff,
            "icc": d.icc,
            "n_eff": d.n_eff,
            "diagnostics": d.to_dict(),
            **({} if self.leverage is None else {"leverage": self.leverage.to_dict()}),
        }


def interval_report(
    sample: ClusterStats,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> IntervalReport:
    """Every registered interval, the diagnostics and the recommended interval of one sample (``ragunc interval``)."""
    arr = _sample_arrays(sample, None, estimator, level, boot, rng)
    return IntervalReport(
        estimator=estimator,
        estimate=float(arr.estimate),
        n_docs=sample.n_docs,
        n_chunks=sample.n_chunks,
        level=level,
        intervals=_estimates(arr),
        diagnostics=diagnostics(sample, estimator=estimator),
        boot=boot,
        population_docs=sample.population_docs,
        recommendation=recommend(sample.sum_y, sample.n, estimator=estimator, binary=sample.binary),
        leverage=leverage(sample, estimator=estimator),
    )
