"""Plotly builders of the page "Ranking metrics": the data they draw, labels, colour-blind-safe styling."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragunc.data.runs import qrels_from_frame, run_from_frame
from ragunc.present.figures import OKABE_ITO
from ragunc.present.ranking_figures import (
    order_curve_figure,
    per_query_difference_figure,
    recall_interval_figure,
)
from ragunc.ranking.metrics import judge, order_differences
from ragunc.ranking.uncertainty import recall_curve, recall_report


@pytest.fixture(scope="module")
def judged():
    rng = np.random.default_rng(1)
    rows, qrows = [], []
    for i in range(30):
        source = f"d{i % 5}"
        docs = [source if rng.random() < 0.4 else f"d{rng.integers(8)}" for _ in range(6)]
        rows += [(f"q{i}", r + 1, f"c{i}_{r}", d) for r, d in enumerate(docs)]
        qrows.append((f"q{i}", source, 1))
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "rank", "chunk_id", "doc_id"]))
    return judge(run, qrels_from_frame(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])))


def test_order_curve_draws_the_three_series(judged):
    curve = recall_curve(judged, range(1, 7))
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


def test_interval_figure_matches_the_report(judged):
    groups = np.array([f"d{i % 5}" for i in range(30)])
    report = recall_report(judged, 2, groups=groups, group_col="doc_id", boot=200, rng=0)
    fig = recall_interval_figure(report)
    assert len(fig.data) == 3
    for trace, est in zip(fig.data, (report.naive, report.cluster, report.bootstrap)):
        assert trace.x[0] == pytest.approx(report.recall)
        assert trace.x[0] + trace.error_x.array[0] == pytest.approx(est.ci[1])
        assert trace.x[0] - trace.error_x.arrayminus[0] == pytest.approx(est.ci[0])
    assert "5 groups by doc_id" in fig.layout.title.text and "Recall@2" in fig.layout.title.text


def test_per_query_difference_histogram_holds_the_excess(judged):
    table = order_differences(judged, 2)
    fig = per_query_difference_figure(table)
    for trace, column in zip(fig.data, ("dedup_truncate", "naive_sum")):
        excess = (table[column] - table["truncate_dedup"]).to_numpy()
        np.testing.assert_allclose(trace.x, excess[excess > 0])
        assert f"{(excess > 0).sum():,} of {len(table):,} queries higher" in trace.name
    assert len(fig.data[1].x) > len(fig.data[0].x) > 0  # this fixture repeats documents within the top 2
    assert fig.layout.yaxis.title.text == "queries"
