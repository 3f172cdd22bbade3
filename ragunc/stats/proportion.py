"""Intervals for a clustered proportion as R survey 4.1's ``svyciprop`` defines them: Korn–Graubard and logit.

Kernels on the estimate and its design variance, batch-wise: every argument
broadcasts over leading (repetition) axes, the documents having been reduced to
``estimate`` and ``variance`` by :func:`ragunc.stats.linearization.interval_arrays`,
which calls these.  ``variance`` is the linearization variance the intervals use
(with the FPC when the population's document count is known), ``n_rows`` the
rows of R's design (chunks for the micro ratio, documents for the macro mean),
``k`` the documents and ``df`` the degrees of freedom of the variance (R:
``degf(design) = K - 1``; ragunc's recommended interval uses
:func:`ragunc.stats.linearization.bell_mccaffrey_df`).
"""

from __future__ import annotations

import numpy as np
from scipy import special

ROUNDING_VARIANCE = 1e-24  # relative to p(1 - p): squared residuals of ~1e-12, far below any real spread


def effective_n(estimate, variance, n_rows, k, level: float, df=None):
    """Korn–Graubard's degrees-of-freedom-adjusted effective sample size.

    ``p (1 - p) / v * (t_{n_rows - 1} / t_{df})^2`` at the ``(1 - level) / 2``
    quantiles; with ``df = K - 1`` (the default) as ``svyciprop(method = "beta")``.
    Where the sample says nothing about the design (``p`` at 0 or 1, or ``v = 0``;
    R's n_eff is 0/0 or infinite there and its interval NaN or a point) it is
    ``K``, without the df factor: one Bernoulli trial per document, the worst
    case (every document all hits or all misses). A ``v`` within rounding of 0
    counts as 0 (:data:`ROUNDING_VARIANCE`).
    """
    p = np.asarray(estimate, dtype=float)
    v = np.asarray(variance, dtype=float)
    alpha = 1 - level
    df = np.asarray(k) - 1 if df is None else np.asarray(df)
    # special.stdtrit is t.ppf without scipy.stats' argument handling (a third of its time on arrays).
    adjust = (special.stdtrit(np.asarray(n_rows) - 1, alpha / 2) / special.stdtrit(df, alpha / 2)) ** 2
    pq = p * (1 - p)
    # A variance this small relative to p(1 - p) is the rounding of residuals that are exactly zero
    # (every document at the same rate): the sample says nothing about the design, as at v = 0.
    informative = (pq > 0) & (v > ROUNDING_VARIANCE * pq)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(informative, pq / np.where(informative, v, 1.0) * adjust, np.asarray(k, dtype=float))


def korn_graubard_interval(estimate, variance, n_rows, k, level: float, df=None):
    """Clopper–Pearson limits on the effective sample size (``svyciprop(method = "beta")``), batch-wise.

    With ``n = effective_n(...)`` and ``x = n p``: lower ``Beta^-1(alpha/2; x, n - x + 1)``,
    upper ``Beta^-1(1 - alpha/2; x + 1, n - x)``, 0 and 1 at ``p = 0`` and ``p = 1``.
    Equals R survey 4.1.1 to 1e-6 wherever R's interval is defined (a fixture);
    where it is not (no hits, or no misses) the bound away from the estimate
    is that of one trial per document, ``1 - (alpha/2)^(1/K)`` above 0 for no hits.
    NaN where the estimate is outside [0, 1].
    """
    p = np.asarray(estimate, dtype=float)
    alpha = 1 - level
    n = effective_n(p, variance, n_rows, k, level, df)
    x = n * p
    inside = (p >= 0) & (p <= 1)
    with np.errstate(invalid="ignore"):
        lower = np.where(p > 0, special.betaincinv(np.maximum(x, 1e-300), n - x + 1, alpha / 2), 0.0)
        upper = np.where(p < 1, special.betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - alpha / 2), 1.0)
    return np.where(inside, lower, np.nan), np.where(inside, upper, np.nan)


def logit_interval(estimate, variance, k, level: float):
    """``expit(logit p -/+ t_{K-1} sqrt(v) / (p (1 - p)))`` (``svyciprop(method = "logit")``), batch-wise.

    R fits ``svyglm(y ~ 1, family = quasibinomial)``; for an intercept-only
    model its sandwich variance of the logit is exactly ``v / (p (1 - p))^2``
    and ``confint`` uses ``t`` with ``degf(design) = K - 1`` degrees of freedom.
    Undefined (NaN) at ``p`` = 0 or 1, where the logit is infinite (R's fit does
    not converge there and returns an interval of width ~1e-11 beside 0 or 1).
    """
    p = np.asarray(estimate, dtype=float)
    t = special.stdtrit(np.asarray(k) - 1, 0.5 + level / 2)
    interior = (p > 0) & (p < 1)
    q = np.where(interior, p, 0.5)
    half = t * np.sqrt(np.asarray(variance, dtype=float)) / (q * (1 - q))
    centre = special.logit(q)
    return (
        np.where(interior, special.expit(centre - half), np.nan),
        np.where(interior, special.expit(centre + half), np.nan),
    )
