"""Make the bundled judged sample: the stdlib 100-word results with a lenient judge's label beside the gold one.

From ``stdlib_100w.csv.gz`` (``ragunc chunk-eval stdlib --chunk-words 100 ...``), one row per
simulated known-item query (one per chunk): ``y`` is hit@1, the top chunk is the query's own
chunk (the gold label, known on every row), and ``y_judge`` is a lenient judge's verdict: the
top chunk comes from the query's document, as a judge that accepts a neighbouring passage of
the right document would say.  The judge never misses a hit and errs on the documents whose
chunks resemble each other, so its bias differs between documents: a population on which the
judge-only interval fails and the audited (prediction-powered) one holds.

Writes ``stdlib_judged_100w.csv.gz`` and ``stdlib_judged_meta.json`` (the population's values
and the coverage of the three intervals at K = 20 and 50 documents, a row audit of 20% and a
document audit of 30%, 2,000 repetitions).  Run from the repository root:
``PYTHONPATH=$PWD python sample_data/make_stdlib_judged.py`` (about a minute).
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import pandas as pd

from ragunc.data.results import results_from_frame
from ragunc.data.serialize import json_text
from ragunc.stats.judged.coverage import judged_coverage

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "stdlib_100w.csv.gz"
OUT = HERE / "stdlib_judged_100w.csv.gz"
META = HERE / "stdlib_judged_meta.json"
SEED, REPS = 0, 2000
DESIGNS = {"rows": 0.2, "documents": 0.3}  # audit unit -> share audited


def main() -> None:
    started = time.perf_counter()
    source = pd.read_csv(SOURCE, dtype={"doc_id": str, "chunk_id": str})
    frame = source[["doc_id", "chunk_id", "chunk_index", "config", "doc_type", "y"]].assign(
        y_judge=source["doc_hit1"].astype(int)
    )
    frame.to_csv(OUT, index=False, compression={"method": "gzip", "compresslevel": 9, "mtime": 0})
    population = results_from_frame(frame, source=OUT.name).judged_sample()
    values, coverage = {}, {}
    for estimator in ("micro", "macro"):
        for k in (20, 50):
            for audit, share in DESIGNS.items():
                result = judged_coverage(
                    population, k=k, reps=REPS, audit=audit, audit_share=share, estimator=estimator, rng=SEED
                )
                values[estimator] = {
                    "gold": result.population_value,
                    "judge": result.judge_value,
                    "bias": result.judge_value - result.population_value,
                }
                coverage[f"{estimator}, K={k}, {audit} {share:.0%}"] = {
                    name: {"coverage": c, "mcse": result.coverage_mcse[name], "width": result.width[name]}
                    for name, c in result.coverage.items()
                }
    META.write_text(
        json_text(
            {
                "description": (
                    "The stdlib 100-word known-item results with a lenient judge: y is hit@1 (the gold label, "
                    "on every row), y_judge says the top chunk comes from the query's document. A population "
                    "for simulating an audit: the coverage below draws K documents, then audits inside them."
                ),
                "python": platform.python_version(),
                "source": SOURCE.name,
                "file": OUT.name,
                "columns": {
                    "y": "hit@1: the top chunk is the query's own chunk (gold)",
                    "y_judge": "the top chunk comes from the query's document (a lenient judge)",
                },
                "n_docs": population.n_docs,
                "n_rows": population.n_rows,
                "population": values,
                "coverage": coverage,
                "seed": SEED,
                "reps": REPS,
                "interval": "Korn–Graubard with Bell–McCaffrey df (ragunc's recommended), 95%",
                "command": "PYTHONPATH=$PWD python sample_data/make_stdlib_judged.py",
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        + "\n"
    )
    rows = coverage["micro, K=50, rows 20%"]
    print(
        f"wrote {OUT.name} ({OUT.stat().st_size:,} bytes) and {META.name}; micro K=50 rows 20%: "
        + ", ".join(f"{name} {v['coverage']:.3f}" for name, v in rows.items())
    )


if __name__ == "__main__":
    main()
