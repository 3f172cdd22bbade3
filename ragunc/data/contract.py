"""The data contract of per-chunk results: its columns, the checks every row passes, and mapping hints.

One row per chunk: required ``doc_id`` and ``y`` (0/1 hit or a score in [0, 1]);
optional ``chunk_id``, ``chunk_index`` (0-based position in the document),
``config``, ``doc_type`` and ``y_judge`` (:data:`REQUIRED`, :data:`OPTIONAL`).

With a judge column ``y_judge`` (a judge's label or score in [0, 1], on every row),
``y`` is a person's gold label and may be empty: a row with ``y`` is an audited row
(:mod:`ragunc.stats.judged`).  Without one, an empty ``y`` is an error.  :func:`check_columns`
says what a header lacks, :func:`resolve_columns` refuses it with a mapping hint,
and :data:`CHECKS` lists what every loader counts against the rows (DuckDB in
:mod:`.duckdb_sql`, Spark in :mod:`.spark`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from .reader import DataError, listing

REQUIRED = ("doc_id", "y")
OPTIONAL = ("chunk_id", "chunk_index", "config", "doc_type", "y_judge")
JUDGE = "y_judge"  # the judge column: named (present or mapped), y becomes the audit's gold labels
CONTRACT_COLUMNS = REQUIRED + OPTIONAL


@dataclass(frozen=True)
class ColumnCheck:
    """How a file's columns and a mapping meet the data contract (:func:`check_columns`)."""

    header: tuple[str, ...]  # the file's columns
    mapping: dict[str, str]  # contract name -> column in the file, as given
    resolved: dict[str, str]  # contract name -> column in the file, for every contract field found
    missing: tuple[str, ...]  # required fields without a column, and mapped fields whose column is not there

    @property
    def message(self) -> str:
        """``"missing column(s) 'y' (mapped to 'hit'); the file has columns 'doc_id', 'score'"``; "" when complete."""
        if not self.missing:
            return ""
        fields = ", ".join(
            f"{field!r} (mapped to {self.mapping[field]!r})" if field in self.mapping else repr(field)
            for field in self.missing
        )
        columns = f"has columns {listing(self.header)}" if self.header else "has no columns"
        return f"missing column(s) {fields}; the file {columns}"


def check_columns(header, columns: dict[str, str] | None = None) -> ColumnCheck:
    """Which contract fields ``header`` (a file's column names) supplies under ``columns`` (field -> column).

    The loader's own check, for a header read ahead of the load (the dashboard's
    mapping step).  A mapping of a name outside the contract is a :class:`DataError`.
    """
    mapping = dict(columns or {})
    unknown = sorted(set(mapping) - set(CONTRACT_COLUMNS))
    if unknown:
        raise DataError(
            f"columns= maps unknown contract name(s) {listing(unknown)}; contract names are {listing(CONTRACT_COLUMNS)}"
        )
    header = tuple(header)
    resolved, missing = {}, []
    for field in CONTRACT_COLUMNS:
        wanted = mapping.get(field, field)
        if wanted in header:
            resolved[field] = wanted
        elif field in mapping or field in REQUIRED:
            missing.append(field)
    return ColumnCheck(header=header, mapping=mapping, resolved=resolved, missing=tuple(missing))


def resolve_columns(present: dict[str, str], columns: dict[str, str] | None, name: str) -> dict[str, str]:
    """Contract name -> column in the source, for every contract column found.

    A required column missing is a :class:`DataError` with a mapping hint: a ``columns=``
    and a ``--column`` example, guessed from the source's columns.
    """
    check = check_columns(present, columns)
    if check.missing:
        hint = _mapping_hint([c for c in REQUIRED if c not in check.resolved], present)
        flags = " ".join(f"--column {shlex.quote(f'{contract}={column}')}" for contract, column in hint.items())
        raise DataError(
            f"{name}: {check.message}. Map yours with columns=, e.g. columns={hint!r} (command line: {flags})"
        )
    return check.resolved


_GUESSES = {
    "doc_id": ("doc", "document", "docid", "document_id", "doc_name", "source", "file"),
    "y": ("hit", "hit1", "hit@1", "hit_at_1", "recall", "correct", "score", "label", "success"),
}


def _mapping_hint(missing: list[str], present: dict[str, str]) -> dict[str, str]:
    lowered = {c.lower(): c for c in present}
    hint = {}
    for contract in missing:
        guess = next((lowered[g] for g in _GUESSES.get(contract, ()) if g in lowered), None)
        if guess is None:
            guess = next((c for c in present if contract.split("_")[0] in c.lower()), "<column in your file>")
        hint[contract] = guess
    return hint or {"y": "<column in your file>"}


# (key, contract column, message) of each violation a loader counts: DuckDB's fast pass counts
# them and its error pass turns each nonzero count into one line with row numbers; Spark's
# check names documents instead.
CHECKS = (
    ("y_empty", "y", "{n} row(s) with an empty or NaN value"),
    ("y_text", "y", "{n} row(s) that are not numbers"),
    ("y_range", "y", "{n} row(s) outside [0, 1]"),
    ("judge_empty", "y_judge", "{n} row(s) with an empty or NaN value (the judge labels every row)"),
    ("judge_text", "y_judge", "{n} row(s) that are not numbers"),
    ("judge_range", "y_judge", "{n} row(s) outside [0, 1]"),
    ("doc_empty", "doc_id", "{n} row(s) with an empty value"),
    ("config_empty", "config", "{n} row(s) with an empty value"),
    ("type_empty", "doc_type", "{n} row(s) with an empty value"),
    ("cid_empty", "chunk_id", "{n} row(s) with an empty value"),
    ("ci_bad", "chunk_index", "{n} row(s) that are not non-negative integers"),
    ("cid_dup", "chunk_id", "{n} row(s) repeat a (config, doc_id, chunk_id) of an earlier row"),
    ("ci_dup", "chunk_index", "{n} row(s) repeat a chunk_index of an earlier row of the same document"),
    ("type_varies", "doc_type", "{n} row(s) give their document a different doc_type than its first row"),
)
