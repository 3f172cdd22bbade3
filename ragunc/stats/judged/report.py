"""One judged sample's report: the three estimates of the gold mean with intervals, the judge's bias, the audit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linearization import check_options
from ..methods import CLUSTER_ANALYTIC, IntervalEstimate, interval_method
from ..sample import require_documents
from .kernel import judged_arrays
from .sample import AUDIT_DESIGNS, BIAS_METHOD, DEFAULT_METHOD, ESTIMATES, LABELS, JudgedSample


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
        sample.sums(),
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
