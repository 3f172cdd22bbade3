"""Design-based statistics on per-document sufficient statistics (documents = clusters).

The design object (:class:`ClusterStats`, per-cluster sums of a population or a sample drawn from
it; :func:`~ragunc.stats.sample.draw_sample`), linearization, the cluster
bootstrap, diagnostics, ``interval_report``, the coverage experiment, planning (a half-width or
a difference), paired comparison of two configs and of many, which config is best (rank
intervals, P(best)), labels from a judge audited by a person (judge-only, gold-only and
prediction-powered estimates), synthetic populations and the registry of interval methods.  Imports
nothing else of ragunc: it knows no files, retrieval, ranking or presentation.
"""

import importlib

# name -> the module of this package that holds it, imported on first use (PEP 562): ``ragunc interval``
# loads the interval's modules, not the coverage experiment's, the synthetic populations' or pandas.
_EXPORTS = {
    **dict.fromkeys(("KTable", "k_table", "nested_bootstrap"), "all_k"),
    **dict.fromkeys(("CoverageResult", "coverage_experiment", "iid_control", "predicted_variance"), "coverage"),
    **dict.fromkeys(
        ("Diagnostics", "deff_equal_size", "deff_kish", "diagnostics", "icc_anova", "k_over_rho"), "diagnostics"
    ),
    **dict.fromkeys(("IntervalReport", "interval_arrays", "interval_estimates", "interval_report"), "intervals"),
    **dict.fromkeys(("JudgedCoverage", "judged_coverage"), "judged.coverage"),
    "AuditPlan": "judged.plan",
    "plan_audit": "judged.plan",
    **dict.fromkeys(("JudgedReport", "judged_report"), "judged.report"),
    "JudgedSample": "judged.sample",
    **dict.fromkeys(("ESTIMATORS", "cluster_variance", "estimate"), "linearization"),
    **dict.fromkeys(
        ("METHODS", "ConfidenceInterval", "IntervalEstimate", "IntervalMethod", "interval_method", "interval_methods"),
        "methods",
    ),
    **dict.fromkeys(("MultipleComparison", "RankResult", "compare_configs", "rank_configs"), "multiple"),
    **dict.fromkeys(("ComparisonResult", "paired_comparison"), "paired"),
    **dict.fromkeys(("DifferencePlan", "PlanResult", "plan_difference", "plan_documents"), "planning"),
    **dict.fromkeys(
        ("ClusterStats", "draw_sample", "finite_population_correction", "nested_orders", "nested_sample"), "sample"
    ),
    **dict.fromkeys(("synthesize", "synthesize_chunk_sizes", "synthesize_judged"), "synthetic"),
}

__all__ = sorted(_EXPORTS)

# A function named as its module: importing the module binds the package's attribute to the module, after
# which __getattr__ is never asked, so the function is bound here, once the module is loaded.
from .diagnostics import diagnostics  # noqa: E402


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # found at once from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
