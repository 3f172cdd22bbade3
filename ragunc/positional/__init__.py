"""Positional bias of dense retrieval: local encoders, attention calibration with a strength
lambda, position-binned evaluation (nDCG@10 per third, harmonic mean, PSI, PosIR's curve) with
cluster-bootstrap intervals over passages, and sweeps.  The only subpackage that imports torch
and transformers.  May import ``stats``, ``data``, ``corpus`` and ``retrieval``.

The settings, passages, metrics and stored sweeps need no torch, so the dashboard and the CLI
can show bundled results without the ``positional`` extra.  The encoder, the calibrated
attention and the sweep runner are loaded on first use of their names (PEP 562): importing
this package never loads torch, and a missing extra is a clear ImportError naming the install.
"""

import importlib

from .evaluation import (
    CURVE_BINS,
    METRICS,
    PositionalSweep,
    SettingResult,
    evaluate_settings,
    harmonic_mean,
    load_sweep,
    ndcg_at_10,
    positional_sensitivity,
    relevant_ranks,
    save_sweep,
)
from .passages import (
    LENGTH_BUCKETS,
    POSITION_GROUPS,
    POSITION_QUERY_MODEL,
    PositionalQueries,
    length_bucket,
    position_queries,
)
from .settings import (
    DEFAULT_MODEL,
    INSTALL_HINT,
    LAYER_CHOICES,
    POOLINGS,
    ROW_CHOICES,
    SHARE_CHOICES,
    STOCK,
    SWEEP_BASKETS,
    Calibration,
    extra_missing,
    sweep_settings,
)

__all__ = [
    "CURVE_BINS",
    "DEFAULT_MODEL",
    "INSTALL_HINT",
    "LAYER_CHOICES",
    "LENGTH_BUCKETS",
    "METRICS",
    "POOLINGS",
    "POSITION_GROUPS",
    "POSITION_QUERY_MODEL",
    "ROW_CHOICES",
    "SHARE_CHOICES",
    "STOCK",
    "SWEEP_BASKETS",
    "Calibration",
    "PositionalQueries",
    "PositionalSweep",
    "SettingResult",
    "evaluate_settings",
    "extra_missing",
    "harmonic_mean",
    "length_bucket",
    "load_sweep",
    "ndcg_at_10",
    "position_queries",
    "positional_sensitivity",
    "relevant_ranks",
    "save_sweep",
    "sweep_settings",
]
# Names whose modules import torch, by module (left out of __all__: a star import must not load torch).
_TORCH_BOUND = {
    "DenseEncoder": "encoder",
    "encode_cached": "encoder",
    "load_encoder": "encoder",
    "positional_sweep": "sweep",
}


def __getattr__(name: str):
    module = _TORCH_BOUND.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    missing = extra_missing()
    if missing:
        raise ImportError(
            f"ragunc.positional.{name} needs the positional extra ({', '.join(missing)} missing): {INSTALL_HINT}"
        )
    return getattr(importlib.import_module(f".{module}", __name__), name)
