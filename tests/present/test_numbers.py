import math

import pytest

from ragunc.present import numbers as fmt


@pytest.mark.parametrize(
    "function, value, text",
    [
        (fmt.percent, 0.925, "92.5%"),
        (fmt.percent, 0.92, "92.0%"),  # one rule: the decimal is kept, so 92% and 92.5% never sit side by side
        (fmt.points, 0.00745, "0.74 pp"),
        (fmt.plus_minus, 0.0075, "±0.75 pp"),
        (fmt.signed_points, -0.004, "−0.40 pp"),
        (fmt.signed_points, 0.0123, "+1.23 pp"),
        (fmt.deff, 8.66, "8.7"),
        (fmt.deff, 1.849, "1.8"),
        (fmt.icc, 0.13349, "0.133"),
        (fmt.count, 10000, "10,000"),
        (fmt.about, 544.6, "about 545"),
        (fmt.effective_n, 62.44, "62.4"),
        (fmt.effective_n, 1160.4, "1,160"),
        (fmt.times, 4.46, "4.5×"),
        (fmt.level, 0.95, "95%"),
    ],
)
def test_each_kind_reads_by_its_rule(function, value, text):
    assert function(value) == text


@pytest.mark.parametrize(
    "function", [fmt.percent, fmt.points, fmt.plus_minus, fmt.signed_points, fmt.deff, fmt.icc, fmt.count, fmt.about]
)
def test_undefined_and_infinite_values_read_as_such(function):
    assert function(math.nan) == "—"
    assert function(None) == "—"
    assert function(math.inf) == "∞"


def test_interval_uses_the_percent_rule_on_both_bounds():
    assert fmt.interval(0.4123, 0.479) == f"[{fmt.percent(0.4123)}, {fmt.percent(0.479)}]" == "[41.2%, 47.9%]"


def test_d3_formats_round_as_the_python_rules():
    # Plotly's d3 format and Python's format() agree on these specs; a drift between the two would show here.
    assert format(100 * 0.925, fmt.D3["percent"]) + "%" == fmt.percent(0.925)
    assert format(8.66, fmt.D3["deff"]) == fmt.deff(8.66)
    assert format(0.13349, fmt.D3["icc"]) == fmt.icc(0.13349)
