"""One-sentence headlines: what a page found for this data, in plain words (documents, passages, how
sure), before any method name.  Pure: results in, a string out; every number through :mod:`.numbers`."""

from __future__ import annotations

from ..positional.evaluation import PositionalSweep, SettingResult
from . import numbers


def _sure(low: float, high: float) -> str:
    return "clear of zero" if low > 0 or high < 0 else "could still be zero"


def positional_headline(sweep: PositionalSweep, best: SettingResult) -> str:
    """The stock encoder's gap between answers early and late in a passage, and what the best calibration
    (``best``, one of the sweep's settings) changes, each with its interval over passages."""
    stock = sweep.reference
    gap, (low, high) = stock.metrics["gap"], stock.ci["gap"]
    shift, (d_low, d_high) = best.diff["gap"], best.diff_ci["gap"]
    pct = numbers.level(sweep.level)
    return (
        f"On {numbers.count(sweep.passages['n_passages'])} passages, the stock encoder finds an answer in the last "
        f"third less well than in the first (nDCG@10 {numbers.percent(stock.metrics['end'])} against "
        f"{numbers.percent(stock.metrics['begin'])}: a gap of {numbers.signed_points(gap)}, {pct} interval "
        f"{numbers.signed_points(low)} to {numbers.signed_points(high)}, {_sure(low, high)}); the best calibration "
        f"(λ = {best.calibration.lam:g}) changes that gap by {numbers.signed_points(shift)} ({numbers.signed_points(d_low)} to "
        f"{numbers.signed_points(d_high)}, {_sure(d_low, d_high)})."
    )
