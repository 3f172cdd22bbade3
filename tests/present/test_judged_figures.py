"""Figures of judged labels and of ranks: every number drawn is the result's, in the result's order."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.present.judged_figures import judged_coverage_figure, judged_figure, rank_figure
from ragunc.stats.judged.coverage import judged_coverage
from ragunc.stats.judged.report import judged_report
from ragunc.stats.multiple import rank_configs
from ragunc.stats.sample import ClusterStats
from tests.support.judged import judged_from_rows


def judged_sample(audited_docs=None, seed=0):
    rng = np.random.default_rng(seed)
    doc = np.repeat(np.arange(30), 6)
    y = (rng.random(doc.size) < 0.3).astype(float)
    f = np.where(rng.random(doc.size) < 0.8, y, 1 - y)
    audited = rng.random(doc.size) < 0.3 if audited_docs is None else np.isin(doc, audited_docs)
    return judged_from_rows(doc, f, y, audited), (doc, f, y)


def test_judged_figure_draws_each_estimate_and_interval():
    sample, _ = judged_sample()
    report = judged_report(sample)
    fig = judged_figure(report, truth=0.3)
    assert [t.y[0] for t in fig.data] == [
        "Judge only",
        "Audited rows only (gold)",
        "Prediction-powered (judge + audit)",
    ]
    for trace, name in zip(fig.data, ("judge_only", "gold_only", "prediction_powered")):
        est = report[name]
        assert trace.x[0] == pytest.approx(100 * est.estimate)
        assert trace.x[0] + trace.error_x.array[0] == pytest.approx(100 * est.interval.ci.high)
        assert trace.x[0] - trace.error_x.arrayminus[0] == pytest.approx(100 * est.interval.ci.low)
    assert fig.layout.shapes[0].x0 == pytest.approx(30)
    assert f"{100 * report['judge_bias'].estimate:+.1f} pp" in fig.layout.title.text


def test_an_undefined_interval_has_no_bar():
    sample, _ = judged_sample(audited_docs=[3])
    fig = judged_figure(judged_report(sample))
    assert fig.data[0].error_x.array is not None
    assert fig.data[2].error_x.array is None and "undefined" in fig.data[2].hovertemplate


def test_judged_coverage_figure():
    _, (doc, f, y) = judged_sample(seed=1)
    population = judged_from_rows(doc, f, y, np.ones(doc.size, bool))
    result = judged_coverage(population, k=10, reps=50, rng=2)
    bars = judged_coverage_figure(result).data[0]
    assert list(bars.x) == pytest.approx(
        [100 * result.coverage[n] for n in ("judge_only", "gold_only", "prediction_powered")]
    )


def test_rank_figure_lists_the_best_first():
    rng = np.random.default_rng(3)
    size = rng.integers(2, 20, 40)
    samples = {}
    for name, p in (("small", 0.2), ("large", 0.5), ("middle", 0.35)):
        hits = rng.binomial(size, p).astype(float)
        samples[name] = ClusterStats(np.arange(40).astype(str), hits, size, hits, config=name)
    result = rank_configs(samples, boot=200, rng=1)
    ranks, bars = rank_figure(result).data
    assert list(ranks.y) == ["large", "middle", "small"] and list(ranks.x) == [1, 2, 3]
    by_name = {c.config: c for c in result.configs}
    assert list(bars.x) == pytest.approx([100 * by_name[n].p_best for n in ranks.y])
    assert [x + e for x, e in zip(ranks.x, ranks.error_x.array)] == [by_name[n].rank_ci[1] for n in ranks.y]


def test_the_readings_name_what_is_measured():
    from ragunc.present.summary import judged_reading, rank_reading

    sample, _ = judged_sample()
    report = judged_report(sample)
    lines = judged_reading(report, rows="questions")
    assert f"audited {report.audit.n_audited:,} of the {report.audit.n_rows:,} questions" in lines[1]
    assert f"{100 * report['prediction_powered'].estimate:.1f}%" in lines[2] and f"λ = {report.lam:.2f}" in lines[2]
    assert "Three estimates of Recall@5" in judged_figure(report, metric="Recall@5").layout.title.text
    one, _ = judged_sample(audited_docs=[3])
    assert any("single document" in line for line in judged_reading(judged_report(one)))
    rng = np.random.default_rng(4)
    n = rng.integers(2, 20, 200)
    samples = {
        name: ClusterStats(np.arange(200).astype(str), h, n, h, config=name)
        for name, h in (("low", rng.binomial(n, 0.1).astype(float)), ("high", rng.binomial(n, 0.6).astype(float)))
    }
    assert rank_reading(rank_configs(samples, boot=200, rng=1)).startswith("**high** is the best with P(best) 100%")
