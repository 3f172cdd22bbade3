"""Throughput of the calibrated attention against the stock model, measured in one run.

all-MiniLM-L6-v2 (the packaged model) encodes passages of exactly ``--tokens`` tokens (512 by
default, cut from the stdlib corpus) in batches of 16, three ways: stock (lambda = 0), one
calibrated row per layer (the [CLS] row in every layer) and every row in the last half of the
layers (what mean pooling calibrates).  The three ways run batch by batch, back to back, and
each keeps its best round per batch, so load from other processes adds time to none in
particular.  Targets:

- one row per layer: <= 1.1x the stock time;
- every row in half the layers: <= 1.6x.

Run: ``python bench/bench_positional.py`` (``--quick`` for fewer passages and rounds).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from ragunc.corpus.stdlib import stdlib_corpus
from ragunc.positional.encoder import load_encoder
from ragunc.positional.settings import STOCK, Calibration

WAYS = {
    "stock": STOCK,
    "one row per layer": Calibration(lam=0.5, basket=128, layers="all", rows="first"),
    "every row, half the layers": Calibration(lam=0.5, basket=128, layers="half", rows="all"),
}
TARGETS = {"one row per layer": 1.1, "every row, half the layers": 1.6}


def passages_of(encoder, n: int, tokens: int) -> list[str]:
    """``n`` stdlib documents cut to ``tokens`` tokens of the encoder (special tokens included)."""
    out = []
    for text in stdlib_corpus().texts:
        ids = encoder.tokenizer(text, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]
        if len(ids) >= tokens:
            out.append(encoder.tokenizer.decode(ids[: tokens - 2]))
        if len(out) == n:
            return out
    raise SystemExit(f"only {len(out)} stdlib documents have {tokens} tokens")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--quick", action="store_true", help="32 passages, 2 rounds")
    args = parser.parse_args()
    if args.quick:
        args.passages, args.rounds = 32, 2
    encoder = load_encoder(max_seq_length=args.tokens)
    texts = passages_of(encoder, args.passages, args.tokens)
    lengths = encoder.token_lengths(texts)
    print(
        f"{encoder.name}: {len(texts)} passages of {lengths.min()}-{lengths.max()} tokens, batch "
        f"{args.batch_size}, {torch.get_num_threads()} threads, device {encoder.device}"
    )
    # Batch by batch, every way back to back, and each way's best round per batch: load that
    # comes and goes on a shared machine then falls on all three alike.
    batches = [texts[i : i + args.batch_size] for i in range(0, len(texts), args.batch_size)]
    times = {name: np.full((args.rounds, len(batches)), np.inf) for name in WAYS}
    for r in range(args.rounds):
        for b, batch in enumerate(batches):
            for name, calibration in WAYS.items():
                start = time.perf_counter()
                encoder.encode(batch, calibration, batch_size=args.batch_size)
                times[name][r, b] = time.perf_counter() - start
    best = {name: float(t.min(0).sum()) for name, t in times.items()}
    stock = best["stock"]
    print(f"{'':28} {'passages/s':>10} {'time ratio':>10}  target")
    for name, seconds in best.items():
        ratio = seconds / stock
        target = TARGETS.get(name)
        verdict = "" if target is None else f"<= {target}x  {'met' if ratio <= target else 'MISSED'}"
        print(f"{name:28} {len(texts) / seconds:10.2f} {ratio:10.2f}x  {verdict}")


if __name__ == "__main__":
    main()
