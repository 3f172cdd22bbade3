"""Make the bundled positional-bias results: sample_data/positional_stdlib.json and its metadata.

all-MiniLM-L6-v2 (the packaged model, mean pooling, max_seq_length 512) on the embedded stdlib
corpus: 200 passages of 440-505 tokens, one query per third, the stock model and a lambda grid
at the default setting (B = 128, last half of the layers), plus lambda = 0.5 at the other
basket sizes and layer sets.  Embeddings are cached on disk, so a rerun only re-evaluates.

Run from the repository root: ``python sample_data/make_positional.py``.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

import torch
import transformers

from ragunc.data.serialize import json_text
from ragunc.positional import Calibration, save_sweep, sweep_settings
from ragunc.positional.sweep import positional_sweep

HERE = Path(__file__).resolve().parent
SETTINGS = (
    *sweep_settings(lams=(0.25, 0.5, 0.75, 1.0), baskets=(128,), layers=("half",)),
    Calibration(lam=0.5, basket=256),
    Calibration(lam=0.5, basket=512),
    Calibration(lam=0.5, layers="last"),
    Calibration(lam=0.5, layers="all"),
)
OPTIONS = {"corpus": "stdlib", "n_passages": 200, "min_tokens": 440, "max_tokens": 505, "reps": 2000, "seed": 0}


def main() -> None:
    started = time.perf_counter()
    sweep = positional_sweep(
        OPTIONS["corpus"],
        settings=SETTINGS,
        n_passages=OPTIONS["n_passages"],
        min_tokens=OPTIONS["min_tokens"],
        max_tokens=OPTIONS["max_tokens"],
        reps=OPTIONS["reps"],
        seed=OPTIONS["seed"],
        progress=lambda done, total: print(f"\r{done}/{total} texts", end="", file=sys.stderr),
    )
    save_sweep(sweep, HERE / "positional_stdlib.json")
    meta = {
        "description": "Positional bias of all-MiniLM-L6-v2 on the embedded stdlib corpus, stock and calibrated "
        "(ragunc.positional): nDCG@10 per third of 200 passages, harmonic mean, PSI, PosIR's 20-bin curve, "
        "paired cluster-bootstrap intervals over passages. Opened by the dashboard's Positional bias page.",
        "file": "positional_stdlib.json",
        "made_by": "python sample_data/make_positional.py",
        "options": OPTIONS,
        "settings": [s.to_dict() for s in SETTINGS],
        "encoder": sweep.encoder,
        "passages": sweep.passages,
        "query_model": sweep.query_model,
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, shared with other jobs",
        # Embeddings come from the on-disk cache when an earlier run made them: then this is evaluation only.
        "seconds_this_run": round(time.perf_counter() - started, 1),
    }
    (HERE / "positional_stdlib_meta.json").write_text(json_text(meta) + "\n", encoding="utf-8")
    print(json.dumps({"seconds": meta["seconds_this_run"]}), file=sys.stderr)


if __name__ == "__main__":
    main()
