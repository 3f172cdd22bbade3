"""Judge-only, gold-only and prediction-powered estimates: ppi-python, hand formulas, the delta method, coverage."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragunc.stats.judged.coverage import judged_coverage, simulated_audit

from ragunc.stats.judged.kernel import judged_arrays

from ragunc.stats.judged.plan import plan_audit

from ragunc.stats.judged.report import judged_report

from ragunc.stats.judged.sample import JudgedSample, JudgedSums, audit_unit, judged_population
from ragunc.stats.sample import ClusterStats
from ragunc.stats.synthetic import synthesize_judged
from tests.support.judged import judged_from_rows

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "ppi.json").read_text())


def one_row_documents(case: dict, audit: str = "documents") -> JudgedSample:
    f = np.array(case["judge_labels"])
    audited = np.zeros(f.size, bool)
    audited[case["audited"]] = True
    y = np.zeros(f.size)
    y[case["audited"]] = case["gold"]
    return judged_from_rows(np.arange(f.size), f, y, audited, audit=audit)


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: f"seed{c['seed']}-{c['judge']}")
def test_one_row_per_document_is_ppi_python(case):
    sample = one_row_documents(case)
    report = judged_report(sample)
    # The fixture records ragunc's tuned lambda; a change of the tuning shows here first.
    assert report.lam == pytest.approx(case["lambda"], abs=1e-12)
    ppi = report["prediction_powered"]
    assert ppi.estimate == pytest.approx(case["estimate"], abs=1e-12)
    assert ppi.interval.se == pytest.approx(case["se"], rel=0.02)
    for lam, key in (
        (0.0, "estimate_lambda_0"),
        (1.0, "estimate_lambda_1"),
        (case["lambda_ppi_tuned"], "estimate_ppi_tuned"),
    ):
        assert judged_report(sample, lam=lam)["prediction_powered"].estimate == pytest.approx(case[key], abs=1e-12)
    # The gold-only estimate is lambda = 0, the audited rows' mean.
    assert report["gold_only"].estimate == pytest.approx(np.mean(case["gold"]))
    # A row audit of 1-row documents is the same design: the same estimate, nearly the same SE.
    rows = judged_report(dataclasses.replace(sample, audit="rows"), lam=report.lam)["prediction_powered"]
    assert rows.estimate == pytest.approx(ppi.estimate)
    assert rows.interval.se == pytest.approx(ppi.interval.se, rel=0.02)


def test_documents_audit_variance_is_the_two_phase_regression_estimators():
    # Cochran (1977) eq. 12.51 for double sampling with 1-row documents, at a fixed lambda:
    # V = (1 - n/N) s_r^2 / n + (1 - N/D) s_y^2 / N, r = y - lambda f, both variances over the audited rows.
    case = FIXTURE["cases"][0]
    gold, judged = np.array(case["gold"]), np.array(case["judge_labels"])[case["audited"]]
    n, big_n = gold.size, len(case["judge_labels"])
    for population_docs in (None, 5 * big_n):
        sample = one_row_documents(case)
        sample = dataclasses.replace(sample, judge=sample.judge.with_population(population_docs))
        fpc = 1 if population_docs is None else 1 - big_n / population_docs
        for lam in (0.0, 0.4, 1.0):
            expected = (1 - n / big_n) * np.var(gold - lam * judged, ddof=1) / n + fpc * np.var(gold, ddof=1) / big_n
            got = judged_report(sample, lam=lam)["prediction_powered"].interval.se ** 2
            assert got == pytest.approx(expected, rel=1e-10)


def random_judged(seed: int, k: int = 30, share: float = 0.3, noise: float = 0.2):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 25, k)
    doc = np.repeat(np.arange(k), n)
    y = (rng.random(doc.size) < rng.beta(2, 5, k)[doc]).astype(float)
    f = np.clip(0.1 + 0.6 * y + rng.normal(0, noise, doc.size) + rng.normal(0, 0.1, k)[doc], 0, 1)
    audited = rng.random(doc.size) < share
    return doc, f, y, audited


def delta_method_variance(doc, f, y, audited, lam, estimator):
    """The with-replacement cluster variance of the estimate as a function of document totals, numerically.

    theta = sum(wG)/sum(wA) + lam (sum(wF)/sum(wm) - sum(wH)/sum(wA)); its variance is
    grad' (K S) grad with S the covariance (ddof 1) of the documents' totals.
    """
    k = doc.max() + 1
    n = np.bincount(doc, minlength=k)
    w = np.ones(k) if estimator == "micro" else 1 / n
    totals = (
        np.stack(
            [
                np.bincount(doc, weights=x, minlength=k)
                for x in (np.ones(doc.size), f, audited * 1.0, y * audited, f * audited)
            ]
        )
        * w
    )

    def theta(t):
        m, fs, a, g, h = t
        return g / a + lam * (fs / m - h / a)

    t0 = totals.sum(1)
    eps = 1e-6 * np.abs(t0)
    grad = np.array([(theta(t0 + e) - theta(t0 - e)) / (2 * e[i]) for i, e in enumerate(np.diag(eps))])
    return grad @ (k * np.cov(totals)) @ grad, theta(t0)


@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_row_audit_variance_is_the_delta_method_over_documents(estimator):
    doc, f, y, audited = random_judged(3)
    sample = judged_from_rows(doc, f, y, audited)
    assert sample.audit == "rows"
    for lam in (0.0, 0.5, 1.0):
        expected, theta = delta_method_variance(doc, f, y, audited, lam, estimator)
        got = judged_report(sample, lam=lam, estimator=estimator)["prediction_powered"]
        assert got.estimate == pytest.approx(theta, rel=1e-12)
        assert got.interval.se**2 == pytest.approx(expected, rel=1e-6)


def test_tuned_lambda_is_the_audited_rows_regression_slope_clipped_to_zero_one():
    # Row audit, micro: the audit's variance is least at the slope of y on f over the audited rows.
    doc, f, y, audited = random_judged(5, noise=0.5)  # a noisy judge: the slope lies inside (0, 1)
    sample = judged_from_rows(doc, f, y, audited)
    report = judged_report(sample)
    slope = np.cov(f[audited], y[audited])[0, 1] / np.var(f[audited], ddof=1)
    assert 0 < slope < 1 and report.lam == pytest.approx(slope) and report.lam_tuned
    # Macro weighs each audited row by w = 1/m of its document: the Hájek means R_G, R_H weigh by w, the
    # variance of their mean by w^2, so the slope is sum w^2 (y - R_G)(f - R_H) / sum w^2 (f - R_H)^2.
    w = 1 / np.bincount(doc)[doc][audited]
    fa, ya = f[audited], y[audited]
    r_g, r_h = np.sum(w * ya) / w.sum(), np.sum(w * fa) / w.sum()
    weighted = np.sum(w**2 * (ya - r_g) * (fa - r_h)) / np.sum(w**2 * (fa - r_h) ** 2)
    assert judged_report(sample, estimator="macro").lam == pytest.approx(weighted)
    # A judge that says the opposite of the gold label is of no use: lambda is clipped to 0.
    flipped = judged_report(judged_from_rows(doc, 1 - y, y, audited))
    assert flipped.lam == 0 and flipped["prediction_powered"].estimate == flipped["gold_only"].estimate


def test_hand_case():
    # Two documents of 2 rows, judge (1, 0 | 1, 1), gold audited on the first row of each: 1 and 0.
    # Micro: R_F = 3/4, R_G = 1/2, R_H = 2/2 = 1; at lambda = 1: 1/2 + (3/4 - 1) = 1/4.
    # Judge's bias R_H - R_G = 1/2.
    sample = judged_from_rows(np.array([0, 0, 1, 1]), [1, 0, 1, 1], [1, 0, 0, 0], [True, False, True, False])
    report = judged_report(sample, lam=1.0)
    assert report["judge_only"].estimate == 0.75
    assert report["gold_only"].estimate == 0.5
    assert report["prediction_powered"].estimate == 0.25
    assert report["judge_bias"].estimate == 0.5
    assert (report.audit.n_audited, report.audit.n_audited_docs, report.audit.unit) == (2, 2, "rows")
    # g = K (G - R_G A) / sum A = 2 (1 - 1/2, 0 - 1/2) / 2 = (1/2, -1/2);
    # h = K ((F - R_F m) / sum m - (H - R_H A) / sum A) = 2 ((1 - 3/2, 2 - 3/2) / 4 - (0, 0)) = (-1/4, 1/4);
    # V_UC(1) = sum (g + h)^2 / (K (K - 1)) = (1/16 + 1/16) / 2 = 1/16.
    assert report["prediction_powered"].interval.se == pytest.approx(0.25)


def test_macro_weighs_documents_equally():
    # Document 0 has 4 rows, document 1 one row; every row audited except one of document 0.
    doc = np.array([0, 0, 0, 0, 1])
    sample = judged_from_rows(doc, [1, 1, 0, 0, 1], [1, 0, 0, 0, 1], [True, True, True, False, True])
    report = judged_report(sample, estimator="macro", lam=1.0)
    assert report["judge_only"].estimate == pytest.approx((2 / 4 + 1) / 2)
    # R_G = sum(G/m) / sum(A/m) = (1/4 + 1) / (3/4 + 1); R_H = (2/4 + 1) / (3/4 + 1)
    r_g, r_h = (1 / 4 + 1) / (7 / 4), (2 / 4 + 1) / (7 / 4)
    assert report["gold_only"].estimate == pytest.approx(r_g)
    assert report["prediction_powered"].estimate == pytest.approx(r_g + 0.75 - r_h)


def test_one_row_documents_micro_equals_macro():
    sample = one_row_documents(FIXTURE["cases"][1])
    micro, macro = judged_report(sample), judged_report(sample, estimator="macro")
    for name in ("judge_only", "gold_only", "prediction_powered", "judge_bias"):
        assert micro[name].estimate == pytest.approx(macro[name].estimate)
        assert micro[name].interval.se == pytest.approx(macro[name].interval.se)


def test_gold_on_every_row_leaves_nothing_to_correct():
    doc, f, y, _ = random_judged(7)
    report = judged_report(judged_from_rows(doc, f, y, np.ones(doc.size, bool)))
    assert "nothing for the judge to correct" in report.note
    assert report.lam == 0
    assert report["prediction_powered"].estimate == report["gold_only"].estimate == pytest.approx(y.mean())
    assert report["prediction_powered"].interval.se == pytest.approx(report["gold_only"].interval.se)


def test_an_audit_of_one_document_gives_only_what_it_can():
    doc, f, y, _ = random_judged(8)
    audited = doc == 4
    report = judged_report(judged_from_rows(doc, f, y, audited))
    assert "single document ('4')" in report.note
    assert np.isfinite(report["judge_only"].interval.ci).all()
    for name in ("gold_only", "prediction_powered", "judge_bias"):
        assert np.isnan(report[name].interval.ci).all() and np.isnan(report[name].interval.se)
    assert report["gold_only"].estimate == pytest.approx(y[audited].mean())
    assert report.lam == 1  # nothing to tune it on: plain PPI
    assert np.isfinite(report["prediction_powered"].estimate)


def test_bad_input():
    doc, f, y, _ = random_judged(9)
    with pytest.raises(ValueError, match="no row is audited"):
        judged_report(judged_from_rows(doc, f, y, np.zeros(doc.size, bool)))
    sample = judged_from_rows(doc, f, y, doc < 5)
    with pytest.raises(ValueError, match="cluster-analytic"):
        judged_report(sample, method="bootstrap")
    with pytest.raises(ValueError, match="estimator"):
        judged_report(sample, estimator="mean")
    with pytest.raises(ValueError, match="audited must be between"):
        dataclasses.replace(sample, audited=sample.judge.n + 1)
    with pytest.raises(ValueError, match="audit must be one of"):
        dataclasses.replace(sample, audit="chunks")


def test_audit_unit_reads_the_design_off_the_counts():
    assert audit_unit([3, 2, 4], [3, 0, 4]) == "documents"
    assert audit_unit([3, 2, 4], [1, 0, 4]) == "rows"
    assert audit_unit([1, 1, 1], [1, 0, 1]) == "documents"


def test_batch_rows_are_the_single_sample_calls():
    columns = []
    for seed in (10, 11, 12):
        doc, f, y, audited = random_judged(seed, k=20)
        s = judged_from_rows(doc, f, y, audited)
        columns.append(s.sums())
    stacked = JudgedSums(
        **{f.name: np.stack([getattr(c, f.name) for c in columns]) for f in dataclasses.fields(JudgedSums)}
    )
    batch = judged_arrays(stacked)
    for i, sums in enumerate(columns):
        one = judged_arrays(sums)
        for name, value in one.estimate.items():
            assert batch.estimate[name][i] == pytest.approx(value)
            assert batch.lower[name][i] == pytest.approx(one.lower[name])
        assert batch.lam[i] == pytest.approx(one.lam)


# ---------------------------------------------------------------- coverage under clustering


@pytest.fixture(scope="module")
def biased_judge_population():
    """Gold and a judge whose sensitivity and false positives vary between documents (its bias does)."""
    frame = synthesize_judged(
        n_docs=2000, mean_chunks=12, size_cv=0.8, p=0.2, icc=0.2, false_positive=0.15, judge_spread=0.5, rng=1
    )
    doc = pd.factorize(frame["doc_id"])[0]
    return judged_from_rows(doc, frame["y_judge"], frame["y"], np.ones(len(frame), bool))


@pytest.mark.parametrize(
    ("audit", "share", "estimator"), [("rows", 0.2, "micro"), ("rows", 0.2, "macro"), ("documents", 0.3, "micro")]
)
def test_prediction_powered_interval_holds_where_the_judge_alone_fails(
    biased_judge_population, audit, share, estimator
):
    reps = 2000
    r = judged_coverage(
        biased_judge_population, k=50, reps=reps, audit=audit, audit_share=share, estimator=estimator, rng=4
    )
    assert r.judge_value - r.population_value > 0.08  # the judge says yes too often
    ppi, mcse = r.coverage["prediction_powered"], r.coverage_mcse["prediction_powered"]
    # Within 2.5 points of nominal, up to three Monte Carlo SEs.
    assert abs(ppi - 0.95) <= 0.025 + 3 * mcse
    assert r.coverage["judge_only"] < 0.6
    assert r.coverage["gold_only"] >= 0.925 - 3 * r.coverage_mcse["gold_only"]
    # The judge makes the corrected interval shorter than the audited rows' alone.
    assert r.width["prediction_powered"] < r.width["gold_only"]
    assert r.undefined["prediction_powered"] == 0


@pytest.mark.parametrize(("audit", "share"), [("rows", 0.3), ("documents", 0.4)])
@pytest.mark.parametrize("estimator", ["micro", "macro"])
def test_estimated_se_tracks_the_spread_of_the_estimates(biased_judge_population, audit, share, estimator):
    reps = 1500
    r = judged_coverage(
        biased_judge_population,
        k=200,
        reps=reps,
        audit=audit,
        audit_share=share,
        estimator=estimator,
        rng=5,
        method="cluster",
    )
    for name in ("gold_only", "prediction_powered", "judge_bias"):
        sd = r.estimates[name].std(ddof=1)
        se = np.mean((r.upper[name] - r.lower[name]) / (2 * 1.959963984540054))
        # The SD of an SD estimate from R draws is about SD / sqrt(2 R): 1.8% here; 4 of those.
        assert se == pytest.approx(sd, rel=4 / np.sqrt(2 * reps) + 0.01)
        assert (
            abs(
                r.estimates[name].mean()
                - (r.judge_value - r.population_value if name == "judge_bias" else r.population_value)
            )
            < 4 * sd / np.sqrt(reps) + 0.002
        )


def test_coverage_validation(biased_judge_population):
    scores = biased_judge_population.judge
    half = judged_population(
        ClusterStats(scores.cluster_id, scores.sum_y / 2, scores.n, scores.sum_y2 / 4),
        biased_judge_population.sum_gold,
        biased_judge_population.sum_gold2,
        biased_judge_population.sum_gold_judge / 2,
    )
    with pytest.raises(ValueError, match="0/1 gold and judge"):
        judged_coverage(half, k=20, reps=10, audit="rows")
    judged_coverage(half, k=20, reps=10, audit="documents", rng=0)  # scores: documents are fine
    partial = dataclasses.replace(biased_judge_population, audited=biased_judge_population.audited // 2)
    with pytest.raises(ValueError, match="gold labels on every row"):
        judged_coverage(partial, k=20, reps=10)
    with pytest.raises(ValueError, match="audit_share"):
        judged_coverage(biased_judge_population, k=20, reps=10, audit_share=1.0)
    with pytest.raises(ValueError, match="k must be"):
        judged_coverage(biased_judge_population, k=1, reps=10)


def test_coverage_is_seeded(biased_judge_population):
    a = judged_coverage(biased_judge_population, k=20, reps=50, rng=3)
    b = judged_coverage(biased_judge_population, k=20, reps=50, rng=3)
    assert a.coverage == b.coverage
    np.testing.assert_array_equal(a.estimates["prediction_powered"], b.estimates["prediction_powered"])


# ---------------------------------------------------------------- planning an audit


@pytest.fixture(scope="module")
def pilot_population():
    frame = synthesize_judged(n_docs=300, mean_chunks=12, p=0.2, icc=0.2, false_positive=0.15, judge_spread=0.5, rng=1)
    return pd.factorize(frame["doc_id"])[0], frame["y_judge"].to_numpy(), frame["y"].to_numpy()


@pytest.mark.parametrize("audit", ["rows", "documents"])
def test_plan_at_the_pilots_own_half_width_asks_for_the_pilots_audit(pilot_population, audit):
    doc, f, y = pilot_population
    rng = np.random.default_rng(0)
    audited = rng.random(doc.size) < 0.1 if audit == "rows" else (rng.random(300) < 0.15)[doc]
    pilot = judged_from_rows(doc, f, y, audited, audit=audit)
    first = plan_audit(pilot, half_width=0.05)
    report = judged_report(pilot, lam=first.lam, method="cluster")
    half = 1.959963984540054 * report["prediction_powered"].interval.se
    plan = plan_audit(pilot, half_width=half * (1 + 1e-9))
    assert plan.needed == (audited.sum() if audit == "rows" else pilot.n_audited_docs)
    assert plan.gold_only_needed > plan.needed  # the judge saves audit work
    assert np.all(np.diff(plan.curve_half_width) <= 1e-12) and np.all(
        plan.curve_gold_half_width >= plan.curve_half_width - 1e-12
    )
    assert plan.agreement == pytest.approx(np.mean(f[audited] == y[audited]))
    assert plan.correlation == pytest.approx(np.corrcoef(f[audited], y[audited])[0, 1])


def test_the_planned_row_audit_reaches_its_half_width(pilot_population):
    doc, f, y = pilot_population
    rng = np.random.default_rng(1)
    # A large pilot (40% of the rows), so that the plan's own sampling error stays under the 5% asked here.
    plan = plan_audit(judged_from_rows(doc, f, y, rng.random(doc.size) < 0.4), half_width=0.04)
    share = plan.needed / plan.n_total
    halves = [
        1.959963984540054
        * judged_report(judged_from_rows(doc, f, y, rng.random(doc.size) < share), lam=plan.lam, method="cluster")[
            "prediction_powered"
        ].interval.se
        for _ in range(100)
    ]
    assert np.mean(halves) == pytest.approx(0.04, rel=0.05)


def test_plan_says_when_no_audit_of_these_documents_suffices(pilot_population):
    doc, f, y = pilot_population
    pilot = judged_from_rows(doc, f, y, np.random.default_rng(2).random(doc.size) < 0.1)
    plan = plan_audit(pilot, half_width=0.01)
    assert plan.needed is None and plan.gold_only_needed is None
    assert plan.floor_half_width > 0.01
    with pytest.raises(ValueError, match="at least 2"):
        plan_audit(judged_from_rows(doc, f, y, doc == 0), half_width=0.05)
    with pytest.raises(ValueError, match="half_width"):
        plan_audit(pilot, half_width=0)


def test_one_simulated_audit(biased_judge_population):
    pop = biased_judge_population
    rows = simulated_audit(pop, k=300, audit="rows", audit_share=0.25, rng=1)
    assert rows.n_docs == 300 and rows.judge.population_docs == pop.n_docs and rows.audit == "rows"
    drawn = np.isin(pop.judge.cluster_id, rows.judge.cluster_id)
    share = rows.n_audited / rows.n_rows
    assert abs(share - 0.25) < 4 * np.sqrt(0.25 * 0.75 / rows.n_rows)
    assert np.all(rows.sum_gold <= pop.sum_gold[drawn]) and np.all(rows.sum_gold_judge <= rows.sum_gold)
    docs = simulated_audit(pop, k=40, audit="documents", audit_share=0.3, rng=1)
    assert docs.n_audited_docs == 12 and docs.audit == "documents"
    whole = docs.audited > 0
    np.testing.assert_array_equal(docs.audited[whole], docs.judge.n[whole])
    assert simulated_audit(pop, k=pop.n_docs, rng=2).n_docs == pop.n_docs  # every document: one sample is fine
    a, b = simulated_audit(pop, k=30, rng=5), simulated_audit(pop, k=30, rng=5)
    np.testing.assert_array_equal(a.audited, b.audited)
