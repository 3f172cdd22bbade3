"""What every figure of ragunc shares: the colour-blind-safe palette, the method colours and labels, the layout.

Pure helpers for the figure modules (one per page family: :mod:`.explorer_figures`,
:mod:`.design_effect_figures`, :mod:`.planning_figures`, and the others named after their page).
Rates are drawn in percent and widths in percentage points.  Colours are Okabe–Ito (colour-blind safe)
and no template or background is fixed, so the host's light or dark theme applies.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..stats.methods import interval_method


# Okabe & Ito (2008); black is replaced by a mid grey so it reads on dark themes too.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#999999",
}
# Okabe-Ito has no ninth hue that reads on light and dark themes: Paul Tol's muted scheme (also
# colour-blind safe) completes it.  Indigo, the darkest, is the recommended interval's.
PAUL_TOL = {
    "wine": "#882255",
    "tol_indigo": "#332288",
    "tol_teal": "#44AA99",
    "tol_olive": "#999933",
    "tol_rose": "#CC6677",
    "tol_green": "#117733",
    "tol_purple": "#AA4499",
    "tol_cyan": "#88CCEE",
}
PALETTE = {**OKABE_ITO, **PAUL_TOL}

# Series colours when several scenarios share one figure.
SERIES_COLORS = (
    OKABE_ITO["blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["bluish_green"],
    OKABE_ITO["orange"],
    OKABE_ITO["reddish_purple"],
    OKABE_ITO["sky_blue"],
)

# The legend below the plot (long titles and legends never overlap in a narrow column), anchored to the
# figure's bottom edge: plotly makes room for it under the x-axis title, where a place at a share of the
# plot's height would meet that title in a short figure. A transparent border keeps the entries clear of the
# x-axis title whatever the browser's font metrics.
LEGEND_BELOW = {
    "orientation": "h",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
    "x": 0,
    "xanchor": "left",
    "borderwidth": 8,
    "bordercolor": "rgba(0,0,0,0)",
}

COVER_COLOR = OKABE_ITO["blue"]
MISS_COLOR = OKABE_ITO["vermillion"]
REFERENCE_COLOR = OKABE_ITO["grey"]


def method_label(method: str) -> str:
    """What tables and figures call a registered interval method (:data:`ragunc.stats.methods.METHODS`)."""
    return interval_method(method).label


def method_color(method: str) -> str:
    """The colour of a registered interval method: its registry entry names a key of :data:`PALETTE`."""
    return PALETTE[interval_method(method).color]


def base_layout(*, title: str, x: str, y: str, height: int = 380, **extra) -> dict:
    return {
        "title": {"text": title, "x": 0, "xanchor": "left"},
        "xaxis": {"title": {"text": x}},
        "yaxis": {"title": {"text": y}},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "hovermode": "closest",
        "legend": LEGEND_BELOW,
        **extra,
    }


def styled(fig: go.Figure, *, title: str, x: str, y: str, height: int = 380) -> go.Figure:
    fig.update_layout(base_layout(title=title, x=x, y=y, height=height))
    return fig


def reference_line(x: float, text: str) -> tuple[dict, dict]:
    """A dashed reference line at ``x`` across the plot, and its label, as layout dicts.

    Cheaper than ``fig.add_vline``, which matters on every rerun of the explorer.
    """
    shape = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5},
    }
    label = {
        "text": text,
        "x": x,
        "xref": "x",
        "y": 1,
        "yref": "paper",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"color": REFERENCE_COLOR},
    }
    return shape, label


def level_line(x: np.ndarray, y: float, name: str) -> go.Scatter:
    """A dashed horizontal line at ``y`` across ``x``, named in the legend: a label on the line would sit
    where the curves approach or cross it (and plotly places a line's label wrongly on a log axis)."""
    return go.Scatter(
        x=[x[0], x[-1]],
        y=[y, y],
        mode="lines",
        name=name,
        hovertemplate=f"{name}<extra></extra>",
        line={"color": REFERENCE_COLOR, "dash": "dash"},
    )


def interval_traces(rows, estimate: float, level: float, unit: str, signed: bool = False) -> list[dict]:
    """One diamond at the estimate with an asymmetric bar to each interval's bounds (percent).

    ``rows`` are ``(label, colour, se or None, (low, high))``.
    """
    traces = []
    sign = "+" if signed else ""
    for label, color, se, (low, high) in rows:
        est = 100 * estimate
        se_text = "" if se is None else f" · SE {100 * se:.2f} pp"
        traces.append(
            {
                "type": "scatter",
                "x": [est],
                "y": [label],
                "mode": "markers",
                "name": label,
                "showlegend": False,
                "marker": {"color": color, "size": 11, "symbol": "diamond"},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [100 * high - est],
                    "arrayminus": [est - 100 * low],
                    "color": color,
                    "thickness": 4,
                    "width": 8,
                },
                "hovertemplate": (
                    f"<b>{label}</b><br>estimate {est:{sign}.2f}{unit}<br>{level:.0%} CI "
                    f"{100 * low:{sign}.2f} to {100 * high:{sign}.2f}{unit}<br>"
                    f"width {100 * (high - low):.2f} pp{se_text}<extra></extra>"
                ),
            }
        )
    return traces
