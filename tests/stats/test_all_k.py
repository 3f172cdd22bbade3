"""The table of every K against the single-K functions on the same nested samples and repetitions.

The reference (``tests/support/all_k_oracle.py``) asks ``interval_estimates``, ``diagnostics``,
``recommend``, ``design`` and ``coverage_experiment`` at one K at a time; the table must give
the same numbers at every K, on real samples (alike documents, the stdlib sample), synthetic
ones (a giant document, scores that are not 0/1), for both estimators and two levels.
"""

from __future__ import annotations

import json
import math
import pathlib
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

import ragunc.stats.all_k
from ragunc.data.results import load_results
from ragunc.stats import KTable, k_table, nested_bootstrap, nested_orders, nested_sample
from ragunc.stats.bootstrap_kernels import prefix_scan
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design, nested_design
from ragunc.stats.explore import explore
from ragunc.stats.intervals import interval_report
from ragunc.stats.linearization import bell_mccaffrey_df, linearized_residuals
from ragunc.stats.methods import interval_methods
from ragunc.stats.recommend import RECOMMENDED_METHOD
from ragunc.stats.sample import ClusterStats
from tests.support.all_k_oracle import k_table_columns

ROOT = pathlib.Path(__file__).resolve().parents[2]


def synthetic(seed: int, d: int, *, scores: bool = False, giant: bool = False, rare: bool = False) -> ClusterStats:
    """Beta-binomial documents of very unequal sizes; ``giant``: one holds most chunks; ``scores``: y in [0, 1];
    ``rare``: most documents without a hit (many samples with none, or with one document holding them all)."""
    rng = np.random.default_rng(seed)
    n = np.maximum(1, np.rint(rng.lognormal(np.log(12), 0.9, d))).astype(int)
    if giant:
        n[3] = 20 * n.sum()
    hits = rng.binomial(n, rng.beta(0.08, 4, d) if rare else rng.beta(0.6, 2.4, d)).astype(float)
    sum_y2 = hits
    if scores:  # graded y: a document's scores sum to hits * 0.7 plus a spread
        hits = hits * 0.7 + rng.uniform(0, 0.3, d) * n
        sum_y2 = np.minimum(hits, hits**2 / n + rng.uniform(0, 0.05, d) * n)
    return ClusterStats(np.arange(d).astype(str), hits, n, sum_y2)


def bundled(name: str) -> ClusterStats:
    return load_results(ROOT / "sample_data" / f"{name}.csv.gz").population("100w")


def assert_columns_equal(table: KTable, expected: dict[str, np.ndarray], ks) -> None:
    assert set(table.columns) == set(expected)
    index = np.asarray(ks) - 2
    for name, want in expected.items():
        np.testing.assert_allclose(table.columns[name][index], want, rtol=1e-9, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("estimator", ["micro", "macro"])
@pytest.mark.parametrize("level", [0.95, 0.8])
@pytest.mark.parametrize(
    "population",
    [synthetic(1, 45), synthetic(2, 40, giant=True), synthetic(3, 35, scores=True), synthetic(4, 60, rare=True)],
    ids=["unequal", "giant", "scores", "rare"],
)
def test_every_k_equals_the_single_k_functions_on_the_nested_samples(population, estimator, level):
    table = k_table(population, estimator=estimator, level=level, seed=4, reps=150)
    expected = k_table_columns(population, estimator=estimator, level=level, seed=4, reps=150)
    assert_columns_equal(table, expected, table.k)
    np.testing.assert_array_equal(table.k, np.arange(2, population.n_docs + 1))
    assert np.isnan(table.row(population.n_docs)["coverage_naive"])  # K = D: nothing to resample


def degenerate(case: str) -> ClusterStats:
    """Populations where the sample says nothing about the design (no hits, no misses, equal rates) or nearly."""
    n = np.random.default_rng(14).integers(1, 9, 25) * 2
    hits = {
        "no hits": np.zeros(25),
        "no misses": n.astype(float),
        "equal rates": n / 2,
        "one document with hits": np.r_[n[0], np.zeros(24)],
        "one miss": np.r_[n[0] - 1, n[1:]].astype(float),
    }[case]
    return ClusterStats(np.arange(25).astype(str), hits, n, hits)


@pytest.mark.parametrize("estimator", ["micro", "macro"])
@pytest.mark.parametrize("case", ["no hits", "no misses", "equal rates", "one document with hits", "one miss"])
def test_degenerate_populations_equal_the_single_k_functions(case, estimator):
    population = degenerate(case)
    table = k_table(population, estimator=estimator, seed=1, reps=60)
    assert_columns_equal(table, k_table_columns(population, estimator=estimator, seed=1, reps=60), table.k)


@pytest.mark.parametrize(("estimator", "level"), [("micro", 0.95), ("macro", 0.9), ("micro", 0.9)])
@pytest.mark.parametrize("name", ["debian_copyright_100w", "stdlib_100w"])
def test_bundled_samples_equal_the_single_k_functions_at_several_k(name, estimator, level):
    population = bundled(name)
    d = population.n_docs
    ks = [2, 3, 11, 57, 240, d - 1, d]
    table = k_table(population, estimator=estimator, level=level, seed=1, reps=300)
    assert_columns_equal(
        table, k_table_columns(population, estimator=estimator, level=level, seed=1, reps=300, ks=ks), ks
    )


def test_a_smaller_r_is_the_first_repetitions_of_a_larger_one():
    population = synthetic(5, 30)
    orders = nested_orders(population.n_docs, 1 + 1000, 7)
    np.testing.assert_array_equal(nested_orders(population.n_docs, 1 + 500, 7), orders[:501])
    small, large = (k_table(population, seed=7, reps=r) for r in (500, 1000))
    ks = [2, 9, 29]
    # the table at R = 500 is the single-K functions on the first 500 repetitions of R = 1000
    assert_columns_equal(small, k_table_columns(population, reps=500, ks=ks, orders=orders[:501]), ks)
    for name, values in large.columns.items():
        if not name.startswith(("coverage_", "design_")) or name in ("design_chunks", "design_binomial_sd"):
            np.testing.assert_array_equal(small.columns[name], values, err_msg=name)  # the sample does not move


def test_the_nested_sample_grows_by_one_document_and_is_the_tables_order():
    population = bundled("debian_copyright_100w")
    table = k_table(population, seed=3, reps=2)
    previous = set()
    for k in (2, 3, 4, 50, 51, 601):
        sample = nested_sample(population, k, seed=3)
        ids = set(sample.cluster_id)
        assert len(ids) == k and previous <= ids and sample.population_docs == population.n_docs
        assert ids == set(population.cluster_id[table.order[:k]])
        assert table.row(k)["n_chunks"] == sample.n_chunks
        previous = ids


def test_nested_samples_are_uniform_over_k_subsets():
    population = synthetic(6, 6)
    counts = Counter(tuple(nested_sample(population, 3, seed=s).cluster_id) for s in range(4000))
    subsets = list(combinations(population.cluster_id, 3))
    assert set(counts) == set(subsets)
    observed = np.array([counts[s] for s in subsets])
    assert stats.chisquare(observed).pvalue > 1e-3  # 20 equally likely subsets


# With one document of nearly all chunks (share s) the df's terms cancel to s^2 from 1 / (1 - s)^2:
# the direct formula itself keeps only about 8 digits there.
@pytest.mark.parametrize(("case", "rtol"), [("one giant", 1e-8), ("equal", 1e-11), ("spread", 1e-11)])
def test_the_compiled_bell_mccaffrey_df_and_residual_sums_are_the_direct_ones_at_every_k(case, rtol):
    rng = np.random.default_rng(8)
    m = {
        "one giant": np.r_[np.full(3, 2.0), 5e4, rng.integers(1, 40, 200)],
        "equal": np.full(150, 7.0),
        "spread": np.exp(rng.uniform(0, 11, 300)).round() + 1,
    }[case][None, :]
    y = np.floor(m * rng.uniform(0, 1, m.shape))
    ss, df = prefix_scan(y, m, micro=True)
    for k in range(2, m.shape[1] + 1):
        np.testing.assert_allclose(df[0, k - 1], bell_mccaffrey_df(m[:, :k])[0], rtol=rtol)
        _, resid = linearized_residuals(y[:, :k], m[:, :k])
        n = m[0, :k].sum()
        np.testing.assert_allclose(ss[0, k - 1] * k**2 / n**2, (resid**2).sum(), rtol=1e-10, atol=1e-300)
    if case == "equal":  # equal sizes: K - 1
        np.testing.assert_allclose(df[0, 1:], np.arange(1, m.shape[1]), rtol=1e-12)


def test_nested_bootstrap_is_the_single_k_report_and_coverage_on_the_tables_repetitions():
    population = synthetic(9, 50)
    table = k_table(population, seed=2, reps=120)
    report, coverage = nested_bootstrap(population, k=12, boot=200, reps=120, seed=2)
    expected = interval_report(nested_sample(population, 12, seed=2), boot=200, rng=2)
    assert report.intervals == expected.intervals
    row = table.row(12)
    for name in table.methods:
        assert coverage.methods[name].coverage == pytest.approx(row[f"coverage_{name}"], abs=1e-12)
    assert {m.name for m in interval_methods() if m.resamples} <= set(coverage.methods)
    assert nested_bootstrap(population, k=50, boot=50, reps=10, seed=2)[1] is None  # K = D


def test_explore_reports_the_tables_sample_design_and_coverage_at_k():
    population = synthetic(10, 60)
    table = k_table(population, seed=5, reps=100)
    seen = explore(population, k=14, boot=100, reps=100, seed=5)
    row = table.row(14)
    assert seen.sample.cluster_id.tolist() == nested_sample(population, 14, seed=5).cluster_id.tolist()
    assert seen.report.interval(RECOMMENDED_METHOD).ci == pytest.approx(
        (row["recommended_low"], row["recommended_high"])
    )
    assert seen.design.deff == pytest.approx(row["design_deff"]) and seen.design.draws == 100
    assert seen.coverage.methods["naive"].coverage == pytest.approx(row["coverage_naive"])


@pytest.mark.parametrize("k", [2, 14, 59, 60])
def test_nested_design_is_the_tables_design_at_k(k):
    # The Design effect page shows nested_design; the explorer draws the table's row: one design at K.
    population = synthetic(12, 60)
    row = k_table(population, seed=7, reps=150).row(k)
    shown = nested_design(population, k, seed=7, reps=150)
    assert (shown.deff, shown.n_eff, shown.sd) == pytest.approx(
        (row["design_deff"], row["design_n_eff"], row["design_sd"]), rel=1e-9, abs=1e-15
    )
    assert shown.deff != pytest.approx(nested_design(population, k, seed=8, reps=150).deff) or k == 60


def test_the_payload_is_json_with_six_significant_digits_and_null_where_not_finite():
    population = synthetic(11, 25)
    table = k_table(population, seed=0, reps=50)
    payload = json.loads(json.dumps(table.to_payload(), allow_nan=False))
    assert payload["k"] == list(range(2, 26)) and payload["recommended"] == RECOMMENDED_METHOD
    assert payload["methods"] == list(table.methods) and payload["reps"] == 50
    for name, values in table.columns.items():
        sent = payload["columns"][name]
        assert len(sent) == table.k.size
        for got, exact in zip(sent, values):
            if not math.isfinite(exact):  # JSON has no NaN or infinity
                assert got is None
            else:
                assert got == pytest.approx(exact, rel=5e-6, abs=1e-300)
    assert payload["columns"]["coverage_naive"][-1] is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"estimator": "median"}, "estimator"),
        ({"level": 1.0}, "level"),
        ({"reps": 1}, "reps"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        k_table(synthetic(12, 10), **kwargs)
    with pytest.raises(ValueError, match="at least 3 documents"):
        k_table(synthetic(12, 2))
    with pytest.raises(ValueError, match="k must be"):
        KTable.row(k_table(synthetic(12, 5), reps=2), 6)


def test_the_documents_of_each_draw_are_checked_where_given():
    population = synthetic(13, 20)
    with pytest.raises(ValueError, match=r"shape \(5, 4\)"):
        coverage_experiment(population, k=4, reps=5, boot=0, samples=np.zeros((5, 3), dtype=int))
    with pytest.raises(ValueError, match="positions from 0 to 19"):
        design(population, 3, samples=np.full((10, 3), 20))


def test_repetitions_in_batches_give_the_same_table(monkeypatch):
    population = synthetic(15, 40)
    whole = k_table(population, seed=6, reps=90)
    monkeypatch.setattr(ragunc.stats.all_k, "BATCH_CELLS", 7 * population.n_docs)  # 13 batches of 7
    batched = k_table(population, seed=6, reps=90)
    for name, values in whole.columns.items():
        np.testing.assert_allclose(batched.columns[name], values, rtol=1e-12, atol=1e-15, err_msg=name)
