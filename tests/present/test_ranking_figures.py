"""Plotly builders of the page "Ranking metrics": the data they draw, labels, colour-blind-safe styling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragunc.data.runs import qrels_from_frame, run_from_frame, runs_from_frame
from ragunc.present import ranking_figures
from ragunc.present.style import OKABE_ITO
from ragunc.present.ranking_figures import (
    order_curve_figure,
    per_query_difference_figure,
    recall_interval_figure,
)
from ragunc.ranking.comparison import compare_runs
from ragunc.ranking.metrics import match_qrels, order_differences
from ragunc.ranking.uncertainty import recall_curve, recall_report
from ragunc.stats.multiple import adjustment


@pytest.fixture(scope="module")
def matched():
    rng = np.random.default_rng(1)
    rows, qrows = [], []
    for i in range(30):
        source = f"d{i % 5}"
        docs = [source if rng.random() < 0.4 else f"d{rng.integers(8)}" for _ in range(6)]
        rows += [(f"q{i}", r + 1, f"c{i}_{r}", d) for r, d in enumerate(docs)]
        qrows.append((f"q{i}", source, 1))
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "rank", "chunk_id", "doc_id"]))
    return match_qrels(run, qrels_from_frame(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])))


def test_order_curve_draws_the_three_series(matched):
    curve = recall_curve(matched, range(1, 7))
    fig = order_curve_figure(curve, k=3)
    assert len(fig.data) == 3
    for trace, column in zip(fig.data, ("truncate_dedup", "dedup_truncate", "naive_sum")):
        np.testing.assert_allclose(trace.y, curve[column])
        np.testing.assert_array_equal(trace.x, np.arange(1, 7))
    assert {t.line.color for t in fig.data} <= set(OKABE_ITO.values())
    assert len({t.line.color for t in fig.data}) == len({t.line.dash for t in fig.data}) == 3
    assert "k" in fig.layout.xaxis.title.text and fig.layout.title.text
    shapes = [(s.type, s.y0, s.x0) for s in fig.layout.shapes]
    assert ("line", 1, 0) in shapes  # the ceiling a recall cannot pass
    assert any(s.x0 == 3 for s in fig.layout.shapes)


def test_interval_figure_matches_the_report(matched):
    groups = np.array([f"d{i % 5}" for i in range(30)])
    report = recall_report(matched, 2, groups=groups, group_col="doc_id", boot=200, rng=0)
    fig = recall_interval_figure(report)
    # the recommended interval first, then the naive, cluster and bootstrap ones
    methods = (report.recommendation.method, "naive", "cluster", "bootstrap")
    assert len(fig.data) == 4 and fig.data[0].y[0].startswith("recommended: ")
    assert 0 <= report.recommended().ci.low and report.recommended().ci.high <= 1
    for trace, est in zip(fig.data, (report.interval(m) for m in methods)):
        assert trace.x[0] == pytest.approx(report.recall)
        assert trace.x[0] + trace.error_x.array[0] == pytest.approx(est.ci[1])
        assert trace.x[0] - trace.error_x.arrayminus[0] == pytest.approx(est.ci[0])
    assert "5 groups by doc_id" in fig.layout.title.text and "Recall@2" in fig.layout.title.text


def test_per_query_difference_histogram_holds_the_excess(matched):
    table = order_differences(matched, 2)
    fig = per_query_difference_figure(table)
    for trace, column in zip(fig.data, ("dedup_truncate", "naive_sum")):
        excess = (table[column] - table["truncate_dedup"]).to_numpy()
        np.testing.assert_allclose(trace.x, excess[excess > 0])
        assert f"{(excess > 0).sum():,} of {len(table):,} queries higher" in trace.name
    assert len(fig.data[1].x) > len(fig.data[0].x) > 0  # this fixture repeats documents within the top 2
    assert fig.layout.yaxis.title.text == "queries"


def test_runs_forest_figure_is_the_config_forest_on_shared_queries():
    rows = [
        (r, f"q{i}", 1, f"c{i}", f"d{i}" if (i * (n + 2)) % 5 < 3 else "x")
        for n, r in enumerate(("bm25", "dense", "hybrid"))
        for i in range(20)
    ]
    runs = runs_from_frame(pd.DataFrame(rows, columns=["run", "query_id", "rank", "chunk_id", "doc_id"]), "run")
    qrels = qrels_from_frame(
        pd.DataFrame(
            {
                "query_id": [f"q{i}" for i in range(20)],
                "doc_id": [f"d{i}" for i in range(20)],
                "relevance": 1,
                "topic": [f"t{i % 5}" for i in range(20)],
            }
        )
    )
    result = compare_runs(runs, qrels, None, 1, "bm25", group_col="topic", adjust="holm")
    fig = ranking_figures.runs_forest_figure(result)
    assert [t.name for t in fig.data] == [
        "naive (queries independent, unpaired)",
        "paired cluster",
        f"simultaneous paired ({adjustment('holm').label})",
    ]
    assert list(fig.layout.yaxis.ticktext) == ["dense − bm25", "hybrid − bm25"]
    assert fig.layout.title.text.startswith("Differences against bm25 on 20 shared queries in 5 groups")
    assert fig.layout.xaxis.title.text == "difference (Recall@1, points)"
    paired = fig.data[1]
    assert list(paired.x) == pytest.approx([100 * c.difference for c in result.comparison.comparisons])
    every = ranking_figures.runs_forest_figure(
        compare_runs(runs, qrels, None, 1, "bm25", all_pairs=True, adjust="none")
    )
    assert every.layout.title.text.startswith("Differences of every pair on 20 shared queries in 20 groups")
    assert len(every.layout.yaxis.ticktext) == 3
