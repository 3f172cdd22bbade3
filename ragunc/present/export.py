"""Downloads safe to open: CSV that a spreadsheet shows rather than runs, figures whose text stays text.

A spreadsheet runs a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
as a formula (CSV injection); OWASP's defence is a leading ``'``, which the spreadsheet hides.
Only text cells get it: a negative number is a number, written as one.
"""

from __future__ import annotations

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _inert(value):
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as CSV (no index) with every text cell and header that a spreadsheet would run made inert."""
    out = frame.rename(columns=lambda c: _inert(str(c)))
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]) and not pd.api.types.is_bool_dtype(out[column]):
            out[column] = out[column].map(_inert)
    # CRLF as RFC 4180 has it: a cell holding a carriage return is then quoted, not read as a row's end.
    return out.to_csv(index=False, lineterminator="\r\n")
