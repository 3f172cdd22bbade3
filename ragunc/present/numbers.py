"""One rounding rule per kind of number: every headline, tile, figure, lesson step and report says a
number through these functions, so the same quantity reads the same wherever it appears.

Pure: a float in, a string out.  Rates, bounds and spreads come in as the library returns them
(proportions, 0.925 for 92.5%); undefined values read "—" and infinite ones "∞".

=================  ==========================  =====================================
kind               function                    reads
=================  ==========================  =====================================
rate, coverage     :func:`percent`             92.5%   (one decimal)
ranking score      :func:`score`               0.486   (three decimals; a per-chunk sum can pass 1)
interval           :func:`interval`            [41.2%, 47.9%]
spread, ±, SE      :func:`points`              0.74 pp (two decimals)
half-width         :func:`plus_minus`          ±0.74 pp
difference         :func:`signed_points`       +1.23 pp
its interval       :func:`signed_interval`     [−2.96, +0.52] pp
design effect      :func:`deff`                8.7     (one decimal)
ICC                :func:`icc`                 0.133   (three decimals)
count              :func:`count`               1,234   (exact)
expected count     :func:`about`               about 545 (a mean over samples)
effective n        :func:`effective_n`         62.4, 1,160 (three figures at least)
ratio              :func:`times`               4.5×
level              :func:`level`               95%
=================  ==========================  =====================================

The d3 formats of the same rules (for Plotly hover templates and tick labels) are in :data:`D3`.
"""

from __future__ import annotations

import math

PP = "pp"  # the unit of a difference of two percentages, wherever one is written

D3 = {"percent": ".1f", "points": ".2f", "deff": ".1f", "icc": ".3f", "count": ",.0f"}


def _special(value: float | None) -> str | None:
    if value is None or math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return None


def number(value: float | None, fmt: str) -> str:
    """``value`` in the format ``fmt``; "—" when undefined, "∞" when infinite."""
    return _special(value) or format(value, fmt)


def percent(p: float | None) -> str:
    """A proportion (a rate, an estimate, a bound, a coverage) as a percentage with one decimal: "92.5%"."""
    return _special(p) or f"{100 * p:.1f}%"


def score(x: float | None) -> str:
    """A mean ranking score over queries (Recall@k, MRR, the per-chunk sum that can pass 1): "0.486"."""
    return number(x, ".3f")


def score_interval(low: float | None, high: float | None) -> str:
    """An interval of ranking scores: "0.461 – 0.510"."""
    return f"{score(low)} – {score(high)}"


def interval(low: float | None, high: float | None) -> str:
    """An interval of proportions: "[41.2%, 47.9%]"."""
    return f"[{percent(low)}, {percent(high)}]"


def points(x: float | None) -> str:
    """A spread, an SE or a half-width of proportions, in percentage points with two decimals: "0.74 pp"."""
    return _special(x) or f"{100 * x:.2f} {PP}"


def plus_minus(x: float | None) -> str:
    """A half-width in percentage points: "±0.74 pp"."""
    return _special(x) or f"±{points(x)}"


def _signed(x: float) -> str:
    return f"{100 * x:+.2f}".replace("-", "−")


def signed_points(x: float | None) -> str:
    """A difference of two proportions, in percentage points with its sign: "+1.23 pp", "−0.40 pp"."""
    return _special(x) or f"{_signed(x)} {PP}"


def signed_interval(low: float | None, high: float | None, *, unit: str = PP) -> str:
    """An interval of a difference of proportions, in percentage points: "[−2.96, +0.52] pp" (``unit=""``
    leaves the unit to a table's column header)."""
    return f"[{_special(low) or _signed(low)}, {_special(high) or _signed(high)}] {unit}".rstrip()


def deff(x: float | None) -> str:
    """A design effect with one decimal: "8.7"."""
    return number(x, ".1f")


def icc(x: float | None) -> str:
    """An intraclass correlation with three decimals: "0.133"."""
    return number(x, ".3f")


def count(n: float | None) -> str:
    """An exact count with thousands separators: "1,234"."""
    return number(n, ",.0f")


def about(x: float | None) -> str:
    """A count that is a mean over samples (chunks a sample of K documents holds): "about 545"."""
    return _special(x) or f"about {x:,.0f}"


def effective_n(x: float | None) -> str:
    """An effective sample size in independent chunks, to three figures at least: "62.4", "1,160".

    A tenth of a chunk is kept below 100, where effective n sits close under its ceiling K/ρ and
    whole chunks would read the two as equal."""
    return number(x, ",.1f" if x is not None and abs(x) < 100 else ",.0f")


def times(x: float | None) -> str:
    """A ratio of two spreads or widths with one decimal: "4.5×"."""
    return _special(x) or f"{x:.1f}×"


def level(x: float) -> str:
    """A confidence level or a target power: "95%"."""
    return f"{x:.0%}"
