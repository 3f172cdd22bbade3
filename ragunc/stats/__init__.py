"""Design-based statistics on per-document sufficient statistics (documents = clusters).

The design object (:class:`ClusterStats`, per-cluster sums of a population or a sample drawn from
it; :func:`~ragunc.stats.sample.draw_sample`), linearization, the cluster
bootstrap, diagnostics, ``interval_report``, the coverage experiment, planning (a half-width or
a difference), paired comparison of two configs and of many, which config is best (rank
intervals, P(best)), labels from a judge audited by a person (judge-only, gold-only and
prediction-powered estimates), synthetic populations and the registry of interval methods.  Imports
nothing else of ragunc: it knows no files, retrieval, ranking or presentation.
"""

from .all_k import KTable, k_table, nested_bootstrap
from .coverage import CoverageResult, coverage_experiment, iid_control, predicted_variance
from .diagnostics import Diagnostics, deff_equal_size, deff_kish, diagnostics, icc_anova, k_over_rho
from .intervals import IntervalReport, interval_arrays, interval_estimates, interval_report
from .judged import AuditPlan, JudgedCoverage, JudgedReport, JudgedSample, judged_coverage, judged_report, plan_audit
from .linearization import ESTIMATORS, cluster_variance, estimate
from .methods import METHODS, ConfidenceInterval, IntervalEstimate, IntervalMethod, interval_method, interval_methods
from .multiple import MultipleComparison, RankResult, compare_configs, rank_configs
from .paired import ComparisonResult, paired_comparison
from .planning import DifferencePlan, PlanResult, plan_difference, plan_documents
from . import sample
from .sample import ClusterStats, draw_sample, finite_population_correction, nested_orders, nested_sample
from .synthetic import synthesize, synthesize_chunk_sizes, synthesize_judged


def __getattr__(name: str):
    if name == "ClusterSample":  # the deprecated name of ClusterStats: sample.py warns and gives it
        return getattr(sample, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
