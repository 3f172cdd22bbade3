"""Everything a run matched with its qrels shows at one cutoff k, computed in one call (what the dashboard's Ranking page draws)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.runs import Qrels, Run, query_groups
from .metrics import TRUNCATE_DEDUP, MatchedRun, mean_defined, metric_table, order_differences
from .uncertainty import RecallReport, recall_curve, recall_report


@dataclass(frozen=True)
class RankingOverview:
    """Recall@k with its intervals, the mean of every metric, the per-query tables, and mean Recall at every k."""

    recall: RecallReport
    metric_means: dict[str, float]  # metric (a column of ``per_query``) -> mean over queries with relevant documents
    per_query: pd.DataFrame  # ``metric_table`` at k: every metric per query, NaN where a query is excluded
    order_differences: pd.DataFrame  # ``order_differences`` at k: the three Recall@k per query and why they differ
    curve: pd.DataFrame  # ``recall_curve`` at k = 1 .. the longest result list


def ranking_overview(
    run: Run,
    qrels: Qrels,
    matched: MatchedRun,
    k: int,
    *,
    order: str = TRUNCATE_DEDUP,
    group_col: str | None = None,
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> RankingOverview:
    """The overview of ``matched`` (``match_qrels(run, qrels)``, passed in so that a caller keeping it matches once) at ``k``.

    ``group_col`` names a column constant within each query (qrels first, then the run) whose
    values group queries for the cluster interval (see :func:`recall_report`); None: every query
    is its own group.  Metric means leave out queries without relevant documents, as every mean does.
    """
    groups = query_groups(run, qrels, group_col, matched.query_id) if group_col else None
    report = recall_report(matched, k, order=order, groups=groups, group_col=group_col, level=level, boot=boot, rng=rng)
    per_query = metric_table(matched, k, order=order)
    means = {
        name: mean_defined(per_query[name].to_numpy(dtype=float))[0]
        for name in per_query.columns.drop(["query_id", "n_relevant"])
    }
    return RankingOverview(
        recall=report,
        metric_means=means,
        per_query=per_query,
        order_differences=order_differences(matched, k),
        curve=recall_curve(matched, range(1, matched.longest_list + 1)),
    )
