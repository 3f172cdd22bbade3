"""The lesson's figures and sentences: every number a sentence gives is the one drawn, and both are the
results' numbers, checked against hand computation and independent re-computation."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import stats

from ragunc.present import lesson
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.intervals import interval_report
from ragunc.stats.methods import interval_method
from ragunc.stats.recommend import RECOMMENDED_METHOD
from ragunc.stats.sample import ClusterStats, draw_sample

Z = stats.norm.ppf(0.975)


def _population(n_docs=300, rho=0.3, p=0.2, seed=1, scale=1):
    """Beta-binomial documents of unequal sizes (built here, independent of ragunc's synthesizer)."""
    rng = np.random.default_rng(seed)
    size = rng.integers(5, 60, n_docs) * scale
    ab = 1 / rho - 1
    total = rng.binomial(size, rng.beta(p * ab, (1 - p) * ab, n_docs)).astype(float)
    return ClusterStats(
        cluster_id=np.array([f"d{i:03d}" for i in range(n_docs)]),
        sum_y=total,
        n=size.astype(np.int64),
        sum_y2=total.copy(),
        config=f"{100 // scale}w",
    )


@pytest.fixture(scope="module")
def population():
    return _population()


@pytest.fixture(scope="module")
def real(population):
    return coverage_experiment(population, k=20, reps=300, boot=0, rng=2)


@pytest.fixture(scope="module")
def iid(population):
    return coverage_experiment(population, k=20, reps=300, boot=0, rng=2, control="iid")


def _shape(fig: go.Figure, kind: str) -> dict:
    return next(s for s in fig.to_dict()["layout"]["shapes"] if s["type"] == kind)


def _held_by_hand(result, method: str, n: int) -> int:
    low, high, truth = result.methods[method].lower[:n], result.methods[method].upper[:n], result.population_value
    return sum(1 for lo, hi in zip(low, high) if lo <= truth <= hi)


def test_seven_steps():
    assert len(lesson.STEPS) == 7 and len(set(lesson.STEPS)) == 7


# ---------------------------------------------------------------- 1. the sample


@pytest.fixture(scope="module")
def ten_thousand():
    """The lesson's example: 20 documents of 500 chunks, 1,800 hits in all (18%)."""
    hits = np.array([0, 0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 130, 150, 180, 200, 250, 225], float)
    assert hits.sum() == 1800
    sample = ClusterStats(
        cluster_id=np.array([f"doc{i}" for i in range(20)]), sum_y=hits, n=np.full(20, 500), sum_y2=hits.copy()
    )
    return sample, interval_report(sample, boot=50, rng=0)


def test_step_1_sentences_are_the_binomial_arithmetic_by_hand(ten_thousand):
    sample, report = ten_thousand
    first, second = lesson.sample_sentences(report, sample)
    # SE = sqrt(0.18 * 0.82 / 10,000) = 0.003842 (0.38 points); half-width 1.96 * SE = 0.753 (0.75 points)
    assert "20 documents cut into 10,000 chunks; 1,800 of the chunks are hits, a rate of 18.0%" in first
    assert "binomial standard error of 0.38 pp" in second and "95% interval of ±0.75 pp" in second


def test_step_1_figure_draws_the_binomial_band_and_each_document(ten_thousand):
    sample, report = ten_thousand
    closed = lesson.sample_figure(report, sample, documents=False)
    opened = lesson.sample_figure(report, sample, documents=True)
    band = _shape(opened, "rect")
    half = 100 * Z * np.sqrt(0.18 * 0.82 / 10_000)
    assert band["x0"] == pytest.approx(18 - half) and band["x1"] == pytest.approx(18 + half)
    assert len(closed.data) == 1 and closed.data[0].x[0] == pytest.approx(18.0)
    assert closed.data[0].text[0] == "18.0% ±0.75 pp"
    documents = opened.data[1]
    np.testing.assert_allclose(sorted(documents.x), sorted(sample.sum_y / 5))  # percent of 500 chunks
    assert len(set(documents.y)) == 20
    assert closed.layout.xaxis.range == opened.layout.xaxis.range  # the reveal does not rescale


# ---------------------------------------------------------------- 2. other draws


def test_step_2_says_step_1s_band_and_the_draws_spread(population, real, ten_thousand):
    _, step_1 = ten_thousand
    first, second = lesson.draws_sentences(real, step_1)
    p = population.sum_y.sum() / population.n_chunks
    se = np.sqrt(0.18 * 0.82 / 10_000)  # step 1's binomial SE by hand, and its ± (0.75 pp): said as in step 1
    sd = np.std(real.estimates, ddof=1)
    assert f"step 1's ±{100 * Z * se:.2f} pp around the population's {100 * p:.1f}%" in first
    assert f"another 20 documents drawn from the {population.n_docs:,}" in first
    assert f"R = 300 draws their standard deviation is {100 * sd:.2f} pp" in second
    assert f"{sd / se:.1f}× step 1's binomial standard error of {100 * se:.2f} pp" in second
    step_1_text = " ".join(lesson.sample_sentences(step_1, ten_thousand[0]))
    assert f"±{100 * Z * se:.2f} pp" in step_1_text


def _stack_by_loop(values, low, width):
    seen, heights = {}, []
    for v in values:
        b = int(np.floor((v - low) / width))
        seen[b] = seen.get(b, 0) + 1
        heights.append(seen[b])
    return np.array(heights)


def test_step_2_figure_stacks_each_draw_on_the_earlier_ones_in_its_bin(real, ten_thousand):
    _, step_1 = ten_thousand
    first = step_1.estimate
    fig = lesson.draws_figure(real, step_1, shown=120)
    values = 100 * np.concatenate(([first], real.estimates))
    band = _shape(fig, "rect")
    truth, half = 100 * real.population_value, 100 * Z * np.sqrt(0.18 * 0.82 / 10_000)
    assert band["x0"] == pytest.approx(truth - half) and band["x1"] == pytest.approx(truth + half)
    others, latest, star = fig.data
    assert len(others.x) + len(latest.x) + len(star.x) == 120
    np.testing.assert_allclose(others.customdata, values[1:119])
    assert star.customdata[0] == pytest.approx(18.0) and latest.customdata[0] == pytest.approx(values[119])
    low = min(values.min(), truth - half)
    width = (max(values.max(), truth + half) - low) / 40 * (1 + 1e-9)
    heights = _stack_by_loop(values, low, width)
    np.testing.assert_array_equal(others.y, heights[1:119])
    assert star.y[0] == heights[0] and latest.y[0] == heights[119]
    # axes fit every draw: they stay put while the teacher adds draws
    one = lesson.draws_figure(real, step_1, shown=1)
    assert one.layout.xaxis.range == fig.layout.xaxis.range and one.layout.yaxis.range == fig.layout.yaxis.range
    assert len(one.data[0].x) == 0 and len(one.data[1].x) == 0 and len(one.data[2].x) == 1


# ---------------------------------------------------------------- 3. where the chance comes from


def test_step_3_census_of_the_drawn_documents(population):
    sample = draw_sample(population, 20, rng=5)
    first, second = lesson.census_sentences(population, sample, 4)
    rate = sample.sum_y.sum() / sample.n.sum()
    rates = 100 * population.sum_y / population.n
    assert f"draw 4 picked the 20 coloured ones, whose {sample.n_chunks:,} chunks give {100 * rate:.1f}%" in first
    assert f"out of {population.n_docs:,}" in first
    assert f"gives {100 * rate:.1f}% again" in second
    assert f"from {rates.min():.1f}% to {rates.max():.1f}%" in second
    fig = lesson.census_figure(population, sample)
    others, drawn = fig.data
    assert len(drawn.x) == 20 and len(others.x) == population.n_docs - 20
    np.testing.assert_allclose(sorted(drawn.y), sorted(100 * sample.sum_y / sample.n))
    assert sorted(np.concatenate([others.x, drawn.x]).tolist()) == list(range(1, population.n_docs + 1))
    lines = {a["text"] for a in fig.to_dict()["layout"]["annotations"]}
    assert f"this draw {100 * rate:.1f}%" in lines


# ---------------------------------------------------------------- 4. ICC, DEFF, effective n


def test_step_4_sentences_are_the_equal_size_arithmetic():
    first, second = lesson.deff_sentences(0.293, 20, 500, where="a study")
    # DEFF = 1 + 499 * 0.293 = 147.207; 10,000 / 147.207 = 67.93; K/rho = 20 / 0.293 = 68.26
    assert "ρ = 0.293 (a study)" in first and "of equal size" in first and "1 + 499 × 0.293 = 147.2 times" in first
    assert "10,000 chunks in all, are then worth 10,000 / 147.2 = 67.9 independent chunks" in second
    assert "K/ρ = 20 / 0.293 = 68.3" in second


def test_step_4_uses_rho_as_printed_so_the_products_can_be_redone():
    first, second = lesson.deff_sentences(0.29551, 20, 500, where="x")
    # with rho = 0.296 as printed: 1 + 499 * 0.296 = 148.704; 10,000 / 148.704 = 67.25; 20 / 0.296 = 67.57
    assert "1 + 499 × 0.296 = 148.7" in first and "= 67.2 independent" in second and "= 67.6." in second


def test_step_4_figure_draws_the_model_and_its_ceiling():
    fig = lesson.deff_figure(0.293, 20, 500)
    chunks, effective, point = fig.data
    m = np.asarray(effective.x)
    np.testing.assert_allclose(effective.y, 20 * m / (1 + (m - 1) * 0.293))
    np.testing.assert_allclose(chunks.y, 20 * m)
    np.testing.assert_allclose(point.y, [10_000, 10_000 / 147.207], rtol=1e-6)
    ceiling = _shape(fig, "line")
    assert ceiling["y0"] == pytest.approx(20 / 0.293)
    label = fig.to_dict()["layout"]["annotations"][0]
    assert label["text"] == "K/ρ = 68.3" and label["y"] == pytest.approx(np.log10(20 / 0.293))  # log axis
    assert fig.layout.yaxis.type == "log" and list(fig.layout.yaxis.tickvals) == [1, 10, 100, 1_000, 10_000]


# ---------------------------------------------------------------- 5. the iid control


def test_step_5_coverage_with_and_without_the_documents(population, real, iid):
    first, second = lesson.iid_sentences(real, iid)
    held_real, held_iid = _held_by_hand(real, "naive", 300), _held_by_hand(iid, "naive", 300)
    assert f"in {100 * held_real / 300:.1f}% of R = 300 samples of 20 documents" in first
    assert f"all {population.n_chunks:,} chunks" in second and f"holds in {100 * held_iid / 300:.1f}%" in second
    assert held_iid > held_real  # the clustering is what breaks the binomial interval
    shuffled = lesson.iid_figure(real, iid, shuffled=True)
    as_they_are = lesson.iid_figure(real, iid, shuffled=False)
    assert shuffled.layout.xaxis.range == as_they_are.layout.xaxis.range
    names = [t.name for t in as_they_are.data]
    assert f"binomial intervals: {_held_by_hand(real, 'naive', 50)} of 50 hold" in names
    held = as_they_are.data[0]
    rows = np.asarray(held.y)[::3]  # one segment per row: (low, high, gap)
    truth = real.population_value
    expected = [i + 1 for i in range(50) if real.methods["naive"].lower[i] <= truth <= real.methods["naive"].upper[i]]
    assert rows.tolist() == expected


# ---------------------------------------------------------------- 6. finer chunks


@pytest.fixture(scope="module")
def designs():
    coarse, fine = _population(seed=4), _population(seed=4, scale=20)  # same rates' draw, 20x the chunks
    return {100: design(coarse, 20, rng=1), 5: design(fine, 20, rng=1)}


def test_step_6_sentences_are_the_designs_numbers(designs):
    first, second = lesson.chunk_size_sentences(designs, 5)
    fine, coarse = designs[5], designs[100]
    assert f"holds {fine.expected_chunks:,.0f} chunks on average instead of {coarse.expected_chunks:,.0f}" in first
    assert f"narrows from ±{100 * Z * coarse.binomial_sd:.2f} pp to ±{100 * Z * fine.binomial_sd:.2f} pp" in first
    assert f"still moves by ±{100 * Z * fine.sd:.2f} pp (±{100 * Z * coarse.sd:.2f} pp at 100 words)" in second
    assert (
        f"worth {fine.n_eff:,.1f} independent ones, the {coarse.expected_chunks:,.0f} were worth "
        f"{coarse.n_eff:,.1f}" in second  # below 100: a tenth of a chunk kept
    )
    alone = " ".join(lesson.chunk_size_sentences(designs, 100))
    assert f"±{100 * Z * coarse.binomial_sd:.2f}" in alone and f"±{100 * Z * coarse.sd:.2f}" in alone


def test_step_6_figure_draws_both_spreads_against_the_chunks(designs):
    fig = lesson.chunk_size_figure(designs, 5)
    real, binomial, ring = fig.data
    np.testing.assert_allclose(real.x, [designs[100].expected_chunks, designs[5].expected_chunks])
    np.testing.assert_allclose(real.y, [100 * Z * designs[w].sd for w in (100, 5)])
    np.testing.assert_allclose(binomial.y, [100 * Z * designs[w].binomial_sd for w in (100, 5)])
    assert list(binomial.text) == ["100 words", "5 words"]
    np.testing.assert_allclose(ring.x, [designs[5].expected_chunks] * 2)


# ---------------------------------------------------------------- 7. the cluster interval


def test_step_7_the_recommended_interval_against_the_binomial(real):
    first, second = lesson.cluster_sentences(real)
    rec = RECOMMENDED_METHOD
    half = np.mean(real.methods[rec].upper - real.methods[rec].lower) / 2
    naive_half = np.mean(real.methods["naive"].upper - real.methods["naive"].lower) / 2
    assert interval_method(rec).label in first
    assert f"±{100 * half:.2f} pp on average at K = 20" in first and f"says ±{100 * naive_half:.2f} pp" in first
    assert f"in {100 * _held_by_hand(real, rec, 300) / 300:.1f}% of R = 300 samples" in second
    assert f"the binomial in {100 * _held_by_hand(real, 'naive', 300) / 300:.1f}%" in second
    fig = lesson.cluster_figure(real)
    names = [t.name for t in fig.data]
    assert f"recommended: {_held_by_hand(real, rec, 50)} of 50 hold" in names
    assert f"binomial: {_held_by_hand(real, 'naive', 50)} of 50 hold" in names


# ---------------------------------------------------------------- the whole lesson, as the browser draws it


def test_the_lesson_view_holds_one_view_per_value_of_each_steps_control(population, real, iid, designs):
    draws = [draw_sample(population, 20, rng=seed) for seed in (5, 6, 7)]
    report = interval_report(draws[0], boot=50, rng=0)
    coverage = {20: real, 40: coverage_experiment(population, k=40, reps=300, boot=0, rng=2)}
    view = lesson.lesson_view(
        population, draws, report, coverage, iid, designs, k=20, icc=0.2, icc_source="here", ms=(1, 10, 500), about="a"
    )
    controls = [step["control"] for step in view["steps"]]
    assert [c["kind"] for c in controls] == ["toggle", "count", "cycle", "choice", "toggle", "choice", "choice"]
    counts = [len(c["values"]) for c in controls]
    assert counts == [2, 0, 3, 3, 2, 2, 2]
    assert [len(step["views"]) for step in view["steps"]] == [2, 1, 3, 3, 2, 2, 2]
    defaults = [c["values"][c["default"]] for c in controls if c["values"]]
    assert defaults == ["0", "1", "500", "0", "5", "20"]  # 500 chunks a document, the finest cut, K = 20
    assert view["steps"][2]["views"][1]["sentences"] == list(lesson.census_sentences(population, draws[1], 2))
    # Step 2: every sample's dot in draw order (step 1's first), as draws_figure places them, and the name of
    # the earlier samples' trace for every count the slider can show.
    shown = view["steps"][1]["views"][0]
    assert len(shown["points"]["x"]) == real.reps + 1 == controls[1]["max"]
    assert shown["points"]["customdata"][0] == pytest.approx(100 * report.estimate)
    assert shown["points"]["customdata"][1:] == pytest.approx(100 * real.estimates)
    every = lesson.draws_figure(real, report, shown=real.reps + 1)
    assert shown["points"]["x"][1:-1] == pytest.approx(np.asarray(every.data[0].x))
    assert (
        shown["names"][9]
        == lesson.draws_figure(real, report, shown=10).data[0].name
        == ("other samples (9 of 300 drawn)")
    )
    assert "template" not in view["steps"][0]["views"][0]["figure"]["layout"]
    json.dumps(view, allow_nan=False)  # JSON as published
