"""The restricted wild cluster bootstrap (WCR), its interval by test inversion, batch-wise.

MacKinnon, Nielsen & Webb (2023, "Cluster-robust inference: a guide to empirical practice")
recommend it with few or unequal clusters.  The estimate is the intercept of the chunk-level
regression ``y = beta + u`` (micro: the ratio hits / chunks) or of the document-level one on
the documents' rates (macro, each document one row).  Testing ``beta = beta_0`` it perturbs the
restricted cluster scores ``a_d = Y_d - beta_0 m_d`` by one weight ``v_d`` per document and
compares the sample's ``t`` with the replicates' ``t*``; the interval is every ``beta_0`` the
test does not reject at ``1 - level``.  The weights are Rademacher's (+-1), or Webb's six points
when K < :data:`WEBB_BELOW` (2^K Rademacher draws are too few to tell p-values apart there).

Every replicate is a few weighted sums over the documents in which ``beta_0`` enters linearly
(:func:`ragunc.stats.bootstrap_kernels.wild_sums`, the resampling engine's streams), so the
test inverts without drawing again; in the interval's kernel each row draws its sums into a
buffer that stays in cache and inverts at once (:func:`~ragunc.stats.bootstrap_kernels.wild_bounds`).
Each row (a coverage experiment's repetition) draws its own weights: one draw shared by every
repetition would leave each one's interval as valid, but would tie their coverage events together,
so the experiment's Monte Carlo error would no longer be that of R independent repetitions.  With
a known population the sample's ``t`` carries the FPC (``se sqrt(1 - K/D)``): the bootstrap gives
the pivot's law, the FPC its scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special

from .bootstrap_kernels import row_seeds, wild_bounds, wild_sums, wild_tstats
from .linearization import Linearized, korn_graubard_bell_mccaffrey

WEBB_BELOW = 12  # K below which the weights are Webb's six points
WILD_REPS = 999  # B: (B + 1) alpha is a whole number at the usual levels
INVERSION_STEPS = 40  # most regula falsi steps per bound (to 1e-4 SE; a few usually suffice)


@dataclass(frozen=True)
class WildReplicates:
    """What the WCR kernel reads: a batch's documents, their streams and figures (leading shape ``lead``)."""

    y: np.ndarray  # (rows, K) the documents' hits (micro) or rates (macro)
    m: np.ndarray  # (rows, K) their chunks (micro) or ones (macro)
    seeds: np.ndarray  # (rows,) each row's stream of weights
    reps: int  # B
    theta: np.ndarray  # (rows,) the estimate
    se: np.ndarray  # (rows,) its CV1 SE without small-sample factor, FPC applied
    level: float
    lead: tuple
    lin: Linearized | None = None  # the same rows linearized: the span (wild_span) reads the default from it

    @property
    def n_docs(self) -> int:
        return self.y.shape[-1]

    @property
    def webb(self) -> bool:
        return self.n_docs < WEBB_BELOW

    def sums(self):
        """The replicates' sums (:class:`~ragunc.stats.bootstrap_kernels.WildSums`), as the interval reads them."""
        return wild_sums(self.y, self.m, self.reps, self.seeds, webb=self.webb)

    @cached_property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The WCR interval's bounds (rows,), computed once for every method that reads them."""
        kth = min(self.reps, int(np.ceil(self.level * (self.reps + 1)))) - 1
        start = np.full(self.theta.shape, special.stdtrit(self.n_docs - 1, 0.5 + self.level / 2))
        return wild_bounds(
            self.y,
            self.m,
            self.seeds,
            self.theta,
            self.se,
            start,
            reps=self.reps,
            webb=self.webb,
            kth=kth,
            iters=INVERSION_STEPS,
        )


def _columns(sum_y, n, estimator):
    sum_y = np.asarray(sum_y, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), sum_y.shape)
    y, m = (sum_y, n) if estimator == "micro" else (sum_y / n, np.ones(sum_y.shape))
    k = sum_y.shape[-1]
    return y.reshape(-1, k), m.reshape(-1, k), sum_y.shape[:-1]


def wild_resample(
    sum_y, n, *, estimator: str = "micro", level: float = 0.95, fpc=1.0, reps: int = WILD_REPS, rng=None, lin=None
) -> WildReplicates:
    """Seed the wild bootstrap's weights for each row (documents on the last axis), ``reps`` replicates.

    ``lin``: the same rows' :class:`~ragunc.stats.linearization.Linearized`, for :func:`wild_span`.
    """
    rng = np.random.default_rng(rng)
    y, m, lead = _columns(sum_y, n, estimator)
    sum_m = m.sum(-1)
    theta = y.sum(-1) / sum_m
    se = (
        np.sqrt(
            np.broadcast_to(np.asarray(fpc, dtype=float), lead).reshape(-1) * ((y - theta[:, None] * m) ** 2).sum(-1)
        )
        / sum_m
    )
    return WildReplicates(y, m, row_seeds(rng, y.shape[0]), reps, theta, se, level, lead, lin)


def wild_cluster_restricted(w: WildReplicates):
    """The WCR interval (no SE): ``{beta_0 : p(beta_0) > 1 - level}``, inside [0, 1]; NaN without a spread (SE 0).

    The bound on each side solves ``|theta - beta_0| / se = q(beta_0)``, with ``q`` the
    ``ceil(level (B + 1))``-th smallest |t*| under the null ``beta_0``, searched outwards from
    the t(K - 1) bound (:func:`~ragunc.stats.bootstrap_kernels.wild_bounds`).  Weights symmetric
    about 0 make the symmetric and equal-tailed tests one.  When one document holds most chunks
    the test may reject nothing on a side: the bound is then 0 or 1, which is what the data say.
    """
    lower, upper = w.bounds
    return None, lower.reshape(w.lead), upper.reshape(w.lead)


def span(lower_a, upper_a, lower_b, upper_b):
    """``(lower, upper)``: the span of two intervals, every value either keeps (one where the other is NaN)."""
    return np.fmin(lower_a, lower_b), np.fmax(upper_a, upper_b)


def wild_span(w: WildReplicates):
    """The span of Korn–Graubard–BM and the WCR interval (no SE): every rate either of them keeps.

    MacKinnon, Nielsen & Webb (2023) advise, when a few clusters carry the sample, to compute
    several intervals and, where they disagree, to trust none of the shorter ones alone; the span
    reports that disagreement as width.  Both are inside [0, 1], so the span is.
    """
    if w.lin is None:
        raise ValueError("the span needs the rows linearized: wild_resample(..., lin=linearize(...))")
    _, lower_kg, upper_kg = korn_graubard_bell_mccaffrey(w.lin)
    _, lower, upper = wild_cluster_restricted(w)
    return (None, *span(lower_kg, upper_kg, lower, upper))


def wild_pvalue(sum_y, n, beta0, *, estimator: str = "micro", reps: int = WILD_REPS, webb=None, rng=None):
    """The WCR p-value of ``beta = beta0`` (no FPC), batch-wise: the share of |t*| at or above |t|.

    ``webb`` (default: K < :data:`WEBB_BELOW`) chooses Webb's weights over Rademacher's.
    """
    rng = np.random.default_rng(rng)
    y, m, lead = _columns(sum_y, n, estimator)
    k = y.shape[-1]
    beta0 = np.broadcast_to(np.asarray(beta0, dtype=float), lead).reshape(-1)
    sums = wild_sums(y, m, reps, row_seeds(rng, y.shape[0]), webb=k < WEBB_BELOW if webb is None else webb)
    theta = y.sum(-1) / m.sum(-1)
    se = np.sqrt(((y - theta[:, None] * m) ** 2).sum(-1)) / m.sum(-1)
    t = np.abs(theta - beta0) / se
    return (wild_tstats(sums, beta0) >= t[:, None]).mean(-1).reshape(lead)
