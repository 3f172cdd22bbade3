"""Paired comparison of two configs on the same documents.

Both configs are evaluated on the same sampled documents, so the difference's
uncertainty comes from the per-document difference of linearized residuals
(the documents' shared difficulty cancels), and the bootstrap resamples the
same documents for both.  The paired SE, the naive interval and the paired t test
(K - 1 df) are those of :func:`ragunc.stats.multiple.compare_aligned` for the pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bootstrap import sorted_quantile
from .linearization import check_options
from .methods import ByMethod, IntervalEstimate
from .multiple import align_shared, compare_aligned, config_replicates
from .sample import ClusterStats


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
    p_value: float = float("nan")  # two-sided paired t test of b = a, K - 1 df
    t: float = float("nan")  # its statistic, difference / paired SE
    df: int = 0

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
            "p_value": self.p_value,
            "t": self.t,
            "df": self.df,
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

    The FPC uses population_docs of ``a`` (or ``b``) when known.  With one query per
    document and no FPC, ``p_value`` is that of ``scipy.stats.ttest_rel(b, a)``.
    """
    check_options(estimator, level)
    if boot < 2:
        raise ValueError(f"boot must be >= 2, got {boot}")
    shared, aligned = align_shared([a, b])
    k = shared.size
    if k < 2:
        raise ValueError(
            f"configs {a.config!r} and {b.config!r} share {k} document(s); a paired comparison needs at least 2"
        )
    # Keyed by position: two configs may carry the same name.
    pair = compare_aligned(
        dict(zip("ab", aligned)), dropped=[a.n_docs - k, b.n_docs - k], adjust="none", estimator=estimator, level=level
    )
    (d,) = pair.comparisons
    sum_y = np.stack([s.sum_y for s in aligned])
    n = np.stack([s.n for s in aligned])
    reps = config_replicates(sum_y, n, estimator, boot, rng)
    reps = np.sort(reps[:, 1] - reps[:, 0])
    alpha = (1 - level) / 2
    return ComparisonResult(
        config_a=a.config,
        config_b=b.config,
        estimator=estimator,
        level=level,
        estimate_a=pair.configs[0].estimate,
        estimate_b=pair.configs[1].estimate,
        difference=d.difference,
        n_docs=k,
        dropped_a=a.n_docs - k,
        dropped_b=b.n_docs - k,
        intervals={
            "paired": d.interval("paired"),
            "bootstrap": IntervalEstimate(
                "bootstrap",
                float(reps.std(ddof=1)),
                (float(sorted_quantile(reps, alpha)), float(sorted_quantile(reps, 1 - alpha))),
            ),
            "naive": d.interval("naive"),
        },
        boot=boot,
        p_value=d.p_value,
        t=d.t,
        df=d.df,
    )
