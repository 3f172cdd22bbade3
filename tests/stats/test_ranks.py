"""Which config is best: rank intervals and P(best) from the joint cluster bootstrap, against hand cases and theory."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from ragunc.stats.multiple import bootstrap_ranks, compare_configs, rank_configs
from ragunc.stats.sample import ClusterStats


def test_bootstrap_ranks_by_hand():
    estimates = np.array([0.3, 0.5, 0.4])
    replicates = np.array(
        [
            [0.3, 0.5, 0.4],  # ranks 3 1 2
            [0.6, 0.5, 0.4],  # 1 2 3
            [0.3, 0.5, 0.5],  # 3 1 1: a tie for first, shared
            [0.2, 0.4, 0.5],  # 3 2 1
        ]
    )
    rank, lower, upper, p_best = bootstrap_ranks(estimates, replicates, level=0.5)
    assert rank.tolist() == [3, 1, 2]
    assert p_best.tolist() == pytest.approx([1 / 4, (1 + 0.5) / 4, (0.5 + 1) / 4])
    # ranks over replicates: c0 (3, 1, 3, 3), c1 (1, 2, 1, 2), c2 (2, 3, 1, 1); the quartiles sit at
    # positions 0.75 and 2.25 of the 4 sorted ranks, taken outwards: the 1st and the 4th sorted rank.
    assert lower.tolist() == [1, 1, 1] and upper.tolist() == [3, 2, 3]


def population_configs(rng, k, shifts, doc_sd=0.15):
    """Configs on the same K documents: a shared document difficulty, each config's own chunk noise."""
    n = rng.integers(2, 30, k)
    base = special.logit(0.3) + rng.normal(0, 1.0, k)
    samples = {}
    for name, shift in shifts.items():
        rate = special.expit(base + shift + rng.normal(0, doc_sd, k))
        hits = rng.binomial(n, rate).astype(float)
        samples[name] = ClusterStats(np.arange(k).astype(str), hits, n, hits, config=name)
    return samples


@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_p_best_of_a_config_better_by_a_known_margin_goes_to_one_as_k_grows(estimator):
    rng = np.random.default_rng(0)
    shifts = {"base": 0.0, "better": 0.25, "worse": -0.25}
    means = []
    for k in (10, 40, 160, 640):
        p = [
            rank_configs(population_configs(rng, k, shifts), estimator=estimator, boot=500, rng=rng).configs[1].p_best
            for _ in range(20)
        ]
        means.append(np.mean(p))
    assert np.all(np.diff(means) > 0), means
    assert means[-1] > 0.99


def test_two_tied_configs_share_p_best_about_equally():
    rng = np.random.default_rng(1)
    shifts = {"a": 0.0, "b": 0.0, "worse": -1.0}
    p = np.array(
        [
            [c.p_best for c in rank_configs(population_configs(rng, 60, shifts), boot=400, rng=rng).configs]
            for _ in range(150)
        ]
    )
    assert p[:, 2].max() < 0.01
    assert p[:, :2].sum(1) == pytest.approx(1.0, abs=0.01)
    # Under a tie P(best) is roughly uniform across samples (SD ~ 0.29): its mean is 1/2 within 4 MC SEs.
    assert abs(p[:, 0].mean() - 0.5) < 4 * p[:, 0].std(ddof=1) / np.sqrt(len(p))
    assert p[:, 0].std() > 0.15  # a single sample does not settle a tie


def test_identical_configs_tie_exactly():
    rng = np.random.default_rng(2)
    samples = population_configs(rng, 30, {"a": 0.0, "worse": -0.5})
    samples["a_again"] = ClusterStats(
        samples["a"].cluster_id, samples["a"].sum_y, samples["a"].n, samples["a"].sum_y2, config="a_again"
    )
    r = rank_configs(samples, boot=300, rng=3)
    a, _, again = r.configs
    assert a.p_best == again.p_best and a.p_best + again.p_best + r.configs[1].p_best == pytest.approx(1.0)
    assert (a.rank, again.rank) == (1, 1)


def test_p_best_of_two_configs_is_the_normal_approximation_at_large_k():
    # Two configs: P(best of b) = P(b* - a* > 0) ~ Phi(d / se) with the paired cluster SE of d.
    rng = np.random.default_rng(4)
    samples = population_configs(rng, 400, {"a": 0.0, "b": 0.05}, doc_sd=0.3)
    ranks = rank_configs(samples, boot=4000, rng=5)
    paired = compare_configs(samples, "a", adjust="none").comparisons[0]
    # The bootstrap's variance is (K - 1)/K of the linearization's; MC error of a share from 4,000: 0.008.
    expected = special.ndtr(paired.difference / (paired.interval("paired").se * np.sqrt(399 / 400)))
    assert ranks.configs[1].p_best == pytest.approx(expected, abs=0.03)
    assert ranks.configs[0].p_best == pytest.approx(1 - ranks.configs[1].p_best)


def test_rank_interval_holds_the_observed_rank_and_reads_shared_documents():
    rng = np.random.default_rng(6)
    samples = population_configs(rng, 40, {"a": 0.0, "b": 0.1, "c": 0.2})
    samples["c"] = samples["c"].subset(np.arange(5, 40))
    r = rank_configs(samples, boot=300, rng=7)
    assert r.n_docs == 35 and [c.dropped for c in r.configs] == [5, 5, 0]
    for c in r.configs:
        assert c.rank_ci[0] <= c.rank <= c.rank_ci[1]
    assert sum(c.p_best for c in r.configs) == pytest.approx(1.0)
    d = r.to_dict()
    assert [c["config"] for c in d["configs"]] == ["a", "b", "c"] and d["boot"] == 300


def test_rank_validation():
    rng = np.random.default_rng(8)
    samples = population_configs(rng, 20, {"a": 0.0, "b": 0.1})
    with pytest.raises(ValueError, match="at least 2 configs"):
        rank_configs({"a": samples["a"]})
    with pytest.raises(ValueError, match="at least 2 configs"):
        rank_configs(samples, configs=["a"])
    with pytest.raises(ValueError, match="not among"):
        rank_configs(samples, configs=["a", "z"])
    with pytest.raises(ValueError, match="boot"):
        rank_configs(samples, boot=1)
    assert (
        rank_configs(samples, boot=50, rng=1).configs[0].p_best
        == rank_configs(samples, boot=50, rng=1).configs[0].p_best
    )


def test_ranks_agree_with_scipy_rankdata_min_with_ties():
    rng = np.random.default_rng(5)
    replicates = rng.integers(0, 4, (300, 6)) / 4  # many ties
    estimates = replicates[0]
    rank, lower, upper, _ = bootstrap_ranks(estimates, replicates, level=0.9)
    want = stats.rankdata(-replicates, axis=1, method="min")
    assert rank.tolist() == stats.rankdata(-estimates, method="min").astype(int).tolist()
    assert lower.tolist() == np.quantile(want, 0.05, axis=0, method="lower").astype(int).tolist()
    assert upper.tolist() == np.quantile(want, 0.95, axis=0, method="higher").astype(int).tolist()
