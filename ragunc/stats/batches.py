"""The one cap on the work of a batch: how many rows (coverage repetitions, design draws, judged samples,
rows of Floyd's membership table) a vectorised step holds at once, so that memory stays bounded whatever
K, D and the number of repetitions."""

from __future__ import annotations

# Bytes of arrays one batch holds at once.
BATCH_BYTES = 1 << 25


def batch_rows(bytes_per_row: int, rows: int) -> int:
    """Rows of a batch of ``rows`` (at least one, at most all) when each holds ``bytes_per_row`` bytes."""
    return max(1, min(rows, BATCH_BYTES // max(int(bytes_per_row), 1)))
