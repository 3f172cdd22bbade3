"""ragunc: how sure is a RAG retrieval evaluation?  Clusters are documents, not chunks.

The public API, whatever file each function lives in (as ``scipy.stats`` does)::

    import ragunc as ru
    population = ru.load_results("sample_data/stdlib_100w.csv.gz").population()
    report = ru.interval_report(population, boot=1000, rng=0)
    result = ru.coverage_experiment(population, k=20, reps=2000, boot=1000, rng=0)

Layers, lowest first: ``stats`` (design-based statistics), ``data`` (the data contract),
``corpus``, ``retrieval``, ``ranking``, ``evalset`` (evaluation sets built from the corpus),
``present`` (figures, the HTML summary) and ``cli``.
A layer imports only layers below it (``tests/test_architecture.py`` holds it to that).
The names below are imported when first used: ``import ragunc`` itself loads no layer.
"""

__version__ = "0.1.0"

import importlib

# The public API: name -> the subpackage that holds it.  Each is imported on first use (PEP 562),
# so that ``import ragunc`` loads no layer and a command of the CLI only the layers it needs.
_EXPORTS = {
    **dict.fromkeys(("Corpus", "load_corpus", "stdlib_corpus"), "corpus"),
    **dict.fromkeys(
        ("DataError", "Results", "load_qrels", "load_results", "load_run", "load_runs", "results_from_frame"), "data"
    ),
    **dict.fromkeys(
        ("OpenAIGenerator", "add_questions", "build_evalset", "evaluate_evalset", "load_evalset"), "evalset"
    ),
    **dict.fromkeys(("compare_runs", "match_qrels", "recall_report"), "ranking"),
    "chunk_eval": "retrieval",
    **dict.fromkeys(
        (
            "ClusterStats",
            "CoverageResult",
            "IntervalReport",
            "compare_configs",
            "coverage_experiment",
            "diagnostics",
            "draw_sample",
            "estimate",
            "interval_report",
            "judged_coverage",
            "judged_report",
            "paired_comparison",
            "plan_audit",
            "plan_difference",
            "plan_documents",
            "rank_configs",
            "synthesize",
            "synthesize_judged",
        ),
        "stats",
    ),
}
_LAYERS = ("stats", "data", "corpus", "retrieval", "ranking", "evalset", "positional", "present", "cli")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _LAYERS:
        return importlib.import_module(f".{name}", __name__)
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # found at once from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, *_LAYERS})
