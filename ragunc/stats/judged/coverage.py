"""Coverage of the judged intervals: K documents drawn from a fully labelled population, then the audit, R times."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import batches
from ..coverage import interval_coverage, random_subsets
from ..linearization import check_options
from ..methods import CLUSTER_ANALYTIC, interval_method
from ..sample import check_k
from .kernel import judged_arrays, row_weights
from .sample import AUDIT_UNITS, DEFAULT_METHOD, ESTIMATES, JudgedSample, JudgedSums


@dataclass(frozen=True)
class JudgedCoverage:
    """How often each estimate's interval held the population's gold mean, over R drawn samples and audits."""

    estimator: str
    level: float
    method: str
    k: int
    reps: int
    audit: str  # AUDIT_UNITS
    audit_share: float  # rows: each row's chance of an audit; documents: share of the K documents audited
    population_docs: int
    population_value: float  # the gold mean of the population
    judge_value: float  # the judge's mean of the population (its bias: judge_value - population_value)
    coverage: dict[str, float]  # ESTIMATES -> share of defined intervals holding population_value
    coverage_mcse: dict[str, float]
    undefined: dict[str, int]  # repetitions without a defined interval (an audit of fewer than 2 documents)
    width: dict[str, float]  # mean width of the defined intervals
    estimates: dict[str, np.ndarray]  # (R,) per estimate
    lower: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]
    lam: np.ndarray  # (R,) the tuned lambda of each repetition

    def to_dict(self) -> dict:
        return {
            "estimator": self.estimator,
            "level": self.level,
            "method": self.method,
            "k": self.k,
            "reps": self.reps,
            "audit": self.audit,
            "audit_share": self.audit_share,
            "population": {
                "n_docs": self.population_docs,
                "value": self.population_value,
                "judge_value": self.judge_value,
            },
            "coverage": dict(self.coverage),
            "coverage_mcse": dict(self.coverage_mcse),
            "undefined": dict(self.undefined),
            "width": dict(self.width),
            "lambda_mean": float(np.nanmean(self.lam)),
        }


def _judged_coverage_iv(
    population, k, reps, audit, audit_share, estimator, level, method, *, every_document: bool = False
) -> None:
    check_options(estimator, level)
    if interval_method(method).family != CLUSTER_ANALYTIC:
        raise ValueError(f"method must be a cluster-analytic interval method (linearization), got {method!r}")
    if not population.fully_audited:
        raise ValueError(
            "the population needs gold labels on every row (its truth); "
            f"{population.n_rows - population.n_audited:,} of its {population.n_rows:,} rows have none"
        )
    d = population.n_docs
    check_k(k, d, most=d if every_document else d - 1)  # one sample may take every document; repeats would not
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    if audit not in AUDIT_UNITS:
        raise ValueError(f"audit must be one of {AUDIT_UNITS}, got {audit!r}")
    if not 0 < audit_share < 1:
        raise ValueError(f"audit_share must be strictly between 0 and 1, got {audit_share!r}")
    if audit == "rows" and not population.binary:
        # A row audit of sums needs the four (gold, judge) cells of each document; scores do not give them.
        raise ValueError("simulating a row audit needs 0/1 gold and judge labels; with scores, audit whole documents")


def _drawn_and_audited(
    population: JudgedSample, idx: np.ndarray, audit: str, audit_share: float, rng: np.random.Generator
) -> JudgedSums:
    """The sums of the documents ``idx`` (..., K), audited at random.

    ``"rows"``: each of a document's four (gold, judge) cells (1, 1), (1, 0), (0, 1), (0, 0) keeps a
    binomial count, every row audited with probability ``audit_share`` (0/1 labels); ``"documents"``:
    :func:`audited_documents` of the K documents, audited whole.
    """
    j = population.judge
    m, f, f2 = j.n[idx].astype(float), j.sum_y[idx], j.sum_y2[idx]
    y, y2, yf = population.sum_gold[idx], population.sum_gold2[idx], population.sum_gold_judge[idx]
    if audit == "rows":
        cells = np.stack([yf, y - yf, f - yf, m - y - f + yf]).astype(np.int64)
        kept = rng.binomial(cells, audit_share).astype(float)
        gold, judged = kept[0] + kept[1], kept[0] + kept[2]  # 0/1 labels: each sum of squares is the sum
        return JudgedSums(m, f, kept.sum(0), gold, gold, judged, judged, kept[0])
    lead = int(np.prod(idx.shape[:-1]))
    chosen = random_subsets(rng, idx.shape[-1], audited_documents(idx.shape[-1], audit_share), lead)
    mask = np.zeros(idx.shape)
    np.put_along_axis(mask, chosen.reshape(*idx.shape[:-1], -1), 1.0, axis=-1)
    return JudgedSums(m, f, m * mask, y * mask, y2 * mask, f * mask, f2 * mask, yf * mask)


def simulated_audit(
    population: JudgedSample,
    *,
    k: int,
    audit: str = "rows",
    audit_share: float = 0.2,
    rng: np.random.Generator | int | None = None,
) -> JudgedSample:
    """One evaluation as :func:`judged_coverage` repeats it: K documents drawn, then the audit inside them.

    The sample keeps the drawn documents (in the population's order) and carries
    ``population_docs = D`` (the finite-population correction); its gold sums are the audit's.
    """
    _judged_coverage_iv(population, k, 1, audit, audit_share, "micro", 0.95, DEFAULT_METHOD, every_document=True)
    rng = np.random.default_rng(rng)
    idx = np.sort(random_subsets(rng, population.n_docs, k, 1)[0])
    sums = _drawn_and_audited(population, idx, audit, audit_share, rng)
    judge = population.judge.subset(idx).with_population(population.n_docs)
    return JudgedSample(
        judge=judge,
        audited=sums.audited.astype(np.int64),
        sum_gold=sums.sum_gold,
        sum_gold2=sums.sum_gold2,
        sum_judge_audited=sums.sum_judge_audited,
        sum_judge2_audited=sums.sum_judge2_audited,
        sum_gold_judge=sums.sum_gold_judge,
        audit=audit,
    )


def audited_documents(k: int, audit_share: float) -> int:
    """Documents a document audit of ``audit_share`` of K documents labels: round(share K), at least 2 when K allows."""
    return int(min(k, max(2, round(audit_share * k))))


def judged_coverage(
    population: JudgedSample,
    *,
    k: int,
    reps: int,
    audit: str = "rows",
    audit_share: float = 0.2,
    estimator: str = "micro",
    level: float = 0.95,
    method: str = DEFAULT_METHOD,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> JudgedCoverage:
    """Draw K of the population's D documents, audit inside them, R times; each estimate's coverage of the gold mean.

    The population knows gold and judge on every row (:func:`judged_population`).  Each
    repetition draws K documents without replacement (the intervals apply 1 - K/D), then the
    audit: ``"rows"`` audits every row of the K documents with probability ``audit_share``
    (0/1 labels: each of a document's four (gold, judge) cells keeps a binomial count),
    ``"documents"`` audits :func:`audited_documents` of the K documents whole.  Repetitions
    whose audit reaches fewer than two documents have undefined intervals (not misses).
    ``progress(done, total)`` follows the batches.
    """
    _judged_coverage_iv(population, k, reps, audit, audit_share, estimator, level, method)
    rng = np.random.default_rng(rng)
    d = population.n_docs
    m, f = population.judge.n.astype(float), population.judge.sum_y
    w = row_weights(m, estimator)
    value = float((w * population.sum_gold).sum() / (w * m).sum())
    judge_value = float((w * f).sum() / (w * m).sum())
    names = (*ESTIMATES, "judge_bias")
    estimates = {n: np.empty(reps) for n in names}
    lower = {n: np.empty(reps) for n in names}
    upper = {n: np.empty(reps) for n in names}
    lam = np.empty(reps)
    # A repetition holds eight float64 columns of its K documents (_drawn_and_audited), or Floyd's D cells.
    batch = batches.batch_rows(64 * max(k, d if k * k > d else k), reps)
    for start in range(0, reps, batch):
        stop = min(reps, start + batch)
        sums = _drawn_and_audited(population, random_subsets(rng, d, k, stop - start), audit, audit_share, rng)
        arr = judged_arrays(sums, audit=audit, estimator=estimator, level=level, fpc=1 - k / d, method=method)
        for n in names:
            estimates[n][start:stop], lower[n][start:stop], upper[n][start:stop] = (
                arr.estimate[n],
                arr.lower[n],
                arr.upper[n],
            )
        lam[start:stop] = arr.lam
        if progress is not None:
            progress(stop, reps)
    coverage, mcse, undefined, width = {}, {}, {}, {}
    for n in names:
        target = judge_value - value if n == "judge_bias" else value
        coverage[n], mcse[n], undefined[n], width[n] = interval_coverage(lower[n], upper[n], target)
    return JudgedCoverage(
        estimator=estimator,
        level=level,
        method=method,
        k=k,
        reps=reps,
        audit=audit,
        audit_share=audit_share,
        population_docs=d,
        population_value=value,
        judge_value=judge_value,
        coverage=coverage,
        coverage_mcse=mcse,
        undefined=undefined,
        width=width,
        estimates=estimates,
        lower=lower,
        upper=upper,
        lam=lam,
    )
