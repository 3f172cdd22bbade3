"""Which documents dominate a sample: the figure of its documents' leverage (pure: a Leverage in, a go.Figure out)."""

from __future__ import annotations

import plotly.graph_objects as go

from ..stats.leverage import Leverage
from .style import OKABE_ITO, reference_line

# Documents drawn at most: the rest are summed into one bar, so a sample of thousands stays one light trace.
TOP_DOCUMENTS = 15


def leverage_figure(lev: Leverage, *, top: int = TOP_DOCUMENTS) -> go.Figure:
    """The ``top`` documents by leverage as horizontal bars (percent), the others as one bar, and the share
    every document would have if they weighed alike (1/K) as a dashed line; the title gives G*."""
    order = lev.dominant(top)
    rest = lev.n_docs - order.size
    names = [str(lev.doc_id[i]) for i in order]
    values = [100 * float(lev.leverage[i]) for i in order]
    shares = [100 * float(lev.chunk_share[i]) for i in order]
    if rest:
        names.append(f"the other {rest:,} documents")
        values.append(100 * (1 - sum(lev.leverage[i] for i in order)))
        shares.append(100 * (1 - sum(lev.chunk_share[i] for i in order)))
    colors = [OKABE_ITO["vermillion"]] * order.size + [OKABE_ITO["grey"]] * bool(rest)
    fig = go.Figure(
        go.Bar(
            x=values,
            y=names,
            orientation="h",
            marker={"color": colors},
            customdata=shares,
            hovertemplate="%{y}: leverage %{x:.1f}%, %{customdata:.1f}% of the chunks<extra></extra>",
            showlegend=False,
        )
    )
    even = 100 / lev.n_docs
    line, label = reference_line(even, f"1/K = {even:.1f}%")
    fig.update_layout(
        title={
            "text": (
                f"Which documents dominate: {lev.n_docs:,} documents worth G* = {lev.g_star:.1f} "
                f"(largest leverage {100 * lev.max_leverage:.0f}%)"
            ),
            "x": 0,
            "xanchor": "left",
        },
        xaxis={"title": {"text": "leverage on the estimate (%)"}},
        yaxis={"autorange": "reversed", "automargin": True},
        height=max(260, 60 + 24 * len(names)),
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        shapes=[line],
        annotations=[label],
    )
    return fig
