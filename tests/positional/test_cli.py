"""``ragunc positional``: the JSON list of settings on a tiny model, and the missing-extra message."""

from __future__ import annotations

import json

import numpy as np
import pytest
from positional_extra import require_extra

import ragunc.positional
from ragunc.cli import main


@pytest.fixture()
def corpus_file(tmp_path):
    rng = np.random.default_rng(0)
    vocabulary = [f"w{i}" for i in range(2000)]
    rows = [{"doc_id": f"doc{d}", "text": " ".join(rng.choice(vocabulary, 150))} for d in range(10)]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_positional_prints_a_json_list_of_settings(corpus_file, tmp_path, monkeypatch, capsys, request):
    require_extra()
    bert_dir = request.getfixturevalue("bert_dir")  # built with torch, so only after the guard
    monkeypatch.setenv("RAGUNC_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "sweep.json"
    args = [
        "positional",
        str(corpus_file),
        "--model",
        str(bert_dir),
        "--pooling",
        "cls",
        "--passages",
        "8",
        "--min-tokens",
        "120",
        "--max-tokens",
        "150",
        "--lambda",
        "0.5",
        "1",
        "--basket",
        "64",
        "--layers",
        "last",
        "all",
        "--reps",
        "200",
        "--seed",
        "3",
        "--out",
        str(out),
        "--json",
        "--no-progress",
    ]
    assert main(args) == 0
    entries = json.loads(capsys.readouterr().out)
    assert [(e["lambda"], e["layers"]) for e in entries] == [
        (0.0, "half"),
        (0.5, "last"),
        (0.5, "all"),
        (1.0, "last"),
        (1.0, "all"),
    ]
    for entry in entries:
        assert set(entry["ndcg10"]) == {"begin", "middle", "end", "all"}
        assert {"gap", "hm", "psi", "truncated_share", "basket", "max_seq_length", "model", "pooling"} <= set(entry)
        assert entry["max_seq_length"] == 512 and entry["pooling"] == "cls" and entry["n_passages"] == 8
        for name in ("begin", "middle", "end", "gap", "hm", "psi"):
            value = entry["ndcg10"][name] if name in entry["ndcg10"] else entry[name]
            low, high = entry["ci"][name]
            assert low <= value <= high, (name, low, value, high)
    assert entries[0]["diff"]["hm"] == 0.0 and entries[0]["ci"]["diff"]["psi"] == [0.0, 0.0]
    assert ragunc.positional.load_sweep(out).entries()[3]["hm"] == pytest.approx(entries[3]["hm"])
    # The stock and calibrated passage embeddings were cached: a second run encodes nothing new.
    cached = sorted((tmp_path / "cache" / "positional").glob("*.npy"))
    assert len(cached) == 1 + 5  # the queries (shorter than a basket: never calibrated), the passages per setting
    assert main(args[:-2] + ["--no-progress"]) == 0
    assert "lambda" in capsys.readouterr().out
    assert sorted((tmp_path / "cache" / "positional").glob("*.npy")) == cached


def test_without_the_extra_the_command_says_how_to_install_it(corpus_file, monkeypatch, capsys):
    monkeypatch.setattr(ragunc.positional, "extra_missing", lambda: ("torch", "transformers"))
    assert main(["positional", str(corpus_file)]) == 2
    err = capsys.readouterr().err
    assert "torch, transformers not installed" in err and "pip install 'ragunc[positional]'" in err


def test_queries_as_long_as_a_basket_are_calibrated_too(corpus_file, tmp_path, request):
    require_extra()
    from ragunc.positional.encoder import load_encoder

    encoder = load_encoder(request.getfixturevalue("bert_dir"), pooling="cls")
    calls = []
    settings = ragunc.positional.sweep_settings(lams=(0.5,), baskets=(4,))
    sweep = ragunc.positional.positional_sweep(
        str(corpus_file),
        encoder=encoder,
        settings=settings,
        n_passages=4,
        min_tokens=120,
        max_tokens=150,
        reps=100,
        cache_dir=tmp_path,
        progress=lambda done, total: calls.append((done, total)),
    )
    # Queries (a few words, several tokens each) reach 4 content tokens: encoded stock and calibrated.
    assert len(list((tmp_path / "positional").glob("*.npy"))) == 2 + 2
    assert calls[-1][0] == calls[-1][1] == 2 * 12 + 2 * 4
    assert len(sweep.settings) == 2
