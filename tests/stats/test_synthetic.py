"""ragunc.synth and ``ragunc synth``: realized p, ICC, autocorrelation, sizes and strata against theory."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragunc.cli import main
from ragunc.data.results import load_results, results_from_frame
from ragunc.stats.diagnostics import deff_equal_size, diagnostics
from ragunc.stats.synthetic import stratum_rates, synthesize, synthesize_chunk_sizes


def anova_icc(frame: pd.DataFrame) -> float:
    """One-way ANOVA ICC for unequal group sizes, straight from chunk rows."""
    y = frame["y"].astype(float)
    doc_mean = y.groupby(frame["doc_id"]).transform("mean")
    sizes = frame.groupby("doc_id").size().to_numpy()
    k, n = sizes.size, sizes.sum()
    msb = ((doc_mean - y.mean()) ** 2).sum() / (k - 1)
    msw = ((y - doc_mean) ** 2).sum() / (n - k)
    m0 = (n - (sizes**2).sum() / n) / (k - 1)
    return (msb - msw) / (msb + (m0 - 1) * msw)


def neighbour_products(values: pd.Series, frame: pd.DataFrame) -> tuple[float, float]:
    """(sum over neighbouring chunks of v_i v_{i+1}, sum of v_i^2), neighbours by chunk_index."""
    ordered = frame.assign(v=values).sort_values(["doc_id", "chunk_index"])
    nxt = ordered.groupby("doc_id")["v"].shift(-1)
    return float((ordered["v"] * nxt).sum()), float((ordered["v"] ** 2).sum())


def test_same_seed_same_frame_other_seed_other_frame():
    a = synthesize(n_docs=300, rng=11)
    pd.testing.assert_frame_equal(a, synthesize(n_docs=300, rng=11))
    pd.testing.assert_frame_equal(a, synthesize(n_docs=300, rng=np.random.default_rng(11)))
    assert not a["y"].equals(synthesize(n_docs=300, rng=12)["y"])


@settings(max_examples=25, deadline=None)
@given(
    n_docs=st.integers(2, 60),
    mean_chunks=st.floats(1, 12),
    size_cv=st.floats(0, 1.5),
    p=st.floats(0.05, 0.95),
    autocorr=st.floats(0, 0.95),
    doc_types=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_population_is_a_valid_contract_file(n_docs, mean_chunks, size_cv, p, autocorr, doc_types, seed):
    size_cv = 0.0 if mean_chunks == 1 else size_cv
    frame = synthesize(
        n_docs=n_docs,
        mean_chunks=mean_chunks,
        size_cv=size_cv,
        p=p,
        icc=0.02,
        autocorr=autocorr,
        doc_types=doc_types,
        doc_type_share=0.2,
        rng=seed,
    )
    assert list(frame.columns) == ["doc_id", "chunk_id", "chunk_index", "config", "doc_type", "y"]
    assert frame["doc_id"].nunique() == n_docs
    assert frame["y"].isin([0, 1]).all()
    positions = frame.groupby("doc_id")["chunk_index"].agg(["min", "max", "size"])
    assert (positions["min"] == 0).all() and (positions["max"] == positions["size"] - 1).all()
    assert frame.groupby("doc_id")["doc_type"].nunique().max() == 1
    sample = results_from_frame(frame).population("100w")  # the loader's checks all pass
    assert sample.n_chunks == len(frame)
    # The same draw, per document without a frame: what the loader aggregates, field by field.
    (cut,) = synthesize_chunk_sizes(
        (100,),
        n_docs=n_docs,
        mean_chunks=mean_chunks,
        size_cv=size_cv,
        p=p,
        icc=0.02,
        autocorr=autocorr,
        doc_types=doc_types,
        doc_type_share=0.2,
        rng=seed,
    ).values()
    for field in ("cluster_id", "sum_y", "n", "sum_y2", "sum_y_next", "first_y", "last_y", "label"):
        np.testing.assert_array_equal(getattr(cut, field), getattr(sample, field), err_msg=field)


@pytest.mark.parametrize(("mean_chunks", "size_cv"), [(12.0, 0.0), (25.8, 0.3), (25.8, 0.8), (25.8, 1.5), (3.0, 0.4)])
def test_sizes_have_the_target_mean_and_cv(mean_chunks, size_cv):
    sizes = synthesize(n_docs=20_000, mean_chunks=mean_chunks, size_cv=size_cv, rng=5).groupby("doc_id").size()
    assert sizes.min() >= 1
    assert sizes.mean() == pytest.approx(mean_chunks, rel=0.02)
    cv = sizes.std(ddof=0) / sizes.mean()
    assert cv == pytest.approx(size_cv, abs=0.03)


def test_rate_and_icc_match_targets_without_autocorrelation():
    frame = synthesize(n_docs=20_000, mean_chunks=10, size_cv=0.5, p=0.18, icc=0.3, autocorr=0, rng=6)
    assert frame["y"].mean() == pytest.approx(0.18, abs=0.006)
    assert anova_icc(frame) == pytest.approx(0.3, abs=0.015)
    flat = synthesize(n_docs=20_000, mean_chunks=10, size_cv=0.5, p=0.4, icc=0.0, autocorr=0, doc_types=1, rng=7)
    assert anova_icc(flat) == pytest.approx(0.0, abs=0.01)


def test_neighbour_correlation_is_autocorr_when_rates_are_equal():
    # One rate for every document: the raw lag-1 correlation is the chain's phi.
    frame = synthesize(n_docs=5_000, mean_chunks=20, size_cv=0.6, p=0.3, icc=0, autocorr=0.4, doc_types=1, rng=8)
    centred = frame["y"] - 0.3
    cross, square = neighbour_products(centred, frame)
    pairs = len(frame) - frame["doc_id"].nunique()
    assert (cross / pairs) / (square / len(frame)) == pytest.approx(0.4, abs=0.02)


def test_residual_autocorrelation_matches_theory_for_centred_chains():
    # Residuals y - document mean of a chain with corr phi^|i-j| have covariance sigma^2 C R C
    # (C the centring matrix): the pooled lag-1 ratio is sum_i (CRC)_{i,i+1} / trace(CRC).
    m, phi = 20, 0.17
    frame = synthesize(n_docs=8_000, mean_chunks=m, size_cv=0, p=0.18, icc=0.3, autocorr=phi, rng=9)
    lags = np.abs(np.subtract.outer(np.arange(m), np.arange(m)))
    centring = np.eye(m) - 1.0 / m
    cov = centring @ phi**lags @ centring
    expected = np.trace(cov, offset=1) / np.trace(cov)
    residual = frame["y"] - frame.groupby("doc_id")["y"].transform("mean")
    cross, square = neighbour_products(residual, frame)
    assert cross / square == pytest.approx(expected, abs=0.015)
    assert expected < phi  # why the study's 0.17 is a residual statistic, not the chain's phi


def test_doc_types_carry_their_share_of_the_rate_variance():
    p, icc, share, types = 0.3, 0.25, 0.4, 4
    frame = synthesize(
        n_docs=40_000,
        mean_chunks=8,
        size_cv=0.5,
        p=p,
        icc=icc,
        autocorr=0.1,
        doc_types=types,
        doc_type_share=share,
        rng=10,
    )
    doc_rate = frame.groupby("doc_id").agg(rate=("y", "mean"), doc_type=("doc_type", "first"))
    # Each doc's observed rate is unbiased for p_d, so stratum means estimate the stratum rates.
    by_type = doc_rate.groupby("doc_type")["rate"].mean().sort_index().to_numpy()
    target = stratum_rates(p, icc, types, share)
    np.testing.assert_allclose(by_type, target, atol=0.01)
    assert by_type.var() == pytest.approx(share * icc * p * (1 - p), rel=0.15)
    assert target.mean() == pytest.approx(p)
    assert doc_rate.groupby("doc_type").size().to_numpy().tolist() == [types * 2_500] * types


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_docs": 1}, r"n_docs must be an integer >= 2, got 1"),
        ({"mean_chunks": 0.5}, r"mean_chunks must be >= 1"),
        ({"mean_chunks": 1, "size_cv": 0.5}, r"size_cv must be 0 when mean_chunks is 1"),
        ({"size_cv": -1}, r"size_cv must be >= 0"),
        ({"p": 1.0}, r"p must be in \(0, 1\), got 1.0"),
        ({"icc": 1.0}, r"icc must be in \[0, 1\)"),
        ({"autocorr": -0.2}, r"autocorr must be in \[0, 1\)"),
        ({"doc_types": 0}, r"doc_types must be an integer >= 1"),
        ({"doc_type_share": 1.5}, r"doc_type_share must be in \[0, 1\]"),
        ({"icc": 0.9}, r"icc=0.9 with doc_type_share=0.126 over 4 doc types is not reachable at p=0.18"),
    ],
)
def test_impossible_parameters_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        synthesize(**kwargs)


def test_cli_writes_the_contract_file_and_its_truth(tmp_path, capsys):
    out, meta = tmp_path / "pop.parquet", tmp_path / "pop.json"
    args = [
        "synth",
        "--docs",
        "80",
        "--mean-chunks",
        "12",
        "--size-cv",
        "1.0",
        "--p",
        "0.2",
        "--icc",
        "0.25",
        "--autocorr",
        "0.1",
        "--doc-types",
        "3",
        "--config",
        "50w",
        "--seed",
        "4",
    ]
    assert main([*args, "--out", str(out), "--metadata", str(meta), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload == json.loads(meta.read_text())
    frame = pd.read_parquet(out)
    pd.testing.assert_frame_equal(
        frame,
        synthesize(
            n_docs=80, mean_chunks=12, size_cv=1.0, p=0.2, icc=0.25, autocorr=0.1, doc_types=3, config="50w", rng=4
        ),
        check_dtype=False,
    )
    assert payload["counts"]["chunks"] == len(frame) and payload["counts"]["hits"] == int(frame["y"].sum())
    assert payload["truth"]["micro"] == pytest.approx(frame["y"].mean())
    assert payload["truth"]["macro"] == pytest.approx(frame.groupby("doc_id")["y"].mean().mean())
    assert payload["realized"]["icc"] == pytest.approx(anova_icc(frame))
    # The recorded command reproduces the file.
    again = tmp_path / "again.csv.gz"
    replay = payload["command"].split()[1:]
    replay[replay.index("--out") + 1] = str(again)
    assert main(replay) == 0
    assert "wrote" in capsys.readouterr().out
    reloaded = load_results(again).population("50w")
    assert reloaded.n_chunks == len(frame) and reloaded.sum_y.sum() == frame["y"].sum()


def test_cli_refuses_unknown_extension_and_bad_parameters(tmp_path, capsys):
    assert main(["synth", "--out", str(tmp_path / "pop.xlsx")]) == 2
    assert "unknown file type" in capsys.readouterr().err
    assert main(["synth", "--p", "1.5", "--out", str(tmp_path / "pop.csv")]) == 2
    assert "p must be in (0, 1)" in capsys.readouterr().err
    assert not (tmp_path / "pop.csv").exists()


def test_sample_population_matches_its_metadata():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "sample_data"
    meta = json.loads((root / "synthetic_population.json").read_text())
    frame = pd.read_csv(root / "synthetic_population.csv.gz", dtype={"doc_id": str, "chunk_id": str})
    pd.testing.assert_frame_equal(frame, synthesize(**meta["parameters"], rng=meta["seed"]), check_dtype=False)
    assert meta["counts"]["docs"] == frame["doc_id"].nunique() == 1300
    assert meta["counts"]["chunks"] == len(frame) and meta["counts"]["hits"] == frame["y"].sum()
    assert meta["truth"]["micro"] == pytest.approx(frame["y"].mean())
    assert meta["realized"]["icc"] == pytest.approx(anova_icc(frame))
    assert (root / "synthetic_population.csv.gz").stat().st_size < 2_000_000


# ---------------------------------------------------------------- the same documents at several chunk sizes


def test_every_size_cuts_the_same_documents():
    cuts = synthesize_chunk_sizes((100, 30, 5), base_words=100, n_docs=300, mean_chunks=6, size_cv=0.9, rng=3)
    assert list(cuts) == [5, 30, 100]  # finest first
    words = 100 * cuts[100].n  # each document's length
    for w in (30, 5):
        np.testing.assert_array_equal(cuts[w].n, -(-words // w))  # ceil(length / w) chunks
        np.testing.assert_array_equal(cuts[w].cluster_id, cuts[100].cluster_id)
        np.testing.assert_array_equal(cuts[w].label, cuts[100].label)
        assert cuts[w].binary and (cuts[w].sum_y <= cuts[w].n).all()
    assert cuts[5].n_chunks == 20 * cuts[100].n_chunks


def test_finer_sizes_keep_the_documents_rates_and_their_icc():
    # Equal sizes, no neighbour correlation: each size has the generative ICC, and its design effect is
    # 1 + (m - 1) icc (the equal-size formula), so finer chunks raise DEFF, not the information.
    icc, p = 0.3, 0.18
    cuts = synthesize_chunk_sizes(
        (100, 10), base_words=100, n_docs=3000, mean_chunks=20, size_cv=0, p=p, icc=icc, autocorr=0, doc_types=1, rng=11
    )
    for w, m in ((100, 20), (10, 200)):
        d = diagnostics(cuts[w])
        assert cuts[w].sum_y.sum() / cuts[w].n_chunks == pytest.approx(p, abs=0.01)
        assert d.icc == pytest.approx(icc, abs=0.025)
        assert d.deff == pytest.approx(float(deff_equal_size(m, icc)), rel=0.12)
    # the same documents: a document's rate at 10 words is close to its rate at 100 words
    coarse, fine = cuts[100].sum_y / cuts[100].n, cuts[10].sum_y / cuts[10].n
    assert np.corrcoef(coarse, fine)[0, 1] > 0.85


def test_chunk_sizes_same_seed_same_populations_and_bad_sizes_refused():
    a = synthesize_chunk_sizes((50, 10), n_docs=50, rng=4)
    b = synthesize_chunk_sizes((50, 10), n_docs=50, rng=np.random.default_rng(4))
    for w in a:
        np.testing.assert_array_equal(a[w].sum_y, b[w].sum_y)
    with pytest.raises(ValueError, match=r"words and base_words must be positive word counts, got words=\[0\]"):
        synthesize_chunk_sizes((0,))
    with pytest.raises(ValueError, match="base_words"):
        synthesize_chunk_sizes((10,), base_words=0)
    with pytest.raises(ValueError, match="icc must be in"):
        synthesize_chunk_sizes((10,), icc=1.5)
    with pytest.raises(TypeError, match="not config"):
        synthesize_chunk_sizes((10,), config="10w")
