"""Many configs at once: each config's cluster interval and paired differences with simultaneous intervals.

Every config is evaluated on the documents they all share, so the documents' shared
difficulty cancels in each difference.  A difference's SE comes from the per-document
difference of the two configs' linearized residuals through the one residual-variance
function (as :func:`ragunc.stats.paired.paired_comparison` does for two configs).

Each comparison's own test is the paired t: ``t = difference / paired SE`` with K - 1 degrees of
freedom, K the clusters compared (the cluster intervals' df).  With one query per cluster and no
FPC it is exactly the paired t of ``scipy.stats.ttest_rel`` and ranx's ``"Student's t-test"``.

Simultaneous intervals and adjusted p-values across the comparisons:

* ``holm``: Holm's step-down p-values (Holm 1979) and Bonferroni intervals (the intervals
  Holm's procedure is consonant with at the first step: level 1 - alpha/m each);
* ``maxt``: a single-step max-|t| cluster bootstrap (Westfall and Young 1993): documents are
  drawn with replacement once per replicate for all configs together, every difference is
  recomputed on those draws, and the quantile of ``max_j |t*_j|`` is the common critical value;
  the adjusted p-value of comparison j is ``(1 + #{max |t*| >= |t_j|}) / (B + 1)``, the observed
  sample counted among the replicates (Davison and Hinkley 1997, eq. 4.11), so never 0 with finite B;
* ``none``: each comparison's own interval and p-value.

Which config is best, and how sure (:func:`rank_configs`): each config's rank among them
(1 = highest estimate) in every replicate of the same joint cluster bootstrap, its
equal-tailed rank interval and P(best), the share of replicates where it ranks first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import special

from .bootstrap_kernels import resampled_sums
from .linearization import check_options, chunk_variance, linearized_residuals, point_estimate, residual_variance
from .methods import ByMethod, IntervalEstimate
from .sample import ClusterStats, finite_population_correction


@dataclass(frozen=True)
class ConfigEstimate(ByMethod):
    """One config's estimate on the shared documents and its cluster (linearization) interval."""

    config: str
    estimate: float
    intervals: dict[str, IntervalEstimate]  # "cluster": the linearization interval, FPC applied
    dropped: int  # documents of this config left out for not being in every config

    def to_dict(self) -> dict:
        return {
            "config": self.config,
            "estimate": self.estimate,
            "cluster": self.interval("cluster").to_dict(),
            "dropped": self.dropped,
        }


@dataclass(frozen=True)
class ConfigDifference(ByMethod):
    """The difference b - a on the shared documents: naive, paired and simultaneous intervals."""

    a: str  # the baseline (first of the pair with all pairs)
    b: str
    difference: float
    # "naive": unpaired binomial over chunks; "paired": document-level paired linearization, this comparison
    # alone; "simultaneous": covers every comparison jointly at the level (the adjustment's critical value)
    intervals: dict[str, IntervalEstimate]
    p_value: float  # two-sided paired t with K - 1 df, unadjusted
    p_adjusted: float
    t: float  # the paired t statistic, signed as the difference
    df: int  # its degrees of freedom, K - 1

    def to_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "naive": self.interval("naive").to_dict(),
            "paired": self.interval("paired").to_dict(),
            "simultaneous": {"ci": list(self.interval("simultaneous").ci)},
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "t": self.t,
            "df": self.df,
        }


@dataclass(frozen=True)
class MultipleComparison:
    estimator: str
    level: float
    adjust: str  # a name of ADJUSTMENT_REGISTRY
    baseline: str
    all_pairs: bool
    n_docs: int  # documents every config evaluated
    configs: tuple[ConfigEstimate, ...]
    comparisons: tuple[ConfigDifference, ...]
    critical_value: float  # the simultaneous intervals' half-width in SEs
    boot: int = 0  # max-t bootstrap replicates (0 unless adjust="maxt")
    population_docs: int | None = None

    def to_dict(self) -> dict:
        return {
            "estimator": self.estimator,
            "level": self.level,
            "adjust": self.adjust,
            "baseline": self.baseline,
            "all_pairs": self.all_pairs,
            "n_docs": self.n_docs,
            "population_docs": self.population_docs,
            "critical_value": self.critical_value,
            "boot": self.boot,
            "configs": [c.to_dict() for c in self.configs],
            "comparisons": [c.to_dict() for c in self.comparisons],
        }


@dataclass(frozen=True)
class Differences:
    """What an adjustment reads: the comparisons ``b - a`` and the documents behind them."""

    sum_y: np.ndarray  # (C, K) each config's sum of y per document
    n: np.ndarray  # (C, K) its chunks per document
    estimator: str
    level: float
    resid: np.ndarray  # (C, K) each config's linearized residuals
    a: np.ndarray  # (m,) the config subtracted in each comparison
    b: np.ndarray
    difference: np.ndarray  # (m,) b - a
    t: np.ndarray  # (m,) |difference| / its paired SE
    p: np.ndarray  # (m,) two-sided unadjusted p-values (paired t, K - 1 df)
    boot: int
    rng: np.random.Generator | int | None


def _unadjusted(d: Differences) -> tuple[float, np.ndarray]:
    return float(special.ndtri(0.5 + d.level / 2)), d.p


def _holm(d: Differences) -> tuple[float, np.ndarray]:
    return float(special.ndtri(1 - (1 - d.level) / (2 * d.p.size))), holm_adjust(d.p)


def _max_t(d: Differences) -> tuple[float, np.ndarray]:
    replicates = config_replicates(d.sum_y, d.n, d.estimator, d.boot, d.rng)
    reps = replicates[:, d.b] - replicates[:, d.a]
    # The with-replacement bootstrap's variance is (K - 1)/K times the linearization's
    # (and knows no FPC): scale the replicates' t by the same SE they are drawn with.
    k = d.sum_y.shape[-1]
    boot_se = np.sqrt(residual_variance(d.resid[d.b] - d.resid[d.a]) * (k - 1) / k)
    null = np.sort(max_t_null(reps, d.difference, boot_se))
    return float(np.quantile(null, d.level)), (1 + d.boot - np.searchsorted(null, d.t, side="left")) / (d.boot + 1)


@dataclass(frozen=True)
class Adjustment:
    """One way of allowing for several comparisons at once: what readers need to know of it."""

    name: str  # its key: --adjust, MultipleComparison.adjust, the JSON
    label: str  # what tables, figures, the plain reading and the CLI call it
    kernel: Callable[[Differences], tuple[float, np.ndarray]]  # -> (critical value in SEs, adjusted p-values)
    resamples: bool = False  # it resamples the documents (``boot`` replicates)


ADJUSTMENT_REGISTRY: tuple[Adjustment, ...] = (
    Adjustment("holm", "Holm (Bonferroni intervals)", _holm),
    Adjustment("maxt", "max-|t| cluster bootstrap", _max_t, resamples=True),
    Adjustment("none", "unadjusted", _unadjusted),
)
ADJUSTMENTS: tuple[str, ...] = tuple(a.name for a in ADJUSTMENT_REGISTRY)


# A comparison's intervals (Comparison.interval's names, the JSON's keys) -> what figures and tables call them.
COMPARISON_INTERVALS: dict[str, str] = {
    "naive": "naive binomial (unpaired)",
    "paired": "paired cluster",
    "simultaneous": "simultaneous paired",
}


def adjustment(name: str) -> Adjustment:
    """The registered adjustment called ``name``."""
    for a in ADJUSTMENT_REGISTRY:
        if a.name == name:
            return a
    raise ValueError(f"adjust must be one of {ADJUSTMENTS}, got {name!r}")


def holm_adjust(p) -> np.ndarray:
    """Holm's step-down adjusted p-values: max over j <= i of (m - j) p_(j), capped at 1, in the input order."""
    p = np.asarray(p, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    out = np.empty(m)
    out[order] = stepped
    return out


def max_t_null(diffs: np.ndarray, observed: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``max_j |diffs[..., j] - observed[j]| / scale[j]`` per replicate (replicates on the first axis).

    A comparison with scale 0 (two identical configs) contributes 0: it never varies.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(diffs - observed) / scale
    return np.where(scale > 0, t, 0.0).max(axis=-1)


def config_replicates(sum_y, n, estimator: str, boot: int, rng) -> np.ndarray:
    """Each config's estimate on ``boot`` resamples of the documents, drawn once for all configs: (boot, C).

    ``sum_y`` and ``n`` are (C, K); every config's columns are summed over the same draws, so
    the configs stay paired document by document.
    """
    c, k = sum_y.shape
    if estimator == "micro":
        sums = resampled_sums([*sum_y, *n], boot, rng)
        return np.stack(sums[:c], axis=-1) / np.stack(sums[c:], axis=-1)
    return np.stack(resampled_sums(list(sum_y / n), boot, rng), axis=-1) / k


def align_shared(samples: Sequence[ClusterStats]) -> tuple[np.ndarray, list[ClusterStats]]:
    """The documents every sample evaluated, and each sample cut to them in one order (that of the ids).

    The one alignment of configs on shared documents: comparisons, ranks and difference plans use it.
    """
    shared = samples[0].cluster_id
    for s in samples[1:]:
        shared = np.intersect1d(shared, s.cluster_id, assume_unique=True)
    aligned = []
    for s in samples:
        _, _, idx = np.intersect1d(shared, s.cluster_id, assume_unique=True, return_indices=True)
        aligned.append(s.subset(idx))
    return shared, aligned


def comparison_names(available, baseline, chosen, adjust, estimator, level, boot, *, what: str = "config") -> list[str]:
    """Validate a many-way comparison's options; the names compared, ``baseline`` first.

    ``available`` are the names there are (configs, runs: ``what`` says which in the errors),
    ``chosen`` a subset of them or None for all.
    """
    check_options(estimator, level)
    if adjustment(adjust).resamples and (isinstance(boot, bool) or not isinstance(boot, (int, np.integer)) or boot < 2):
        raise ValueError(f"boot must be a whole number >= 2 for the {adjustment(adjust).label}, got {boot!r}")
    available = list(available)
    names = available if chosen is None else list(dict.fromkeys(chosen))
    unknown = list(dict.fromkeys(c for c in [*names, baseline] if c not in available))
    if unknown:
        raise ValueError(f"{what}(s) {unknown} not among the {what}s {available}")
    if baseline not in names:
        names.insert(0, baseline)
    else:  # the baseline first: the order of the estimates table and of the comparisons
        names.remove(baseline)
        names.insert(0, baseline)
    if len(names) < 2:
        raise ValueError(f"a comparison needs at least 2 {what}s, got {names} (the {what}s: {available})")
    return names


def compare_configs(
    samples: Mapping[str, ClusterStats],
    baseline: str,
    *,
    configs: Sequence[str] | None = None,
    all_pairs: bool = False,
    adjust: str = "maxt",
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> MultipleComparison:
    """Every config (or ``configs``, the baseline added) on the documents they share, compared to ``baseline``.

    Differences are ``b - baseline`` for every other config ``b`` (every pair ``b - a`` in
    config order with ``all_pairs``).  The FPC uses the first known population_docs.
    """
    names = comparison_names(samples, baseline, configs, adjust, estimator, level, boot)
    shared, aligned = align_shared([samples[c] for c in names])
    k = shared.size
    if k < 2:
        raise ValueError(f"configs {names} share {k} document(s); a paired comparison needs at least 2")
    return compare_aligned(
        dict(zip(names, aligned)),
        dropped=[samples[c].n_docs - k for c in names],
        all_pairs=all_pairs,
        adjust=adjust,
        estimator=estimator,
        level=level,
        boot=boot,
        rng=rng,
    )


def compare_aligned(
    samples: Mapping[str, ClusterStats],
    *,
    dropped: Sequence[int],
    all_pairs: bool = False,
    adjust: str = "maxt",
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> MultipleComparison:
    """The comparison of samples already aligned cluster by cluster (the same ``doc_id``, in one order).

    The first name is the baseline.  ``dropped[i]`` is what the caller left out of sample i to
    align it (documents for configs, queries for ranking runs).  Options are those of
    :func:`compare_configs`, already validated (:func:`comparison_names`); at least 2 clusters.
    """
    names = list(samples)
    aligned = [samples[c] for c in names]
    k = aligned[0].n_docs
    population = next((s.population_docs for s in aligned if s.population_docs is not None), None)
    fpc = finite_population_correction(k, population)
    z = float(special.ndtri(0.5 + level / 2))

    sum_y = np.stack([s.sum_y for s in aligned])  # (C, K)
    n = np.stack([s.n for s in aligned])
    sum_y2 = np.stack([s.sum_y2 for s in aligned])
    est, resid = linearized_residuals(sum_y, n, estimator)  # (C,), (C, K)
    se_config = np.sqrt(residual_variance(resid, fpc))
    chunk_var = chunk_variance(sum_y, n, sum_y2, est) / n.sum(-1)

    pairs = list(combinations(range(len(names)), 2)) if all_pairs else [(0, j) for j in range(1, len(names))]
    ia, ib = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    diff = est[ib] - est[ia]
    se = np.sqrt(residual_variance(resid[ib] - resid[ia], fpc))
    se_naive = np.sqrt(chunk_var[ia] + chunk_var[ib])
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = np.where(se > 0, np.abs(diff) / se, np.where(diff == 0, 0.0, np.inf))
    p_raw = 2 * special.stdtr(k - 1, -t_obs)

    crit, p_adj = adjustment(adjust).kernel(
        Differences(
            sum_y=sum_y,
            n=n,
            estimator=estimator,
            level=level,
            resid=resid,
            a=ia,
            b=ib,
            difference=diff,
            t=t_obs,
            p=p_raw,
            boot=boot,
            rng=rng,
        )
    )

    half = crit * se
    comparisons = tuple(
        ConfigDifference(
            a=names[i],
            b=names[j],
            difference=float(diff[n]),
            intervals={
                "naive": IntervalEstimate(
                    "naive", float(se_naive[n]), (float(diff[n] - z * se_naive[n]), float(diff[n] + z * se_naive[n]))
                ),
                "paired": IntervalEstimate(
                    "paired", float(se[n]), (float(diff[n] - z * se[n]), float(diff[n] + z * se[n]))
                ),
                "simultaneous": IntervalEstimate(
                    f"simultaneous-{adjust}", float(se[n]), (float(diff[n] - half[n]), float(diff[n] + half[n]))
                ),
            },
            p_value=float(p_raw[n]),
            p_adjusted=float(p_adj[n]),
            t=float(np.sign(diff[n]) * t_obs[n]),
            df=k - 1,
        )
        for n, (i, j) in enumerate(pairs)
    )
    estimates = tuple(
        ConfigEstimate(
            config=c,
            estimate=float(est[i]),
            intervals={
                "cluster": IntervalEstimate(
                    "cluster_normal",
                    float(se_config[i]),
                    (float(est[i] - z * se_config[i]), float(est[i] + z * se_config[i])),
                )
            },
            dropped=int(dropped[i]),
        )
        for i, c in enumerate(names)
    )
    return MultipleComparison(
        estimator=estimator,
        level=level,
        adjust=adjust,
        baseline=names[0],
        all_pairs=all_pairs,
        n_docs=k,
        configs=estimates,
        comparisons=comparisons,
        critical_value=crit,
        boot=boot if adjustment(adjust).resamples else 0,
        population_docs=population,
    )


@dataclass(frozen=True)
class ConfigRank:
    """One config's place among the configs compared: rank 1 has the highest estimate."""

    config: str
    estimate: float
    rank: int  # in the sample (ties share the better rank)
    rank_ci: tuple[int, int]  # equal-tailed interval of its rank over the bootstrap replicates
    p_best: float  # share of replicates where it ranks first (a tie for first shared equally)
    dropped: int  # documents of this config left out for not being in every config

    def to_dict(self) -> dict:
        return {
            "config": self.config,
            "estimate": self.estimate,
            "rank": self.rank,
            "rank_ci": list(self.rank_ci),
            "p_best": self.p_best,
            "dropped": self.dropped,
        }


@dataclass(frozen=True)
class RankResult:
    """Every config's rank interval and probability of being the best (``ragunc compare --rank``)."""

    estimator: str
    level: float
    boot: int
    n_docs: int  # documents every config evaluated, resampled whole and shared by all configs
    configs: tuple[ConfigRank, ...]  # in the order given

    def to_dict(self) -> dict:
        return {
            "estimator": self.estimator,
            "level": self.level,
            "boot": self.boot,
            "n_docs": self.n_docs,
            "configs": [c.to_dict() for c in self.configs],
        }


def bootstrap_ranks(estimates: np.ndarray, replicates: np.ndarray, level: float):
    """Ranks (1 = highest) of ``estimates`` (C,) and, over ``replicates`` (B, C), rank intervals and P(best).

    Ties share the better rank; a tie for first shares P(best) equally.  Returns
    ``(rank (C,), lower (C,), upper (C,), p_best (C,))``; the bounds are ranks some
    replicate attained (quantiles taken downwards and upwards).
    """
    rank = _ranks_from_best(estimates)
    ranks = _ranks_from_best(replicates)
    tail = (1 - level) / 2
    lower = np.quantile(ranks, tail, axis=0, method="lower").astype(int)
    upper = np.quantile(ranks, 1 - tail, axis=0, method="higher").astype(int)
    first = replicates == replicates.max(axis=1, keepdims=True)
    p_best = (first / first.sum(axis=1, keepdims=True)).mean(axis=0)
    return rank, lower, upper, p_best


def _ranks_from_best(values: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, 1 for the highest, ties sharing the better rank: 1 + how many are higher."""
    return 1 + (values[..., None, :] > values[..., :, None]).sum(axis=-1)


def rank_configs(
    samples: Mapping[str, ClusterStats],
    *,
    configs: Sequence[str] | None = None,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> RankResult:
    """Which config is best, and how sure: each config's rank interval and P(best) on the documents they share.

    The replicates are the joint cluster bootstrap of :func:`config_replicates` (documents
    drawn with replacement, whole, the same draws for every config), so a document's
    difficulty moves every config together and the ranks see only their differences.
    """
    check_options(estimator, level)
    if isinstance(boot, bool) or not isinstance(boot, (int, np.integer)) or boot < 2:
        raise ValueError(f"boot must be a whole number >= 2, got {boot!r}")
    available = list(samples)
    names = available if configs is None else list(dict.fromkeys(configs))
    unknown = [c for c in names if c not in available]
    if unknown:
        raise ValueError(f"config(s) {unknown} not among the configs {available}")
    if len(names) < 2:
        raise ValueError(f"ranking needs at least 2 configs, got {names} (the configs: {available})")
    shared, aligned = align_shared([samples[c] for c in names])
    k = shared.size
    if k < 2:
        raise ValueError(f"configs {names} share {k} document(s); ranking them needs at least 2")
    sum_y = np.stack([s.sum_y for s in aligned])
    n = np.stack([s.n for s in aligned])
    est = point_estimate(sum_y, n, estimator)
    rank, lower, upper, p_best = bootstrap_ranks(est, config_replicates(sum_y, n, estimator, boot, rng), level)
    ranked = tuple(
        ConfigRank(
            config=c,
            estimate=float(est[i]),
            rank=int(rank[i]),
            rank_ci=(int(lower[i]), int(upper[i])),
            p_best=float(p_best[i]),
            dropped=int(samples[c].n_docs - k),
        )
        for i, c in enumerate(names)
    )
    return RankResult(estimator=estimator, level=level, boot=boot, n_docs=k, configs=ranked)
