"""Korn–Graubard and logit intervals against R survey 4.1.1's svyciprop (recorded by fixtures/make_svyciprop.R)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from scipy import stats

from ragunc.stats.intervals import interval_arrays
from ragunc.stats.linearization import bell_mccaffrey_df
from ragunc.stats.proportion import effective_n, korn_graubard_interval, logit_interval

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "svyciprop.json").read_text())
CASES = FIXTURE["cases"]
ESTIMATORS = ("micro", "macro")


def _nan(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _arrays(case, estimator):
    k = len(case["size"])
    fpc = 1.0 if case["population_docs"] is None else 1 - k / case["population_docs"]
    return interval_arrays(
        np.array(case["total"], float), np.array(case["size"]), estimator=estimator, level=case["level"], fpc=fpc
    )


def test_fixture_was_made_by_survey_4_1():
    assert FIXTURE["survey_version"].startswith("4.1")
    assert len(CASES) >= 10


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_estimate_and_variance_are_rs(case, estimator):
    arr = _arrays(case, estimator)
    r = case[estimator]
    assert float(arr.estimate) == pytest.approx(r["estimate"], abs=1e-12)
    assert float(arr.cluster_variance) == pytest.approx(r["variance"], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_korn_graubard_and_logit_equal_svyciprop(case, estimator):
    arr = _arrays(case, estimator)
    r = case[estimator]
    defined = 0 < r["estimate"] < 1
    for ours, theirs in (("korn_graubard", "beta"), ("logit", "logit")):
        got = np.array([float(arr.lower[ours]), float(arr.upper[ours])])
        if defined:
            np.testing.assert_allclose(got, _nan(r[theirs]), rtol=0, atol=1e-6, err_msg=f"{ours} vs R {theirs}")
            assert got[0] < r["estimate"] < got[1]


@pytest.mark.parametrize("name", ["zero_hits", "zero_hits_fpc", "all_hits"])
def test_where_r_is_undefined_korn_graubard_falls_back_to_one_trial_per_document(name):
    case = next(c for c in CASES if c["name"] == name)
    r = case["micro"]
    # R: KG is NaN (n_eff = 0/0); the logit fit does not converge and returns a sliver beside 0 or 1.
    assert np.isnan(_nan(r["beta"])).all()
    assert np.diff(r["logit"])[0] < 1e-10
    arr = _arrays(case, "micro")
    k, alpha = len(case["size"]), 1 - case["level"]
    edge = 1 - (alpha / 2) ** (1 / k)  # Clopper–Pearson with 0 successes in K trials
    expected = (0.0, edge) if r["estimate"] == 0 else (1 - edge, 1.0)
    assert (float(arr.lower["korn_graubard"]), float(arr.upper["korn_graubard"])) == pytest.approx(expected, abs=1e-12)
    assert np.isnan(float(arr.lower["logit"])) and np.isnan(float(arr.upper["logit"]))


def test_kernels_are_batch_wise_over_leading_axes():
    same_k = [c for c in CASES if len(c["size"]) == 10]
    assert len(same_k) >= 3
    sum_y = np.array([c["total"] for c in same_k], float)
    n = np.array([c["size"] for c in same_k])
    batch = interval_arrays(sum_y[None], n[None], level=0.95)  # shape (1, cases)
    for i, case in enumerate(same_k):
        one = interval_arrays(sum_y[i], n[i], level=0.95)
        for method in ("korn_graubard", "logit"):
            assert batch.lower[method][0, i] == pytest.approx(float(one.lower[method]), rel=1e-12)
            assert batch.upper[method][0, i] == pytest.approx(float(one.upper[method]), rel=1e-12)


def test_korn_graubard_is_clopper_pearson_when_the_effective_n_is_an_integer():
    # Choose the variance so that n_eff (after the df factor) is exactly 40 with 6 successes:
    # the interval must then be scipy's exact binomial interval for 6 / 40.
    p, n_rows, k, level = 6 / 40, 400, 12, 0.95
    factor = (stats.t.ppf(0.025, n_rows - 1) / stats.t.ppf(0.025, k - 1)) ** 2
    variance = p * (1 - p) * factor / 40
    assert effective_n(p, variance, n_rows, k, level) == pytest.approx(40)
    exact = stats.binomtest(6, 40).proportion_ci(0.95, method="exact")
    assert korn_graubard_interval(p, variance, n_rows, k, level) == pytest.approx((exact.low, exact.high), rel=1e-9)


def test_logit_interval_is_symmetric_on_the_logit_scale_and_inside_the_unit_interval():
    lo, hi = logit_interval(0.1, 0.004, 10, 0.95)
    centre = np.log(0.1 / 0.9)
    assert np.log(hi / (1 - hi)) - centre == pytest.approx(centre - np.log(lo / (1 - lo)), rel=1e-12)
    assert 0 < lo < 0.1 < hi < 1


def _satterthwaite_df_by_matrices(size, rho=0.0):
    """The Bell–McCaffrey df from its definition: chunk-level residual maker, CR2 weights, tr(M)^2 / tr(M^2)."""
    size = np.asarray(size)
    n, k = size.sum(), size.size
    doc = np.repeat(np.arange(k), size)
    indicator = (doc[:, None] == np.arange(k)[None, :]).astype(float)
    residual_maker = np.eye(n) - np.full((n, n), 1 / n)
    weights = np.diag(1 / (1 - size / n))  # CR2: (1 - H_dd)^(-1) on each document's total residual
    quadratic = residual_maker @ indicator @ weights @ indicator.T @ residual_maker
    working = np.where(doc[:, None] == doc[None, :], rho, 0.0) + (1 - rho) * np.eye(n)
    m = quadratic @ working
    return np.trace(m) ** 2 / np.trace(m @ m)


@pytest.mark.parametrize("size", [[3, 9, 2], [12, 30, 8, 41, 19, 25, 7, 60, 14, 22], [45] + [5] * 9, [1, 1, 30, 2]])
def test_bell_mccaffrey_df_is_the_satterthwaite_df_of_the_bias_reduced_variance(size):
    assert bell_mccaffrey_df(np.array(size)) == pytest.approx(_satterthwaite_df_by_matrices(size), rel=1e-10)


def test_bell_mccaffrey_df_is_k_minus_1_for_equal_sizes_and_less_for_unequal_ones():
    assert bell_mccaffrey_df(np.full(10, 7)) == pytest.approx(9)
    sizes = np.array([[5] * 10, [45] + [5] * 9, [300] + [5] * 9])
    df = bell_mccaffrey_df(sizes)  # batch-wise over the leading axis
    assert df[0] == pytest.approx(9) and 9 > df[1] > df[2] > 1


def test_korn_graubard_bm_is_rs_interval_at_equal_sizes_and_wider_at_unequal_ones():
    equal = interval_arrays(np.array([1.0, 4, 0, 2, 3]), np.full(5, 8))
    assert float(equal.lower["korn_graubard_bm"]) == pytest.approx(float(equal.lower["korn_graubard"]), rel=1e-9)
    assert float(equal.upper["korn_graubard_bm"]) == pytest.approx(float(equal.upper["korn_graubard"]), rel=1e-9)
    case = next(c for c in CASES if c["name"] == "beta_k20")
    arr = _arrays(case, "micro")
    assert (
        arr.lower["korn_graubard_bm"]
        < arr.lower["korn_graubard"]
        < arr.upper["korn_graubard"]
        < arr.upper["korn_graubard_bm"]
    )
    macro = _arrays(case, "macro")  # every document weighs the same: R's interval on the documents
    assert (float(macro.lower["korn_graubard_bm"]), float(macro.upper["korn_graubard_bm"])) == pytest.approx(
        _nan(case["macro"]["beta"]), abs=1e-6
    )
