"""Several ranking runs on the same queries, compared with simultaneous paired intervals.

Each run's per-query metric (:func:`ragunc.ranking.metrics.metric_scores`) becomes per-cluster
sums, counts and sums of squares (:func:`ragunc.ranking.uncertainty.scores_sample`, clusters the
groups of queries), and :func:`ragunc.stats.multiple.compare_aligned` does the rest exactly as for
per-chunk configs: ``micro`` is the mean over queries, ``macro`` the mean over clusters of their
queries' mean; the paired SE is the cluster-level one; Holm or a max-|t| bootstrap that resamples
the clusters once for all runs.

With groups, the per-query answer (every query its own cluster: the paired t of ranx and
``scipy.stats.ttest_rel``) is kept beside the clustered one, so a report can say how much
clustering changes the SE and the p-value.

Runs are compared on the queries they share: a query with relevant documents that one run does
not list is dropped from every run (and counted), rather than scored 0 for that run, because a
query missing from a run file more often means the run was not made on it than that it
retrieved nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.runs import Qrels, Run, query_groups
from ..data.serialize import jsonable
from ..stats.multiple import MultipleComparison, compare_aligned, comparison_names
from .metrics import TRUNCATE_DEDUP, MatchedRun, match_qrels, metric_scores
from .uncertainty import scores_sample


@dataclass(frozen=True)
class RunComparison:
    """Every run's mean metric on the shared queries and the differences against the baseline."""

    metric: str
    k: int
    order: str
    group_col: str | None
    n_queries: int  # queries compared: listed by every run, with relevant documents
    n_clusters: int  # their groups (the resampled units)
    dropped: int  # queries with a defined score (relevant items) left out because some run does not list them
    query_id: np.ndarray  # (n_queries,) the queries compared
    comparison: MultipleComparison  # its ``configs`` are the runs; each ``dropped`` counts that run's queries
    per_query: MultipleComparison | None = None  # with groups: the same pairs, every query its own cluster

    def to_dict(self) -> dict:
        """The JSON contract of ``ragunc recall RUN [RUN ...] QRELS --baseline``; NaN becomes None."""
        c = self.comparison
        return jsonable(
            {
                "metric": self.metric,
                "k": self.k,
                "order": self.order,
                "estimator": c.estimator,
                "level": c.level,
                "adjust": c.adjust,
                "baseline": c.baseline,
                "all_pairs": c.all_pairs,
                "group_col": self.group_col,
                "n_queries": self.n_queries,
                "n_clusters": self.n_clusters,
                "dropped": self.dropped,
                "critical_value": c.critical_value,
                "boot": c.boot,
                "runs": [
                    {
                        "run": r.config,
                        "estimate": r.estimate,
                        "cluster": r.interval("cluster").to_dict(),
                        "dropped": r.dropped,
                    }
                    for r in c.configs
                ],
                "comparisons": [
                    {
                        **d.to_dict(),
                        "per_query": None if q is None else {"se": q.interval("paired").se, "p_value": q.p_value},
                    }
                    for d, q in zip(
                        c.comparisons, self.per_query.comparisons if self.per_query else [None] * len(c.comparisons)
                    )
                ],
            }
        )


def compare_runs(
    runs: Mapping[str, Run],
    qrels: Qrels,
    matched: Mapping[str, MatchedRun] | None,
    k: int,
    baseline: str,
    *,
    names: Sequence[str] | None = None,
    metric: str = "recall",
    order: str = TRUNCATE_DEDUP,
    group_col: str | None = None,
    all_pairs: bool = False,
    adjust: str = "maxt",
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> RunComparison:
    """Every run (or ``names``, the baseline added) against ``baseline`` on ``metric`` at cutoff ``k``.

    ``matched`` holds ``match_qrels(run, qrels)`` per run, passed in so that a caller keeping it matches once
    (None, or a run missing from it: matched here).
    ``group_col`` names a column constant within each query (qrels first, then the baseline
    run) whose values are the clusters; None: every query is its own cluster.
    """
    chosen = comparison_names(runs, baseline, names, adjust, estimator, level, boot, what="run")
    matched = {r: (matched[r] if matched is not None and r in matched else match_qrels(runs[r], qrels)) for r in chosen}
    scores = {
        r: pd.Series(metric_scores(matched[r], metric, k, order=order), index=matched[r].query_id).dropna()
        for r in chosen
    }
    scorable = pd.unique(np.concatenate([s.index.to_numpy(dtype=str) for s in scores.values()]))
    listed = {r: np.intersect1d(runs[r].query_id, scorable) for r in chosen}
    shared = scorable
    for r in chosen:
        shared = np.intersect1d(shared, listed[r])
    if shared.size == 0:
        counts = ", ".join(f"{r} {listed[r].size}" for r in chosen)
        raise ValueError(
            f"runs {chosen} share no query with relevant items (queries with relevant items per run: {counts}); "
            "a comparison needs the same queries in every run"
        )
    groups = query_groups(runs[baseline], qrels, group_col, shared) if group_col else None
    samples = {}
    for r in chosen:
        samples[r] = scores_sample(scores[r].reindex(shared).to_numpy(dtype=float), groups, config=r)
    n_clusters = samples[baseline].n_docs
    if n_clusters < 2:
        raise ValueError(
            f"runs {chosen} share {shared.size} queries in {n_clusters} group(s)"
            f"{' of ' + group_col if group_col else ''}; a paired comparison needs at least 2 groups"
        )
    dropped = [listed[r].size - shared.size for r in chosen]
    result = compare_aligned(
        samples,
        dropped=dropped,
        all_pairs=all_pairs,
        adjust=adjust,
        estimator=estimator,
        level=level,
        boot=boot,
        rng=rng,
    )
    per_query = None
    if groups is not None:
        per_query = compare_aligned(
            {r: scores_sample(scores[r].reindex(shared).to_numpy(dtype=float), None, config=r) for r in chosen},
            dropped=dropped,
            all_pairs=all_pairs,
            adjust="none",
            level=level,
        )
    return RunComparison(
        metric=metric,
        k=int(k),
        order=order,
        group_col=group_col,
        n_queries=int(shared.size),
        n_clusters=int(n_clusters),
        dropped=int(scorable.size - shared.size),
        query_id=shared,
        comparison=result,
        per_query=per_query,
    )
