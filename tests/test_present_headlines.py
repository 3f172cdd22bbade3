"""The pages' one-sentence headlines say the statistics' own numbers."""

from pathlib import Path

from ragunc import positional
from ragunc.present import numbers
from ragunc.present.headlines import positional_headline

BUNDLED = Path(__file__).resolve().parents[1] / "sample_data" / "positional_stdlib.json"


def test_positional_headline_says_the_sweeps_gap_and_its_intervals():
    sweep = positional.load_sweep(BUNDLED)
    line = sweep.along_lambda(*sweep.series()[0])
    best = max(line[1:], key=lambda s: s.metrics["hm"])
    text = positional_headline(sweep, best)
    stock = sweep.reference
    assert stock.metrics["gap"] == stock.metrics["begin"] - stock.metrics["end"]
    for value in (
        stock.metrics["end"],
        stock.metrics["begin"],
    ):
        assert numbers.percent(value) in text
    for value in (stock.metrics["gap"], *stock.ci["gap"], best.diff["gap"], *best.diff_ci["gap"]):
        assert numbers.signed_points(value) in text
    assert f"{sweep.passages['n_passages']:,} passages" in text and f"λ = {best.calibration.lam:g}" in text
    # The verdict follows the interval: clear of zero exactly when it excludes zero.
    low, high = stock.ci["gap"]
    assert ("clear of zero" in text.split(";")[0]) == (low > 0 or high < 0)
