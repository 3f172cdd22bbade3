"""Attention calibration as a transformers attention function (``AttentionInterface``).

For a calibrated query row with attention ``a`` (after the softmax) over its valid keys,
content keys are split into contiguous baskets of ``B`` tokens, each isolated special token
is a basket of its own, and

    a_cal,k = a_k / (sum of a_j over k's basket) * share(k's basket)
    alpha_hat = (1 - lam) a + lam a_cal

so every basket holds its share of the mass and the ratios inside a basket are kept.  Shares:
``"equal"`` gives every basket with mass ``1 / (baskets with mass)``; ``"original"`` keeps each
special token's weight and splits the rest equally over the content baskets with mass.  A
basket with zero mass (fully masked for a causal row, or underflowed) stays zero and takes no
share; padding keys keep zero mass.  A sequence with fewer than ``B`` content tokens (queries,
short passages) is left uncalibrated, as in the reference method: one basket would only move
mass to or from the special tokens.

Every output row goes through transformers' stock SDPA function first; only the calibrated rows
of calibrated sequences are then recomputed explicitly, so rows and layers not calibrated (and
``lam = 0``) are bit-identical to the stock model.  The settings live on the attention modules
(attribute :data:`ATTRIBUTE`), never in forward kwargs.  The padding mask reaches this function
only because the same name is registered with ``AttentionMaskInterface`` (transformers builds
no mask for an implementation it does not know); a ``None`` mask means no padding in the batch
(plus causality when the module is causal).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import repeat_kv, sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask


#: The attention implementation name registered with transformers.
IMPLEMENTATION = "ragunc_calibrated"
#: The attribute of an attention module that holds its :class:`LayerCalibration`.
ATTRIBUTE = "ragunc_calibration"

# While set, every call appends its module: how the encoder finds the attention modules in
# execution order, and proves the model routes attention through the interface at all.
_recorder: contextvars.ContextVar[list | None] = contextvars.ContextVar("ragunc_attention_recorder", default=None)


@dataclass(frozen=True)
class LayerCalibration:
    """What one attention module does to its rows (set by the encoder on the chosen layers)."""

    lam: float
    basket: int
    rows: str  # "first" | "last" | "all" valid rows
    share: str  # "original" | "equal"
    isolate_first: bool  # the first valid token is a special token to isolate
    isolate_last: bool


@dataclass(frozen=True)
class KeyLayout:
    """Where the baskets of each sequence of a batch are (all tensors on the batch's device).

    Content keys of sequence ``i`` are positions ``content_start[i] + j`` for
    ``j < n_content[i]``; basket ``g`` holds ``j`` in ``[g B, (g + 1) B)``.  ``groups`` (batch, L)
    numbers every valid key's basket: content baskets ``0 .. G-1``, the isolated first and last
    tokens ``G`` and ``G + 1`` (padding gets 0; its mass is zero).
    """

    valid: torch.Tensor  # (batch, L) bool
    first: torch.Tensor  # (batch,) position of the first valid token
    last: torch.Tensor  # (batch,) position of the last valid token
    content_start: torch.Tensor  # (batch,)
    n_content: torch.Tensor  # (batch,)
    groups: torch.Tensor  # (batch, L) long
    n_baskets: int  # G, content baskets the longest possible sequence has


def key_layout(valid: torch.Tensor, basket: int, isolate_first: bool, isolate_last: bool) -> KeyLayout:
    """The :class:`KeyLayout` of a batch whose real tokens are ``valid`` (batch, L), contiguous."""
    length = valid.shape[1]
    positions = torch.arange(length, device=valid.device)
    first = valid.to(torch.int8).argmax(1)
    last = length - 1 - valid.flip(1).to(torch.int8).argmax(1)
    n_content = valid.sum(1) - int(isolate_first) - int(isolate_last)
    content_start = first + int(isolate_first)
    n_baskets = -(-length // basket)
    groups = ((positions[None, :] - content_start[:, None]).clamp(min=0) // basket).clamp(max=n_baskets - 1)
    if isolate_first:
        groups = torch.where(positions[None, :] == first[:, None], n_baskets, groups)
    if isolate_last:
        groups = torch.where(positions[None, :] == last[:, None], n_baskets + 1, groups)
    groups = torch.where(valid, groups, 0)
    return KeyLayout(valid, first, last, content_start, n_content, groups, n_baskets)


def basket_shares(mass: torch.Tensor, n_baskets: int, share: str) -> torch.Tensor:
    """Target mass of every group (..., G + 2) from the attention mass each group holds.

    Groups without mass get none.  ``"equal"``: the same share for every group with mass;
    ``"original"``: the two special groups keep their mass, the content baskets with mass
    split the rest equally.
    """
    has_mass = mass > 0
    if share == "equal":
        return has_mass / has_mass.sum(-1, keepdim=True).clamp(min=1)
    content = has_mass[..., :n_baskets]
    special = mass[..., n_baskets:]
    rest = (1.0 - special.sum(-1, keepdim=True)).clamp(min=0.0)
    return torch.cat([content * rest / content.sum(-1, keepdim=True).clamp(min=1), special], -1)


def _group_masses(query, key, allowed_rows, groups, n_groups: int, scale: float) -> torch.Tensor:
    """Attention mass of each group for each row, (batch, heads, rows, n_groups), by fused SDPA.

    The values are the one-hot groups, padded to the key width so that SDPA keeps its fused
    kernel (a narrower value falls back to materialising the scores).
    """
    batch, heads, _, width = key.shape
    masses = []
    for first in range(0, n_groups, width):
        count = min(width, n_groups - first)
        onehot = torch.nn.functional.one_hot((groups - first).clamp(0, width - 1), width).to(query.dtype)
        onehot = onehot * ((groups >= first) & (groups < first + count))[..., None]
        out = torch.nn.functional.scaled_dot_product_attention(
            query, key, onehot[:, None].expand(batch, heads, -1, -1), attn_mask=allowed_rows, scale=scale
        )
        masses.append(out[..., :count])
    return torch.cat(masses, -1).float()


def _calibrated_rows(
    query, key, value, allowed_rows, layout: KeyLayout, settings: "LayerCalibration", scale: float, causal: bool
) -> torch.Tensor:
    """``sum_g share_g * (attention restricted to basket g)`` for the given query rows.

    ``alpha_cal = a / mass(basket) * share`` restricted to a basket is that basket's own
    softmax times its share, so each basket is one fused SDPA call over its keys, and the
    special tokens contribute their value times their share.  (batch, heads, rows, dv).
    """
    batch, heads, n_rows, _ = query.shape
    basket, n_baskets = settings.basket, layout.n_baskets
    masses = _group_masses(query, key, allowed_rows, layout.groups, n_baskets + 2, scale)
    shares = basket_shares(masses, n_baskets, settings.share)
    # Content keys laid side by side from position 0, so basket g is one slice for the whole batch:
    # a view when every content starts at the same position (right padding), else a gather.
    length = key.shape[2]
    starts = layout.content_start
    aligned = bool((starts == starts[0]).all())
    span = length - int(starts[0]) if aligned else length
    offsets = torch.arange(span, device=key.device)
    in_content = offsets[None, :] < layout.n_content[:, None]
    index = (starts[:, None] + offsets).clamp(max=length - 1)
    if aligned:
        keys, values = key[:, :, int(starts[0]) :], value[:, :, int(starts[0]) :]
    else:
        keys = key.gather(2, index[:, None, :, None].expand(-1, heads, -1, key.shape[-1]))
        values = value.gather(2, index[:, None, :, None].expand(-1, heads, -1, value.shape[-1]))
    # Without causality every row sees every content key: padding lies outside the content.
    restricted_rows = causal and allowed_rows is not None
    seen = in_content[:, None, None, :]
    if restricted_rows:
        seen = seen & allowed_rows.gather(-1, index[:, None, None, :].expand(-1, 1, n_rows, -1))
    out = torch.zeros(batch, heads, n_rows, value.shape[-1], dtype=torch.float32, device=query.device)
    shortest = int(layout.n_content.min())
    for g in range(-(-int(layout.n_content.max()) // basket)):
        part = slice(g * basket, min((g + 1) * basket, span))
        # Baskets full in every sequence need no mask when no row is restricted (the fast kernel).
        mask = None if not restricted_rows and part.stop <= shortest else seen[..., part]
        restricted = torch.nn.functional.scaled_dot_product_attention(
            query, keys[:, :, part], values[:, :, part], attn_mask=mask, scale=scale
        )
        weight = shares[..., g : g + 1]
        out += torch.where(weight > 0, restricted.float() * weight, 0.0)
    for column, position, isolated in (
        (n_baskets, layout.first, settings.isolate_first),
        (n_baskets + 1, layout.last, settings.isolate_last),
    ):
        if isolated:
            special_value = value.gather(2, position[:, None, None, None].expand(-1, heads, 1, value.shape[-1]))
            out += shares[..., column : column + 1] * special_value.float()
    return out


def _calibrated_few_rows(
    query, key, value, allowed_rows, layout: KeyLayout, settings: "LayerCalibration", scale: float
) -> torch.Tensor:
    """``alpha_cal @ value`` for one or two rows per sequence, with the weights written out.

    A single query row is cheap to materialise (L scores), and SDPA's fused kernel has a large
    fixed cost per call at one row; :func:`_calibrated_rows` is the same quantity for all rows.
    """
    scores = (key @ query.transpose(-1, -2)).transpose(-1, -2).float() * scale  # no copy of the keys
    if allowed_rows is not None:
        scores = scores.masked_fill(~allowed_rows, float("-inf"))
    probs = torch.softmax(scores, -1)
    onehot = torch.nn.functional.one_hot(layout.groups, layout.n_baskets + 2).float()[:, None]  # (b, 1, L, G)
    masses = probs @ onehot
    shares = basket_shares(masses, layout.n_baskets, settings.share)
    factor = torch.where(masses > 0, shares / torch.where(masses > 0, masses, 1.0), 0.0)
    return (probs * (factor @ onehot.transpose(-1, -2))) @ value.float()


def _allowed_keys(attention_mask, causal: bool, batch: int, length: int, device) -> torch.Tensor | None:
    """Boolean (batch, 1, L, L) of the keys each row may see, or None for all of them."""
    if attention_mask is None:
        if not causal:
            return None
        return torch.ones(length, length, dtype=torch.bool, device=device).tril()[None, None].expand(batch, 1, -1, -1)
    if attention_mask.dtype != torch.bool:
        raise ValueError(
            f"the calibrated attention expects a boolean mask (from the sdpa mask function registered as "
            f"{IMPLEMENTATION!r}), got {attention_mask.dtype}"
        )
    return attention_mask.expand(batch, 1, length, length)


def calibrated_attention_forward(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    is_causal: bool | None = None,
    **kwargs,
):
    """The ``AttentionInterface`` function: stock SDPA, then the module's calibrated rows recomputed."""
    recorder = _recorder.get()
    if recorder is not None:
        recorder.append(module)
    output, _ = sdpa_attention_forward(
        module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, is_causal=is_causal, **kwargs
    )
    settings: LayerCalibration | None = getattr(module, ATTRIBUTE, None)
    if settings is None or settings.lam == 0.0:
        return output, None
    batch, heads, length, head_dim = query.shape
    if key.shape[2] != length:
        raise ValueError("attention calibration needs self-attention without a key/value cache")
    if kwargs.get("position_bias") is not None:
        raise ValueError("attention calibration does not support models with an additive position bias")
    causal = bool(getattr(module, "is_causal", True) if is_causal is None else is_causal) and length > 1
    allowed = _allowed_keys(attention_mask, causal, batch, length, query.device)
    valid = (
        torch.ones(batch, length, dtype=torch.bool, device=query.device) if allowed is None else allowed[:, 0, -1, :]
    )
    layout = key_layout(valid, settings.basket, settings.isolate_first, settings.isolate_last)
    chosen = torch.nonzero(layout.n_content >= settings.basket).flatten()
    if chosen.numel() == 0:
        return output, None
    if chosen.numel() < batch:  # only then copy the calibrated sequences out of the batch
        layout = KeyLayout(
            *(getattr(layout, f)[chosen] for f in ("valid", "first", "last", "content_start", "n_content", "groups")),
            layout.n_baskets,
        )
        query, key, value = query[chosen], key[chosen], value[chosen]
        allowed = None if allowed is None else allowed[chosen]
    n_rep = getattr(module, "num_key_value_groups", 1)
    key, value = repeat_kv(key, n_rep), repeat_kv(value, n_rep)
    if settings.rows == "all":
        rows = torch.arange(length, device=query.device).expand(chosen.numel(), -1)
        query_rows = query
    else:
        rows = (layout.first if settings.rows == "first" else layout.last)[:, None]
        query_rows = query.gather(2, rows[:, None, :, None].expand(-1, heads, -1, head_dim))
    allowed_rows = None
    if allowed is not None:
        allowed_rows = allowed.gather(2, rows[:, None, :, None].expand(-1, 1, -1, length))
    scale = head_dim**-0.5 if scaling is None else scaling
    if settings.rows == "all":
        calibrated = _calibrated_rows(query_rows, key, value, allowed_rows, layout, settings, scale, causal)
    else:
        calibrated = _calibrated_few_rows(query_rows, key, value, allowed_rows, layout, settings, scale)
    stock = output[chosen[:, None], rows].float()  # (n, rows, heads, dv)
    blended = (1.0 - settings.lam) * stock + settings.lam * calibrated.transpose(1, 2)
    keep = layout.valid.gather(1, rows)[..., None, None]  # padding rows keep their stock output
    # SDPA's output is a fresh tensor of this call: updating it in place is safe.
    output[chosen[:, None], rows] = torch.where(keep, blended.to(output.dtype), output[chosen[:, None], rows])
    return output, None


def register() -> str:
    """Register the calibrated attention and its mask function under :data:`IMPLEMENTATION` (idempotent)."""
    AttentionInterface.register(IMPLEMENTATION, calibrated_attention_forward)
    AttentionMaskInterface.register(IMPLEMENTATION, sdpa_mask)
    return IMPLEMENTATION


class recording:
    """Context manager collecting the attention modules called, in order, during its block."""

    def __enter__(self) -> list:
        self.modules: list = []
        self._token = _recorder.set(self.modules)
        return self.modules

    def __exit__(self, *exc) -> None:
        _recorder.reset(self._token)
