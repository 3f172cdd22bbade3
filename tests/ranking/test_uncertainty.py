"""Uncertainty of a mean over queries (queries grouped), RecallReport and the paired comparison of two runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

from ragunc.data.runs import qrels_from_frame, run_from_frame
from ragunc.ranking.metrics import DEDUP_TRUNCATE, match_qrels, recall
from ragunc.ranking.uncertainty import (
    align_scores,
    compare_scores,
    query_interval,
    recall_report,
    scores_sample,
)

CONTRACT_KEYS = {"k", "order", "recall", "naive_sum", "n_queries", "n_excluded", "per_query", "naive", "cluster"}


def test_scores_sample_sums_by_group_and_drops_undefined():
    s = scores_sample(np.array([0.5, 1.0, np.nan, 0.0, 0.25]), np.array(["b", "a", "a", "b", "b"]))
    assert list(s.cluster_id) == ["a", "b"]
    np.testing.assert_allclose(s.sum_y, [1.0, 0.75])
    np.testing.assert_array_equal(s.n, [1, 3])
    np.testing.assert_allclose(s.sum_y2, [1.0, 0.25 + 0.0 + 0.0625])
    assert not s.binary


def test_without_groups_cluster_se_is_the_standard_error_of_the_mean():
    scores = np.random.default_rng(3).uniform(size=40)
    scores[[2, 9]] = np.nan
    defined = scores[~np.isnan(scores)]
    report = query_interval(scores, boot=200, rng=0)
    k = defined.size
    assert report.estimate == pytest.approx(defined.mean())
    assert report.interval("cluster").se == pytest.approx(stats.sem(defined))  # s / sqrt(K), ddof = 1
    assert report.interval("naive").se == pytest.approx(defined.std() / math.sqrt(k))  # ddof = 0
    assert (report.interval("cluster").se / report.interval("naive").se) ** 2 == pytest.approx(k / (k - 1))


def test_grouped_cluster_se_matches_statsmodels_cluster_robust_mean():
    rng = np.random.default_rng(11)
    groups = rng.integers(0, 30, size=300).astype(str)
    effect = dict(zip(np.unique(groups), rng.normal(0, 0.3, size=30)))
    scores = np.clip(0.5 + np.array([effect[g] for g in groups]) + rng.normal(0, 0.2, 300), 0, 1)
    report = query_interval(scores, groups, boot=200, rng=0)
    fit = sm.OLS(scores, np.ones(scores.size)).fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]})
    assert report.estimate == pytest.approx(fit.params[0])
    assert report.interval("cluster").se == pytest.approx(fit.bse[0], rel=1e-9)
    assert report.diagnostics.deff > 2  # strongly clustered queries


def test_deff_of_identical_scores_within_equal_groups_is_m_k_over_k_minus_1():
    # K groups of m queries, every query of a group scoring the same 0/1: cluster variance p(1-p)/(K-1),
    # naive variance p(1-p)/(mK), so DEFF = m K / (K - 1).
    k, m = 12, 5
    group_scores = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1], dtype=float)
    scores = np.repeat(group_scores, m)
    report = query_interval(scores, np.repeat(np.arange(k), m), boot=100, rng=0)
    assert report.diagnostics.deff == pytest.approx(m * k / (k - 1))


def test_interval_needs_two_groups():
    with pytest.raises(ValueError, match="at least 2 groups"):
        query_interval(np.array([0.5, 1.0, np.nan]), np.array(["g", "g", "h"]))


def seed_like_judged(n_queries=40, seed=0):
    """Queries each generated from a source document; the run repeats documents across chunks."""
    rng = np.random.default_rng(seed)
    rows, qrows = [], []
    for i in range(n_queries):
        source = f"doc{i % 10}"
        docs = [source if rng.random() < 0.35 else f"doc{rng.integers(10)}" for _ in range(8)]
        rows += [(f"q{i}", r + 1, f"c{i}_{r}", d) for r, d in enumerate(docs)]
        qrows.append((f"q{i}", source, 1))
    qrows.append(("unjudged", "doc1", 0))  # a query whose relevant set is empty
    rows.append(("unjudged", 1, "u", "doc1"))
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "rank", "chunk_id", "doc_id"]))
    qrels = qrels_from_frame(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"]))
    return match_qrels(run, qrels), np.array([f"doc{i % 10}" for i in range(n_queries)] + ["doc1"])


def test_recall_report_contract_and_consistency():
    j, groups = seed_like_judged()
    report = recall_report(j, 3, groups=groups, group_col="doc_id", level=0.9, boot=300, rng=5)
    d = report.to_dict()
    assert CONTRACT_KEYS <= set(d) and {"deff", "bootstrap", "n_groups"} <= set(d)
    assert set(d["naive"]) == set(d["cluster"]) == set(d["bootstrap"]) == {"se", "ci"}
    scores = recall(j, 3)
    assert d["recall"] == pytest.approx(np.nanmean(scores))
    assert d["recall_by_order"]["dedup-truncate"] == pytest.approx(np.nanmean(recall(j, 3, order=DEDUP_TRUNCATE)))
    assert d["n_queries"] == 40 and d["n_excluded"] == 1 and d["n_groups"] == 10
    excluded = [q for q in d["per_query"] if q["recall"] is None]
    assert [q["query_id"] for q in excluded] == ["unjudged"]
    low, high = d["cluster"]["ci"]
    assert low < d["recall"] < high
    assert high - low == pytest.approx(2 * stats.norm.ppf(0.95) * d["cluster"]["se"])
    again = recall_report(j, 3, groups=groups, level=0.9, boot=300, rng=5)
    assert again.interval("bootstrap").ci == report.interval("bootstrap").ci  # seeded


def test_recall_report_on_one_query_keeps_the_numbers_and_leaves_intervals_undefined():
    run = run_from_frame(
        pd.DataFrame(
            {
                "query_id": ["q"] * 5,
                "rank": range(1, 6),
                "chunk_id": list("abcde"),
                "doc_id": ["manual", "manual", "manual", "faq", "terms"],
            }
        )
    )
    qrels = qrels_from_frame(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["manual", "faq"], "relevance": 1}))
    report = recall_report(match_qrels(run, qrels), 3)
    assert (report.recall, report.naive_sum) == (0.5, 1.5)
    assert report.recall_by_order["dedup-truncate"] == 1.0
    assert report.n_groups == 1 and math.isnan(report.interval("cluster").se) and math.isnan(report.deff)


def test_align_scores_over_the_union_of_queries():
    queries, a, b = align_scores(
        np.array(["q1", "q2"]), np.array([1.0, 0.5]), np.array(["q3", "q1"]), np.array([0.0, 0.25])
    )
    assert list(queries) == ["q1", "q2", "q3"]
    np.testing.assert_array_equal(a, [1.0, 0.5, np.nan])
    np.testing.assert_array_equal(b, [0.25, np.nan, 0.0])


def test_paired_comparison_of_two_cutoffs():
    j, groups = seed_like_judged(n_queries=60, seed=2)
    a, b = recall(j, 2), recall(j, 5)
    result = compare_scores(a, b, groups, names=("k2", "k5"), boot=300, rng=1)
    defined = ~np.isnan(a)
    assert result.difference == pytest.approx(np.mean(b[defined] - a[defined]))
    assert result.n_docs == 10
    # Paired linearization over groups == cluster-robust SE of the mean per-query difference.
    diff = (b - a)[defined]
    fit = sm.OLS(diff, np.ones(diff.size)).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(groups[defined])[0]}
    )
    assert result.interval("paired").se == pytest.approx(fit.bse[0], rel=1e-9)
    with pytest.raises(ValueError, match="align them by query_id"):
        compare_scores(a, b[:-1])
