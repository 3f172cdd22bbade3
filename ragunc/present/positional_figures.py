"""Plotly builders for the page "Positional bias": pure functions of a :class:`PositionalSweep`.

nDCG@10 is drawn in percent; every interval is the sweep's paired cluster bootstrap over
passages.  Colours are Okabe–Ito (shared with :mod:`ragunc.present.style`), and every series
also has its own dash and marker so the figures read without colour.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..positional.evaluation import CURVE_BINS, PositionalSweep, SettingResult
from ..positional.passages import POSITION_GROUPS
from . import numbers
from .style import LEGEND_BELOW, OKABE_ITO, REFERENCE_COLOR

GROUP_STYLE = {  # colour, dash, marker
    "begin": (OKABE_ITO["blue"], "solid", "circle"),
    "middle": (OKABE_ITO["orange"], "dash", "square"),
    "end": (OKABE_ITO["vermillion"], "dot", "diamond"),
}
SUMMARY_STYLE = {
    "hm": (OKABE_ITO["bluish_green"], "solid", "circle"),
    "psi": (OKABE_ITO["reddish_purple"], "dash", "square"),
}
SUMMARY_LABELS = {"hm": "harmonic mean of the groups' nDCG@10", "psi": "PSI = 1 − min / max"}


def _with_layout(fig: go.Figure, *, title: str, height: int = 400) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        height=height,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        hovermode="closest",
        legend=LEGEND_BELOW,
    )
    return fig


def _band(x, low, high, colour: str, name: str, **where) -> list[go.Scatter]:
    """An interval band: one closed outline (upper edge, then the lower edge back) per run of points whose
    interval is defined, so a point without one (a bin with no query) leaves a gap."""
    x, low, high = (np.asarray(v, dtype=float) for v in (x, low, high))
    defined = np.flatnonzero(np.isfinite(low) & np.isfinite(high))
    xs, ys = [], []
    for run in np.split(defined, np.flatnonzero(np.diff(defined) > 1) + 1):
        if run.size:
            xs += [*x[run], *x[run[::-1]], None]
            ys += [*high[run], *low[run[::-1]], None]
    return [
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            fill="toself",
            fillcolor=_translucent(colour),
            line={"width": 0},
            hoverinfo="skip",
            showlegend=False,
            legendgroup=name,
            **where,
        )
    ]


def _translucent(colour: str, alpha: float = 0.18) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def group_ndcg_figure(settings: list[SettingResult], *, level: float) -> go.Figure:
    """nDCG@10 of the beginning, middle and end groups against lambda, with their intervals (percent).

    ``settings`` is one line of the sweep (:meth:`PositionalSweep.along_lambda`).
    """
    lams = [s.calibration.lam for s in settings]
    fig = go.Figure()
    for name in POSITION_GROUPS:
        colour, dash, marker = GROUP_STYLE[name]
        low = [100 * s.ci[name][0] for s in settings]
        high = [100 * s.ci[name][1] for s in settings]
        fig.add_traces(_band(lams, low, high, colour, name))
        fig.add_trace(
            go.Scatter(
                x=lams,
                y=[100 * s.metrics[name] for s in settings],
                name=f"{name} third",
                legendgroup=name,
                mode="lines+markers",
                line={"color": colour, "dash": dash, "width": 2.5},
                marker={"symbol": marker, "size": 8},
                customdata=np.column_stack([low, high]),
                hovertemplate=(
                    f"<b>{name} third</b><br>λ = %{{x:g}}<br>nDCG@10 %{{y:.1f}}%<br>"
                    f"{level:.0%} CI %{{customdata[0]:.1f}} to %{{customdata[1]:.1f}}%<extra></extra>"
                ),
            )
        )
    cal = settings[-1].calibration
    fig.update_xaxes(title_text="calibration strength λ (0 = stock model)")
    fig.update_yaxes(title_text="nDCG@10 (%)")
    return _with_layout(
        fig,
        title=f"nDCG@10 by where the answer sits (B = {cal.basket}, layers {cal.layers}); "
        f"bands: {level:.0%} cluster bootstrap over passages",
    )


def difference_figure(settings: list[SettingResult], *, level: float) -> go.Figure:
    """Each group's nDCG@10 and the harmonic mean minus the stock model's, with paired intervals (points).

    The same resampled passages score every setting, so these intervals are much narrower than
    the groups' own: they answer "did calibration change this?".
    """
    lams = [s.calibration.lam for s in settings]
    fig = go.Figure()
    styles = {**GROUP_STYLE, "hm": SUMMARY_STYLE["hm"]}
    for name, (colour, dash, marker) in styles.items():
        label = "harmonic mean" if name == "hm" else f"{name} third"
        low = [100 * s.diff_ci[name][0] for s in settings]
        high = [100 * s.diff_ci[name][1] for s in settings]
        fig.add_traces(_band(lams, low, high, colour, label))
        fig.add_trace(
            go.Scatter(
                x=lams,
                y=[100 * s.diff[name] for s in settings],
                name=label,
                legendgroup=label,
                mode="lines+markers",
                line={"color": colour, "dash": dash, "width": 2.5},
                marker={"symbol": marker, "size": 8},
                customdata=np.column_stack([low, high]),
                hovertemplate=(
                    f"<b>{label}</b><br>λ = %{{x:g}}<br>change %{{y:+.1f}} points<br>paired {level:.0%} "
                    "CI %{customdata[0]:+.1f} to %{customdata[1]:+.1f}<extra></extra>"
                ),
            )
        )
    fig.add_hline(y=0, line={"color": REFERENCE_COLOR, "dash": "dash", "width": 1})
    fig.update_xaxes(title_text="calibration strength λ")
    fig.update_yaxes(title_text="change in nDCG@10 vs λ = 0 (points)")
    return _with_layout(
        fig, title=f"What calibration changed, with paired {level:.0%} intervals (same passages resampled for every λ)"
    )


def summary_figure(settings: list[SettingResult], *, level: float) -> go.Figure:
    """The harmonic mean (left) and PSI (right) against lambda, with their intervals."""
    lams = [s.calibration.lam for s in settings]
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=[SUMMARY_LABELS["hm"], SUMMARY_LABELS["psi"]], horizontal_spacing=0.12
    )
    for col, name in enumerate(("hm", "psi"), start=1):
        colour, dash, marker = SUMMARY_STYLE[name]
        scale = 100 if name == "hm" else 1
        low = [scale * s.ci[name][0] for s in settings]
        high = [scale * s.ci[name][1] for s in settings]
        fig.add_traces(_band(lams, low, high, colour, name), rows=1, cols=col)
        fig.add_trace(
            go.Scatter(
                x=lams,
                y=[scale * s.metrics[name] for s in settings],
                name=SUMMARY_LABELS[name],
                mode="lines+markers",
                line={"color": colour, "dash": dash, "width": 2.5},
                marker={"symbol": marker, "size": 8},
                customdata=np.column_stack([low, high]),
                hovertemplate=(
                    f"<b>{SUMMARY_LABELS[name]}</b><br>λ = %{{x:g}}<br>%{{y:.3f}}<br>"
                    f"{level:.0%} CI %{{customdata[0]:.3f}} to %{{customdata[1]:.3f}}<extra></extra>"
                ),
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text="λ", row=1, col=col)
    fig.update_yaxes(title_text="HM of nDCG@10 (%)", row=1, col=1)
    fig.update_yaxes(title_text="PSI (0 = no positional gap)", row=1, col=2)
    return _with_layout(fig, title="Effectiveness and positional sensitivity against λ", height=380)


def position_curve_figure(settings: list[SettingResult], *, level: float) -> go.Figure:
    """PosIR's curve: nDCG@10 over 20 bins of the answer's relative position, per setting shown."""
    centres = (np.arange(CURVE_BINS) + 0.5) / CURVE_BINS * 100
    fig = go.Figure()
    colours = (REFERENCE_COLOR, OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["bluish_green"])
    dashes, markers = ("dot", "solid", "dash", "dashdot"), ("circle-open", "circle", "square", "diamond")
    for i, setting in enumerate(settings):
        colour = colours[i % len(colours)]
        name = setting.calibration.label()
        curve = 100 * np.asarray(setting.curve, dtype=float)
        bounds = 100 * np.asarray(setting.curve_ci, dtype=float)
        fig.add_traces(_band(centres, bounds[:, 0], bounds[:, 1], colour, name))
        fig.add_trace(
            go.Scatter(
                x=centres,
                y=curve,
                name=name,
                legendgroup=name,
                mode="lines+markers",
                line={"color": colour, "dash": dashes[i % 4], "width": 2.5},
                marker={"symbol": markers[i % 4], "size": 7},
                connectgaps=False,
                hovertemplate=(
                    f"<b>{name}</b><br>answer at %{{x:.1f}}% of the passage<br>nDCG@10 %{{y:.1f}}%<extra></extra>"
                ),
            )
        )
    for third in (100 / 3, 200 / 3):
        fig.add_vline(x=third, line={"color": REFERENCE_COLOR, "dash": "dash", "width": 1})
    fig.update_xaxes(title_text="relative position of the answer in the passage (%)", range=[0, 100])
    fig.update_yaxes(title_text="nDCG@10 (%)")
    return _with_layout(fig, title=f"nDCG@10 along the passage (20 bins; bands: {level:.0%} cluster bootstrap)")


def sweep_table(sweep: PositionalSweep) -> pd.DataFrame:
    """One row per setting: nDCG@10 per group, HM, PSI and their paired differences with intervals, each
    said as the page's headline and tiles say it (nDCG in percent, its differences in points)."""
    pct = numbers.level(sweep.level)

    def pp(pair) -> str:
        return "—" if not np.all(np.isfinite(pair)) else numbers.signed_interval(*pair)

    def rate(pair) -> str:
        return "—" if not np.all(np.isfinite(pair)) else numbers.interval(*pair)

    def psi(pair, signed=False) -> str:
        sign = "+" if signed else ""
        return "—" if not np.all(np.isfinite(pair)) else f"{pair[0]:{sign}.3f} to {pair[1]:{sign}.3f}"

    rows = []
    for s in sweep.settings:
        cal, m = s.calibration, s.metrics
        row = {"λ": cal.lam, "B": str(cal.basket) if cal.lam else "—", "layers": cal.layers if cal.lam else "stock"}
        for name in POSITION_GROUPS:
            row[f"{name} nDCG@10"] = numbers.percent(m[name])
        row.update(
            {
                "begin − end": numbers.signed_points(m["gap"]),
                f"gap {pct} CI": pp(s.ci["gap"]),
                "HM": numbers.percent(m["hm"]),
                f"HM {pct} CI": rate(s.ci["hm"]),
                "PSI": numbers.icc(m["psi"]),
                f"PSI {pct} CI": psi(s.ci["psi"]),
                "ΔHM vs λ=0": numbers.signed_points(s.diff["hm"]),
                "ΔHM CI": pp(s.diff_ci["hm"]),
                "ΔPSI vs λ=0": f"{s.diff['psi']:+.3f}".replace("-", "−"),
                "ΔPSI CI": psi(s.diff_ci["psi"], signed=True),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)
