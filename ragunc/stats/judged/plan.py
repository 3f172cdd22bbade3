"""Planning an audit: how much of K judged documents to audit for a target half-width, from a pilot audit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..linearization import check_options
from .kernel import row_weights, variance_parts
from .sample import JudgedSample


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
    sums = pilot.sums()
    parts = variance_parts(sums, w=row_weights(sums.n, estimator), audit=pilot.audit)
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
    g, h, x = pilot.sum_gold.sum(), pilot.sum_judge_audited.sum(), pilot.sum_gold_judge.sum()
    cov = x / a - (g / a) * (h / a)
    spread_g = pilot.sum_gold2.sum() / a - (g / a) ** 2
    spread_h = pilot.sum_judge2_audited.sum() / a - (h / a) ** 2
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
