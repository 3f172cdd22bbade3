"""Ranking: runs matched with their qrels, document-level metrics (truncate, then deduplicate), and their uncertainty
over grouped queries through the stats layer.  May import ``data`` and ``stats``."""

from .comparison import RunComparison, compare_runs
from .metrics import (
    DEDUP_TRUNCATE,
    METRICS,
    ORDERS,
    TRUNCATE_DEDUP,
    MatchedRun,
    match_qrels,
    metric_scores,
    metric_table,
    ranked_list,
    recall,
)
from .overview import RankingOverview, ranking_overview
from .uncertainty import RecallReport, compare_scores, recall_curve, recall_report
