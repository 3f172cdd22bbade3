"""Many-config comparison against statsmodels, hand computation and a joint-coverage simulation."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from statsmodels.stats.multitest import multipletests

from ragunc.stats.linearization import linearized_residuals, residual_variance
from ragunc.stats.multiple import compare_configs, config_replicates, holm_adjust
from ragunc.stats.paired import paired_comparison
from ragunc.stats.sample import ClusterStats


def chunk_configs(seed: int, k: int = 40, shifts=(0.0, 0.03, 0.08)):
    """The same documents and chunks under several configs; chunk-level 0/1 y kept for statsmodels."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 30, k)
    rate = rng.beta(1, 3, k)
    ys = {}
    base = [rng.random(m) < p for m, p in zip(size, rate)]
    for n, shift in enumerate(shifts):
        ys[f"c{n}"] = [b ^ (rng.random(b.size) < 0.05) | (rng.random(b.size) < shift) for b in base]
    samples = {}
    for name, y in ys.items():
        tot = np.array([v.sum() for v in y], dtype=float)
        samples[name] = ClusterStats(np.arange(k).astype(str), tot, size, tot, config=name)
    return samples, ys


def test_holm_matches_statsmodels():
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 9):
        p = rng.random(m) ** 3
        assert holm_adjust(p) == pytest.approx(multipletests(p, method="holm")[1])
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])  # by hand: 3p, 2p, max(.., 1p)


def test_paired_se_is_statsmodels_cluster_robust_ols_of_the_chunk_difference():
    samples, ys = chunk_configs(1)
    r = compare_configs(samples, "c0", adjust="none")
    groups = np.repeat(np.arange(40), samples["c0"].n)
    for comp in r.comparisons:
        diff = np.concatenate(ys[comp.b]).astype(float) - np.concatenate(ys[comp.a])
        fit = sm.OLS(diff, np.ones((diff.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
        # statsmodels' small-sample factor G/(G-1) (N-1)/(N-p) is G/(G-1) with one regressor,
        # the same K/(K-1) our residual variance carries: equal without any rescaling.
        assert comp.difference == pytest.approx(fit.params[0])
        assert comp.interval("paired").se == pytest.approx(fit.bse[0])
        fit_plain = sm.OLS(diff, np.ones((diff.size, 1))).fit(
            cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}
        )
        assert comp.interval("paired").se == pytest.approx(fit_plain.bse[0] * np.sqrt(40 / 39))


def test_agrees_with_the_two_config_paired_comparison_and_counts_dropped_documents():
    samples, _ = chunk_configs(2)
    samples["c2"] = samples["c2"].subset(np.arange(3, 40))  # c2 lacks 3 documents
    r = compare_configs(samples, "c0", adjust="none", estimator="macro")
    assert r.n_docs == 37
    assert [c.dropped for c in r.configs] == [3, 3, 0]
    two = paired_comparison(samples["c0"], samples["c1"], estimator="macro", boot=2)
    assert two.n_docs == 40  # only c0 and c1: nothing dropped
    keep = np.arange(3, 40)
    two = paired_comparison(samples["c0"].subset(keep), samples["c1"].subset(keep), estimator="macro", boot=2)
    assert r.comparisons[0].difference == pytest.approx(two.difference)
    assert r.comparisons[0].interval("paired").se == pytest.approx(two.interval("paired").se)
    assert r.comparisons[0].interval("naive").se == pytest.approx(two.interval("naive").se)


def test_hand_computed_macro_case():
    # 3 documents, 1 chunk each except the last; rates by hand.
    n = np.array([1, 1, 2])
    a = ClusterStats(np.array(["x", "y", "z"]), np.array([0.0, 1, 1]), n, np.array([0.0, 1, 1]), config="a")
    b = ClusterStats(np.array(["x", "y", "z"]), np.array([1.0, 1, 2]), n, np.array([1.0, 1, 2]), config="b")
    r = compare_configs({"a": a, "b": b}, "a", adjust="none", estimator="macro")
    # rates a = (0, 1, .5), b = (1, 1, 1): differences (1, 0, .5), mean .5, var .25, SE sqrt(.25/3)
    comp = r.comparisons[0]
    assert comp.difference == pytest.approx(0.5)
    assert comp.interval("paired").se == pytest.approx(np.sqrt(0.25 / 3))
    assert r.configs[0].estimate == pytest.approx(0.5) and r.configs[1].estimate == pytest.approx(1.0)
    assert r.configs[0].interval("cluster").se == pytest.approx(np.sqrt(0.25 / 3))


def test_all_pairs_and_holm_adjustment():
    samples, _ = chunk_configs(3)
    r = compare_configs(samples, "c1", all_pairs=True, adjust="holm")
    assert [(c.a, c.b) for c in r.comparisons] == [("c1", "c0"), ("c1", "c2"), ("c0", "c2")]
    p = [c.p_value for c in r.comparisons]
    assert [c.p_adjusted for c in r.comparisons] == pytest.approx(multipletests(p, method="holm")[1])
    # Bonferroni intervals at 1 - alpha/3 are wider than each marginal one
    for c in r.comparisons:
        (s_lo, s_hi), (p_lo, p_hi) = c.interval("simultaneous").ci, c.interval("paired").ci
        assert s_lo < p_lo and s_hi > p_hi


def test_replicates_keep_the_documents_paired_across_configs():
    samples, _ = chunk_configs(4)
    sum_y = np.stack([s.sum_y for s in samples.values()])
    n = np.stack([s.n for s in samples.values()])
    reps = config_replicates(sum_y, np.broadcast_to(n, sum_y.shape), "micro", 4000, 0)
    # identical sizes and the same draws: the SD of a difference is the paired one, not the unpaired
    diff_sd = (reps[:, 2] - reps[:, 0]).std()
    _, resid = linearized_residuals(sum_y, n, "micro")
    paired = np.sqrt(residual_variance(resid[2] - resid[0]) * 39 / 40)
    assert diff_sd == pytest.approx(paired, rel=0.08)
    assert diff_sd < 0.7 * np.hypot(reps[:, 2].std(), reps[:, 0].std())


def test_maxt_is_between_marginal_and_bonferroni_and_p_values_are_ordered():
    samples, _ = chunk_configs(5, k=80, shifts=(0, 0.01, 0.03, 0.06))
    r = compare_configs(samples, "c0", adjust="maxt", boot=4000, rng=1)
    bonferroni = compare_configs(samples, "c0", adjust="holm").critical_value
    assert 1.96 < r.critical_value < bonferroni * 1.02
    for c in r.comparisons:
        assert c.p_value <= c.p_adjusted + 1e-3 <= 1 + 1e-3
    order = np.argsort([c.p_value for c in r.comparisons])
    assert np.all(np.diff(np.array([c.p_adjusted for c in r.comparisons])[order]) >= 0)


def test_maxt_p_value_counts_the_observed_sample_among_the_replicates():
    # A difference far beyond every replicate: the Monte Carlo p-value is 1/(B + 1), never 0 (Davison-Hinkley 4.11)
    samples, _ = chunk_configs(7, k=60, shifts=(0, 0.6))
    r = compare_configs(samples, "c0", adjust="maxt", boot=199, rng=0)
    c = r.comparisons[0]
    assert c.difference / c.interval("paired").se > 10
    assert r.comparisons[0].p_adjusted == pytest.approx(1 / 200)


def test_bad_inputs_are_named():
    samples, _ = chunk_configs(6)
    with pytest.raises(ValueError, match="adjust must be one of"):
        compare_configs(samples, "c0", adjust="bonf")
    with pytest.raises(ValueError, match=r"config\(s\) \['zz'\] not among"):
        compare_configs(samples, "zz")
    with pytest.raises(ValueError, match="at least 2 configs"):
        compare_configs(samples, "c0", configs=["c0"])
    with pytest.raises(ValueError, match="boot must be"):
        compare_configs(samples, "c0", boot=1)


def test_maxt_simultaneous_intervals_cover_every_difference_jointly():
    """A population of D documents under 4 configs with known differences; K drawn R times."""
    rng = np.random.default_rng(7)
    d, k, reps = 3000, 60, 400
    size = rng.integers(2, 25, d)
    base = rng.beta(1, 4, d)
    totals = [
        rng.binomial(size, np.clip(base + s + rng.normal(0, 0.05, d), 0, 1)).astype(float)
        for s in (0.0, 0.01, 0.02, 0.04)
    ]
    truth = np.array([t.sum() / size.sum() for t in totals])
    truth = truth[1:] - truth[0]
    covered = np.empty(reps, dtype=bool)
    marginal_all = np.empty(reps, dtype=bool)
    for r in range(reps):
        pick = rng.choice(d, k, replace=False)
        samples = {f"c{n}": ClusterStats(pick.astype(str), t[pick], size[pick], t[pick]) for n, t in enumerate(totals)}
        res = compare_configs(samples, "c0", adjust="maxt", boot=400, rng=r)
        lo = np.array([c.interval("simultaneous").ci[0] for c in res.comparisons])
        hi = np.array([c.interval("simultaneous").ci[1] for c in res.comparisons])
        covered[r] = np.all((lo <= truth) & (truth <= hi))
        lo = np.array([c.interval("paired").ci[0] for c in res.comparisons])
        hi = np.array([c.interval("paired").ci[1] for c in res.comparisons])
        marginal_all[r] = np.all((lo <= truth) & (truth <= hi))
    mcse = np.sqrt(0.95 * 0.05 / reps)
    assert abs(covered.mean() - 0.95) < 3.5 * mcse + 0.01
    assert marginal_all.mean() < covered.mean()  # marginal intervals fall short jointly
