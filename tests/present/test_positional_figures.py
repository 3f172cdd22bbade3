"""Figures of the page "Positional bias": what they draw is the sweep's numbers, in percent."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.positional.evaluation import CURVE_BINS, PositionalSweep, evaluate_settings
from ragunc.positional.passages import PositionalQueries
from ragunc.positional.settings import sweep_settings
from ragunc.present import positional_figures as pf
from ragunc.present.style import OKABE_ITO


def _sweep(n: int) -> PositionalSweep:
    rng = np.random.default_rng(0)
    queries = PositionalQueries(
        passage_ids=tuple(f"d{p}@0" for p in range(n)),
        passages=("x",) * n,
        passage_tokens=np.full(n, 480),
        texts=("q",) * (3 * n),
        passage=np.repeat(np.arange(n), 3),
        group=np.tile(np.arange(3), n),
        position=((np.arange(3)[None, :] + rng.random((n, 3))) / 3).ravel(),
        span_end=np.zeros(3 * n, dtype=int),
        kept_tokens=510,
        source="test",
    )
    settings = sweep_settings(lams=(0.5, 1.0), baskets=(128, 256))
    queries_emb = [rng.normal(size=(3 * n, 8)) for _ in settings]
    passages_emb = [rng.normal(size=(n, 8)) for _ in settings]
    results = evaluate_settings(queries, queries_emb, passages_emb, settings, reps=200, rng=0)
    return PositionalSweep(
        encoder={"model": "m", "pooling": "mean", "max_seq_length": 512},
        passages=queries.describe(),
        query_model={},
        settings=results,
        level=0.9,
        reps=200,
        seed=0,
        seconds=0.0,
    )


@pytest.fixture(scope="module")
def sweep() -> PositionalSweep:
    return _sweep(40)


def _filled_areas(fig) -> list[np.ndarray]:
    """The x values of every area a band fills, as the browser closes it: each gap-separated outline of a
    "toself" trace; for "tonexty", the previous trace's points then this one's (plotly skips undefined points)."""
    areas, previous = [], None
    for trace in fig.data:
        x = np.array([np.nan if v is None else v for v in trace.x], dtype=float)
        y = np.array([np.nan if v is None else v for v in trace.y], dtype=float)
        if trace.fill == "toself":
            gaps = np.flatnonzero(np.isnan(x) | np.isnan(y))
            areas += [part for part in np.split(x, gaps) if np.isfinite(part).any()]
        elif trace.fill == "tonexty":
            px, py = previous
            areas.append(np.concatenate([px[np.isfinite(py)], x[np.isfinite(y)][::-1]]))
        previous = x, y
    return [area[np.isfinite(area)] for area in areas]


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
    upper, lower = [100 * s.ci["begin"][1] for s in line], [100 * s.ci["begin"][0] for s in line]
    assert list(bands[0].y[:-1]) == pytest.approx(upper + lower[::-1])  # upper edge, then the lower one back
    assert list(bands[0].x[:-1]) == [0.0, 0.5, 1.0, 1.0, 0.5, 0.0] and bands[0].fill == "toself"
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
    assert list(bands[-1].y[3:-1]) == pytest.approx([100 * s.diff_ci["hm"][0] for s in line][::-1])  # lower edge


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


def test_curve_bands_leave_bins_without_a_query_empty():
    # With few passages some of the 20 bins hold no query: their band must be a gap, not a diagonal
    # triangle from the last bin with a value to the next.
    few = _sweep(5)
    shown = few.along_lambda(128, "half")[:2]
    centres = (np.arange(CURVE_BINS) + 0.5) / CURVE_BINS * 100
    empty = centres[np.isnan(np.asarray(shown[0].curve, dtype=float))]
    assert empty.size and empty.size < CURVE_BINS  # the case at hand: some bins empty, others not
    fig = pf.position_curve_figure(shown, level=few.level)
    areas = _filled_areas(fig)
    assert areas
    for area in areas:
        inside = empty[(empty > area.min()) & (empty < area.max())]
        assert not inside.size, f"a band spans {area.min():.1f}–{area.max():.1f}% across the empty bins at {inside}"


def test_table_has_a_row_per_setting_with_paired_differences(sweep):
    table = pf.sweep_table(sweep)
    assert len(table) == len(sweep.settings) == 5
    assert table.loc[0, "layers"] == "stock" and table.loc[0, "ΔHM vs λ=0"] == "+0.00 pp"
    assert table.loc[2, "PSI"] == f"{sweep.settings[2].metrics['psi']:.3f}"
    assert {"begin nDCG@10", "middle nDCG@10", "end nDCG@10", "HM 90% CI", "ΔPSI CI"} <= set(table.columns)
    # said as the page's headline says them: nDCG in percent to one decimal, the gap and its interval in points
    m, (low, high) = sweep.settings[2].metrics, sweep.settings[2].ci["gap"]
    assert table.loc[2, "end nDCG@10"] == f"{100 * m['end']:.1f}%"
    assert table.loc[2, "gap 90% CI"] == f"[{100 * low:+.2f}, {100 * high:+.2f}] pp".replace("-", "−")
