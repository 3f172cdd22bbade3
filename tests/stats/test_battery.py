"""The battery's populations have the shapes its table promises (the study's conclusions rest on them)."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.stats.battery import (
    N_DOCS,
    POPULATIONS,
    SPARSE_PARETO_TAIL,
    battery_population,
)
from ragunc.stats.diagnostics import icc_anova


def _shape(name):
    s = battery_population(name)
    cv = s.n.std() / s.n.mean()
    return s, s.sum_y.sum() / s.n.sum(), float((s.sum_y == 0).mean()), icc_anova(s.sum_y, s.n, s.sum_y2), cv


@pytest.mark.parametrize(
    "name, p, zero, icc, cv",
    [
        ("beta", (0.15, 0.21), (0.25, 0.5), (0.22, 0.36), (0.6, 1.0)),
        ("rare", (0.02, 0.04), (0.68, 0.80), (0.03, 0.2), (0.6, 1.0)),
        ("high", (0.80, 0.90), (0.0, 0.05), (0.14, 0.26), (0.6, 1.0)),
        ("size_correlated", (0.2, 0.35), (0.0, 0.1), (0.05, 0.25), (0.9, 1.4)),
        ("near_iid_unequal", (0.2, 0.3), (0.0, 0.3), (-0.01, 0.03), (1.5, 3.0)),
        ("zero_inflated_pareto", (0.12, 0.25), (0.45, 0.65), (0.2, 0.4), (2.0, 4.0)),
        ("sparse_pareto_1.2", (0.03, 0.08), (0.78, 0.88), (0.25, 0.5), (3.5, 6.0)),
        ("sparse_pareto_1.0", (0.03, 0.08), (0.78, 0.88), (0.25, 0.6), (6.0, 11.0)),
        ("sparse_pareto_0.8", (0.01, 0.05), (0.78, 0.88), (0.3, 0.7), (11.0, 20.0)),
        ("zip_pareto_0.9", (0.08, 0.25), (0.6, 0.8), (0.1, 0.6), (3.0, 8.0)),
        ("lognormal_heavy", (0.1, 0.3), (0.3, 0.6), (0.2, 0.4), (2.5, 8.0)),
        ("half_in_one", (0.1, 0.3), (0.2, 0.5), (0.1, 0.3), (10.0, 40.0)),
    ],
)
def test_each_population_has_its_advertised_shape(name, p, zero, icc, cv):
    s, rate, zeros, rho, size_cv = _shape(name)
    assert s.n_docs == N_DOCS and s.binary
    assert np.all((0 <= s.sum_y) & (s.sum_y <= s.n))
    for value, (low, high) in ((rate, p), (zeros, zero), (rho, icc), (size_cv, cv)):
        assert low <= value <= high, (name, value, low, high)


def test_long_documents_do_worse_in_the_size_correlated_population():
    s = battery_population("size_correlated")
    long = s.n >= np.median(s.n)
    assert s.sum_y[long].sum() / s.n[long].sum() < 0.75 * s.sum_y[~long].sum() / s.n[~long].sum()


def test_populations_are_reproducible_and_seeded():
    a, b = battery_population("rare"), battery_population("rare")
    assert np.array_equal(a.sum_y, b.sum_y) and np.array_equal(a.n, b.n)
    assert not np.array_equal(battery_population("rare", seed=1).sum_y, a.sum_y)
    assert len(set(POPULATIONS)) == 12


def test_one_document_holds_half_the_chunks_of_half_in_one():
    s = battery_population("half_in_one")
    assert s.n.max() / s.n.sum() == 0.5


@pytest.mark.parametrize("name", SPARSE_PARETO_TAIL)
def test_sparse_pareto_sizes_are_the_pareto_quantiles(name):
    """Sizes: ceil(3 u^(-1/alpha)) at u = (i + 1/2) / D, so log size falls as -1/alpha per unit of log u."""
    tail = SPARSE_PARETO_TAIL[name]
    n = np.sort(battery_population(name).n)[::-1]
    assert tail <= 1.2
    # The longest document sits at u = 1 / (2 D): by hand, 3 * 2400 = 7200 chunks at tail index 1.
    assert n[0] == np.ceil(3 * (2 * N_DOCS) ** (1 / tail))
    assert n[-1] == 4  # ceil(3 * (1 - 1 / 2400)^(-1/alpha)): just above the minimum of 3
    upper = (np.arange(N_DOCS) + 0.5) / N_DOCS
    top = slice(0, N_DOCS // 10)  # the tail, where rounding up to whole chunks is negligible
    slope = np.polyfit(np.log(upper[top]), np.log(n[top]), 1)[0]
    assert slope == pytest.approx(-1 / tail, rel=0.01)
    # Redrawing the rates keeps the sizes: the population's shape is the tail index's, not the seed's.
    other = battery_population(name, seed=1)
    assert np.array_equal(np.sort(other.n)[::-1], n) and not np.array_equal(other.sum_y, battery_population(name).sum_y)


@pytest.mark.parametrize(
    "name, top_share",
    [("sparse_pareto_1.2", (0.25, 0.35)), ("sparse_pareto_1.0", (0.43, 0.53)), ("sparse_pareto_0.8", (0.69, 0.79))],
)
def test_a_few_documents_hold_most_chunks_in_the_heavier_tails(name, top_share):
    n = np.sort(battery_population(name).n)[::-1]
    low, high = top_share
    assert low <= n[:12].sum() / n.sum() <= high  # the 12 longest documents, 1% of them


def test_unknown_population():
    with pytest.raises(ValueError, match="unknown population 'uniform'"):
        battery_population("uniform")
