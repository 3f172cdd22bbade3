"""ragunc: how sure is a RAG retrieval evaluation?  Clusters are documents, not chunks.

The public API, whatever file each function lives in (as ``scipy.stats`` does)::

    import ragunc as ru
    sample = ru.load_results("sample_data/stdlib_100w.csv.gz").sample()
    report = ru.interval_report(sample, boot=1000, rng=0)
    result = ru.coverage_experiment(sample, k=20, reps=2000, boot=1000, rng=0)

Layers, lowest first: ``stats`` (design-based statistics), ``data`` (the data contract),
``corpus``, ``retrieval``, ``ranking``, ``evalset`` (evaluation sets built from the corpus),
``present`` (figures, the HTML summary) and ``cli``.
A layer imports only layers below it (``tests/test_architecture.py`` holds it to that).
"""

__version__ = "0.1.0"

from .corpus import Corpus, load_corpus, stdlib_corpus
from .data import DataError, Results, load_qrels, load_results, load_run, load_runs, results_from_frame
from .evalset import OpenAIGenerator, add_questions, build_evalset, evaluate_evalset, load_evalset
from .ranking import compare_runs, judge, recall_report
from .retrieval import chunk_eval
from .stats import (
    ClusterSample,
    CoverageResult,
    compare_configs,
    IntervalReport,
    coverage_experiment,
    diagnostics,
    estimate,
    interval_report,
    paired_comparison,
    plan_difference,
    plan_documents,
    synthesize,
)

__all__ = [
    "ClusterSample", "Corpus", "CoverageResult", "DataError", "IntervalReport", "OpenAIGenerator", "Results",
    "add_questions", "build_evalset", "chunk_eval", "compare_configs", "compare_runs", "coverage_experiment",
    "diagnostics", "estimate", "evaluate_evalset", "interval_report", "judge", "load_corpus", "load_evalset",
    "load_qrels", "load_results", "load_run", "load_runs", "paired_comparison", "plan_difference", "plan_documents",
    "recall_report", "results_from_frame", "stdlib_corpus", "synthesize",
]
