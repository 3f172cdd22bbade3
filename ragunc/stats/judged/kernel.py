"""The batch kernel of the judged estimates: the variance's pieces as quadratics in lambda, and the intervals.

The theory is in :mod:`ragunc.stats.judged`; the sums are :class:`~.sample.JudgedSums` (documents on the
last axis, repetitions on leading axes).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..linearization import Linearized, linearized_residuals, residual_variance
from ..methods import interval_method
from .sample import BIAS_METHOD, DEFAULT_METHOD, JudgedSums


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
class VarianceParts:
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


def variance_parts(sums: JudgedSums, *, w, audit: str) -> VarianceParts:
    """The pieces of the variance (:mod:`ragunc.stats.judged`) of ``sums`` with row weights ``w``."""
    s = sums
    m, audited = s.n, s.audited
    k = m.shape[-1]
    wm, wa = (w * m).sum(-1), (w * audited).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r_f, r_g, r_h = (
            (w * s.sum_judge).sum(-1) / wm,
            (w * s.sum_gold).sum(-1) / wa,
            (w * s.sum_judge_audited).sum(-1) / wa,
        )
        rf, rg, rh = r_f[..., None], r_g[..., None], r_h[..., None]
        gold_res = w * (s.sum_gold - rg * audited) / wa[..., None]  # (..., K): zero off the audit
        judge_res = w * (s.sum_judge_audited - rh * audited) / wa[..., None]
    k_a = (audited > 0).sum(-1)
    share = audited.sum(-1) / m.sum(-1)
    common = dict(audit=audit, k=k, k_a=k_a, share=share, r_f=r_f, r_g=r_g, r_h=r_h)
    if audit == "rows":
        g = k * gold_res
        h = k * (w * (s.sum_judge - rf * m) / wm[..., None] - judge_res)
        pairs = k * (k - 1)
        ultimate = _Quadratic((g * g).sum(-1) / pairs, (g * h).sum(-1) / pairs, (h * h).sum(-1) / pairs)
        # sum over audited rows of w^2 (r - c)^2 with r - c = (y - R_G) - lambda (f - R_H)
        w2 = w**2
        with np.errstate(divide="ignore", invalid="ignore"):
            yy = (w2 * (s.sum_gold2 - 2 * rg * s.sum_gold + rg**2 * audited)).sum(-1) / wa**2
            yf = (w2 * (s.sum_gold_judge - rh * s.sum_gold - rg * s.sum_judge_audited + rg * rh * audited)).sum(
                -1
            ) / wa**2
            ff = (w2 * (s.sum_judge2_audited - 2 * rh * s.sum_judge_audited + rh**2 * audited)).sum(-1) / wa**2
        return VarianceParts(**common, ultimate=ultimate, spread=_Quadratic(yy, -yf, ff))
    with np.errstate(divide="ignore", invalid="ignore"):
        # Between-document variance of the gold residuals w (G - R_G A) / mean(w m) over the audited documents.
        phase1 = ((gold_res * (wa / wm * k)[..., None]) ** 2).sum(-1) / (k_a - 1) / k
    residuals = _Quadratic((gold_res**2).sum(-1), -(gold_res * judge_res).sum(-1), (judge_res**2).sum(-1))
    return VarianceParts(**common, phase1=phase1, residuals=residuals)


def row_weights(n, estimator: str):
    """Each row's weight, per document of ``n`` rows: 1 (micro) or 1/n (macro: every document counts once)."""
    n = np.asarray(n, dtype=float)
    return np.ones_like(n) if estimator == "micro" else 1 / n


def judged_arrays(
    sums: JudgedSums,
    *,
    audit: str = "rows",
    estimator: str = "micro",
    level: float = 0.95,
    fpc=1.0,
    method: str = DEFAULT_METHOD,
    lam=None,
) -> JudgedArrays:
    """The judge-only, gold-only and prediction-powered estimates and intervals, and the judge's bias, batch-wise.

    ``sums`` are per-document sums (documents on the last axis);
    ``fpc`` is 1 - K/D (1 without a known population); ``method`` a registered
    cluster-analytic interval method; ``lam`` a fixed lambda (None: tuned, the vertex of the
    audit's variance in [0, 1]).  Rows with fewer than two audited documents get NaN
    variances and bounds (and lambda = 1) for everything but the judge-only estimate.
    """
    m, audited = sums.n, sums.audited
    w = row_weights(m, estimator)
    parts = variance_parts(sums, w=w, audit=audit)
    variance = parts.variance(fpc)
    known = parts.k_a >= 2
    tuned = parts.audit_spread.vertex() if lam is None else np.broadcast_to(np.asarray(lam, dtype=float), known.shape)
    # Gold on every row: the estimate is the gold one whatever lambda; 0 says the judge is not used.
    tuned = np.where(parts.share == 1, 0.0, np.where(known, tuned, 1.0))
    # The judge's bias is the gold-only estimate of the mean of f - y over the audited rows.
    bias = dataclasses.replace(
        sums,
        sum_gold=sums.sum_judge_audited - sums.sum_gold,
        sum_gold2=sums.sum_judge2_audited - 2 * sums.sum_gold_judge + sums.sum_gold2,
    )
    bias_parts = variance_parts(bias, w=w, audit=audit)
    judge_est, judge_res = linearized_residuals(sums.sum_judge, m, estimator)
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
            n_chunks=m.sum(-1) if judge else n_audited,
            n_docs=m.shape[-1] if judge else parts.k_a,
            binomial_variance=np.full(np.shape(est), np.nan),
            cluster_variance=np.where(known | judge, var[name], 0.0),
            level=level,
            estimator=estimator,
            n=m if judge else audited,
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
