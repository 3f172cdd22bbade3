"""Figures of the page "Positional bias": what they draw is the sweep's numbers, in percent."""
from __future__ import annotations

import numpy as np
import pytest

from ragunc.positional.evaluation import CURVE_BINS, PositionalSweep, evaluate_settings
from ragunc.positional.passages import PositionalQueries
from ragunc.positional.settings import sweep_settings
from ragunc.present import positional_figures as pf
from ragunc.present.figures import OKABE_ITO


@pytest.fixture(scope="module")
def sweep() -> PositionalSweep:
    rng = np.random.default_rng(0)
    n = 40
    queries = PositionalQueries(
        passage_ids=tuple(f"d{p}@0" for p in range(n)), passages=("x",) * n, passage_tokens=np.full(n, 480),
        texts=("q",) * (3 * n), passage=np.repeat(np.arange(n), 3), group=np.tile(np.arange(3), n),
        position=((np.arange(3)[None, :] + rng.random((n, 3))) / 3).ravel(), span_end=np.zeros(3 * n, dtype=int),
        kept_tokens=510, source="test",
    )
    settings = sweep_settings(lams=(0.5, 1.0), baskets=(128, 256))
    queries_emb = [rng.normal(size=(3 * n, 8)) for _ in settings]
    passages_emb = [rng.normal(size=(n, 8)) for _ in settings]
    results = evaluate_settings(queries, queries_emb, passages_emb, settings, reps=200, rng=0)
    return PositionalSweep(encoder={"model": "m", "pooling": "mean", "max_seq_length": 512}, passages=queries.describe(),
                           query_model={}, settings=results, level=0.9, reps=200, seed=0, seconds=0.0)


def test_a_sweep_splits_into_lambda_lines(sweep):
    assert sweep.series() == [(128, "half", "pooling", "original"), (256, "half", "pooling", "original")]
    line = sweep.along_lambda(256, "half")
    assert [s.calibration.lam for s in line] == [0.0, 0.5, 1.0]
    assert line[0] is sweep.reference and all(s.calibration.basket == 256 for s in line[1:])


def test_group_figure_draws_each_third_with_its_interval_band(sweep):
    line = sweep.along_lambda(128, "half")
    fig = pf.group_ndcg_figure(line, level=sweep.level)
    lines = [t for t in fig.data if t.name]
    assert [t.name for t in lines] == ["begin third", "middle third", "end third"]
    for trace, group in zip(lines, ("begin", "middle", "end")):
        assert list(trace.x) == [0.0, 0.5, 1.0]
        assert list(trace.y) == pytest.approx([100 * s.metrics[group] for s in line])
        assert trace.line.color == pf.GROUP_STYLE[group][0] and trace.line.color in OKABE_ITO.values()
    bands = [t for t in fig.data if not t.name]
    assert list(bands[0].y) == pytest.approx([100 * s.ci["begin"][1] for s in line])  # upper edge first
    assert list(bands[1].y) == pytest.approx([100 * s.ci["begin"][0] for s in line])
    assert len({t.line.dash for t in lines}) == 3  # readable without colour
    assert "90%" in fig.layout.title.text


def test_difference_figure_draws_the_paired_changes(sweep):
    line = sweep.along_lambda(128, "half")
    fig = pf.difference_figure(line, level=sweep.level)
    lines = {t.name: t for t in fig.data if t.name}
    assert list(lines) == ["begin third", "middle third", "end third", "harmonic mean"]
    assert list(lines["end third"].y) == pytest.approx([100 * s.diff["end"] for s in line])
    assert lines["harmonic mean"].y[0] == 0.0  # the stock model against itself
    bands = [t for t in fig.data if not t.name]
    assert list(bands[-1].y) == pytest.approx([100 * s.diff_ci["hm"][0] for s in line])


def test_summary_figure_has_hm_and_psi_panels(sweep):
    line = sweep.along_lambda(128, "half")
    fig = pf.summary_figure(line, level=sweep.level)
    hm, psi = (t for t in fig.data if t.name)
    assert list(hm.y) == pytest.approx([100 * s.metrics["hm"] for s in line])
    assert list(psi.y) == pytest.approx([s.metrics["psi"] for s in line])
    assert hm.xaxis == "x" and psi.xaxis == "x2"


def test_curve_figure_has_twenty_bins_per_setting(sweep):
    shown = sweep.along_lambda(128, "half")[:2]
    fig = pf.position_curve_figure(shown, level=sweep.level)
    curves = [t for t in fig.data if t.name]
    assert len(curves) == 2 and all(len(t.x) == CURVE_BINS for t in curves)
    np.testing.assert_allclose(np.array(curves[1].y, dtype=float), 100 * np.array(shown[1].curve), equal_nan=True)


def test_table_has_a_row_per_setting_with_paired_differences(sweep):
    table = pf.sweep_table(sweep)
    assert len(table) == len(sweep.settings) == 5
    assert table.loc[0, "layers"] == "stock" and table.loc[0, "ΔHM vs λ=0"] == 0.0
    assert table.loc[2, "PSI"] == pytest.approx(round(sweep.settings[2].metrics["psi"], 4))
    assert {"begin nDCG@10", "middle nDCG@10", "end nDCG@10", "HM 90% CI", "ΔPSI CI"} <= set(table.columns)
