"""Downloads safe to open: formula cells made inert in CSV (numbers kept as numbers), names in figures shown as
typed in the HTML report and the figures file."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ragunc.present.export import csv_text
from ragunc.present.summary import figures_html

HOSTILE = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd", "plain", "a=b"]


def test_text_cells_a_spreadsheet_would_run_get_a_leading_quote_and_numbers_stay_numbers():
    frame = pd.DataFrame({"query_id": HOSTILE, "recall": np.linspace(-1, 1, len(HOSTILE)), "n": range(-4, 4)})
    frame["=header"] = "x"
    back = pd.read_csv(io.StringIO(csv_text(frame)), keep_default_na=False)
    assert list(back["query_id"]) == ["'" + v if v[0] in "=+-@\t\r" else v for v in HOSTILE]
    assert back["recall"].tolist() == frame["recall"].tolist()  # -1.0 is still a number
    assert back["n"].tolist() == list(range(-4, 4))
    assert list(back.columns)[-1] == "'=header"


def test_a_mixed_column_neutralises_its_text_only():
    frame = pd.DataFrame({"v": pd.Series([-3, "-3", "=1", 2.5], dtype=object)})
    lines = csv_text(frame).splitlines()
    assert lines == ["v", "-3", "'-3", "'=1", "2.5"]


def figure_text(page: str) -> str:
    """The figures' JSON in an HTML page (after plotly.js, whose code comes first) with < > & as plotly.js reads them."""
    body = page.rsplit("</head>", 1)[1]
    for code, char in (("003c", "<"), ("003e", ">"), ("0026", "&"), ("0027", "'"), ("002f", "/")):
        body = body.replace("\\u" + code, char)
    return body


def test_a_name_in_a_figure_is_shown_as_typed_never_a_link_or_styling():
    name = "<a href='https://evil.example'>click</a><span style='font-size:99px'>big</span>"
    fig = go.Figure(go.Bar(x=[name, "d2"], y=[1, 2], name=name, hovertemplate=f"<b>{name}</b><br>%{{y}}"))
    page = figures_html([fig], title=name)
    text = figure_text(page)
    assert not re.search(r"<a\b|<span\b", text, re.IGNORECASE), re.findall(r".{20}<(?:a|span)\b.{20}", text)
    assert "&lt;a href='https://evil.example'>click" in text  # plotly.js shows it as typed
    assert "<b>" in text and "<br>" in text  # the builders' own markup stays
    assert "<a href" not in page.split("<script", 1)[0]  # the title is escaped in the page head
