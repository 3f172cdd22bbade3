"""A reference for the compiled resampling engine (``ragunc.stats.bootstrap_kernels``), in plain numpy.

The cluster bootstrap as its definition reads: every replicate draws K document indices
uniformly with replacement (numpy's own ``Generator.integers``, not the engine's stream) and
sums each column over them.  No pair table, no packing, no stream of its own: the tests
compare the engine with it in distribution, where the engine's speed-ups must not show.
"""

from __future__ import annotations

import numpy as np


def resampled_sums(columns, reps: int, rng: np.random.Generator | int | None = None) -> list[np.ndarray]:
    """Sums of each column (..., K) over K documents drawn with replacement, ``reps`` times per leading row.

    The columns share the draws; returns arrays (..., reps) like the engine's ``resampled_sums``.
    """
    rng = np.random.default_rng(rng)
    cols = [np.asarray(c, dtype=float) for c in columns]
    lead, k = cols[0].shape[:-1], cols[0].shape[-1]
    flat = [c.reshape(-1, k) for c in cols]
    rows = flat[0].shape[0]
    idx = rng.integers(0, k, (rows, reps, k))  # (rows, reps, K) document indices
    row = np.arange(rows)[:, None, None]
    return [c[row, idx].sum(-1).reshape(lead + (reps,)) for c in flat]
