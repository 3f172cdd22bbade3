"""Uncertainty of a mean over queries, and the paired comparison of two runs.

Queries that share a source (e.g. questions generated from one document) are
not independent draws, so the mean of per-query scores is the ratio (micro)
estimator of :mod:`ragunc.stats.linearization` with groups as clusters and queries as their
units: per-group sums of scores, query counts and sums of squares feed the same
interval engine as chunk-level results. Without groups every query is its own
group, and the cluster SE equals the naive SE up to the factor sqrt(K/(K-1)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.serialize import jsonable
from ..stats.intervals import IntervalReport, interval_report, undefined_estimates
from ..stats.methods import IntervalEstimate
from ..stats.recommend import Recommendation, Recommends
from ..stats.paired import ComparisonResult, paired_comparison
from ..stats.sample import ClusterStats
from .metrics import (
    ORDERS,
    TRUNCATE_DEDUP,
    MatchedRun,
    mean_defined,
    naive_recall_sum,
    recall,
)


def scores_sample(scores: np.ndarray, groups: np.ndarray | None = None, *, config: str = "default") -> ClusterStats:
    """Per-group sufficient statistics of per-query scores; NaN scores (excluded queries) are dropped.

    Groups are sorted by label so two runs over the same queries give aligned samples.
    """
    scores = np.asarray(scores, dtype=float)
    if groups is None:
        groups = np.arange(scores.size).astype(str)
    groups = np.asarray(groups).astype(str)
    if groups.shape != scores.shape:
        raise ValueError(f"groups has {groups.size} labels for {scores.size} query scores")
    defined = ~np.isnan(scores)
    labels, code = np.unique(groups[defined], return_inverse=True)
    used = scores[defined]
    return ClusterStats(
        cluster_id=labels,
        sum_y=np.bincount(code, weights=used, minlength=labels.size),
        n=np.bincount(code, minlength=labels.size).astype(np.int64),
        sum_y2=np.bincount(code, weights=used**2, minlength=labels.size),
        config=config,
    )


def query_interval(
    scores: np.ndarray,
    groups: np.ndarray | None = None,
    *,
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> IntervalReport:
    """Every interval (and the DEFF and the recommendation) of the mean of defined per-query scores.

    Exactly ``ragunc interval``'s on the scores as rows of results, their group as ``doc_id``.
    """
    sample = scores_sample(scores, groups)
    if sample.cluster_id.size < 2:
        raise ValueError(
            f"an interval needs scores from at least 2 groups of queries; got {sample.cluster_id.size} "
            f"({int(np.sum(~np.isnan(np.asarray(scores, dtype=float))))} queries with relevant documents)"
        )
    return interval_report(sample, estimator="micro", level=level, boot=boot, rng=rng)


@dataclass(frozen=True)
class RecallReport(Recommends):
    """Document-level Recall@k over queries with its uncertainty (what ``ragunc recall`` prints).

    Its intervals are those ``ragunc interval`` computes on the per-query recall (queries as rows,
    their group as the cluster), every registered method, and it leads with the recommended one.
    """

    k: int
    order: str
    recall: float  # mean over queries with relevant documents, in ``order``
    recall_by_order: dict[str, float]  # both orders, for the side-by-side view
    naive_sum: float  # mean of the per-chunk sum (can pass 1)
    n_queries: int  # queries in the mean
    n_excluded: int  # queries without relevant documents (score undefined)
    n_groups: int
    group_col: str | None
    level: float
    query_id: np.ndarray  # (Q,) every query, excluded ones included
    per_query: np.ndarray  # (Q,) recall in ``order``; NaN when excluded
    intervals: dict[str, IntervalEstimate]  # every registered method (stats.methods); NaN with fewer than 2 groups
    recommendation: Recommendation | None  # which to report (stats.recommend); None with fewer than 2 groups
    deff: float

    def to_dict(self) -> dict:
        """The JSON contract of ``ragunc recall``; undefined numbers (NaN) become None."""
        return jsonable(
            {
                "k": self.k,
                "order": self.order,
                "recall": self.recall,
                "recommended": self.recommended_dict(),
                "naive_sum": self.naive_sum,
                "n_queries": self.n_queries,
                "n_excluded": self.n_excluded,
                "per_query": [{"query_id": str(q), "recall": r} for q, r in zip(self.query_id, self.per_query)],
                "naive": self.interval("naive").to_dict(),
                "cluster": self.interval("cluster").to_dict(),
                "deff": self.deff,
                "bootstrap": self.interval("bootstrap").to_dict(),
                "n_groups": self.n_groups,
                "group_col": self.group_col,
                "level": self.level,
                "recall_by_order": self.recall_by_order,
            }
        )


def recall_report(
    matched: MatchedRun,
    k: int,
    *,
    order: str = TRUNCATE_DEDUP,
    groups: np.ndarray | None = None,
    group_col: str | None = None,
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> RecallReport:
    """Recall@k in ``order`` with every interval of :func:`query_interval` (queries grouped by ``groups``).

    ``groups`` has one label per query of ``matched`` (``group_col`` only names it in the output).
    """
    by_order = {o: recall(matched, k, order=o) for o in ORDERS}
    if order not in by_order:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    scores = by_order[order]
    mean, used, excluded = mean_defined(scores)
    n_groups = int(scores_sample(scores, groups).cluster_id.size)
    if n_groups >= 2:
        report = query_interval(scores, groups, level=level, boot=boot, rng=rng)
        intervals, recommendation, deff = report.intervals, report.recommendation, report.diagnostics.deff
    else:  # one group of queries: the mean is still reported, its sampling error is not estimable
        intervals, recommendation, deff = undefined_estimates(), None, float("nan")
    return RecallReport(
        k=int(k),
        order=order,
        recall=mean,
        recall_by_order={o: mean_defined(s)[0] for o, s in by_order.items()},
        naive_sum=mean_defined(naive_recall_sum(matched, k))[0],
        n_queries=used,
        n_excluded=excluded,
        n_groups=n_groups,
        group_col=group_col,
        level=level,
        query_id=matched.query_id,
        per_query=scores,
        intervals=intervals,
        recommendation=recommendation,
        deff=deff,
    )


def recall_curve(matched: MatchedRun, ks) -> pd.DataFrame:
    """Mean Recall@k over queries for each k: both orders and the naive sum (columns ``k, truncate_dedup, ...``)."""
    rows = [
        (
            int(k),
            *(mean_defined(recall(matched, k, order=o))[0] for o in ORDERS),
            mean_defined(naive_recall_sum(matched, k))[0],
        )
        for k in ks
    ]
    return pd.DataFrame(rows, columns=["k", "truncate_dedup", "dedup_truncate", "naive_sum"])


def compare_scores(
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    groups: np.ndarray | None = None,
    *,
    names: tuple[str, str] = ("a", "b"),
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> ComparisonResult:
    """Paired comparison (b - a) of two runs' per-query scores on the same queries.

    Only queries defined in both runs count; they keep their groups, so the
    document-level paired interval of :func:`ragunc.stats.paired.paired_comparison`
    runs over groups of queries.
    """
    scores_a = np.asarray(scores_a, dtype=float)
    scores_b = np.asarray(scores_b, dtype=float)
    if scores_a.shape != scores_b.shape:
        raise ValueError(f"the two runs have {scores_a.size} and {scores_b.size} query scores; align them by query_id")
    both = ~np.isnan(scores_a) & ~np.isnan(scores_b)
    a = np.where(both, scores_a, np.nan)
    b = np.where(both, scores_b, np.nan)
    return paired_comparison(
        scores_sample(a, groups, config=names[0]),
        scores_sample(b, groups, config=names[1]),
        estimator="micro",
        level=level,
        boot=boot,
        rng=rng,
    )


def align_scores(query_a: np.ndarray, scores_a: np.ndarray, query_b: np.ndarray, scores_b: np.ndarray):
    """Both runs' scores on the union of their queries (NaN where a run lacks a query)."""
    queries = pd.unique(np.concatenate([np.asarray(query_a, str), np.asarray(query_b, str)]))
    a = pd.Series(scores_a, index=np.asarray(query_a, str)).reindex(queries).to_numpy(float)
    b = pd.Series(scores_b, index=np.asarray(query_b, str)).reindex(queries).to_numpy(float)
    return queries, a, b
