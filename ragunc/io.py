"""Load per-chunk results (CSV, Parquet, JSONL; optionally gzip) into per-document sufficient statistics.

The one validation boundary of ragunc: everything downstream assumes clean arrays.
Aggregation streams (DuckDB); rows are never all held in pandas.

SKELETON — being implemented; signatures and dataclass fields are the contract.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

import pandas as pd

from .design import ClusterSample

REQUIRED = ("doc_id", "y")
OPTIONAL = ("chunk_id", "chunk_index", "config", "doc_type")


class DataError(ValueError):
    """Bad input: the message names the column and the first offending rows (1-based data rows)."""


@dataclass(frozen=True)
class Results:
    samples: dict[str, ClusterSample]  # config -> sufficient statistics ("default" when no config column)
    n_rows: int
    source: str

    @property
    def configs(self) -> list[str]: ...

    def sample(self, config: str | None = None) -> ClusterSample:
        """The config's sample; with None, the only config (DataError listing them when there are several)."""


def load_results(
    source: str | os.PathLike | BinaryIO,
    *,
    columns: dict[str, str] | None = None,  # contract name -> name in the file, e.g. {"y": "hit1"}
    file_type: str | None = None,  # "csv" | "parquet" | "jsonl"; inferred from the name (.gz allowed) when None
) -> Results: ...


def results_from_frame(frame: pd.DataFrame, *, columns: dict[str, str] | None = None, source: str = "<frame>") -> Results:
    """Same validation and aggregation for an in-memory frame (e.g. chunk-eval output)."""
