"""The all-K table computed K by K with the single-K functions: the reference the vectorised engine must equal.

At every K it takes the nested sample (the first K documents of the seeded permutation) and the first
K documents of each of the R nested repetitions, and asks ``interval_estimates``, ``diagnostics``,
``recommend``, ``design`` and ``coverage_experiment`` what they give there.
"""

from __future__ import annotations

import numpy as np

from ragunc.stats.all_k import table_methods
from ragunc.stats.coverage import coverage_experiment, predicted_variance
from ragunc.stats.design import design
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_estimates
from ragunc.stats.linearization import estimate
from ragunc.stats.leverage import leverage
from ragunc.stats.recommend import RECOMMENDED_METHOD, SPAN_METHOD, recommend
from ragunc.stats.sample import nested_orders


def k_table_columns(
    population, *, estimator="micro", level=0.95, seed=0, reps=1000, ks=None, orders=None
) -> dict[str, np.ndarray]:
    """Every column of ``k_table`` at each K of ``ks`` (default 2..D), one K at a time.

    ``orders`` (1 + R, D): the sample's permutation and the repetitions' (default: ``nested_orders``).
    """
    d = population.n_docs
    orders = nested_orders(d, 1 + reps, seed) if orders is None else orders
    methods = table_methods()
    rows = [_row(population, k, orders, methods, estimator, level) for k in (range(2, d + 1) if ks is None else ks)]
    return {name: np.array([row.get(name, np.nan) for row in rows], dtype=float) for name in rows[0]}


def _row(population, k, orders, methods, estimator, level) -> dict[str, float]:
    d = population.n_docs
    sample = population.subset(np.sort(orders[0, :k])).with_population(d)
    intervals = interval_estimates(sample, methods, estimator=estimator, level=level)
    diag = diagnostics(sample, estimator=estimator)
    rec = recommend(sample.sum_y, sample.n, estimator=estimator, binary=sample.binary)
    row = {"n_chunks": sample.n_chunks, "estimate": estimate(sample, estimator)}
    for name, est in intervals.items():
        row[f"{name}_low"], row[f"{name}_high"] = est.ci
        if est.se is not None:
            row[f"{name}_se"] = est.se
    # The table's recommended interval is the default's; where its span with the wild bootstrap is recommended instead it says so.
    row["recommended_low"], row["recommended_high"] = intervals[RECOMMENDED_METHOD].ci
    lev = leverage(sample, estimator=estimator)
    row["recommended_df"] = rec.df
    row |= {
        "deff": diag.deff,
        "icc": diag.icc,
        "n_eff": diag.n_eff,
        "bernoulli_n": diag.bernoulli_n,
        "k_over_rho": diag.k_over_rho,
        "cluster_variance": diag.cluster_variance,
        "binomial_variance": diag.binomial_variance,
        "documents_with_hits": rec.documents_with_hits,
        "documents_with_misses": rec.documents_with_misses,
        "g_star": lev.g_star,
        "g_star_rho0": lev.g_star_rho0,
        "max_leverage": lev.max_leverage,
        "recommended_wild": float(rec.method == SPAN_METHOD),
    }
    values = design(population, k, estimator=estimator, samples=orders[1:, :k])
    row |= {
        "design_sd": values.sd,
        "design_binomial_sd": values.binomial_sd,
        "design_deff": values.deff,
        "design_deff_mcse": values.deff_mcse,
        "design_n_eff": values.n_eff,
        "design_chunks": values.expected_chunks,
        "design_naive_coverage": values.naive_coverage,
        "design_draws": values.draws,
        "design_linearization_sd": np.sqrt(predicted_variance(population.sum_y, population.n, k, estimator)),
    }
    reps = orders.shape[0] - 1
    coverage = None
    if k < d:
        coverage = coverage_experiment(
            population, k=k, reps=reps, boot=0, estimator=estimator, level=level, samples=orders[1:, :k]
        )
    for name in (*methods, "recommended"):
        m = None if coverage is None else coverage.methods[RECOMMENDED_METHOD if name == "recommended" else name]
        row[f"coverage_{name}"] = np.nan if m is None else m.coverage
        row[f"coverage_{name}_mcse"] = np.nan if m is None else m.mcse
        row[f"coverage_{name}_undefined"] = np.nan if m is None else m.undefined
        if name in intervals and intervals[name].se is not None:
            row[f"coverage_{name}_se_mean"] = np.nan if m is None else m.se_mean
    row["coverage_sd"] = np.nan if coverage is None else coverage.sd_empirical
    row["coverage_variance_ratio"] = np.nan if coverage is None else coverage.variance_ratio
    row["coverage_mean_chunks"] = np.nan if coverage is None else coverage.mean_chunks
    return row
