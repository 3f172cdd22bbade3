"""Leverage and G* against hand computation and the definitions of Carter, Schnepel & Steigerwald (2017)."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.stats.leverage import effective_documents, leverage, leverages
from ragunc.stats.sample import ClusterStats


def test_g_star_by_hand():
    n = np.array([10.0, 10, 20])
    # rho = 0: gamma = m; (40)^2 / (100 + 100 + 400) = 2.667
    assert effective_documents(n) == pytest.approx(1600 / 600)
    # rho = 1: gamma = m^2 = 100, 100, 400; 600^2 / (1e4 + 1e4 + 1.6e5) = 2.0
    assert effective_documents(n, 1.0) == pytest.approx(360000 / 180000)
    # G* = K / (1 + Gamma), Gamma the squared CV (over the K documents) of gamma, at rho = 0.3
    gamma = n * (1 + 0.3 * (n - 1))
    assert effective_documents(n, 0.3) == pytest.approx(3 / (1 + gamma.var() / gamma.mean() ** 2))
    assert effective_documents(np.full(7, 12.0), 0.4) == pytest.approx(7)
    assert effective_documents(n, estimator="macro") == 3


def test_batch_wise_and_one_document_taking_over():
    rows = np.array([[5.0, 5, 5, 5], [1000.0, 1, 1, 1]])
    g = effective_documents(rows, np.array([0.0, 0.0]))
    assert g[0] == pytest.approx(4) and 1 < g[1] < 1.01
    np.testing.assert_allclose(leverages(rows).sum(-1), 1)
    np.testing.assert_allclose(leverages(rows, "macro"), 0.25)


def test_sample_leverage_orders_documents_and_reads_the_icc():
    n = np.array([3, 40, 5, 12])
    hits = np.array([1.0, 30, 0, 6])
    lev = leverage(ClusterStats(np.array(["a", "b", "c", "d"]), hits, n, hits))
    assert lev.max_leverage == pytest.approx(40 / 60) and lev.leverage.tolist() == pytest.approx(n / 60)
    assert [str(lev.doc_id[i]) for i in lev.dominant()] == ["b", "d", "c", "a"]
    assert 0 <= lev.rho <= 1
    assert lev.g_star_rho1 <= lev.g_star <= lev.g_star_rho0  # more correlation: long documents weigh more
    d = lev.to_dict()
    assert d["documents"][0] == {"doc_id": "b", "chunk_share": pytest.approx(2 / 3), "leverage": pytest.approx(2 / 3)}
    assert d["g_star_rho0"] == pytest.approx(60**2 / (n**2).sum())
