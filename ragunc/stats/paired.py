"""Paired comparison of two configs on the same documents.

Both configs are evaluated on the same sampled documents, so the difference's
uncertainty comes from the per-document difference of linearized residuals
(the documents' shared difficulty cancels), and the bootstrap resamples the
same documents for both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .bootstrap import sorted_quantile
from .bootstrap_kernels import resampled_sums
from .linearization import check_options, chunk_variance, linearized_residuals, residual_variance
from .methods import ByMethod, IntervalEstimate
from .sample import ClusterStats, finite_population_correction


@dataclass(frozen=True)
class ComparisonResult(ByMethod):
    config_a: str
    config_b: str
    estimator: str
    level: float
    estimate_a: float
    estimate_b: float
    difference: float  # b - a
    n_docs: int  # documents present in both configs
    dropped_a: int  # documents only in a (excluded)
    dropped_b: int
    # "paired": document-level paired linearization; "bootstrap": paired cluster bootstrap (percentile);
    # "naive": unpaired binomial over chunks
    intervals: dict[str, IntervalEstimate]
    boot: int = 0  # bootstrap replicates

    def to_dict(self) -> dict:
        return {
            "config_a": self.config_a,
            "config_b": self.config_b,
            "estimator": self.estimator,
            "level": self.level,
            "estimate_a": self.estimate_a,
            "estimate_b": self.estimate_b,
            "difference": self.difference,
            "n_docs": self.n_docs,
            "dropped_a": self.dropped_a,
            "dropped_b": self.dropped_b,
            "paired": self.interval("paired").to_dict(),
            "bootstrap": {**self.interval("bootstrap").to_dict(), "reps": self.boot},
            "naive": self.interval("naive").to_dict(),
        }


def paired_comparison(
    a: ClusterStats,
    b: ClusterStats,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> ComparisonResult:
    """Difference b - a on the documents both configs evaluated, with paired and naive intervals.

    The FPC uses population_docs of ``a`` (or ``b``) when known.
    """
    check_options(estimator, level)
    if boot < 2:
        raise ValueError(f"boot must be >= 2, got {boot}")
    _, ia, ib = np.intersect1d(a.cluster_id, b.cluster_id, assume_unique=True, return_indices=True)
    k = ia.size
    if k < 2:
        raise ValueError(
            f"configs {a.config!r} and {b.config!r} share {k} document(s); a paired comparison needs at least 2"
        )
    dropped_a, dropped_b = a.n_docs - k, b.n_docs - k
    a, b = a.subset(ia), b.subset(ib)
    d = a.population_docs if a.population_docs is not None else b.population_docs
    fpc = finite_population_correction(k, d)
    est_a, res_a = linearized_residuals(a.sum_y, a.n, estimator)
    est_b, res_b = linearized_residuals(b.sum_y, b.n, estimator)
    diff = float(est_b - est_a)
    z = special.ndtri(0.5 + level / 2)

    se_paired = float(np.sqrt(residual_variance(res_b - res_a, fpc)))

    if estimator == "micro":
        ya, ma, yb, mb = resampled_sums([a.sum_y, a.n, b.sum_y, b.n], boot, rng)
        reps = yb / mb - ya / ma
    else:
        (delta,) = resampled_sums([b.sum_y / b.n - a.sum_y / a.n], boot, rng)
        reps = delta / k
    reps.sort()
    alpha = (1 - level) / 2

    var_a = chunk_variance(a.sum_y, a.n, a.sum_y2, est_a) / a.n_chunks
    var_b = chunk_variance(b.sum_y, b.n, b.sum_y2, est_b) / b.n_chunks
    se_naive = float(np.sqrt(var_a + var_b))

    return ComparisonResult(
        config_a=a.config,
        config_b=b.config,
        estimator=estimator,
        level=level,
        estimate_a=float(est_a),
        estimate_b=float(est_b),
        difference=diff,
        n_docs=k,
        dropped_a=dropped_a,
        dropped_b=dropped_b,
        intervals={
            "paired": IntervalEstimate("paired", se_paired, (float(diff - z * se_paired), float(diff + z * se_paired))),
            "bootstrap": IntervalEstimate(
                "bootstrap",
                float(reps.std(ddof=1)),
                (float(sorted_quantile(reps, alpha)), float(sorted_quantile(reps, 1 - alpha))),
            ),
            "naive": IntervalEstimate("naive", se_naive, (float(diff - z * se_naive), float(diff + z * se_naive))),
        },
        boot=boot,
    )
