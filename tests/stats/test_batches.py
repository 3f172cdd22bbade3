"""The one cap on a batch: rows that fit in BATCH_BYTES, never none, never more than asked."""

from __future__ import annotations

from ragunc.stats.batches import BATCH_BYTES, batch_rows


def test_a_batch_holds_what_fits_at_least_one_row_and_at_most_all():
    assert batch_rows(BATCH_BYTES // 4, 10) == 4
    assert batch_rows(BATCH_BYTES // 4 + 1, 10) == 3
    assert batch_rows(8, 10) == 10
    assert batch_rows(2 * BATCH_BYTES, 10) == 1
    assert batch_rows(0, 10) == 10
