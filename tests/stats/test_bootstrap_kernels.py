"""The resampling engine: the law of its draws against theory and a plain numpy reference, one stream for all.

The reference (``tests/support/numpy_resampling.py``) draws document indices with numpy's own
generator and sums the columns over them, the bootstrap as defined: the engine's pair table,
packing and stream must not show in the law of what it returns.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy import stats

import ragunc.stats.bootstrap_kernels as bk
from ragunc.stats.bootstrap_kernels import ratio_replicates, resampled_sums
from ragunc.stats.paired import paired_comparison
from ragunc.stats.sample import ClusterStats
from tests.support import numpy_resampling as reference

# (K, B) covering the pair table (2 K <= B), its last single draw (K odd), the single-draw path
# (2 K > B) and a sample too large for the table (K * K * words > MAX_PAIR_WORDS).
PATHS = [(20, 400), (21, 400), (50, 40), (1, 30), (300, 800)]


@pytest.mark.parametrize(("k", "reps"), PATHS)
def test_resampled_counts_are_multinomial(k, reps):
    # One-hot columns turn the resampled sums into the resampling counts themselves: multinomial(K, 1/K).
    rows = 12 if k == 300 else 60
    onehot = np.broadcast_to(np.eye(k), (rows, k, k))
    counts = np.stack(resampled_sums([onehot[:, j, :] for j in range(k)], reps, k), -1)  # (rows, reps, k)
    assert counts.shape == (rows, reps, k)
    assert np.all(counts.sum(-1) == k)
    flat = counts.reshape(-1, k)
    n = flat.shape[0]
    assert np.abs(flat.mean(0) - 1).max() < 6 * np.sqrt((1 - 1 / k) / n) + 1e-12
    if k > 1:
        # variance 1 - 1/K, covariance -1/K
        cov = np.cov(flat.T)
        assert np.diag(cov).mean() == pytest.approx(1 - 1 / k, rel=0.03)
        assert cov[~np.eye(k, dtype=bool)].mean() == pytest.approx(-1 / k, rel=0.1)


@pytest.mark.parametrize(("k", "reps"), [(3, 400), (4, 400), (5, 6), (160, 400)])
def test_ratio_draws_are_multinomial(k, reps):
    # y one-hot on document 0 and m = 1: each replicate is (times document 0 was drawn) / K, whose
    # law is Binomial(K, 1/K); K = 160 is too large for the pair table of one packed word.
    rows = 200
    y = np.zeros((rows, k))
    y[:, 0] = 1.0
    m = np.ones((rows, k))
    boot, *_ = ratio_replicates(y, m, np.full(rows, 1 / k), reps, np.random.default_rng(k))
    counts = np.rint(boot * k).astype(int).ravel()
    expected = stats.binom.pmf(np.arange(k + 1), k, 1 / k) * counts.size
    keep = expected >= 5
    observed = np.bincount(counts, minlength=k + 1)
    chi2 = (((observed - expected)[keep]) ** 2 / expected[keep]).sum() + (
        (observed[~keep].sum() - expected[~keep].sum()) ** 2 / max(expected[~keep].sum(), 1e-9)
    )
    assert stats.chi2.sf(chi2, keep.sum()) > 1e-4


@pytest.mark.parametrize(("k", "reps"), [(7, 5000), (8, 5000), (12, 20)])
def test_sums_have_the_law_of_the_numpy_reference(k, reps):
    # Small integer columns (packed) and a float one: the distribution of each sum, engine against
    # reference (chi-square test of homogeneity, then Kolmogorov-Smirnov), and their covariance
    # against theory: K times the population covariance of the documents' values.
    rng = np.random.default_rng(k)
    hits = rng.integers(0, 4, k).astype(float)
    size = hits + rng.integers(1, 3, k)
    score = rng.random(k)
    rows = 40000 // reps
    columns = [np.broadcast_to(c, (rows, k)) for c in (hits, size)]
    ours = [s.ravel() for s in resampled_sums(columns, reps, 1)]
    ref = [s.ravel() for s in reference.resampled_sums(columns, reps, 2)]
    for a, b in zip(ours, ref):
        values = np.union1d(a, b)
        table = np.array([[np.sum(a == v) for v in values], [np.sum(b == v) for v in values]])
        table = table[:, table.min(0) >= 5]
        assert stats.chi2_contingency(table).pvalue > 1e-4
    (scores,) = resampled_sums([np.broadcast_to(score, (rows, k))], reps, 3)
    (ref_scores,) = reference.resampled_sums([np.broadcast_to(score, (rows, k))], reps, 4)
    assert stats.ks_2samp(scores.ravel(), ref_scores.ravel()).pvalue > 1e-4
    n = ours[0].size
    cov = np.cov(ours[0], ours[1])[0, 1]
    theory = k * np.cov(hits, size, ddof=0)[0, 1]
    assert cov == pytest.approx(theory, abs=6 * np.sqrt(k * hits.var() * k * size.var() / n))


def test_ratio_replicates_draw_what_resampled_sums_draws():
    # One stream per row for every kernel: the same seed gives the same resamples, read as a ratio
    # and its SE or as plain sums of y, m, y^2, y m and m^2.
    rng = np.random.default_rng(5)
    for k, integer in ((20, True), (21, False), (9, True)):
        m = rng.integers(1, 40, (30, k)).astype(float)
        y = rng.binomial(m.astype(int), 0.3).astype(float) * (1.0 if integer else 0.37)
        theta = y.sum(1) / m.sum(1)
        boot, se, *_ = ratio_replicates(y, m, theta, 500, np.random.default_rng(8), keep_se=True)
        sy, sm, syy, sym, smm = resampled_sums([y, m, y * y, y * m, m * m], 500, 8)
        t = sy / sm
        np.testing.assert_allclose(boot, t, rtol=1e-13)
        ss = np.maximum(syy - 2 * t * sym + t * t * smm, 0)
        np.testing.assert_allclose(se, np.sqrt(ss * k / (k - 1)) / sm, rtol=1e-6, atol=1e-9)


def test_columns_in_several_groups_share_the_draws():
    # 17 float columns take three groups of six words, each summed over the indices redrawn from
    # the same state: every column's sums are those it gets alone with the same seed.
    rng = np.random.default_rng(6)
    columns = [rng.random((3, 8)) for _ in range(17)]
    together = resampled_sums(columns, 100, 4)
    for c, sums in zip(columns, together):
        assert np.array_equal(resampled_sums([c], 100, 4)[0], sums)
    # integer columns too, packed into several words (their sums need more than 62 bits together)
    ints = [rng.integers(0, 1 << 20, (3, 8)).astype(float) for _ in range(9)]
    assert bk._layout([c for c in ints], 8).n_words > 2
    for c, sums in zip(ints, resampled_sums(ints, 100, 4)):
        assert np.array_equal(resampled_sums([c], 100, 4)[0], sums)


def test_counts_stay_multinomial_when_the_pair_table_is_capped(monkeypatch):
    # K = 20, B = 400 uses the pair table; a cap below it forces single draws.
    k, reps, rows = 20, 400, 60
    onehot = np.broadcast_to(np.eye(k), (rows, k, k))
    columns = [onehot[:, j, :] for j in range(k)]
    paired = np.stack(resampled_sums(columns, reps, 3), -1)
    monkeypatch.setattr(bk, "MAX_PAIR_WORDS", k * k - 1)
    counts = np.stack(resampled_sums(columns, reps, 3), -1)
    assert not np.array_equal(counts, paired)  # the same seed, another way of drawing
    assert np.all(counts.sum(-1) == k)
    flat = counts.reshape(-1, k)
    assert np.abs(flat.mean(0) - 1).max() < 6 * np.sqrt((1 - 1 / k) / flat.shape[0])
    cov = np.cov(flat.T)
    assert np.diag(cov).mean() == pytest.approx(1 - 1 / k, rel=0.03)
    assert cov[~np.eye(k, dtype=bool)].mean() == pytest.approx(-1 / k, rel=0.1)


def test_a_large_sample_draws_documents_one_at_a_time():
    # K = 4,000 documents, B = 8,000: a K x K table would take hundreds of MB; single draws keep
    # only the documents and the sums (numpy's side traced here; the kernel allocates no K x K table).
    rng = np.random.default_rng(14)
    m = rng.integers(1, 60, 4000).astype(float)
    y = rng.binomial(m.astype(int), 0.2).astype(float)
    columns = [y, m, y**2, y * m, m**2]
    assert not bk._use_pairs(4000, 8000, bk._layout([c[None] for c in columns], 4000).n_words)
    tracemalloc.start()
    try:
        sums = resampled_sums(columns, 8000, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20
    # sums of K = 4,000 draws: mean K times the column mean, SD sqrt(K) times its SD
    for column, total in zip(columns, sums):
        sd = np.sqrt(4000) * column.std()
        assert total.mean() == pytest.approx(4000 * column.mean(), abs=6 * sd / np.sqrt(8000))
        assert total.std() == pytest.approx(sd, rel=0.05)


def test_columns_share_draws_and_rows_are_independent():
    rng = np.random.default_rng(5)
    x = rng.random((4, 12))
    a, b = resampled_sums([x, 3 * x], 200, rng)
    assert np.allclose(b, 3 * a)
    same = np.broadcast_to(x[0], (2, 12))
    first, second = resampled_sums([same], 200, rng)[0]
    assert not np.allclose(first, second)


@pytest.mark.parametrize("scale", [1.0, 1e6])
def test_packed_integer_path_equals_the_float_path(scale):
    # Integer columns are packed into words; adding a non-integer column forces floats, with the same draws.
    rng = np.random.default_rng(13)
    y = rng.integers(0, 30, (4, 21)).astype(float) * scale
    m = rng.integers(1, 60, (4, 21)).astype(float)
    assert bk._packing([y, m], 21) is not None and bk._packing([y, m, m + 0.5], 21) is None
    packed = resampled_sums([y, m], 300, 5)
    floats = resampled_sums([y, m, m + 0.5], 300, 5)[:2]
    assert np.array_equal(packed[0], floats[0]) and np.array_equal(packed[1], floats[1])


def test_packed_and_float_ratio_replicates_agree(monkeypatch):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 30, (7, 21)).astype(float)
    m = y + rng.integers(1, 40, (7, 21))
    theta = y.sum(1) / m.sum(1)
    packed = ratio_replicates(y, m, theta, 300, np.random.default_rng(1), keep_se=True, scales=("linear", "logit"))
    monkeypatch.setattr(bk, "_packing", lambda columns, k: None)
    floats = ratio_replicates(y, m, theta, 300, np.random.default_rng(1), keep_se=True, scales=("linear", "logit"))
    for a, b in [
        *zip(packed[:2], floats[:2]),
        *zip(packed[2].values(), floats[2].values()),
        *zip(packed[3:], floats[3:]),
    ]:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def test_results_do_not_depend_on_the_threads(monkeypatch):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 5, (40, 12)).astype(float)
    m = y + rng.integers(1, 9, (40, 12))
    theta = y.sum(1) / m.sum(1)
    x = np.broadcast_to(np.arange(1.0, 9.0), (7, 3, 8))  # leading shape (7, 3)
    runs = []
    for least in (1, 1 << 40):
        monkeypatch.setattr(bk, "MIN_THREAD_REPLICATES", least)
        ratio = ratio_replicates(y, m, theta, 500, np.random.default_rng(0), keep_se=True, scales=("logit",))
        runs.append([ratio[0], ratio[1], ratio[2]["logit"], ratio[3], ratio[4], *resampled_sums([x], 64, 0)])
    for a, b in zip(*runs):
        assert np.array_equal(a, b)
    out = runs[0][-1]
    assert out.shape == (7, 3, 64) and np.all(out >= 8) and np.all(out <= 64)  # 8 draws of values in [1, 8]


def test_paired_bootstrap_interval_matches_the_reference_engine():
    # The paired comparison's percentile interval from the engine against the same bootstrap
    # computed with the numpy reference: equal up to Monte Carlo error.
    rng = np.random.default_rng(11)
    k = 40
    n = rng.integers(1, 40, k)
    ya = rng.binomial(n, rng.beta(1, 3, k)).astype(float)
    yb = np.minimum(n, ya + rng.binomial(n, 0.05)).astype(float)
    ids = np.arange(k).astype(str)
    a, b = ClusterStats(ids, ya, n, ya, config="a"), ClusterStats(ids, yb, n, yb, config="b")
    reps = 40000
    ours = paired_comparison(a, b, boot=reps, rng=1).interval("bootstrap")
    sa, ma, sb, mb = reference.resampled_sums([ya, n, yb, n], reps, 2)
    diff = sb / mb - sa / ma
    lo, hi = np.percentile(diff, [2.5, 97.5])
    sd = diff.std(ddof=1)
    assert ours.se == pytest.approx(sd, rel=0.03)
    assert ours.ci == pytest.approx((lo, hi), abs=0.06 * sd)
