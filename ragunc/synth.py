"""Synthetic populations with known truth, in the data contract (for teaching and tests).

SKELETON — being implemented; signatures are the contract.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def synthesize(
    *,
    n_docs: int = 1300,
    mean_chunks: float = 25.8,
    size_cv: float = 0.8,
    p: float = 0.18,
    icc: float = 0.3,
    autocorr: float = 0.17,
    doc_types: int = 4,
    config: str = "100w",
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Chunk rows: doc_id, chunk_id, chunk_index, config, doc_type, y (0/1)."""
