"""The calibrated attention function against its definition, on random queries and keys.

With the identity matrix as values, the function's output rows *are* its attention weights
alpha_hat, so the basket masses, ratios and zeros are read off the real code path.  A naive
per-row implementation written from the definition checks every other case.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from positional_extra import require_extra

require_extra()

import torch  # noqa: E402
from transformers.integrations.sdpa_attention import sdpa_attention_forward  # noqa: E402
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask  # noqa: E402

from ragunc.positional.attention import (  # noqa: E402
    ATTRIBUTE,
    IMPLEMENTATION,
    LayerCalibration,
    calibrated_attention_forward,
    register,
)

HEADS, LENGTH, DIM = 2, 40, 8


def _module(causal: bool, **settings):
    module = types.SimpleNamespace(is_causal=causal)
    if settings:
        setattr(module, ATTRIBUTE, LayerCalibration(**settings))
    return module


def _batch(lengths, *, left: bool, seed: int = 0):
    """Random q, k and the boolean validity of each key (padding on the left or the right)."""
    gen = torch.Generator().manual_seed(seed)
    batch = len(lengths)
    q = torch.randn(batch, HEADS, LENGTH, DIM, generator=gen) * 2.5
    k = torch.randn(batch, HEADS, LENGTH, DIM, generator=gen) * 2.5
    v = torch.randn(batch, HEADS, LENGTH, DIM, generator=gen)
    valid = torch.zeros(batch, LENGTH, dtype=torch.bool)
    for i, n in enumerate(lengths):
        if left:
            valid[i, LENGTH - n :] = True
        else:
            valid[i, :n] = True
    return q, k, v, valid


def _mask(valid, causal: bool):
    allowed = valid[:, None, None, :].expand(-1, 1, LENGTH, LENGTH)
    if causal:
        allowed = allowed & torch.ones(LENGTH, LENGTH, dtype=torch.bool).tril()
    return allowed


def _stock_probs(q, k, allowed):
    scores = q @ k.transpose(-1, -2) / DIM**0.5
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), -1).double().numpy()


def _naive_alpha_hat(a, valid, *, lam, basket, share, isolate_first, isolate_last):
    """alpha_hat of one row ``a`` straight from the definition (Python lists, no vectorisation).

    ``valid`` marks the sequence's real tokens: they define the baskets and the special tokens;
    what a causal row cannot see has ``a = 0`` (a basket of such keys has zero mass).
    """
    tokens = [int(i) for i in np.flatnonzero(valid)]
    specials = ([tokens[0]] if isolate_first else []) + ([tokens[-1]] if isolate_last else [])
    content = [i for i in tokens if i not in specials]
    if len(content) < basket:
        return a.copy()
    baskets = [content[j : j + basket] for j in range(0, len(content), basket)]
    masses = [a[b].sum() for b in baskets]
    special_masses = [a[s] for s in specials]
    if share == "equal":
        n = sum(m > 0 for m in masses + special_masses)
        shares = [1 / n if m > 0 else 0.0 for m in masses]
        special_shares = [1 / n if m > 0 else 0.0 for m in special_masses]
    else:
        n = sum(m > 0 for m in masses)
        shares = [(1 - sum(special_masses)) / n if m > 0 else 0.0 for m in masses]
        special_shares = special_masses
    cal = np.zeros_like(a)
    for b, m, s in zip(baskets, masses, shares):
        if m > 0:
            cal[b] = a[b] / m * s
    for position, s in zip(specials, special_shares):
        cal[position] = s
    return (1 - lam) * a + lam * cal


def _weights(module, q, k, allowed_mask):
    """alpha_hat as the function computes it: its output with the identity as values."""
    eye = torch.eye(LENGTH).expand(q.shape[0], HEADS, LENGTH, LENGTH)
    out, _ = calibrated_attention_forward(module, q, k, eye, allowed_mask)
    return out.transpose(1, 2).double().numpy()  # (batch, heads, rows, keys)


@pytest.mark.parametrize("share", ["original", "equal"])
def test_full_strength_gives_every_basket_its_share_and_keeps_ratios(share):
    lengths, basket = [40, 31, 26], 8
    q, k, _, valid = _batch(lengths, left=False)
    allowed = _mask(valid, causal=False)
    module = _module(False, lam=1.0, basket=basket, rows="all", share=share, isolate_first=True, isolate_last=False)
    got = _weights(module, q, k, allowed)
    stock = _stock_probs(q, k, allowed)
    for i, n in enumerate(lengths):
        content = list(range(1, n))
        baskets = [content[j : j + basket] for j in range(0, len(content), basket)]
        for head in range(HEADS):
            for row in range(n):
                alpha, a = got[i, head, row], stock[i, head, row]
                assert alpha.sum() == pytest.approx(1.0, abs=1e-6)
                assert np.all(alpha[n:] == 0.0)  # padding keeps zero mass
                if share == "original":
                    assert alpha[0] == pytest.approx(a[0], abs=1e-6)  # [CLS] keeps its weight
                    target = (1 - a[0]) / len(baskets)
                else:
                    target = 1 / (len(baskets) + 1)
                    assert alpha[0] == pytest.approx(target, abs=1e-6)
                for b in baskets:
                    assert alpha[b].sum() == pytest.approx(target, abs=1e-6)
                    np.testing.assert_allclose(alpha[b] / alpha[b[0]], a[b] / a[b[0]], rtol=1e-4)


CASES = [
    # (causal, left padding, rows, isolate first, isolate last)
    (False, False, "all", True, False),  # mean pooling over a BERT-like encoder
    (False, False, "first", True, False),  # CLS pooling
    (True, True, "last", True, True),  # last-token pooling over a decoder, left padding
    (True, True, "all", False, False),  # mean pooling over a decoder: zero-mass baskets for early rows
    (True, False, "all", True, True),  # a causal model padded on the right
]


@pytest.mark.parametrize(("causal", "left", "rows", "first", "last"), CASES)
@pytest.mark.parametrize("share", ["original", "equal"])
def test_output_is_alpha_hat_times_values_as_defined(causal, left, rows, first, last, share):
    lengths, basket, lam = [40, 29, 17, 6], 7, 0.5  # the last sequence is shorter than a basket
    q, k, v, valid = _batch(lengths, left=left, seed=1)
    allowed = _mask(valid, causal)
    settings = dict(lam=lam, basket=basket, rows=rows, share=share, isolate_first=first, isolate_last=last)
    out, _ = calibrated_attention_forward(_module(causal, **settings), q, k, v, allowed)
    stock, _ = sdpa_attention_forward(_module(causal), q, k, v, allowed)
    probs = _stock_probs(q, k, allowed)
    weights = _weights(_module(causal, **settings), q, k, allowed)
    for i in range(len(lengths)):
        positions = np.flatnonzero(valid[i].numpy())
        chosen = {"all": positions, "first": positions[:1], "last": positions[-1:]}[rows]
        for row in range(LENGTH):
            for head in range(HEADS):
                if row in chosen:
                    expected = _naive_alpha_hat(
                        probs[i, head, row],
                        valid[i].numpy(),
                        lam=lam,
                        basket=basket,
                        share=share,
                        isolate_first=first,
                        isolate_last=last,
                    )
                    np.testing.assert_allclose(weights[i, head, row], expected, atol=1e-6)
                    np.testing.assert_allclose(
                        out[i, row, head].numpy(), expected @ v[i, head].double().numpy(), atol=1e-5
                    )
                else:  # rows not calibrated are the stock SDPA output, bit for bit
                    assert torch.equal(out[i, row, head], stock[i, row, head])
        if lengths[i] - first - last < basket:
            assert torch.equal(out[i], stock[i])  # shorter than a basket: uncalibrated


def test_strength_zero_and_modules_without_settings_are_the_stock_function():
    q, k, v, valid = _batch([40, 25], left=False, seed=2)
    allowed = _mask(valid, causal=False)
    stock, _ = sdpa_attention_forward(_module(False), q, k, v, allowed)
    off = _module(False, lam=0.0, basket=4, rows="all", share="equal", isolate_first=True, isolate_last=True)
    assert torch.equal(calibrated_attention_forward(off, q, k, v, allowed)[0], stock)
    assert torch.equal(calibrated_attention_forward(_module(False), q, k, v, allowed)[0], stock)


@pytest.mark.parametrize("causal", [False, True])
def test_no_mask_means_every_key_is_valid(causal):
    q, k, v, valid = _batch([40, 40], left=False, seed=3)
    settings = dict(lam=0.7, basket=6, rows="all", share="original", isolate_first=True, isolate_last=True)
    without = calibrated_attention_forward(_module(causal, **settings), q, k, v, None)[0]
    explicit = calibrated_attention_forward(_module(causal, **settings), q, k, v, _mask(valid, causal))[0]
    torch.testing.assert_close(without, explicit, atol=1e-6, rtol=0)
    assert not torch.equal(without, sdpa_attention_forward(_module(causal), q, k, v, None)[0])


def test_a_float_mask_is_refused_with_the_reason():
    q, k, v, valid = _batch([40, 30], left=False)
    additive = torch.where(_mask(valid, False), 0.0, float("-inf"))
    module = _module(False, lam=0.5, basket=8, rows="all", share="original", isolate_first=True, isolate_last=False)
    with pytest.raises(ValueError, match="boolean mask"):
        calibrated_attention_forward(module, q, k, v, additive)


def test_registration_puts_the_attention_and_its_mask_function_under_one_name():
    from transformers import AttentionInterface

    assert register() == IMPLEMENTATION
    assert AttentionInterface._global_mapping[IMPLEMENTATION] is calibrated_attention_forward
    assert AttentionMaskInterface._global_mapping[IMPLEMENTATION] is sdpa_mask
