"""Make the bundled multi-run sample: several BM25 runs on the same stdlib queries, one file with a ``run`` column.

The queries are those of the bundled single run (``stdlib_run_100w.csv.gz``, made by
``ragunc chunk-eval stdlib --chunk-words 100 --seed 0 ... --run-queries 2000``): 2,000
simulated known-item queries from 100-word chunks.  Each run answers them with its top
RUN_K chunks:

* ``100w``: 100-word chunks, BM25 k1 = 1.5, b = 0.75 (the bundled run, cut at RUN_K);
* ``50w`` and ``200w``: the same queries against 50- and 200-word chunks;
* ``100w-k0.9-b0.4``: 100-word chunks with Anserini's default BM25 parameters.

Chunk ids differ between chunk sizes, so the qrels are document-level: the query's source
document (also its group column ``doc_id``).  Writes ``stdlib_runs.csv.gz``,
``stdlib_runs_qrels.csv.gz`` and ``stdlib_runs_meta.json``.  Run from the repository root:
``PYTHONPATH=$PWD python sample_data/make_stdlib_runs.py`` (about a minute).
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ragunc.corpus import stdlib_corpus
from ragunc.data.runs import qrels_from_frame, runs_from_frame
from ragunc.data.serialize import json_text
from ragunc.ranking.metrics import judge, recall
from ragunc.retrieval.known_item import QueryModel
from ragunc.retrieval.pipeline import prepare_retrieval, simulated_queries, top_k_run

HERE = Path(__file__).resolve().parent
RUNS_FILE = HERE / "stdlib_runs.csv.gz"
QRELS_FILE = HERE / "stdlib_runs_qrels.csv.gz"
META = HERE / "stdlib_runs_meta.json"
BUNDLED_RUN = HERE / "stdlib_run_100w.csv.gz"
SEED, N_QUERIES, RUN_K = 0, 2000, 10
BASELINE = "100w"
RUNS = {  # name -> options of prepare_retrieval
    "100w": {"chunk_words": 100, "k1": 1.5, "b": 0.75},
    "50w": {"chunk_words": 50, "k1": 1.5, "b": 0.75},
    "200w": {"chunk_words": 200, "k1": 1.5, "b": 0.75},
    "100w-k0.9-b0.4": {"chunk_words": 100, "k1": 0.9, "b": 0.4},
}


def main() -> None:
    started = time.perf_counter()
    corpus = stdlib_corpus()
    source = prepare_retrieval(corpus, **RUNS[BASELINE])
    queries = simulated_queries(source, QueryModel(), rng=SEED)
    # The subset ``ragunc chunk-eval --run-queries`` draws: a separate stream of the seed.
    rows = np.sort(np.random.default_rng([SEED, 1]).choice(len(queries), N_QUERIES, replace=False))
    queries = queries.subset(rows)
    texts = list(queries.texts)
    frames = []
    for name, options in RUNS.items():
        retrieval = source if name == BASELINE else prepare_retrieval(corpus, **options)
        run = top_k_run(retrieval, queries if name == BASELINE else _requeried(queries, retrieval, texts), k=RUN_K)
        frames.append(run.drop(columns="score").assign(run=name))
    runs = pd.concat(frames, ignore_index=True)[["run", "query_id", "rank", "chunk_id", "doc_id"]]

    bundled = pd.read_csv(BUNDLED_RUN)
    bundled = bundled[bundled["rank"] <= RUN_K][["query_id", "rank", "chunk_id", "doc_id"]].reset_index(drop=True)
    mine = runs[runs["run"] == BASELINE].drop(columns="run").reset_index(drop=True)
    if not mine.equals(bundled):
        raise SystemExit(f"the {BASELINE} run differs from {BUNDLED_RUN.name}: the corpus or the code changed")

    source_doc = source.chunks.doc_ids[[r[0] for r in queries.relevant]]
    qrels = pd.DataFrame({"query_id": list(queries.query_ids), "doc_id": source_doc, "relevance": 1})
    runs.to_csv(RUNS_FILE, index=False, compression={"method": "gzip", "compresslevel": 9, "mtime": 0})
    qrels.to_csv(QRELS_FILE, index=False, compression={"method": "gzip", "compresslevel": 9, "mtime": 0})
    judgments = qrels_from_frame(qrels)
    hit = {
        name: float(np.nanmean(recall(judge(run, judgments), RUN_K)))
        for name, run in runs_from_frame(runs, "run").items()
    }
    META.write_text(
        json_text(
            {
                "description": (
                    "Several BM25 runs on the same 2,000 simulated known-item queries of the stdlib corpus "
                    "(those of stdlib_run_100w.csv.gz): chunk sizes 50/100/200 words and other BM25 parameters. "
                    "Document-level qrels: each query's source document."
                ),
                "python": platform.python_version(),
                "files": {"runs": RUNS_FILE.name, "qrels": QRELS_FILE.name},
                "runs_col": "run",
                "baseline": BASELINE,
                "group_col": "doc_id",
                "runs": {name: {**options, "epsilon": 0.25} for name, options in RUNS.items()},
                "query_model": QueryModel().to_dict(),
                "seed": SEED,
                "n_queries": N_QUERIES,
                "k": RUN_K,
                "doc_recall_at_k": hit,
                "command": "PYTHONPATH=$PWD python sample_data/make_stdlib_runs.py",
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        + "\n"
    )
    print(f"wrote {RUNS_FILE.name} ({RUNS_FILE.stat().st_size:,} bytes), {QRELS_FILE.name}, {META.name}: {hit}")


def _requeried(queries, retrieval, texts):
    """The same query texts encoded against another index's vocabulary."""
    return type(queries)(
        query_ids=queries.query_ids,
        texts=queries.texts,
        matrix=retrieval.encode_queries(texts),
        relevant=queries.relevant,
    )


if __name__ == "__main__":
    main()
