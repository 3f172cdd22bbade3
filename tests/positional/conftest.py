"""Fixtures of the positional tests: tiny random models built once per session (imported lazily so
that a machine without the positional extra skips these tests instead of failing to collect them)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def bert_dir(tmp_path_factory):
    import tiny_models

    return tiny_models.tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def decoder_dir(tmp_path_factory):
    import tiny_models

    return tiny_models.tiny_decoder(tmp_path_factory.mktemp("tiny-decoder"))


@pytest.fixture(scope="session")
def minilm():
    from ragunc.positional.encoder import load_encoder

    return load_encoder()
