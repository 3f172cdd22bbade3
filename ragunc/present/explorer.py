"""The explorer's view of every K at once, as the browser draws it: pre-formatted text and figure values per K.

Pure: a :class:`~ragunc.stats.all_k.KTable` in, a JSON-ready dict out.  The browser component
(``dashboard/components/explorer.js``) picks the row for the K on its control and substitutes it,
so it computes nothing: every sentence and number below is written here, with the rounding rules of
:mod:`ragunc.present.numbers`, and each figure is a base Plotly figure plus, per K, the values of a
few of its paths (``"data.0.x"``).  The bootstrap has no closed form: its parts are
:func:`bootstrap_answer`, sent for one (K, B, R) when the reader releases a control, and drawn
"pending" (:data:`PENDING`) until then.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence


from ..stats.all_k import KTable
from ..stats.coverage import CoverageResult
from ..stats.intervals import IntervalReport
from ..stats.methods import interval_methods
from . import numbers
from .design_effects import DEFF_TILE, N_EFF_TILE
from .explorer_figures import interval_label
from .style import REFERENCE_COLOR, method_color, reference_line
from .summary import WORTH_TILE, coverage_held_sentence, design_sentence

PENDING = "computing…"
CONTROL_LABELS = {
    "k": "K: documents per sample",
    "boot": "B: bootstrap replicates",
    "reps": "R: repetitions (coverage)",
}
PERCENT = numbers.D3["percent"]
# Figure text large enough to read from the back of a room at 1280x720, and the width a row label's
# character takes at that size (a bold label's too), so the fixed left margin holds the longest label.
FIGURE_FONT_PX = 16
CHAR_PX = 9


def _finite(x: float) -> bool:
    return x is not None and math.isfinite(x)


def _pct(x: float) -> float | None:
    """A proportion in percent for a figure (null where undefined)."""
    return round(100 * x, 3) if _finite(x) else None


def _design_sentence(row: dict, k: int) -> str:
    return design_sentence(k, row["design_deff"], row["design_chunks"], row["design_n_eff"])


def _coverage_sentence(row: dict, k: int, table: KTable, metric: str) -> str:
    naive, honest = row["coverage_naive"], row["coverage_recommended"]
    if not (_finite(naive) and _finite(honest)):
        return f"At K = D = {table.population_docs:,} every document is in the sample: there is nothing to resample."
    return coverage_held_sentence(table.reps, k, naive, honest, table.level, metric)


# Why the sample's design effect, the repetitions' and the design's differ, with the numbers on screen:
# the browser fills the {fields} from the row of the K shown.
WHY = (
    "The design's {design_deff} is the one to read: it is how much more the estimate varies over repeated samples "
    "of {k} documents than if their chunks were independent. This sample's own estimate of it is {deff}: "
    "measured from the spread between just {k} documents, it moves a lot from one sample to the next. The "
    "repetitions of the coverage experiment measure {variance_ratio}: the same quantity with their own sampling "
    "noise. Within this sample chunks of one document correlate {icc} (ICC); documents of very different lengths "
    "make the design effect larger than equal sizes would."
)


def _shown(methods: Sequence[str], table: KTable, plain: bool) -> list[tuple[str, str, bool]]:
    """(method, row label, analytic) of the methods drawn, in display order."""
    return [(m.name, interval_label(m.name, plain=plain), m.name in table.methods) for m in interval_methods(methods)]


def _tick(label: str, recommended: bool = False) -> str:
    return f"<b>★ {label}</b>" if recommended else label


def _figure(data: list[dict], *, x: str, labels: Sequence[str], reference: tuple[dict, dict]) -> dict:
    """A figure of one row per label, its title in the page (a text slot) and a dashed ``reference`` line."""
    # Fixed margins wide enough for the row labels: Plotly.js's automargin would redraw every figure twice
    # on every move of K (an axis' labels measured, then the plot laid out again).
    widest = max((len(label) for label in labels), default=0)
    layout = {
        "font": {"size": FIGURE_FONT_PX},
        "xaxis": {"title": {"text": x}, "automargin": False},
        "yaxis": {"autorange": "reversed", "automargin": False},
        "height": max(220, 110 + 40 * len(labels)),
        "margin": {"l": 16 + CHAR_PX * widest, "r": 16, "t": 28, "b": 60},
        "hovermode": "closest",
        "showlegend": False,
        "shapes": [reference[0]],
        "annotations": [reference[1]],
    }
    return {"data": data, "layout": layout}


def _interval_traces(shown) -> list[dict]:
    traces = []
    for name, label, _ in shown:
        color = method_color(name)
        traces.append(
            {
                "type": "scatter",
                "x": [None],
                "y": [label],
                "mode": "markers",
                "name": label,
                "showlegend": False,
                "marker": {"color": color, "size": 11, "symbol": "diamond"},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [0],
                    "arrayminus": [0],
                    "color": color,
                    "thickness": 4,
                    "width": 8,
                },
                "hovertemplate": f"<b>{html.escape(label)}</b><br>estimate %{{x:{PERCENT}}}%<extra></extra>",
            }
        )
    return traces


def _bounds(estimate: float, low: float, high: float) -> list:
    """Values of one interval trace's paths: the estimate and its error bars to the bounds (in percent)."""
    if not (_finite(estimate) and _finite(low) and _finite(high)):
        return [[None], [0], [0]]
    return [[_pct(estimate)], [_pct(high - estimate)], [_pct(estimate - low)]]


def _trace_paths(i: int) -> list[str]:
    return [f"data.{i}.x", f"data.{i}.error_x.array", f"data.{i}.error_x.arrayminus"]


def explorer_view(
    table: KTable,
    *,
    methods: Sequence[str],
    plain: bool,
    boots: Sequence[int],
    reps_options: Sequence[int],
    metric: str = "hit@1",
) -> dict:
    """What the browser draws at every K of ``table``: the controls, the text slots and the two figures.

    ``methods`` are the interval methods shown (the analytic ones from the table, the bootstrap ones
    pending until :func:`bootstrap_answer`); ``plain`` labels the short list by its plain names;
    ``boots`` and ``reps_options`` are the B and R choices.
    """
    ks = table.k.tolist()
    rows = [table.row(k) for k in ks]
    shown = _shown(methods, table, plain)
    recommended = table.recommended
    level = numbers.level(table.level)
    slots = [
        "headline",
        "headline_coverage",
        "design_title",
        "design_deff",
        "design_n_eff",
        "design_chunks",
        "sample_title",
        "sample_estimate",
        "sample_interval",
        "sample_chunks",
        "sample_g_star",
        "k",
        "deff",
        "variance_ratio",
        "icc",
        "intervals_title",
        "coverage_title",
    ]
    texts = []
    for k, row in zip(ks, rows):
        texts.append(
            [
                _design_sentence(row, k),
                _coverage_sentence(row, k, table, metric),
                f"The design: repeated samples of K = {k} documents",
                numbers.deff(row["design_deff"]),
                numbers.effective_n(row["design_n_eff"]),
                numbers.about(row["design_chunks"]),
                f"This sample: the {k} documents drawn",
                numbers.percent(row["estimate"]),
                # Where the wild bootstrap is recommended instead, its interval comes with the server's answer.
                PENDING
                if row["recommended_wild"]
                else numbers.interval(row["recommended_low"], row["recommended_high"]),
                numbers.count(row["n_chunks"]),
                numbers.about(row["g_star"]),
                str(k),
                numbers.deff(row["deff"]),
                numbers.deff(row["coverage_variance_ratio"]),
                numbers.icc(row["icc"]),
                f"{level} intervals for {metric}: {k} documents, {numbers.count(row['n_chunks'])} chunks",
                (
                    f"Coverage over {table.reps:,} samples of K = {k} documents (±1.96 Monte Carlo SE)"
                    if k < table.population_docs
                    else f"No coverage at K = D = {table.population_docs:,}: nothing to resample"
                ),
            ]
        )

    # ---- the intervals figure: one trace per method, the analytic ones' values per K
    labels = [label for _, label, _ in shown]
    ticks = [_tick(lab, name == recommended) for name, lab, _ in shown]
    population = reference_line(100 * table.population_value, f"population {numbers.percent(table.population_value)}")
    interval_base = _figure(_interval_traces(shown), x=f"{metric} (%)", labels=ticks, reference=population)
    interval_base["layout"]["yaxis"].update(tickmode="array", tickvals=labels, ticktext=ticks)
    paths = []
    for i, (name, _, analytic) in enumerate(shown):
        if analytic:
            paths += _trace_paths(i)
    interval_values = []
    for k, row in zip(ks, rows):
        values = []
        for name, _, analytic in shown:
            if analytic:
                key = "recommended" if name == recommended else name
                values += _bounds(row["estimate"], row[f"{key}_low"], row[f"{key}_high"])
        interval_values.append(values)

    # ---- the coverage figure: one trace, the analytic methods' coverage per K
    colors = [method_color(name) for name, _, _ in shown]
    nominal = reference_line(100 * table.level, f"nominal {level}")
    coverage_base = _figure(
        [
            {
                "type": "scatter",
                "x": [None] * len(shown),
                "y": labels,
                "mode": "markers",
                "name": "coverage",
                "showlegend": False,
                "marker": {"color": colors, "size": 12},
                "error_x": {
                    "type": "data",
                    "array": [0] * len(shown),
                    "thickness": 2,
                    "width": 6,
                    "color": REFERENCE_COLOR,
                },
                "hovertemplate": f"%{{y}}<br>coverage %{{x:{PERCENT}}}%<extra></extra>",
            }
        ],
        x="coverage (%)",
        labels=labels,
        reference=nominal,
    )
    coverage_paths = ["data.0.x", "data.0.error_x.array"]
    coverage_values, lowest = [], 100 * table.level
    for k, row in zip(ks, rows):
        cov, err = [], []
        for name, _, analytic in shown:
            key = "recommended" if name == recommended else name
            value = row.get(f"coverage_{key}") if analytic else None
            cov.append(_pct(value) if value is not None else None)
            err.append(_pct(1.96 * row[f"coverage_{key}_mcse"]) if analytic and _finite(value) else 0)
        lowest = min([c - e for c, e in zip(cov, err) if c is not None] + [lowest])
        coverage_values.append([cov, err])
    # One range for every K: the axis stays put while K moves (and Plotly redraws less).
    coverage_base["layout"]["xaxis"]["range"] = [max(0.0, lowest - 10), 101]

    boot_rows = [i for i, (_, _, analytic) in enumerate(shown) if not analytic]
    html_text = _skeleton(table, boots, reps_options)
    return {
        "id": f"{table.population_docs}-{table.estimator}-{table.level}-{table.seed}-{table.reps}-{'/'.join(methods)}-{plain}",
        "html": html_text,
        "k": {"min": ks[0], "max": ks[-1], "texts": [f"{k} documents" for k in ks]},
        "choices": {
            "boot": list(boots),
            "reps": list(reps_options),
            "bootTexts": [numbers.count(b) for b in boots],
            "repsTexts": [numbers.count(r) for r in reps_options],
        },
        "reps": table.reps,
        "slots": slots,
        "templates": {"why": WHY},
        "rows": texts,
        "figures": {
            "intervals": {"base": interval_base, "paths": paths, "values": interval_values},
            "coverage": {"base": coverage_base, "paths": coverage_paths, "values": coverage_values},
        },
        "pending": {
            "parts": 2 if boot_rows else 0,
            "text": {
                "boot_status": f"Bootstrap intervals and their coverage for this K: {PENDING}" if boot_rows else ""
            },
            "figures": {
                "intervals": {
                    "paths": [f"layout.yaxis.ticktext.{i}" for i in boot_rows],
                    "values": [f"{ticks[i]} · {PENDING}" for i in boot_rows],
                }
            },
        },
    }


def bootstrap_answer(
    report: IntervalReport,
    coverage: CoverageResult | None,
    *,
    methods: Sequence[str],
    plain: bool,
    table: KTable,
    boot: int,
    reps: int,
) -> dict:
    """The bootstrap's parts of ``view`` for the nested sample at ``report``'s K: patches on its two figures."""
    shown = _shown(methods, table, plain)
    k = report.n_docs
    interval_paths, interval_values, coverage_paths, coverage_values = [], [], [], []
    for i, (name, label, analytic) in enumerate(shown):
        if analytic:
            continue
        est = report.interval(name)
        interval_paths += _trace_paths(i)
        interval_values += _bounds(report.estimate, *est.ci)
        held = None if coverage is None else coverage.methods[name].coverage
        if coverage is not None and _finite(held):
            coverage_paths += [f"data.0.x.{i}", f"data.0.error_x.array.{i}"]
            coverage_values += [_pct(held), _pct(1.96 * coverage.methods[name].mcse)]
    return {
        "k": k,
        "boot": boot,
        "reps": reps,
        "text": {"boot_status": "", "sample_interval": numbers.interval(*report.recommended().ci)},
        "figures": {
            "intervals": {"paths": interval_paths, "values": interval_values},
            "coverage": {"paths": coverage_paths, "values": coverage_values},
        },
    }


def _range(name: str, label: str, low: int, high: int) -> str:
    return (
        f'<div class="control"><label for="ragunc-{name}"><span>{html.escape(label)}</span>'
        f'<output data-value="{name}" for="ragunc-{name}"></output></label>'
        f'<input type="range" id="ragunc-{name}" name="{name}" min="{low}" max="{high}" step="1" '
        f'aria-label="{html.escape(label)}"></div>'
    )


def _tile(slot: str, label: str) -> str:
    return (
        f'<div class="tile"><div class="label">{html.escape(label)}</div>'
        f'<div class="value" data-slot="{slot}" aria-live="polite"></div></div>'
    )


def _skeleton(table: KTable, boots: Sequence[int], reps_options: Sequence[int]) -> str:
    """The component's markup: its controls, the text slots and the figures' places (filled per K by the browser)."""
    return (
        '<div class="controls" role="group" aria-label="Explorer controls">'
        + _range("k", CONTROL_LABELS["k"], 2, table.population_docs)
        + _range("boot", CONTROL_LABELS["boot"], 0, len(boots) - 1)
        + _range("reps", CONTROL_LABELS["reps"], 0, len(reps_options) - 1)
        + "</div>"
        '<p class="headline" data-slot="headline" aria-live="polite"></p>'
        '<p data-slot="headline_coverage"></p>'
        '<div class="boxes">'
        '<div class="box" data-box="design"><b data-slot="design_title"></b><div class="tiles">'
        + _tile("design_deff", DEFF_TILE)
        + _tile("design_n_eff", N_EFF_TILE)
        + _tile("design_chunks", "Chunks a sample holds")
        + '</div></div><div class="box" data-box="sample"><b data-slot="sample_title"></b><div class="tiles">'
        + _tile("sample_estimate", "Its hit@1")
        + _tile("sample_interval", f"Recommended {numbers.level(table.level)} interval")
        + _tile("sample_chunks", "Its chunks")
        + _tile("sample_g_star", WORTH_TILE)
        + "</div></div></div>"
        '<details><summary>Why these design effects differ</summary><p data-template="why"></p></details>'
        '<h4 data-slot="intervals_title"></h4>'
        '<div data-figure="intervals" role="img" aria-label="The intervals of this sample"></div>'
        '<p data-slot="boot_status" data-pending-part></p>'
        '<h4 data-slot="coverage_title"></h4>'
        '<div data-figure="coverage" role="img" aria-label="Coverage over repeated samples"></div>'
    )
