"""The ranking overview: metric means by hand on a worked example, excluded queries, one call equal to its parts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ragunc.data.runs import qrels_from_frame, run_from_frame
from ragunc.ranking.metrics import DEDUP_TRUNCATE, match_qrels
from ragunc.ranking.overview import ranking_overview
from ragunc.ranking.uncertainty import recall_report


def worked_case(extra_queries: int = 0):
    """The worked example's list (manual x3, faq, terms; relevant manual and faq), a query without relevant documents,
    and ``extra_queries`` copies of its query with a ``source`` column that groups them by pairs."""
    hits = ["manual", "manual", "manual", "faq", "terms"]
    names = ["q1", *(f"s{i}" for i in range(extra_queries))]
    rows = [(q, r + 1, f"{q}:{d}#{r}", d) for q in names for r, d in enumerate(hits)]
    rows += [("none", 1, "none:terms", "terms")]
    qrows = [(q, d, 1, f"g{i // 2}") for i, q in enumerate(names) for d in ("manual", "faq")]
    qrows += [("none", "terms", 0, "g_none")]
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "rank", "chunk_id", "doc_id"]))
    qrels = qrels_from_frame(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance", "source"]))
    return run, qrels, match_qrels(run, qrels)


def test_metric_means_at_k_3_by_hand_leave_the_query_without_relevant_documents_out():
    run, qrels, matched = worked_case()
    overview = ranking_overview(run, qrels, matched, 3, boot=50, rng=0)
    means = overview.metric_means
    # Top 3 chunks: manual three times. Relevant {manual, faq}: recall 1/2, a hit, precision 1/3, RR 1,
    # nDCG = (1 / log2 2) / (1 / log2 2 + 1 / log2 3); the naive sum counts manual three times: 3/2.
    assert means["recall"] == pytest.approx(0.5) and means["hit"] == pytest.approx(1.0)
    assert means["precision"] == pytest.approx(1 / 3) and means["rr"] == pytest.approx(1.0)
    assert means["ndcg"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert means["naive_sum"] == pytest.approx(1.5)
    assert set(means) == set(overview.per_query.columns) - {"query_id", "n_relevant"}
    assert overview.recall.n_excluded == 1  # "none" is in the tables, not in the means
    assert np.isnan(overview.per_query.set_index("query_id").loc["none", "recall"])


def test_the_overview_is_recall_report_and_the_tables_at_the_same_k():
    run, qrels, matched = worked_case(extra_queries=7)
    overview = ranking_overview(
        run, qrels, matched, 4, order=DEDUP_TRUNCATE, group_col="source", level=0.9, boot=300, rng=5
    )
    groups = np.array([f"g{i // 2}" for i in range(8)] + ["g_none"])
    expected = recall_report(
        matched, 4, order=DEDUP_TRUNCATE, groups=groups, group_col="source", level=0.9, boot=300, rng=5
    )
    assert overview.recall.to_dict() == expected.to_dict()
    assert overview.recall.n_groups == 4  # eight queries with qrels, in pairs
    assert list(overview.order_differences["query_id"]) == list(matched.query_id)
    assert list(overview.curve["k"]) == [1, 2, 3, 4, 5]
    at_4 = overview.curve.set_index("k").loc[4]
    assert at_4["dedup_truncate"] == pytest.approx(overview.recall.recall_by_order[DEDUP_TRUNCATE])


def test_an_unknown_group_column_is_an_error_naming_it():
    run, qrels, matched = worked_case()
    with pytest.raises(ValueError, match="group column 'topic'"):
        ranking_overview(run, qrels, matched, 3, group_col="topic")
