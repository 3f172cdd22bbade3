"""One-sentence headlines: what a page found for this data, in plain words (documents, passages, how
sure), before any method name.  Pure: results in, a string out; every number through :mod:`.numbers`."""

from __future__ import annotations

from ..positional.evaluation import PositionalSweep, SettingResult
from ..ranking.metrics import TRUNCATE_DEDUP
from ..ranking.uncertainty import RecallReport
from ..stats.planning import PlanResult
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


def recall_headline(report: RecallReport) -> str:
    """What the run's top k bring of the relevant documents, how sure that is with queries grouped by their
    source, and what counting every matching chunk would claim instead."""
    top = f"the top {report.k} chunks" if report.order == TRUNCATE_DEDUP else f"the first {report.k} distinct documents"
    queries = f"{numbers.count(report.n_queries)} {'query' if report.n_queries == 1 else 'queries'}"
    if report.recommendation is None:
        sure = "too few groups of queries for an interval"
    else:
        low, high = report.recommended().ci
        naive_low, naive_high = report.interval("naive").ci
        groups = f"{numbers.count(report.n_groups)} groups of queries" + (
            f" by {report.group_col}" if report.group_col else ""
        )
        sure = f"{numbers.level(report.level)} interval {numbers.score_interval(low, high)} with the {groups} as the sampling units"
        if naive_high > naive_low:
            sure += (
                f", {numbers.times((high - low) / (naive_high - naive_low))} as wide as if every query were independent"
            )
    return (
        f"Over {queries}, {top} bring {numbers.score(report.recall)} of a query's relevant documents on average "
        f"({sure}); counting every matching chunk instead would claim {numbers.score(report.naive_sum)}."
    )


def plan_headline(plan: PlanResult, *, what: str) -> str:
    """How many documents the target half-width takes, beside the chunks the binomial formula would stop at."""
    return (
        f"To know {what} within {numbers.plus_minus(plan.half_width)} at {numbers.level(plan.level)}, judge "
        f"{numbers.count(plan.docs_needed)} documents ({numbers.about(plan.chunks_expected)} chunks); the binomial "
        f"formula, which takes chunks as independent, would stop at {numbers.count(plan.naive_chunks_needed)} chunks."
    )
