"""Coverage experiments on synthetic populations built here (beta-binomial documents, ICC ~ 0.3)."""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pytest
from scipy import stats

import ragunc.stats.batches as batches
from ragunc.data.results import load_results
from ragunc.data.serialize import json_text
from ragunc.stats.coverage import coverage_experiment, iid_control, random_subsets
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.methods import METHOD_NAMES
from ragunc.stats.sample import ClusterStats
from ragunc.stats.battery import battery_population
from ragunc.stats.bootstrap import replicates
from ragunc.stats.recommend import RECOMMENDED_METHOD

ROOT = pathlib.Path(__file__).resolve().parents[2]

K = 20


def population(seed: int, d: int = 600, rho: float = 0.3, p: float = 0.2) -> ClusterStats:
    """Document rates ~ Beta(a, b) with a + b = 1/rho - 1 (ICC rho), very unequal sizes."""
    rng = np.random.default_rng(seed)
    n = np.maximum(1, np.rint(rng.lognormal(np.log(20), 0.7, d))).astype(int)
    a = p * (1 / rho - 1)
    hits = rng.binomial(n, rng.beta(a, (1 / rho - 1) - a, d)).astype(float)
    return ClusterStats(np.arange(d).astype(str), hits, n, hits)


@pytest.fixture(scope="module")
def clustered():
    return population(1)


@pytest.fixture(scope="module")
def clustered_run(clustered):
    return coverage_experiment(clustered, k=K, reps=2000, boot=200, rng=2)


def test_population_has_the_intended_icc(clustered):
    assert diagnostics(clustered).icc == pytest.approx(0.3, abs=0.06)


def test_binomial_undercovers_and_cluster_intervals_hold(clustered_run):
    cov = {name: m.coverage for name, m in clustered_run.methods.items()}
    assert tuple(cov) == METHOD_NAMES
    assert cov["naive"] < 0.7 and cov["wilson"] < 0.7
    # K = 20 with unequal sizes: the normal linearization sits a few points low,
    # the t / effective-n / bootstrap versions within a few points of nominal.
    assert cov["cluster"] > 0.85
    for method in ("cluster_t", "cluster_wilson", "bootstrap", "bootstrap_bca"):
        assert cov[method] > 0.87, method
    assert cov["cluster_wilson"] > 0.90
    for method, c in cov.items():
        assert clustered_run.methods[method].mcse == pytest.approx(np.sqrt(c * (1 - c) / 2000))


def test_iid_control_brings_the_binomial_back(clustered):
    run = coverage_experiment(clustered, k=K, reps=2000, boot=0, rng=3, control="iid")
    assert abs(run.methods["naive"].coverage - 0.95) < 0.025
    assert abs(run.methods["wilson"].coverage - 0.95) < 0.025
    # no design effect left: the empirical variance is binomial-sized (the one
    # permuted population still varies by chance, so compare with its linearization)
    assert run.variance_ratio < 1.5
    assert run.variance_ratio == pytest.approx(run.variance_ratio_linearization, rel=0.12)


def test_iid_control_keeps_totals_and_removes_clustering(clustered):
    control = iid_control(clustered, np.random.default_rng(4))
    assert control.sum_y.sum() == clustered.sum_y.sum()
    assert np.array_equal(control.n, clustered.n)
    assert np.all((control.sum_y >= 0) & (control.sum_y <= control.n))
    assert abs(diagnostics(control).icc) < 0.02


def test_per_repetition_arrays_reproduce_the_summary(clustered, clustered_run):
    r = clustered_run
    assert r.estimates.shape == r.n_chunks.shape == (2000,)
    for method in METHOD_NAMES:
        held = (r.methods[method].lower <= r.population_value) & (r.population_value <= r.methods[method].upper)
        assert r.methods[method].undefined == 0
        assert held.mean() == r.methods[method].coverage
        assert r.methods[method].width == pytest.approx((r.methods[method].upper - r.methods[method].lower).mean())
    # t(K-1) widens the normal interval by t/z exactly, repetition by repetition
    assert r.methods["cluster_t"].width / r.methods["cluster"].width == pytest.approx(
        stats.t.ppf(0.975, K - 1) / stats.norm.ppf(0.975)
    )
    assert r.population_value == pytest.approx(clustered.sum_y.sum() / clustered.n.sum())
    assert r.sd_empirical == pytest.approx(r.estimates.std(ddof=1))
    assert r.mean_chunks == pytest.approx(r.n_chunks.mean())
    # every repetition's chunk count is a sum of K distinct document sizes
    assert r.n_chunks.min() >= np.sort(clustered.n)[:K].sum()
    assert r.n_chunks.max() <= np.sort(clustered.n)[-K:].sum()
    p = r.population_value
    assert r.bernoulli_n_empirical == pytest.approx(p * (1 - p) / r.sd_empirical**2)
    assert r.variance_ratio == pytest.approx(r.sd_empirical**2 / r.binomial_sd**2)


def test_macro_variance_matches_finite_population_theory(clustered):
    # The mean of K of D rates drawn without replacement has variance (1 - K/D) S^2 / K
    # exactly, and the linearization variance is its unbiased estimator.
    run = coverage_experiment(clustered, k=K, reps=4000, boot=0, estimator="macro", rng=5)
    rate = clustered.sum_y / clustered.n
    theory = (1 - K / clustered.n_docs) * rate.var(ddof=1) / K
    assert run.population_value == pytest.approx(rate.mean())
    assert run.sd_empirical**2 == pytest.approx(theory, rel=0.08)
    assert run.linearization_sd**2 == pytest.approx(theory, rel=0.03)
    assert run.estimates.mean() == pytest.approx(rate.mean(), abs=4 * np.sqrt(theory / 4000))


def test_micro_linearization_predicts_the_empirical_sd(clustered_run):
    assert clustered_run.linearization_sd == pytest.approx(clustered_run.sd_empirical, rel=0.12)
    assert clustered_run.variance_ratio > 5


def test_two_stage_fraction_one_is_the_single_stage_design(clustered):
    one = coverage_experiment(clustered, k=K, reps=300, boot=0, rng=6)
    two = coverage_experiment(clustered, k=K, reps=300, boot=0, rng=6, two_stage_fraction=1.0)
    assert np.array_equal(one.estimates, two.estimates)
    assert np.array_equal(one.n_chunks, two.n_chunks)


def test_two_stage_subsamples_chunks_hypergeometrically(clustered):
    f = 0.4
    run = coverage_experiment(clustered, k=K, reps=3000, boot=0, estimator="macro", rng=7, two_stage_fraction=f)
    keep = np.maximum(1, np.rint(f * clustered.n))
    sd_chunks = np.sqrt(K * (1 - K / clustered.n_docs) * keep.var(ddof=1))  # SD of a sum of K kept counts
    assert run.mean_chunks == pytest.approx(K * keep.mean(), abs=4 * sd_chunks / np.sqrt(3000))
    # kept hits are hypergeometric, so each document's kept rate is unbiased for its rate
    assert run.estimates.mean() == pytest.approx(run.population_value, abs=4 * run.sd_empirical / np.sqrt(3000))


@pytest.mark.parametrize(("d", "k"), [(400, 20), (30, 12)])  # rejection path, ranking path
def test_draw_documents_gives_uniform_subsets(d, k):
    n = 40_000
    idx = random_subsets(np.random.default_rng(d), d, k, n)
    assert idx.shape == (n, k)
    ordered = np.sort(idx, axis=1)
    assert np.all(ordered[:, 1:] != ordered[:, :-1])  # without replacement
    freq = np.bincount(idx.ravel(), minlength=d) / n
    sd = np.sqrt(k / d * (1 - k / d) / n)
    assert np.abs(freq - k / d).max() < 5 * sd
    # pairs are included together at the simple-random-sampling rate k(k-1)/(d(d-1))
    both = np.mean((idx == 0).any(1) & (idx == 1).any(1))
    pair = k * (k - 1) / (d * (d - 1))
    assert both == pytest.approx(pair, abs=5 * np.sqrt(pair / n))


def test_progress_reports_each_batch(clustered, monkeypatch):
    monkeypatch.setattr(batches, "BATCH_BYTES", 8 * 20 * 50 * K // 2)  # 20 repetitions per batch at boot=50
    calls = []
    coverage_experiment(clustered, k=K, reps=70, boot=50, rng=0, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(20, 70), (40, 70), (60, 70), (70, 70)]


def test_seeded(clustered):
    a = coverage_experiment(clustered, k=5, reps=50, boot=20, rng=8)
    b = coverage_experiment(clustered, k=5, reps=50, boot=20, rng=8)
    assert np.array_equal(a.estimates, b.estimates) and a.to_dict() == b.to_dict()


def test_to_dict_contract(clustered_run):
    d = clustered_run.to_dict()
    assert set(d["population"]) == {"n_docs", "n_chunks", "value"}
    for key in (
        "k",
        "reps",
        "coverage",
        "coverage_mcse",
        "undefined",
        "width",
        "sd_empirical",
        "se_mean",
        "variance_ratio",
    ):
        assert key in d
    assert {"naive", "wilson", "cluster", "bootstrap"} <= set(d["coverage"])
    assert list(d["undefined"]) == list(d["width"]) == list(d["coverage"])
    assert {"naive", "cluster", "bootstrap"} <= set(d["se_mean"])


def test_an_interval_undefined_in_every_repetition_has_no_coverage_rather_than_zero(clustered):
    # K = 2: the studentized bootstrap is undefined (NaN) in every repetition.  It used to be
    # reported as coverage 0.0 with Monte Carlo SE 0.0, as if it had missed every time.
    r = coverage_experiment(clustered, k=2, reps=300, boot=50, rng=12)
    assert np.isnan(r.methods["bootstrap_t"].lower).all()
    assert r.methods["bootstrap_t"].undefined == 300
    assert np.isnan(r.methods["bootstrap_t"].coverage) and np.isnan(r.methods["bootstrap_t"].mcse)
    assert np.isnan(r.methods["bootstrap_t"].width)
    d = json.loads(json_text(r.to_dict()))
    assert d["coverage"]["bootstrap_t"] is None and d["undefined"]["bootstrap_t"] == 300
    # the methods defined at K = 2 are unaffected
    assert r.methods["cluster_t"].undefined == 0 and 0 < r.methods["cluster_t"].coverage <= 1


def test_coverage_counts_only_the_repetitions_where_the_interval_is_defined(clustered):
    # With B = 2 replicates both often land on one side of the estimate, and the BCa bias
    # correction (z0 = -inf or +inf) leaves its bounds undefined: NaN, not a miss.
    r = coverage_experiment(clustered, k=10, reps=400, boot=2, rng=13)
    bca_low, bca_high = r.methods["bootstrap_bca"].lower, r.methods["bootstrap_bca"].upper
    defined = ~np.isnan(bca_low)
    assert np.array_equal(defined, ~np.isnan(bca_high))
    n = int(defined.sum())
    assert 0 < n < 400 and r.methods["bootstrap_bca"].undefined == 400 - n
    held = (bca_low[defined] <= r.population_value) & (r.population_value <= bca_high[defined])
    assert r.methods["bootstrap_bca"].coverage == held.mean()
    assert r.methods["bootstrap_bca"].mcse == pytest.approx(np.sqrt(held.mean() * (1 - held.mean()) / n))
    assert r.methods["bootstrap_bca"].width == pytest.approx((bca_high[defined] - bca_low[defined]).mean())


def test_validation(clustered):
    with pytest.raises(ValueError, match="k must be a whole number of documents from 2 to 599 of the population's 600"):
        coverage_experiment(clustered, k=600, reps=10)
    with pytest.raises(ValueError, match="from 2 to 599"):
        coverage_experiment(clustered, k=1, reps=10)
    with pytest.raises(ValueError, match="got 2.5"):  # a fraction of a document is no K
        coverage_experiment(clustered, k=2.5, reps=10)
    with pytest.raises(ValueError, match="boot must be 0 \\(no bootstrap\\) or a whole number >= 2, got 1"):
        coverage_experiment(clustered, k=5, reps=10, boot=1)
    with pytest.raises(ValueError, match="control must be"):
        coverage_experiment(clustered, k=5, reps=10, control="shuffle")
    with pytest.raises(ValueError, match="two_stage_fraction"):
        coverage_experiment(clustered, k=5, reps=10, two_stage_fraction=0)
    scores = ClusterStats(clustered.cluster_id, clustered.sum_y / 2, clustered.n, clustered.sum_y / 4)
    with pytest.raises(ValueError, match="need 0/1 y"):
        coverage_experiment(scores, k=5, reps=10, control="iid")
    # non-binary scores work for the plain design
    assert coverage_experiment(scores, k=5, reps=10, boot=20, rng=0).reps == 10


def test_studentized_bootstrap_holds_where_the_normal_interval_falls_short():
    # The bundled teaching population: K = 20 very unequal documents (CV 1.2), ICC 0.3.
    population = load_results(ROOT / "sample_data" / "synthetic_population.csv.gz").population()
    r = coverage_experiment(population, k=20, reps=1500, boot=400, rng=4)
    assert r.methods["cluster"].coverage < 0.91  # the normal interval falls short at K = 20 on unequal documents
    assert r.methods["bootstrap_t"].coverage >= 0.92
    assert r.methods["bootstrap_t"].coverage - r.methods["cluster"].coverage > 3 * r.methods["cluster"].mcse


def test_studentized_false_drops_only_the_studentized_methods(clustered):
    r = coverage_experiment(clustered, k=10, reps=40, boot=50, rng=0, studentized=False)
    assert tuple(r.methods) == tuple(m for m in METHOD_NAMES if m not in ("bootstrap_t", "bootstrap_t_logit"))
    assert tuple(m for m, c in r.methods.items() if c.se_mean is not None) == (
        "naive",
        "cluster",
        "cluster_t",
        "jackknife",
        "bootstrap",
    )


def test_seed_figures_are_population_quantities(clustered, clustered_run):
    # The binomial reference: p(1-p) over the expected chunks of a sample (its 515 =
    # K N / D), the linearization's prediction from the population, and the identity
    # Bernoulli-equivalent n = expected chunks / variance ratio (515 / 26.8 = 19.2).
    r = clustered_run
    y, m, d = clustered.sum_y, clustered.n.astype(float), clustered.n_docs
    p = y.sum() / m.sum()
    predicted = (1 - K / d) * ((y - p * m) ** 2).sum() / (d - 1) / (K * m.mean() ** 2)
    binomial = p * (1 - p) / (K * m.mean())
    assert r.linearization_sd**2 == pytest.approx(predicted)
    assert r.binomial_sd**2 == pytest.approx(binomial)
    assert r.variance_ratio_linearization == pytest.approx(predicted / binomial)
    assert r.bernoulli_n_linearization == pytest.approx(p * (1 - p) / predicted)
    assert r.bernoulli_n_empirical * r.variance_ratio == pytest.approx(K * m.mean())


@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_predicted_variance_matches_the_empirical_one_for_two_stages(clustered, estimator):
    # Two stages add the within-document (hypergeometric) variance of the kept hits.
    one = coverage_experiment(clustered, k=K, reps=4000, boot=0, estimator=estimator, rng=11)
    two = coverage_experiment(clustered, k=K, reps=4000, boot=0, estimator=estimator, rng=11, two_stage_fraction=0.3)
    for run in (one, two):
        assert run.linearization_sd == pytest.approx(run.sd_empirical, rel=0.06)
    assert two.linearization_sd > 1.05 * one.linearization_sd


def test_batches_are_capped_by_the_document_draw_too(clustered, monkeypatch):
    # k^2 > D: each repetition ranks D random keys, so even without a bootstrap a
    # batch must not hold every repetition's keys at once (reps x D floats: 1.6 GB
    # for R = 1,000 and D = 100,000).
    monkeypatch.setattr(batches, "BATCH_BYTES", 8 * 10 * clustered.n_docs)
    calls = []
    coverage_experiment(clustered, k=30, reps=25, boot=0, rng=0, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(10, 25), (20, 25), (25, 25)]


def test_the_recommended_method_is_reported_under_its_own_key(clustered_run):
    r = clustered_run
    assert r.recommended == RECOMMENDED_METHOD and "recommended" not in r.methods  # the library keys methods
    d = r.to_dict()
    for block, field in (
        ("coverage", "coverage"),
        ("coverage_mcse", "mcse"),
        ("undefined", "undefined"),
        ("width", "width"),
    ):
        assert list(d[block]) == [*r.methods, "recommended"]
        # the per-sample choice (the default, or its span with the wild bootstrap on the samples the rule picks)
        assert d[block]["recommended"] == getattr(r.recommended_choice, field)
        assert all(d[block][name] == getattr(m, field) for name, m in r.methods.items())


def _dropping_studentized_bounds(y, m, reps, rng, level=0.95):
    """The old studentized bootstrap: replicates with se* = 0 left out of the t quantiles."""
    theta_star, se_star = replicates(y, m, reps=reps, rng=rng)
    theta = y.sum(-1) / m.sum(-1)
    se = np.sqrt(m.shape[-1] / (m.shape[-1] - 1) * ((y - theta[:, None] * m) ** 2).sum(-1)) / m.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se_star > 0, (theta_star - theta[:, None]) / se_star, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # samples without hits: every t* is NaN
        q_lo, q_hi = np.nanquantile(t, [(1 - level) / 2, (1 + level) / 2], axis=-1)
    return theta - q_hi * se, theta - q_lo * se


def test_rare_hits_at_k10_studentized_bootstrap_no_longer_loses_its_tail():
    # ~75% of documents without a hit, p ~ 0.03: at K = 10 a sample often has one or two
    # documents with hits, and resamples without them have se* = 0.
    rare = battery_population("rare")
    reps = 2000
    value = rare.sum_y.sum() / rare.n.sum()
    idx = random_subsets(np.random.default_rng(11), rare.n_docs, 10, reps)
    lo, hi = _dropping_studentized_bounds(rare.sum_y[idx], rare.n[idx], 1000, np.random.default_rng(12))
    old = np.mean((lo <= value) & (value <= hi))
    old_mcse = np.sqrt(old * (1 - old) / reps)
    assert abs(old - 0.72) < 3 * old_mcse + 0.02  # dropping the se* = 0 resamples loses a tail: about 72%
    run = coverage_experiment(rare, k=10, reps=reps, boot=1000, rng=13)
    for method in ("bootstrap_t", run.recommended):
        new, mcse = run.methods[method].coverage, run.methods[method].mcse
        assert new - 3 * mcse >= 0.88, method
        assert new - old > 10 * mcse, method


def test_the_recommended_choice_is_the_span_where_the_rule_says_so_and_the_registered_span_is_the_same():
    """On a population where one document holds half the chunks, the coverage experiment's per-sample choice
    (:func:`~ragunc.stats.recommend.recommended_methods`) against the registered ``wild_span`` kernel."""
    from ragunc.stats.battery import battery_population
    from ragunc.stats.recommend import RECOMMENDED_METHOD, SPAN_METHOD, WILD_METHOD, recommended_methods

    pop = battery_population("lognormal_heavy")
    idx = random_subsets(np.random.default_rng(3), pop.n_docs, 12, 120)
    names = [RECOMMENDED_METHOD, WILD_METHOD, SPAN_METHOD]
    result = coverage_experiment(pop, k=12, reps=120, boot=100, rng=4, samples=idx, methods=names)
    both = recommended_methods(pop.sum_y[idx], pop.n[idx]) == SPAN_METHOD
    assert 0 < both.sum() < both.size  # the rule picks some samples and leaves others
    chosen, span, default = result.recommended_choice, result.methods[SPAN_METHOD], result.methods[RECOMMENDED_METHOD]
    np.testing.assert_array_equal(chosen.lower[both], span.lower[both])
    np.testing.assert_array_equal(chosen.upper[both], span.upper[both])
    np.testing.assert_array_equal(chosen.lower[~both], default.lower[~both])
    # the span holds both intervals it is made of
    wild = result.methods[WILD_METHOD]
    assert (span.lower <= default.lower).all() and (span.lower[both] == np.fmin(default.lower, wild.lower)[both]).all()
    assert (span.upper >= default.upper).all() and (0 <= span.lower).all() and (span.upper <= 1).all()
