"""The chunk-size figure, table and reading: every size drawn where its diagnostics say, labelled, Okabe–Ito."""

from __future__ import annotations

import numpy as np
import pytest

from ragunc.present.design_effect_figures import chunk_size_figure
from ragunc.present.style import OKABE_ITO
from ragunc.present.summary import chunk_size_reading, chunk_size_table
from ragunc.stats.design import chunk_size_diagnostics
from ragunc.stats.sample import ClusterStats


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(5)
    n = rng.integers(1, 15, 200)
    sum_y = rng.binomial(n, rng.beta(0.5, 1.5, 200)).astype(float)
    populations = {
        w: ClusterStats(
            cluster_id=np.arange(200).astype(str), sum_y=sum_y * f, n=n * f, sum_y2=sum_y * f, config=f"{w}w"
        )
        for w, f in ((200, 1), (100, 2), (50, 4))
    }
    return chunk_size_diagnostics(populations, k=20)


def test_every_size_is_drawn_at_its_diagnostics(rows):
    fig = chunk_size_figure(rows)
    traces = {t.name: t for t in fig.data}
    scale = {
        "DEFF": ("deff", 1),
        "ICC": ("icc", 1),
        "effective n = chunks / DEFF": ("n_eff", 1),
        "chunks per sample (what the binomial counts)": ("chunks_per_sample", 1),
        "micro SD (over repeated samples of documents)": ("micro_sd", 100),
        "binomial SD (chunks as independent trials)": ("binomial_sd", 100),
    }
    assert set(traces) == set(scale)
    for name, (field, factor) in scale.items():
        np.testing.assert_array_equal(traces[name].x, [50, 100, 200])
        np.testing.assert_allclose(traces[name].y, [factor * getattr(r, field) for r in rows])
        assert traces[name].line.color in OKABE_ITO.values()
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [
        "Design effect (DEFF)",
        "Intraclass correlation (ICC)",
        "Chunks and effective n in K = 20 documents",
        "SD of the micro estimate, K = 20",
    ]
    assert fig.layout.xaxis.title.text == "words per chunk" and fig.layout.yaxis4.title.text == "percentage points"


def test_the_size_explored_is_ringed_in_every_panel(rows):
    plain, ringed = chunk_size_figure(rows), chunk_size_figure(rows, current=100)
    rings = [t for t in ringed.data if t.name is None]
    assert len(ringed.data) - len(plain.data) == len(rings) == 6
    assert all(list(t.x) == [100] for t in rings)
    with pytest.raises(ValueError, match="at least one chunk size"):
        chunk_size_figure([])


def test_table_and_reading_say_what_the_rows_hold(rows):
    table = chunk_size_table(rows)
    assert table["words per chunk"].tolist() == [50, 100, 200]
    # as the tiles and the sentences say each number, trailing zeros kept
    assert table["chunks in K = 20 documents, on average"].tolist() == [f"{r.chunks_per_sample:,.0f}" for r in rows]
    assert table["micro SD"].tolist() == [f"{100 * r.micro_sd:.2f} pp" for r in rows]
    assert table["DEFF"].tolist() == [f"{r.deff:.1f}" for r in rows]
    reading = chunk_size_reading(rows)
    fine, coarse = rows[0], rows[-1]
    assert f"{coarse.chunks_per_sample:,.0f} → {fine.chunks_per_sample:,.0f} chunks (4.0×)" in reading
    assert f"from {100 * coarse.micro_sd:.2f} pp to {100 * fine.micro_sd:.2f} pp, while" in reading
    assert f"the design effect grows from {coarse.deff:.1f} to {fine.deff:.1f}" in reading
    assert "slider" in chunk_size_reading(rows[:1])
