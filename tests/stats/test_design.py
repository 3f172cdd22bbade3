"""The design's values over repeated samples of K documents: against enumeration, theory and the coverage experiment."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.diagnostics import diagnostics, icc_anova
from ragunc.stats.sample import ClusterStats, draw_sample


def _population(sum_y, n) -> ClusterStats:
    sum_y = np.asarray(sum_y, dtype=float)
    return ClusterStats(np.arange(sum_y.size).astype(str), sum_y, np.asarray(n), sum_y)


@pytest.fixture(scope="module")
def tiny():
    # Unequal sizes and rates, so the ratio estimator's variance is not the macro one.
    return _population([0, 1, 5, 2, 9, 0, 3], [3, 2, 10, 4, 12, 1, 5])


def _every_sample(population: ClusterStats, k: int, estimator: str) -> np.ndarray:
    """The estimate of every one of the C(D, k) equally likely samples."""
    out = []
    for chosen in itertools.combinations(range(population.n_docs), k):
        y, m = population.sum_y[list(chosen)], population.n[list(chosen)]
        out.append(y.sum() / m.sum() if estimator == "micro" else (y / m).mean())
    return np.array(out)


def test_macro_is_the_exact_variance_over_every_sample(tiny):
    k = 3
    got = design(tiny, k, estimator="macro")
    exact = _every_sample(tiny, k, "macro").var()  # the population of C(7, 3) = 35 samples
    assert got.draws == 0 and got.deff_mcse == 0
    assert got.sd**2 == pytest.approx(exact, rel=1e-12)


def test_micro_matches_the_exact_variance_within_its_monte_carlo_error(tiny):
    k = 3
    got = design(tiny, k, estimator="micro", rng=5)
    exact = _every_sample(tiny, k, "micro").var()
    binomial = got.binomial_sd**2
    assert got.draws == 20_000
    assert got.deff == pytest.approx(exact / binomial, abs=4 * got.deff_mcse)
    assert got.deff_mcse < 0.05 * got.deff  # the Monte Carlo error is small beside the value


def test_definitions_by_hand(tiny):
    k = 4
    got = design(tiny, k, estimator="micro", rng=1)
    n, d = tiny.n_chunks, tiny.n_docs
    p = tiny.sum_y.sum() / n
    expected = k * n / d  # chunks a sample of k documents holds on average
    assert got.expected_chunks == pytest.approx(expected)
    assert got.population_value == pytest.approx(p)
    assert got.binomial_sd == pytest.approx(np.sqrt(p * (1 - p) / expected))
    assert got.deff == pytest.approx(got.sd**2 / got.binomial_sd**2)
    assert got.n_eff == pytest.approx(expected / got.deff)
    assert got.icc == pytest.approx(icc_anova(tiny.sum_y, tiny.n, tiny.sum_y2))
    # what a normal-theory naive interval would cover with this variance ratio
    assert got.naive_coverage == pytest.approx(2 * stats.norm.cdf(1.959963984540054 / np.sqrt(got.deff)) - 1)


def test_a_census_has_no_variance(tiny):
    got = design(tiny, tiny.n_docs)
    assert got.sd == 0 and got.deff == 0 and got.draws == 0


@pytest.fixture(scope="module")
def clustered():
    rng = np.random.default_rng(3)
    d = 600
    n = np.maximum(1, rng.pareto(1.5, d) * 10).astype(int)
    rate = rng.beta(0.4, 1.6, d)
    return _population(rng.binomial(n, rate), n)


@pytest.mark.parametrize("estimator", ["micro", "macro"])
@pytest.mark.parametrize("k", [20, 60])
def test_agrees_with_the_coverage_experiment(clustered, estimator, k):
    """The coverage experiment's variance ratio measures the same thing on its own repetitions."""
    got = design(clustered, k, estimator=estimator, rng=2)
    run = coverage_experiment(clustered, k=k, reps=4000, boot=0, estimator=estimator, rng=9)
    est = run.estimates
    m4 = ((est - est.mean()) ** 4).mean()
    run_var_se = np.sqrt((m4 - est.var() ** 2) / est.size)
    run_deff_se = run_var_se / run.binomial_sd**2
    assert run.binomial_sd == pytest.approx(got.binomial_sd)
    assert got.deff == pytest.approx(run.variance_ratio, abs=4 * np.hypot(got.deff_mcse, run_deff_se))


def test_a_samples_deff_estimates_the_designs(clustered):
    """Averaged over many samples, this sample's DEFF (variance as the intervals compute it, FPC included)
    lands near the design's value at that K, unlike a single sample's."""
    k = 150
    truth = design(clustered, k, estimator="macro")
    estimates = [diagnostics(draw_sample(clustered, k, rng=seed), estimator="macro").deff for seed in range(300)]
    # the binomial variance in a sample uses its own p and n, so allow a few per cent of ratio bias
    assert np.mean(estimates) == pytest.approx(truth.deff, rel=0.1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 1}, "k must be"),
        ({"k": 601}, "k must be"),
        ({"k": 2.5}, "k must be"),
        ({"k": 5, "estimator": "median"}, "estimator"),
        ({"k": 5, "draws": 1}, "draws"),
    ],
)
def test_bad_arguments_are_named(clustered, kwargs, message):
    with pytest.raises(ValueError, match=message):
        design(clustered, **kwargs)
