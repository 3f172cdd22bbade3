"""Position-binned metrics by hand, and the paired passage bootstrap against a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.data.serialize import json_text
from ragunc.positional.evaluation import (
    CURVE_BINS,
    PositionalSweep,
    evaluate_settings,
    harmonic_mean,
    load_sweep,
    ndcg_at_10,
    positional_sensitivity,
    relevant_ranks,
    save_sweep,
)
from ragunc.positional.passages import PositionalQueries, length_bucket
from ragunc.positional.settings import STOCK, Calibration


def test_psi_and_harmonic_mean_on_hand_numbers():
    groups = np.array([0.9503, 0.9497, 0.9246])
    # PSI = 1 - 0.9246 / 0.9503 = 0.02704;  HM = 3 / (1.052299 + 1.052964 + 1.081549) = 0.941379.
    assert positional_sensitivity(groups) == pytest.approx(0.02704, abs=1e-5)
    assert round(float(positional_sensitivity(groups)), 3) == 0.027
    assert harmonic_mean(groups) == pytest.approx(0.941379, abs=1e-6)
    assert harmonic_mean(np.array([0.9, 0.0, 0.8])) == 0.0
    assert np.isnan(positional_sensitivity(np.zeros(3)))
    assert positional_sensitivity(np.array([[0.5, 0.5, 0.5], [0.8, 0.4, 0.6]])).tolist() == [0.0, 0.5]


def test_ndcg_at_10_with_one_relevant_passage():
    assert ndcg_at_10(np.array([1, 3, 10, 11])).tolist() == pytest.approx([1.0, 0.5, 1 / np.log2(11), 0.0])


def test_ranks_count_ties_against_the_relevant_passage():
    queries = np.array([[1.0, 0.0], [0.6, 0.8]])
    passages = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert relevant_ranks(queries, passages, np.array([1, 2])).tolist() == [2, 1]


def _queries(n_passages: int, rng) -> PositionalQueries:
    position = (np.arange(3)[None, :] + rng.random((n_passages, 3))).ravel() / 3
    return PositionalQueries(
        passage_ids=tuple(f"d{p}@0" for p in range(n_passages)),
        passages=("x",) * n_passages,
        passage_tokens=np.full(n_passages, 480),
        texts=("q",) * (3 * n_passages),
        passage=np.repeat(np.arange(n_passages), 3),
        group=np.tile(np.arange(3), n_passages),
        position=position,
        span_end=np.zeros(3 * n_passages, dtype=np.int64),
        kept_tokens=510,
        source="test",
    )


def _embeddings_with_ranks(ranks: np.ndarray, n_passages: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Query rows that score passage j with entry j (passages = identity), the relevant one at ``ranks``."""
    scores = rng.random((len(ranks), n_passages))
    relevant = np.repeat(np.arange(n_passages), 3)
    for q, (r, p) in enumerate(zip(ranks, relevant)):
        others = np.sort(np.delete(scores[q], p))[::-1]
        scores[q, p] = others[r - 2] - 1e-9 if r > 1 else others[0] + 0.1
    return scores, np.eye(n_passages)


def test_metrics_and_paired_intervals_match_a_plain_bootstrap_loop():
    rng = np.random.default_rng(0)
    n_passages = 60
    queries = _queries(n_passages, rng)
    # Rank distributions that worsen from begin to end, and a second setting that helps the end.
    ranks_a = np.minimum(rng.geometric([0.8, 0.5, 0.3], size=(n_passages, 3)), n_passages).ravel()
    ranks_b = ranks_a.reshape(n_passages, 3).copy()
    ranks_b[:, 2] = np.maximum(1, ranks_b[:, 2] - rng.integers(0, 3, n_passages))
    ranks_b = ranks_b.ravel()
    qa, pa = _embeddings_with_ranks(ranks_a, n_passages, rng)
    qb, pb = _embeddings_with_ranks(ranks_b, n_passages, rng)
    assert np.array_equal(relevant_ranks(qa, pa, queries.passage), ranks_a)
    half = Calibration(lam=0.5)
    reps = 4000
    stock, calibrated = evaluate_settings(queries, [qa, qb], [pa, pb], [STOCK, half], reps=reps, rng=1)

    ndcg_a = ndcg_at_10(ranks_a).reshape(n_passages, 3)
    ndcg_b = ndcg_at_10(ranks_b).reshape(n_passages, 3)
    assert [stock.metrics[g] for g in ("begin", "middle", "end")] == pytest.approx(ndcg_a.mean(0).tolist())
    assert stock.metrics["hm"] == pytest.approx(float(harmonic_mean(ndcg_a.mean(0))))
    assert stock.metrics["gap"] == pytest.approx(ndcg_a[:, 0].mean() - ndcg_a[:, 2].mean())
    assert calibrated.diff["psi"] == pytest.approx(
        float(positional_sensitivity(ndcg_b.mean(0)) - positional_sensitivity(ndcg_a.mean(0)))
    )
    assert stock.diff == {k: 0.0 for k in stock.diff} and all(lo == hi == 0.0 for lo, hi in stock.diff_ci.values())

    # The same statistics by a plain loop: draw passages, recompute, take percentiles.
    loop = np.random.default_rng(2)
    draws = loop.integers(0, n_passages, (reps, n_passages))
    means_a, means_b = ndcg_a[draws].mean(1), ndcg_b[draws].mean(1)
    expected = {
        "begin": np.percentile(means_a[:, 0], [2.5, 97.5]),
        "gap": np.percentile(means_a[:, 0] - means_a[:, 2], [2.5, 97.5]),
        "hm": np.percentile(harmonic_mean(means_a), [2.5, 97.5]),
        "psi": np.percentile(positional_sensitivity(means_a), [2.5, 97.5]),
    }
    expected_diff = {
        "end": np.percentile(means_b[:, 2] - means_a[:, 2], [2.5, 97.5]),
        "psi": np.percentile(positional_sensitivity(means_b) - positional_sensitivity(means_a), [2.5, 97.5]),
    }
    for name, bounds in expected.items():
        assert stock.ci[name] == pytest.approx(tuple(bounds), abs=0.015), name
    for name, bounds in expected_diff.items():
        assert calibrated.diff_ci[name] == pytest.approx(tuple(bounds), abs=0.015), name
    # Paired: the end-group gain is far tighter than the two groups' own intervals would suggest.
    width = np.diff(calibrated.diff_ci["end"])[0]
    assert width < 0.6 * (np.diff(calibrated.ci["end"])[0] + np.diff(stock.ci["end"])[0])
    assert calibrated.diff_ci["end"][0] > 0


def test_curve_averages_the_queries_of_each_position_bin():
    rng = np.random.default_rng(3)
    n_passages = 30
    queries = _queries(n_passages, rng)
    ranks = rng.integers(1, 15, 3 * n_passages)
    q, p = _embeddings_with_ranks(ranks, n_passages, rng)
    (result,) = evaluate_settings(queries, [q], [p], [STOCK], reps=200, rng=0)
    bins = np.minimum((queries.position * CURVE_BINS).astype(int), CURVE_BINS - 1)
    ndcg = ndcg_at_10(ranks)
    for b in range(CURVE_BINS):
        expected = ndcg[bins == b].mean() if (bins == b).any() else np.nan
        np.testing.assert_equal(round(result.curve[b], 12), round(expected, 12))
        low, high = result.curve_ci[b]
        assert np.isnan(expected) or low - 1e-12 <= expected <= high + 1e-12


def test_bad_evaluation_inputs_are_named():
    rng = np.random.default_rng(4)
    queries = _queries(5, rng)
    q, p = _embeddings_with_ranks(np.ones(15, dtype=int), 5, rng)
    with pytest.raises(ValueError, match="for every calibration"):
        evaluate_settings(queries, [q], [p, p], [STOCK, Calibration()])
    with pytest.raises(ValueError, match="reps"):
        evaluate_settings(queries, [q], [p], [STOCK], reps=1)
    with pytest.raises(ValueError, match="level"):
        evaluate_settings(queries, [q], [p], [STOCK], level=95)


def test_a_sweep_survives_a_round_trip_through_its_file(tmp_path):
    rng = np.random.default_rng(5)
    queries = _queries(12, rng)
    q, p = _embeddings_with_ranks(rng.integers(1, 12, 36), 12, rng)
    results = evaluate_settings(
        queries, [q, q], [p, p[::-1]], [STOCK, Calibration(lam=1.0, layers="all")], reps=300, rng=0
    )
    sweep = PositionalSweep(
        encoder={"model": "m", "pooling": "mean", "max_seq_length": 512},
        passages={**queries.describe()},
        query_model={},
        settings=results,
        level=0.95,
        reps=300,
        seed=0,
        seconds=1.5,
    )
    again = load_sweep(save_sweep(sweep, tmp_path / "sweep.json"))
    assert json_text(again.entries()) == json_text(sweep.entries())  # NaN (an empty curve bin) as null
    assert np.array_equal(again.settings[1].per_passage, results[1].per_passage)
    entry = sweep.entries()[1]
    assert {"lambda", "basket", "layers", "ndcg10", "hm", "psi", "ci", "truncated_share", "max_seq_length"} <= set(
        entry
    )
    assert set(entry["ndcg10"]) == {"begin", "middle", "end", "all"} and set(entry["ci"]["diff"]) >= {
        "gap",
        "hm",
        "psi",
    }


def test_length_buckets_follow_posir():
    assert length_bucket(440, 505) == "≤512"
    assert length_bucket(600, 1000) == "512–1024"
    assert length_bucket(400, 700) == "mixed"
