"""Encoders: the real MiniLM, a tiny random BERT (CLS pooling) and a tiny random decoder
(last-token pooling, left padding), loaded through the calibrated attention."""

from __future__ import annotations

import numpy as np
import pytest
from positional_extra import require_extra

require_extra()

import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402
from tiny_models import with_remote_code  # noqa: E402
from transformers import AutoModel  # noqa: E402

from ragunc.positional.attention import ATTRIBUTE, LayerCalibration  # noqa: E402
from ragunc.positional.encoder import encode_cached, load_encoder  # noqa: E402
from ragunc.positional.settings import STOCK, Calibration  # noqa: E402

WORDS = (
    "module function class returns value argument default raises error string list object file path "
    "thread socket buffer encoding decimal context"
).split()


def _texts(n: int, seed: int = 0, low: int = 20, high: int = 90) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, rng.integers(low, high))) for _ in range(n)]


def _each_alone(encoder, texts, calibration):
    return np.concatenate([encoder.encode([t], calibration) for t in texts])


def test_minilm_at_lambda_zero_is_bit_identical_to_the_stock_model(minilm):
    texts = _texts(5, low=30, high=200)
    stock = AutoModel.from_pretrained(minilm.path, attn_implementation="sdpa").eval()
    batch = minilm.tokenizer(texts, padding=True, truncation=True, max_length=512, return_tensors="pt")
    # Every layer carries settings with lambda = 0: the calibrated function itself must change nothing.
    for module in minilm.attention_modules:
        setattr(
            module,
            ATTRIBUTE,
            LayerCalibration(lam=0.0, basket=8, rows="all", share="equal", isolate_first=True, isolate_last=True),
        )
    try:
        with torch.inference_mode():
            ours = minilm.model(**batch).last_hidden_state
            theirs = stock(**batch).last_hidden_state
    finally:
        for module in minilm.attention_modules:
            delattr(module, ATTRIBUTE)
    assert torch.equal(ours, theirs)
    assert minilm.describe()["max_seq_length"] == 512 and minilm.pooling == "mean" and minilm.n_layers == 6


def test_minilm_embeddings_match_sentence_transformers(minilm):
    texts = _texts(6, seed=1)
    reference = SentenceTransformer(str(minilm.path), device="cpu")
    reference.max_seq_length = 512
    np.testing.assert_allclose(minilm.encode(texts), reference.encode(texts, normalize_embeddings=True), atol=1e-6)


def test_minilm_calibration_moves_long_texts_only(minilm):
    long, short = _texts(2, seed=2, low=200, high=260), ["a short query about sockets"]
    half = Calibration(lam=0.5, basket=128, layers="half")
    assert not np.array_equal(minilm.encode(long, half), minilm.encode(long))
    assert np.array_equal(minilm.encode(short, half), minilm.encode(short))  # shorter than B: uncalibrated


def test_only_the_chosen_layers_change(bert_dir):
    encoder = load_encoder(bert_dir, pooling="cls")
    batch = encoder.tokenizer(_texts(3, seed=3), padding=True, return_tensors="pt")
    with torch.inference_mode():
        stock = encoder.model(**batch, output_hidden_states=True).hidden_states
        with encoder.calibrating(Calibration(lam=1.0, basket=8, layers="last", rows="all")):
            last = encoder.model(**batch, output_hidden_states=True).hidden_states
    assert encoder.n_layers == 4
    for layer in range(4):  # the embeddings and the first three layers' outputs
        assert torch.equal(stock[layer], last[layer])
    assert not torch.allclose(stock[4], last[4], atol=1e-3)
    assert not any(hasattr(m, ATTRIBUTE) for m in encoder.attention_modules)  # settings removed after the block


@pytest.mark.parametrize("rows", ["pooling", "all"])
def test_cls_pooling_on_a_tiny_bert_padded_batch_equals_each_text_alone(bert_dir, rows):
    encoder = load_encoder(bert_dir, pooling="cls")
    texts = _texts(5, seed=4)
    calibration = Calibration(lam=0.5, basket=8, layers="half", rows=rows)
    batched = encoder.encode(texts, calibration, batch_size=5)
    np.testing.assert_allclose(batched, _each_alone(encoder, texts, calibration), atol=1e-5)
    assert not np.allclose(batched, encoder.encode(texts), atol=1e-4)
    # CLS pooling reads the first token's final state.
    batch = encoder.tokenizer(texts[:2], padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = encoder.model(**batch).last_hidden_state[:, 0]
    np.testing.assert_allclose(
        encoder.encode(texts[:2]), torch.nn.functional.normalize(hidden, dim=-1).numpy(), atol=1e-6
    )
    assert encoder.isolate_first and not encoder.isolate_last


@pytest.mark.parametrize("rows", ["pooling", "all"])
def test_last_token_pooling_with_left_padding_on_a_tiny_decoder(decoder_dir, rows):
    encoder = load_encoder(decoder_dir)
    assert encoder.pooling == "last" and encoder.tokenizer.padding_side == "left"
    assert encoder.isolate_first and encoder.isolate_last  # [CLS] and [SEP] play BOS and EOS
    texts = _texts(5, seed=5)
    calibration = Calibration(lam=0.5, basket=8, layers="all", rows=rows)
    batched = encoder.encode(texts, calibration, batch_size=5)
    np.testing.assert_allclose(batched, _each_alone(encoder, texts, calibration), atol=1e-5)
    np.testing.assert_allclose(encoder.encode(texts, batch_size=5), _each_alone(encoder, texts, STOCK), atol=1e-5)
    assert not np.allclose(batched, encoder.encode(texts), atol=1e-4)
    # Last-token pooling reads the last real token, which left padding puts at the end.
    batch = encoder.tokenizer(texts[:1], return_tensors="pt")
    with torch.inference_mode():
        hidden = encoder.model(**batch).last_hidden_state[:, -1]
    np.testing.assert_allclose(
        encoder.encode(texts[:1]), torch.nn.functional.normalize(hidden, dim=-1).numpy(), atol=1e-6
    )


def test_mean_pooling_over_a_causal_model_calibrates_every_row_consistently(decoder_dir):
    encoder = load_encoder(decoder_dir, pooling="mean")
    assert encoder.tokenizer.padding_side == "right" and not (encoder.isolate_first or encoder.isolate_last)
    texts = _texts(4, seed=6)
    calibration = Calibration(lam=1.0, basket=8, layers="half")
    np.testing.assert_allclose(
        encoder.encode(texts, calibration, batch_size=4), _each_alone(encoder, texts, calibration), atol=1e-5
    )


def test_a_model_with_remote_code_is_refused(tmp_path, bert_dir):
    import shutil

    folder = tmp_path / "remote"
    shutil.copytree(bert_dir, folder)
    with pytest.raises(ValueError, match="remote code"):
        load_encoder(with_remote_code(folder))


def test_bad_folders_and_lengths_say_what_is_wrong(tmp_path, bert_dir):
    with pytest.raises(FileNotFoundError, match="no config.json"):
        load_encoder(tmp_path)
    with pytest.raises(ValueError, match="exceeds this model's limit of 512"):
        load_encoder(bert_dir, max_seq_length=1024)
    with pytest.raises(ValueError, match="pooling must be one of"):
        load_encoder(bert_dir, pooling="max")
    assert load_encoder(bert_dir, max_seq_length=64).describe()["max_seq_length"] == 64


def test_embeddings_are_cached_per_calibration(tmp_path, bert_dir):
    encoder = load_encoder(bert_dir, pooling="cls")
    texts = _texts(4, seed=7)
    half = Calibration(lam=0.5, basket=8)
    first, cached = encode_cached(encoder, texts, STOCK, cache_dir=tmp_path)
    again, hit = encode_cached(encoder, texts, STOCK, cache_dir=tmp_path)
    other, miss = encode_cached(encoder, texts, half, cache_dir=tmp_path)
    assert (cached, hit, miss) == (False, True, False)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert len(list((tmp_path / "positional").glob("*.npy"))) == 2
