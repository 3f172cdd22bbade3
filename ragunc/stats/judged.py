"""Labels from a judge, audited by a person: judge-only, gold-only and prediction-powered estimates.

Every row (chunk or question) of the K sampled documents carries the judge's label or
score ``f`` in [0, 1]; a person's gold label ``y`` is known on the audited rows only.
Three estimates of the gold mean, each with documents as clusters, micro and macro:

* **judge-only**: the judge's labels taken as gold (what is reported without an audit);
* **gold-only**: the audited rows alone (prediction-powered at lambda = 0);
* **prediction-powered** (PPI++: Angelopoulos et al. 2023; Angelopoulos, Duchi and Zrnic
  2023): ``R_G + lambda (R_F - R_H)``, the gold mean of the audited rows corrected by how
  far the judge's mean over every row lies from its mean over the audited ones, with
  ``lambda`` in [0, 1] chosen from the data (reported): the least audit variance.

Sums per document (all with documents on the last axis, repetitions on leading axes):
``size`` m (rows), ``judge_total`` F and ``judge_sumsq`` (every row); ``audited`` A (rows a
person labelled), ``gold_total`` G, ``gold_sumsq``, ``judge_audited`` H,
``judge_audited_sumsq`` and ``cross`` (sum of y f) over the audited rows.  Rows weigh
``w = 1`` (micro) or ``1/m`` (macro: every document counts once), and
``R_F = sum(w F) / sum(w m)``, ``R_G = sum(w G) / sum(w A)``, ``R_H = sum(w H) / sum(w A)``.
For 1-row documents and an audit drawn at random the estimate is ppi-python's
``ppi_mean_pointestimate`` and the standard error its ``ppi_mean_ci``'s (a fixture).

The design the variance assumes is two-phase (Cochran 1977, ch. 12; Särndal, Swensson and
Wretman 1992, ch. 9).  Phase 1 draws K documents from D (with the finite-population
correction ``1 - K/D`` when D is known; D unknown is the with-replacement approximation).
Phase 2 is the audit, drawn inside the K documents, either

* ``"rows"``: rows audited independently with one probability inside every sampled document
  (a random subset of rows; the share is estimated by ``sum A / sum m``), or
* ``"documents"``: a simple random sample of ``k_a`` of the K documents, audited whole.

Its variance is ``V = (1 - K/D) V1 + V2``: V1 the between-document variance the judged
documents themselves carry, V2 the audit's given those documents.  Both are quadratic in
lambda.  V1 does not depend on lambda, so the tuned lambda is the vertex of V2's parabola,
clipped to [0, 1]: the slope of the gold labels on the judge's over the audited rows (weighted
least squares, weights w^2) or over the audited documents' residuals; learnt on every audited
row, it is steadier than the vertex of the whole estimated variance.

* rows: the ultimate-cluster variance ``V_UC = sum (g + lambda h)^2 / (K (K - 1))`` of
  the linearized residuals ``g = K w (G - R_G A) / sum(w A)`` and ``h = K (w (F - R_F m) /
  sum(w m) - w (H - R_H A) / sum(w A))`` estimates V1 + V2 when documents are drawn with
  replacement and the audit is independent between documents; with a known D the estimate
  is ``(1 - K/D) V_UC + (K/D) V2``, V2 the row-level Hájek variance
  ``(1 - pi) sum_audited w^2 (r - c)^2 / sum(w A)^2`` of ``r = y - lambda f`` about its mean c.
* documents: V1 is ``S^2 / K`` with ``S^2`` the between-document variance of the gold
  residuals ``w (G - R_G A) / mean(w m)`` over the audited documents (whose gold is
  complete), V2 ``(1 - k_a/K) S_r^2 / k_a`` of the residuals of ``G - lambda H`` about
  ``c A`` (a simple random sample of k_a of the K documents); for 1-row documents this is
  the two-phase regression estimator's variance, and ppi-python's.

The three estimates of the gold mean take their interval from the registry
(:mod:`ragunc.stats.methods`; default ragunc's recommended one, Korn–Graubard with
Bell–McCaffrey degrees of freedom), on the K documents for the judge-only estimate and on
the audited rows and their ``k_a`` documents for the others, the audited documents being
where the correction's variance is learnt; the judge's bias, a difference, takes the
linearization t interval.  An audit of fewer than two documents leaves the correction's
variance unknown: NaN variances and bounds, and lambda = 1 (plain PPI: nothing to tune on).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from . import batches
from .coverage import interval_coverage, random_subsets
from .linearization import Linearized, check_options, linearized_residuals, residual_variance
from .methods import CLUSTER_ANALYTIC, IntervalEstimate, interval_method
from .recommend import RECOMMENDED_METHOD
from .sample import ClusterStats, check_k, require_documents, zero_one

AUDIT_UNITS = ("rows", "documents")
ESTIMATES = ("judge_only", "gold_only", "prediction_powered")
# ragunc's recommended interval (stats.recommend) for the three estimates of the gold mean; the
# judge's bias is a difference, not a proportion: the linearization t interval.
DEFAULT_METHOD = RECOMMENDED_METHOD
BIAS_METHOD = "cluster_t"
# What each estimate is called on screen and in tables (a label written once).
LABELS = {
    "judge_only": "Judge only",
    "gold_only": "Audited rows only (gold)",
    "prediction_powered": "Prediction-powered (judge + audit)",
    "judge_bias": "Judge's bias",
}
AUDIT_LABELS = {"rows": "rows at random in every document", "documents": "whole documents"}
AUDIT_DESIGNS = {
    "rows": "rows audited at random inside the sampled documents, independently with one probability",
    "documents": "a simple random sample of the sampled documents, each audited whole",
}

# JudgedSample's audit arrays (per document) and their dtypes.
_AUDIT_ARRAYS = {
    "audited": np.int64,
    "gold_total": np.float64,
    "gold_sumsq": np.float64,
    "judge_audited": np.float64,
    "judge_audited_sumsq": np.float64,
    "cross": np.float64,
}


@dataclass(frozen=True)
class JudgedSample:
    """Per-document sums of a judged sample: the judge's labels on every row, a person's on the audited ones.

    ``judge`` is the judge's sample (``sum_y`` = sum of f, ``n`` = rows, ``sum_y2`` = sum of
    f^2; its cluster_id, population_docs and config are the sample's); the other arrays have one
    entry per document, in the same order, summed over the document's audited rows.
    """

    judge: ClusterStats
    audited: np.ndarray  # (K,) rows a person labelled
    gold_total: np.ndarray  # (K,) sum of gold y over them
    gold_sumsq: np.ndarray  # (K,) sum of y^2
    judge_audited: np.ndarray  # (K,) sum of the judge's f over the audited rows
    judge_audited_sumsq: np.ndarray  # (K,) sum of f^2 over them
    cross: np.ndarray  # (K,) sum of y f over them
    audit: str = "rows"  # how the audit was drawn (AUDIT_UNITS): see audit_unit

    def __post_init__(self) -> None:
        # The loader is the data boundary; this guards programmatic callers against wrong shapes.
        k = self.judge.n_docs
        for name, dtype in _AUDIT_ARRAYS.items():
            value = np.asarray(getattr(self, name), dtype=dtype)
            if value.shape != (k,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({k},) like the judge's sample")
            object.__setattr__(self, name, value)
        if self.audit not in AUDIT_UNITS:
            raise ValueError(f"audit must be one of {AUDIT_UNITS}, got {self.audit!r}")
        if k and ((self.audited < 0) | (self.audited > self.judge.n)).any():
            bad = np.flatnonzero((self.audited < 0) | (self.audited > self.judge.n))[:5].tolist()
            raise ValueError(f"audited must be between 0 and the document's rows; documents at positions {bad} are not")

    @property
    def n_docs(self) -> int:
        return self.judge.n_docs

    @property
    def n_rows(self) -> int:
        return self.judge.n_chunks

    @property
    def n_audited(self) -> int:
        return int(self.audited.sum())

    @property
    def n_audited_docs(self) -> int:
        return int((self.audited > 0).sum())

    @property
    def fully_audited(self) -> bool:
        """Gold on every row: nothing for the judge to add."""
        return bool((self.audited == self.judge.n).all())

    @property
    def binary(self) -> bool:
        """Gold and judge labels are all 0 or 1 (read off the sums)."""
        return bool(zero_one(self.gold_total, self.gold_sumsq) and zero_one(self.judge.sum_y, self.judge.sum_y2))

    def gold_sample(self) -> ClusterStats:
        """The audited documents' gold labels as a sample (total = sum of y, size = audited rows)."""
        keep = self.audited > 0
        return ClusterStats(
            self.judge.cluster_id[keep],
            self.gold_total[keep],
            self.audited[keep],
            self.gold_sumsq[keep],
            population_docs=self.judge.population_docs,
            config=self.judge.config,
        )

    def subset(self, index) -> "JudgedSample":
        """The documents at ``index`` (positions or a boolean mask)."""
        index = np.asarray(index)
        return dataclasses.replace(
            self, judge=self.judge.subset(index), **{name: getattr(self, name)[index] for name in _AUDIT_ARRAYS}
        )


def audit_unit(size, audited) -> str:
    """``"documents"`` when every audited document is audited whole, else ``"rows"``.

    With one row per document the two designs are the same, and "documents" is returned.
    """
    size, audited = np.asarray(size), np.asarray(audited)
    return "documents" if bool(((audited == 0) | (audited == size)).all()) else "rows"


def judged_population(judge: ClusterStats, gold_total, gold_sumsq, cross, audit: str = "rows") -> JudgedSample:
    """The :class:`JudgedSample` of a population where a person labelled every row (the coverage experiment's)."""
    return JudgedSample(
        judge=judge,
        audited=judge.n,
        gold_total=gold_total,
        gold_sumsq=gold_sumsq,
        judge_audited=judge.sum_y,
        judge_audited_sumsq=judge.sum_y2,
        cross=cross,
        audit=audit,
    )


# ---------------------------------------------------------------- the batch kernel


@dataclass(frozen=True)
class _Quadratic:
    """``V(lambda) = a + 2 b lambda + c lambda^2``, arrays of the batch's leading shape."""

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray

    def at(self, lam):
        return self.a + 2 * self.b * lam + self.c * lam**2

    def scaled(self, factor) -> "_Quadratic":
        return _Quadratic(factor * self.a, factor * self.b, factor * self.c)

    def plus(self, other: "_Quadratic") -> "_Quadratic":
        return _Quadratic(self.a + other.a, self.b + other.b, self.c + other.c)

    def vertex(self) -> np.ndarray:
        """The lambda of least variance, clipped to [0, 1] (0 where the judge carries no variance)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.c > 0, np.clip(-self.b / self.c, 0.0, 1.0), 0.0)


@dataclass(frozen=True)
class JudgedArrays:
    """Batch output of :func:`judged_arrays`; every array has the batch's leading (repetition) shape."""

    estimate: dict[str, np.ndarray]  # ESTIMATES and "judge_bias" -> estimate
    se: dict[str, np.ndarray]
    lower: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]
    lam: np.ndarray  # the prediction-powered estimate's lambda
    n_audited: np.ndarray
    n_audited_docs: np.ndarray


@dataclass(frozen=True)
class _Parts:
    """The pieces of the variance (module docstring), batch-wise; each lambda-dependent one a quadratic."""

    audit: str
    k: int  # K sampled documents
    k_a: np.ndarray  # audited documents
    share: np.ndarray  # the audited share of rows, sum A / sum m
    r_f: np.ndarray
    r_g: np.ndarray
    r_h: np.ndarray
    ultimate: _Quadratic | None = None  # rows: V_UC
    spread: _Quadratic | None = None  # rows: sum over audited rows of w^2 (r - c)^2 / sum(w A)^2
    phase1: np.ndarray | None = None  # documents: S^2 / K of the gold residuals
    residuals: _Quadratic | None = None  # documents: sum of squared residuals of G - lambda H about c A, / sum(w A)^2

    @property
    def audit_spread(self) -> _Quadratic:
        """The audit's residual spread, whose vertex is the tuned lambda: V1 does not depend on lambda, and
        the spread is learnt on every audited row (rows) or audited document (documents)."""
        return self.spread if self.audit == "rows" else self.residuals

    def variance(self, fpc) -> _Quadratic:
        """``(1 - K/D) V1 + V2`` as a quadratic in lambda; ``fpc`` = 1 - K/D."""
        f = np.asarray(fpc, dtype=float)
        if self.audit == "rows":  # V_UC estimates V1 + V2
            return self.ultimate.scaled(f).plus(self.within(self.share).scaled(1 - f))
        return self.within(self.k_a).plus(_Quadratic(f * self.phase1, 0.0, 0.0))

    def within(self, audit_size) -> _Quadratic:
        """V2, the audit's variance given the K documents, had the audit been of ``audit_size``.

        rows: ``audit_size`` is the share of rows audited, pi; documents: the number of documents
        audited, k_a.  The residuals' spread is the one this audit shows (for planning another size).
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.audit == "rows":
                # Hájek: (1 - pi)/pi sum_all w^2 (r - c)^2 / (sum_all w)^2, the sum over all rows
                # estimated by the audited rows' over pi0 and sum_all w by sum(w A) / pi0.
                return self.spread.scaled((1 - audit_size) * self.share / audit_size)
            # (1 - k_a/K) S_r^2 / k_a with S_r^2 = k_a0^2 sum res^2 / (k_a0 - 1) of this audit's k_a0 documents
            return self.residuals.scaled((1 / audit_size - 1 / self.k) * self.k_a**2 / (self.k_a - 1))


def _parts(
    size, judge_total, audited, gold_total, gold_sumsq, judge_audited, judge_audited_sumsq, cross, *, w, audit: str
) -> _Parts:
    k = size.shape[-1]
    wm, wa = (w * size).sum(-1), (w * audited).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r_f, r_g, r_h = (w * judge_total).sum(-1) / wm, (w * gold_total).sum(-1) / wa, (w * judge_audited).sum(-1) / wa
        rf, rg, rh = r_f[..., None], r_g[..., None], r_h[..., None]
        gold_res = w * (gold_total - rg * audited) / wa[..., None]  # (..., K): zero off the audit
        judge_res = w * (judge_audited - rh * audited) / wa[..., None]
    k_a = (audited > 0).sum(-1)
    share = audited.sum(-1) / size.sum(-1)
    common = dict(audit=audit, k=k, k_a=k_a, share=share, r_f=r_f, r_g=r_g, r_h=r_h)
    if audit == "rows":
        g = k * gold_res
        h = k * (w * (judge_total - rf * size) / wm[..., None] - judge_res)
        pairs = k * (k - 1)
        ultimate = _Quadratic((g * g).sum(-1) / pairs, (g * h).sum(-1) / pairs, (h * h).sum(-1) / pairs)
        # sum over audited rows of w^2 (r - c)^2 with r - c = (y - R_G) - lambda (f - R_H)
        w2 = w**2
        with np.errstate(divide="ignore", invalid="ignore"):
            yy = (w2 * (gold_sumsq - 2 * rg * gold_total + rg**2 * audited)).sum(-1) / wa**2
            yf = (w2 * (cross - rh * gold_total - rg * judge_audited + rg * rh * audited)).sum(-1) / wa**2
            ff = (w2 * (judge_audited_sumsq - 2 * rh * judge_audited + rh**2 * audited)).sum(-1) / wa**2
        return _Parts(**common, ultimate=ultimate, spread=_Quadratic(yy, -yf, ff))
    with np.errstate(divide="ignore", invalid="ignore"):
        # Between-document variance of the gold residuals w (G - R_G A) / mean(w m) over the audited documents.
        phase1 = ((gold_res * (wa / wm * k)[..., None]) ** 2).sum(-1) / (k_a - 1) / k
    residuals = _Quadratic((gold_res**2).sum(-1), -(gold_res * judge_res).sum(-1), (judge_res**2).sum(-1))
    return _Parts(**common, phase1=phase1, residuals=residuals)


def _weights(size, estimator: str):
    size = np.asarray(size, dtype=float)
    return np.ones_like(size) if estimator == "micro" else 1 / size


def judged_arrays(
    size,
    judge_total,
    audited,
    gold_total,
    gold_sumsq,
    judge_audited,
    judge_audited_sumsq,
    cross,
    *,
    audit: str = "rows",
    estimator: str = "micro",
    level: float = 0.95,
    fpc=1.0,
    method: str = DEFAULT_METHOD,
    lam=None,
) -> JudgedArrays:
    """The judge-only, gold-only and prediction-powered estimates and intervals, and the judge's bias, batch-wise.

    Arguments are per-document sums (documents on the last axis; module docstring);
    ``fpc`` is 1 - K/D (1 without a known population); ``method`` a registered
    cluster-analytic interval method; ``lam`` a fixed lambda (None: tuned, the vertex of the
    audit's variance in [0, 1]).  Rows with fewer than two audited documents get NaN
    variances and bounds (and lambda = 1) for everything but the judge-only estimate.
    """
    size = np.asarray(size, dtype=float)
    cols = [
        np.asarray(c, dtype=float)
        for c in (judge_total, audited, gold_total, gold_sumsq, judge_audited, judge_audited_sumsq, cross)
    ]
    judge_total, audited, gold_total, gold_sumsq, judge_audited, judge_audited_sumsq, cross = cols
    w = _weights(size, estimator)
    parts = _parts(
        size, judge_total, audited, gold_total, gold_sumsq, judge_audited, judge_audited_sumsq, cross, w=w, audit=audit
    )
    variance = parts.variance(fpc)
    known = parts.k_a >= 2
    tuned = parts.audit_spread.vertex() if lam is None else np.broadcast_to(np.asarray(lam, dtype=float), known.shape)
    # Gold on every row: the estimate is the gold one whatever lambda; 0 says the judge is not used.
    tuned = np.where(parts.share == 1, 0.0, np.where(known, tuned, 1.0))
    # The judge's bias is the gold-only estimate of the mean of f - y over the audited rows.
    bias_parts = _parts(
        size,
        judge_total,
        audited,
        judge_audited - gold_total,
        judge_audited_sumsq - 2 * cross + gold_sumsq,
        judge_audited,
        judge_audited_sumsq,
        cross,
        w=w,
        audit=audit,
    )
    judge_est, judge_res = linearized_residuals(judge_total, size, estimator)
    unknown = np.where(known, 1.0, np.nan)
    estimate = {
        "judge_only": judge_est,
        "gold_only": parts.r_g,
        "prediction_powered": parts.r_g + tuned * (parts.r_f - parts.r_h),
        "judge_bias": parts.r_h - parts.r_g,
    }
    var = {
        "judge_only": residual_variance(judge_res, fpc),
        "gold_only": variance.a * unknown,
        "prediction_powered": variance.at(tuned) * unknown,
        "judge_bias": bias_parts.variance(fpc).a * unknown,
    }
    n_audited = audited.sum(-1)
    se, lower, upper = {}, {}, {}
    for name, est in estimate.items():
        judge = name == "judge_only"
        lin = Linearized(
            estimate=est,
            n_chunks=size.sum(-1) if judge else n_audited,
            n_docs=size.shape[-1] if judge else parts.k_a,
            binomial_variance=np.full(np.shape(est), np.nan),
            cluster_variance=np.where(known | judge, var[name], 0.0),
            level=level,
            estimator=estimator,
            size=size if judge else audited,
        )
        kernel = interval_method(BIAS_METHOD if name == "judge_bias" else method).kernel
        with np.errstate(divide="ignore", invalid="ignore"):  # one audited document: undefined, masked below
            _, low, high = kernel(lin)
        # Without a variance a kernel may fall back on a worst case (Korn–Graubard's one trial per
        # document); an unknown variance is no such case: the bounds are undefined.
        defined = True if judge else known
        lower[name], upper[name] = np.where(defined, low, np.nan), np.where(defined, high, np.nan)
        se[name] = np.sqrt(var[name])
    return JudgedArrays(
        estimate=estimate, se=se, lower=lower, upper=upper, lam=tuned, n_audited=n_audited, n_audited_docs=parts.k_a
    )


def _sample_columns(sample: JudgedSample) -> tuple[np.ndarray, ...]:
    """The per-document columns of :func:`judged_arrays`, in its order."""
    j = sample.judge
    return (
        j.n,
        j.sum_y,
        sample.audited,
        sample.gold_total,
        sample.gold_sumsq,
        sample.judge_audited,
        sample.judge_audited_sumsq,
        sample.cross,
    )


# ---------------------------------------------------------------- one sample


@dataclass(frozen=True)
class AuditDesign:
    """What was audited and how the variance takes it to have been drawn."""

    unit: str  # AUDIT_UNITS
    n_rows: int
    n_docs: int
    n_audited: int
    n_audited_docs: int

    @property
    def design(self) -> str:
        return AUDIT_DESIGNS[self.unit]

    def to_dict(self) -> dict:
        return {
            "unit": self.unit,
            "design": self.design,
            "n_rows": self.n_rows,
            "n_docs": self.n_docs,
            "n_audited": self.n_audited,
            "n_audited_docs": self.n_audited_docs,
            "audited_share": self.n_audited / self.n_rows,
        }


@dataclass(frozen=True)
class JudgedEstimate:
    """One estimate of the gold mean (or of the judge's bias) and its interval."""

    name: str  # ESTIMATES or "judge_bias"
    estimate: float
    interval: IntervalEstimate

    @property
    def label(self) -> str:
        return LABELS[self.name]

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "se": self.interval.se, "ci": list(self.interval.ci)}


@dataclass(frozen=True)
class JudgedReport:
    """The three estimates of a judged sample side by side, the judge's bias and the audit (``ragunc interval --judge-col``)."""

    estimator: str
    level: float
    method: str  # the registered interval method of every interval here
    audit: AuditDesign
    estimates: dict[str, JudgedEstimate]  # ESTIMATES and "judge_bias", in that order
    lam: float  # the prediction-powered estimate's lambda
    lam_tuned: bool  # chosen from the data (else given)
    note: str | None = None  # what the data do not allow (one audited document, nothing to correct)
    population_docs: int | None = None

    def __getitem__(self, name: str) -> JudgedEstimate:
        return self.estimates[name]

    def to_dict(self) -> dict:
        """The keys ``ragunc interval --judge-col`` adds to its JSON."""
        ppi = {
            **self["prediction_powered"].to_dict(),
            "lambda": self.lam,
            "lambda_tuned": self.lam_tuned,
            "n_audited": self.audit.n_audited,
            "n_audited_docs": self.audit.n_audited_docs,
        }
        return {
            "judge_only": self["judge_only"].to_dict(),
            "gold_only": self["gold_only"].to_dict(),
            "prediction_powered": ppi,
            "judge_bias": self["judge_bias"].to_dict(),
            "audit": self.audit.to_dict(),
            "judged_method": self.method,
            "judged_note": self.note,
        }


def _judged_report_iv(sample, estimator, level, method, lam) -> None:
    check_options(estimator, level)
    if interval_method(method).family != CLUSTER_ANALYTIC:
        raise ValueError(f"method must be a cluster-analytic interval method (linearization), got {method!r}")
    if lam is not None and not np.isfinite(lam):
        raise ValueError(f"lam must be a finite number or None (tuned), got {lam!r}")
    if not isinstance(sample, JudgedSample):
        raise TypeError(f"expected a JudgedSample, got {type(sample).__name__}")
    require_documents(sample)
    if sample.n_audited == 0:
        raise ValueError("no row is audited: there is no gold label to correct the judge with")


def judged_report(
    sample: JudgedSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    method: str = DEFAULT_METHOD,
    lam: float | None = None,
) -> JudgedReport:
    """Judge-only, gold-only and prediction-powered estimates with intervals, and the judge's bias, of one sample.

    The audit's design is ``sample.audit``; the finite-population correction applies when
    ``sample.judge.population_docs`` is known.  ``lam`` fixes lambda (None: tuned).  With
    gold on every row there is nothing to correct (the note says so; every estimate but
    the judge's is then the gold one); with one audited document only the estimates and
    the judge-only interval can be given (the note says so).
    """
    _judged_report_iv(sample, estimator, level, method, lam)
    arr = judged_arrays(
        *_sample_columns(sample),
        audit=sample.audit,
        estimator=estimator,
        level=level,
        fpc=sample.judge.fpc,
        method=method,
        lam=lam,
    )
    estimates = {
        name: JudgedEstimate(
            name,
            float(arr.estimate[name]),
            IntervalEstimate(
                BIAS_METHOD if name == "judge_bias" else method,
                float(arr.se[name]),
                (float(arr.lower[name]), float(arr.upper[name])),
            ),
        )
        for name in (*ESTIMATES, "judge_bias")
    }
    note = None
    if sample.fully_audited:
        note = (
            f"gold labels on every row ({sample.n_rows:,}): there is nothing for the judge to correct; "
            "report the gold estimate"
        )
    elif sample.n_audited_docs < 2:
        doc = str(sample.judge.cluster_id[np.flatnonzero(sample.audited)[0]])
        note = (
            f"the audit covers a single document ({doc!r}): nothing shows how the judge's errors vary between "
            "documents, so only point estimates and the judge-only interval can be given; audit rows of "
            "at least two documents (more is better)"
        )
    audit = AuditDesign(sample.audit, sample.n_rows, sample.n_docs, sample.n_audited, sample.n_audited_docs)
    return JudgedReport(
        estimator=estimator,
        level=level,
        method=method,
        audit=audit,
        estimates=estimates,
        lam=float(arr.lam),
        lam_tuned=lam is None,
        note=note,
        population_docs=sample.judge.population_docs,
    )


# ---------------------------------------------------------------- coverage: K documents drawn, then the audit


@dataclass(frozen=True)
class JudgedCoverage:
    """How often each estimate's interval held the population's gold mean, over R drawn samples and audits."""

    estimator: str
    level: float
    method: str
    k: int
    reps: int
    audit: str  # AUDIT_UNITS
    audit_share: float  # rows: each row's chance of an audit; documents: share of the K documents audited
    population_docs: int
    population_value: float  # the gold mean of the population
    judge_value: float  # the judge's mean of the population (its bias: judge_value - population_value)
    coverage: dict[str, float]  # ESTIMATES -> share of defined intervals holding population_value
    coverage_mcse: dict[str, float]
    undefined: dict[str, int]  # repetitions without a defined interval (an audit of fewer than 2 documents)
    width: dict[str, float]  # mean width of the defined intervals
    estimates: dict[str, np.ndarray]  # (R,) per estimate
    lower: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]
    lam: np.ndarray  # (R,) the tuned lambda of each repetition

    def to_dict(self) -> dict:
        return {
            "estimator": self.estimator,
            "level": self.level,
            "method": self.method,
            "k": self.k,
            "reps": self.reps,
            "audit": self.audit,
            "audit_share": self.audit_share,
            "population": {
                "n_docs": self.population_docs,
                "value": self.population_value,
                "judge_value": self.judge_value,
            },
            "coverage": dict(self.coverage),
            "coverage_mcse": dict(self.coverage_mcse),
            "undefined": dict(self.undefined),
            "width": dict(self.width),
            "lambda_mean": float(np.nanmean(self.lam)),
        }


def _judged_coverage_iv(
    population, k, reps, audit, audit_share, estimator, level, method, *, every_document: bool = False
) -> None:
    check_options(estimator, level)
    if interval_method(method).family != CLUSTER_ANALYTIC:
        raise ValueError(f"method must be a cluster-analytic interval method (linearization), got {method!r}")
    if not population.fully_audited:
        raise ValueError(
            "the population needs gold labels on every row (its truth); "
            f"{population.n_rows - population.n_audited:,} of its {population.n_rows:,} rows have none"
        )
    d = population.n_docs
    check_k(k, d, most=d if every_document else d - 1)  # one sample may take every document; repeats would not
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    if audit not in AUDIT_UNITS:
        raise ValueError(f"audit must be one of {AUDIT_UNITS}, got {audit!r}")
    if not 0 < audit_share < 1:
        raise ValueError(f"audit_share must be strictly between 0 and 1, got {audit_share!r}")
    if audit == "rows" and not population.binary:
        # A row audit of sums needs the four (gold, judge) cells of each document; scores do not give them.
        raise ValueError("simulating a row audit needs 0/1 gold and judge labels; with scores, audit whole documents")


def _drawn_and_audited(
    population: JudgedSample, idx: np.ndarray, audit: str, audit_share: float, rng: np.random.Generator
) -> tuple[np.ndarray, ...]:
    """The per-document columns of :func:`judged_arrays` for the documents ``idx`` (..., K), audited at random.

    ``"rows"``: each of a document's four (gold, judge) cells (1, 1), (1, 0), (0, 1), (0, 0) keeps a
    binomial count, every row audited with probability ``audit_share`` (0/1 labels); ``"documents"``:
    :func:`audited_documents` of the K documents, audited whole.
    """
    j = population.judge
    m, ft, fs = j.n[idx].astype(float), j.sum_y[idx], j.sum_y2[idx]
    yt, ys, xt = population.gold_total[idx], population.gold_sumsq[idx], population.cross[idx]
    if audit == "rows":
        cells = np.stack([xt, yt - xt, ft - xt, m - yt - ft + xt]).astype(np.int64)
        kept = rng.binomial(cells, audit_share).astype(float)
        g, h = kept[0] + kept[1], kept[0] + kept[2]
        return m, ft, kept.sum(0), g, g, h, h, kept[0]
    lead = int(np.prod(idx.shape[:-1]))
    chosen = random_subsets(rng, idx.shape[-1], audited_documents(idx.shape[-1], audit_share), lead)
    mask = np.zeros(idx.shape)
    np.put_along_axis(mask, chosen.reshape(*idx.shape[:-1], -1), 1.0, axis=-1)
    return m, ft, m * mask, yt * mask, ys * mask, ft * mask, fs * mask, xt * mask


def simulated_audit(
    population: JudgedSample,
    *,
    k: int,
    audit: str = "rows",
    audit_share: float = 0.2,
    rng: np.random.Generator | int | None = None,
) -> JudgedSample:
    """One evaluation as :func:`judged_coverage` repeats it: K documents drawn, then the audit inside them.

    The sample keeps the drawn documents (in the population's order) and carries
    ``population_docs = D`` (the finite-population correction); its gold sums are the audit's.
    """
    _judged_coverage_iv(population, k, 1, audit, audit_share, "micro", 0.95, DEFAULT_METHOD, every_document=True)
    rng = np.random.default_rng(rng)
    idx = np.sort(random_subsets(rng, population.n_docs, k, 1)[0])
    _, _, audited, gold, gold_sumsq, judged, judged_sumsq, cross = _drawn_and_audited(
        population, idx, audit, audit_share, rng
    )
    judge = population.judge.subset(idx).with_population(population.n_docs)
    return JudgedSample(
        judge=judge,
        audited=audited.astype(np.int64),
        gold_total=gold,
        gold_sumsq=gold_sumsq,
        judge_audited=judged,
        judge_audited_sumsq=judged_sumsq,
        cross=cross,
        audit=audit,
    )


def audited_documents(k: int, audit_share: float) -> int:
    """Documents a document audit of ``audit_share`` of K documents labels: round(share K), at least 2 when K allows."""
    return int(min(k, max(2, round(audit_share * k))))


def judged_coverage(
    population: JudgedSample,
    *,
    k: int,
    reps: int,
    audit: str = "rows",
    audit_share: float = 0.2,
    estimator: str = "micro",
    level: float = 0.95,
    method: str = DEFAULT_METHOD,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> JudgedCoverage:
    """Draw K of the population's D documents, audit inside them, R times; each estimate's coverage of the gold mean.

    The population knows gold and judge on every row (:func:`judged_population`).  Each
    repetition draws K documents without replacement (the intervals apply 1 - K/D), then the
    audit: ``"rows"`` audits every row of the K documents with probability ``audit_share``
    (0/1 labels: each of a document's four (gold, judge) cells keeps a binomial count),
    ``"documents"`` audits :func:`audited_documents` of the K documents whole.  Repetitions
    whose audit reaches fewer than two documents have undefined intervals (not misses).
    ``progress(done, total)`` follows the batches.
    """
    _judged_coverage_iv(population, k, reps, audit, audit_share, estimator, level, method)
    rng = np.random.default_rng(rng)
    d = population.n_docs
    size, f = population.judge.n.astype(float), population.judge.sum_y
    w = _weights(size, estimator)
    value = float((w * population.gold_total).sum() / (w * size).sum())
    judge_value = float((w * f).sum() / (w * size).sum())
    names = (*ESTIMATES, "judge_bias")
    estimates = {n: np.empty(reps) for n in names}
    lower = {n: np.empty(reps) for n in names}
    upper = {n: np.empty(reps) for n in names}
    lam = np.empty(reps)
    # A repetition holds eight float64 columns of its K documents (_drawn_and_audited), or Floyd's D cells.
    batch = batches.batch_rows(64 * max(k, d if k * k > d else k), reps)
    for start in range(0, reps, batch):
        stop = min(reps, start + batch)
        columns = _drawn_and_audited(population, random_subsets(rng, d, k, stop - start), audit, audit_share, rng)
        arr = judged_arrays(*columns, audit=audit, estimator=estimator, level=level, fpc=1 - k / d, method=method)
        for n in names:
            estimates[n][start:stop], lower[n][start:stop], upper[n][start:stop] = (
                arr.estimate[n],
                arr.lower[n],
                arr.upper[n],
            )
        lam[start:stop] = arr.lam
        if progress is not None:
            progress(stop, reps)
    coverage, mcse, undefined, width = {}, {}, {}, {}
    for n in names:
        target = judge_value - value if n == "judge_bias" else value
        coverage[n], mcse[n], undefined[n], width[n] = interval_coverage(lower[n], upper[n], target)
    return JudgedCoverage(
        estimator=estimator,
        level=level,
        method=method,
        k=k,
        reps=reps,
        audit=audit,
        audit_share=audit_share,
        population_docs=d,
        population_value=value,
        judge_value=judge_value,
        coverage=coverage,
        coverage_mcse=mcse,
        undefined=undefined,
        width=width,
        estimates=estimates,
        lower=lower,
        upper=upper,
        lam=lam,
    )


# ---------------------------------------------------------------- planning an audit


@dataclass(frozen=True)
class AuditPlan:
    """How much of these K judged documents to audit for a target half-width, from a pilot audit."""

    unit: str  # "rows" or "documents": what is counted
    estimator: str
    level: float
    half_width: float  # the target
    lam: float  # the lambda the plan assumes (the pilot's tuned one)
    n_total: int  # rows (or documents) there are to audit
    needed: int | None  # smallest audit reaching the target with the judge (None: not reachable)
    gold_only_needed: int | None  # the same for the audited rows alone
    floor_half_width: float  # what auditing every row gives: the judged documents' own variance
    pilot_audited: int  # rows (or documents) the pilot audited
    agreement: float | None  # share of the pilot's audited rows where judge and person agree (0/1 labels)
    correlation: float  # of judge and gold over the pilot's audited rows
    n: np.ndarray  # curve: audit sizes
    curve_half_width: np.ndarray  # prediction-powered half-width at each size
    curve_gold_half_width: np.ndarray  # gold-only half-width at each size

    def to_dict(self) -> dict:
        return {
            "unit": self.unit,
            "estimator": self.estimator,
            "level": self.level,
            "half_width": self.half_width,
            "lambda": self.lam,
            "n_total": self.n_total,
            "needed": self.needed,
            "gold_only_needed": self.gold_only_needed,
            "floor_half_width": self.floor_half_width,
            "pilot_audited": self.pilot_audited,
            "agreement": self.agreement,
            "correlation": self.correlation,
            "curve": {
                "n": self.n.tolist(),
                "half_width": self.curve_half_width.tolist(),
                "gold_half_width": self.curve_gold_half_width.tolist(),
            },
        }


def plan_audit(
    pilot: JudgedSample,
    *,
    half_width: float,
    estimator: str = "micro",
    level: float = 0.95,
) -> AuditPlan:
    """Rows (or documents, for a document audit) of the pilot's K judged documents to audit for ``half_width``.

    The pilot audit shows how far the judge's labels are from the person's
    (``pilot.audit`` says how it was drawn, and the plan is for an audit drawn the same
    way).  The variance at an audit of size n is ``(1 - K/D) V1 + V2(n)`` (module
    docstring) with V1, the judged documents' own between-document variance, and the
    residual spread behind V2 estimated on the pilot at its tuned lambda; lambda = 0
    gives the audited rows alone.  Half-widths are ``z sqrt(V)``.  When even a full
    audit misses the target, ``needed`` is None: more documents must be judged.
    """
    check_options(estimator, level)
    if not half_width > 0:
        raise ValueError(f"half_width must be > 0, got {half_width!r}")
    if pilot.n_audited_docs < 2:
        raise ValueError(
            f"the pilot audit covers {pilot.n_audited_docs} document(s); planning needs at least 2 "
            "to see how the judge's errors vary between documents"
        )
    size, judge_total, audited, gold_total, gold_sumsq, judge_audited, judge_audited_sumsq, cross = (
        np.asarray(c, dtype=float) for c in _sample_columns(pilot)
    )
    parts = _parts(
        size,
        judge_total,
        audited,
        gold_total,
        gold_sumsq,
        judge_audited,
        judge_audited_sumsq,
        cross,
        w=_weights(size, estimator),
        audit=pilot.audit,
    )
    fpc = pilot.judge.fpc
    if pilot.audit == "rows":
        total = pilot.n_rows
        grid = np.unique(np.linspace(1, total, 200).round().astype(int))
        sizes = grid / total  # shares of rows
    else:
        total = pilot.n_docs
        grid = np.arange(2, total + 1)
        sizes = grid.astype(float)
    spread = parts.audit_spread
    lam = float(spread.vertex())
    if pilot.audit == "rows":
        # V_UC estimates V1 + V2 at the pilot's share; what is left of it is V1.
        phase1 = max(float(parts.ultimate.at(lam) - parts.within(parts.share).at(lam)), 0.0)
    else:
        phase1 = float(parts.phase1)
    z = float(special.ndtri(0.5 + level / 2))
    room = (half_width / z) ** 2 - fpc * phase1  # what the audit's own variance may use

    def half_widths(at: float) -> np.ndarray:
        return z * np.sqrt(fpc * phase1 + parts.within(sizes).at(at))

    def smallest(at: float) -> int | None:
        if room <= 0:
            return None
        if pilot.audit == "rows":
            # (1 - pi)/pi Q <= room with Q = pi0 spread: pi >= Q / (Q + room)
            q = float(spread.at(at) * parts.share)
            return int(min(total, max(1, np.ceil(q / (q + room) * total - 1e-9))))
        # (1/k - 1/K) S <= room with S = k_a0^2 residuals / (k_a0 - 1)
        s = float(spread.at(at) * parts.k_a**2 / (parts.k_a - 1))
        return int(min(total, max(2, np.ceil(1 / (room / s + 1 / total) - 1e-9)))) if s > 0 else 2

    a = pilot.n_audited
    g, h, x = pilot.gold_total.sum(), pilot.judge_audited.sum(), pilot.cross.sum()
    cov = x / a - (g / a) * (h / a)
    spread_g = pilot.gold_sumsq.sum() / a - (g / a) ** 2
    spread_h = pilot.judge_audited_sumsq.sum() / a - (h / a) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        correlation = float(cov / np.sqrt(spread_g * spread_h))
    agreement = float((a - g - h + 2 * x) / a) if pilot.binary else None
    return AuditPlan(
        unit=pilot.audit,
        estimator=estimator,
        level=level,
        half_width=float(half_width),
        lam=lam,
        n_total=total,
        needed=smallest(lam),
        gold_only_needed=smallest(0.0),
        floor_half_width=float(z * np.sqrt(fpc * phase1)),
        pilot_audited=a if pilot.audit == "rows" else pilot.n_audited_docs,
        agreement=agreement,
        correlation=correlation,
        n=grid,
        curve_half_width=half_widths(lam),
        curve_gold_half_width=half_widths(0.0),
    )
