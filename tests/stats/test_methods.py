"""The registry of interval methods: consistent records, and every reader follows it (one entry adds a method)."""

from __future__ import annotations

import numpy as np
import pytest

import ragunc.stats.methods as registry
from ragunc.cli.interval import interval_table
from ragunc.present import explorer_figures, style, summary
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.intervals import interval_arrays, interval_report
from ragunc.stats.methods import (
    CLUSTER_ANALYTIC,
    FAMILIES,
    METHODS,
    ConfidenceInterval,
    IntervalEstimate,
    IntervalMethod,
    interval_method,
    interval_methods,
)
from ragunc.stats.sample import ClusterStats


def _sample(k: int = 30, seed: int = 3) -> ClusterStats:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 40, k)
    hits = rng.binomial(n, rng.beta(1, 3, k)).astype(float)
    return ClusterStats(np.arange(k).astype(str), hits, n, hits)


def test_records_are_consistent():
    names = [m.name for m in METHODS]
    assert len(set(names)) == len(names)
    assert len({m.label for m in METHODS}) == len(METHODS)
    assert len({m.json_path for m in METHODS}) == len(METHODS)  # no two methods write the same JSON field
    assert {m.family for m in METHODS} <= set(FAMILIES)
    assert all(m.resamples for m in METHODS if m.needs_replicate_se)
    # methods sharing a JSON object share one "se": only one of them may write it
    for obj in {m.json_path[0] for m in METHODS}:
        assert sum(m.has_se for m in METHODS if m.json_path[0] == obj) <= 1, obj
    # the display order groups the families: naive, then cluster-analytic, then cluster-bootstrap
    assert [m.family for m in METHODS] == sorted((m.family for m in METHODS), key=FAMILIES.index)


def test_kernels_return_an_se_exactly_when_the_record_says_so():
    s = _sample()
    arr = interval_arrays(s.sum_y, s.n, methods=[m.name for m in METHODS], reps=200, rng=0)
    for m in METHODS:
        assert (arr.se[m.name] is not None) == m.has_se, m.name
        assert np.isfinite(arr.lower[m.name]) and arr.lower[m.name] < arr.upper[m.name], m.name


def test_lookup_and_selection():
    assert interval_method("bootstrap_bca").json_path == ("bootstrap", "ci_bca")
    assert interval_method("cluster").json_path == ("cluster", "ci")  # the default placement: its name
    with pytest.raises(ValueError, match="unknown interval method 'ci_bca'; known: naive, wilson"):
        interval_method("ci_bca")
    # selection keeps the display order, whatever order the names come in
    assert [m.name for m in interval_methods(["bootstrap", "naive"])] == ["naive", "bootstrap"]
    assert all(not m.resamples for m in interval_methods(resampling=False))


def test_interval_estimate_holds_a_confidence_interval_that_unpacks():
    est = IntervalEstimate("cluster", 0.1, (0.2, 0.4))
    assert isinstance(est.ci, ConfidenceInterval) and est.ci.low == 0.2 and est.ci.high == 0.4
    low, high = est.ci
    assert (low, high) == (0.2, 0.4) and est.ci == (0.2, 0.4)
    assert est.to_dict() == {"se": 0.1, "ci": [0.2, 0.4]}


def test_report_keys_its_intervals_by_method_name():
    r = interval_report(_sample(), boot=100, rng=1)
    assert list(r.intervals) == [m.name for m in METHODS]
    assert r.interval("bootstrap_t") is r.intervals["bootstrap_t"]
    assert r.interval("bootstrap_t").method == "bootstrap_t"
    with pytest.raises(KeyError, match="no 'ci_t' interval"):
        r.interval("ci_t")


def _three_se(lin):
    """A toy kernel for the extension test: estimate ± 3 cluster SE."""
    se = np.sqrt(lin.cluster_variance)
    return se, lin.estimate - 3 * se, lin.estimate + 3 * se


def test_one_registry_entry_adds_a_method_everywhere(monkeypatch):
    # The claim of the registry: a kernel and an entry, and the report, its JSON, the
    # coverage experiment, the summary, the figures and the CLI table all carry the method.
    extra = IntervalMethod("cluster_3se", "Cluster (±3 SE)", CLUSTER_ANALYTIC, _three_se, has_se=True, color="yellow")
    monkeypatch.setattr(registry, "METHODS", METHODS + (extra,))
    s = _sample()
    r = interval_report(s, boot=100, rng=1)
    cluster = r.interval("cluster")
    est = r.interval("cluster_3se")
    assert est.se == cluster.se and est.ci == pytest.approx((r.estimate - 3 * est.se, r.estimate + 3 * est.se))

    d = r.to_dict()
    assert d["cluster_3se"] == {"se": est.se, "ci": list(est.ci)}
    last = METHODS[-1].json_path[0]  # the block of the last registered method
    assert list(d).index("cluster_3se") == list(d).index(last) + 1  # in registry order, before deff
    assert "cluster_3se" in interval_table(d) and "Cluster (±3 SE)" in interval_table(d)

    cov = coverage_experiment(s.with_population(None), k=10, reps=200, boot=20, rng=2)
    assert cov.methods["cluster_3se"].coverage >= cov.methods["cluster"].coverage
    assert cov.methods["cluster_3se"].se_mean == cov.methods["cluster"].se_mean

    table = summary.summary_table(r, cov)
    assert table["method"].iloc[-1] == "cluster_3se"
    assert table["coverage"].iloc[-1] == cov.methods["cluster_3se"].coverage
    assert [t.y[0] for t in explorer_figures.interval_figure(r).data][-1] == "Cluster (±3 SE)"
    assert style.method_color("cluster_3se") == style.PALETTE["yellow"]
