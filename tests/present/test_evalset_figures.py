"""Plotly builders of the page "Evaluation set": the data they draw, labels, colour-blind-safe styling."""

from __future__ import annotations


import pytest

from ragunc.evalset.build import FUNNEL
from ragunc.evalset.evaluate import evaluate_evalset
from ragunc.present.evalset_figures import (
    funnel_figure,
    metric_intervals_figure,
    type_mix_figure,
)
from ragunc.present.style import OKABE_ITO
from ragunc.ranking.metrics import ranking_metric
from tests.support.evalsets import question, write_set

FUNNEL_COUNTS = {"sampled": 200, "answered": 198, "parsed": 190, "not_leaking": 170, "unique": 166, "kept": 131}


def test_the_funnel_draws_every_stage_in_order():
    fig = funnel_figure(FUNNEL_COUNTS)
    (trace,) = fig.data
    assert list(trace.x) == list(FUNNEL_COUNTS.values()) and list(trace.y) == [label for _, label in FUNNEL]
    assert set(trace.marker.color) <= set(OKABE_ITO.values())
    assert "131 of 200" in fig.layout.title.text


def test_the_type_mix_draws_sampled_and_kept_with_distinct_patterns():
    by_type = {"factual": {"sampled": 100, "kept": 70}, "negative": {"sampled": 30, "kept": 29}}
    fig = type_mix_figure(by_type)
    sampled, kept = fig.data
    assert list(sampled.x) == [100, 30] and list(kept.x) == [70, 29] and list(kept.y) == ["factual", "negative"]
    assert {sampled.marker.color, kept.marker.color} <= set(OKABE_ITO.values())
    assert sampled.marker.pattern.shape != kept.marker.pattern.shape


@pytest.fixture
def report(tmp_path):
    run = write_set(
        tmp_path,
        [question(i, f"d{i % 3}") for i in range(9)],
        [(f"q{i}", 1, f"d{(i * 2) % 3}#0", f"d{(i * 2) % 3}") for i in range(9)],
    )
    return evaluate_evalset(tmp_path, k=1, run=run, boot=100)


def test_metric_intervals_show_the_recommended_one_beside_the_naive_one(report):
    fig = metric_intervals_figure(report)
    recommended, naive = fig.data  # the short list, as the explorer: no second cluster interval
    assert list(recommended.y) == list(naive.y) and naive.y[0] == "Recall@1"
    assert list(naive.y) == ["Recall@1", *(f"{ranking_metric(m.name).label}@1" for m in report.metrics)]
    assert recommended.name.startswith("recommended: ")
    low, high = report.recall.recommended().ci
    assert recommended.error_x.array[0] == pytest.approx(high - report.recall.recall)
    assert recommended.error_x.arrayminus[0] == pytest.approx(report.recall.recall - low)
    assert 0 <= low <= high <= 1
    assert naive.x[0] == pytest.approx(report.recall.recall)
    low, high = report.recall.interval("naive").ci
    assert naive.error_x.array[0] == pytest.approx(high - report.recall.recall)
    assert naive.marker.symbol != recommended.marker.symbol and naive.marker.color != recommended.marker.color
