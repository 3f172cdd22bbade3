"""A judged sample's per-document sums, the audit's designs and the names of the estimates.

Sums use the per-document file's names (:mod:`ragunc.data.per_document`): the judge's labels are a
:class:`~ragunc.stats.sample.ClusterStats` (``n`` rows, ``sum_y`` and ``sum_y2`` of the judge's f), the audit's
are ``audited`` (rows a person labelled), ``sum_gold``, ``sum_gold2``, ``sum_judge_audited``,
``sum_judge2_audited`` and ``sum_gold_judge`` over them.  :class:`JudgedSums` carries the same sums
batch-wise (documents on the last axis) into :func:`ragunc.stats.judged.kernel.judged_arrays`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..recommend import RECOMMENDED_METHOD
from ..sample import ClusterStats, zero_one

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
    "sum_gold": np.float64,
    "sum_gold2": np.float64,
    "sum_judge_audited": np.float64,
    "sum_judge2_audited": np.float64,
    "sum_gold_judge": np.float64,
}


@dataclass(frozen=True)
class JudgedSums:
    """The per-document sums :func:`~ragunc.stats.judged.kernel.judged_arrays` works on, as float arrays.

    Documents on the last axis, repetitions on leading axes; the names are :class:`JudgedSample`'s, with
    the judge's ``sum_y`` over every row called ``sum_judge``.
    """

    n: np.ndarray  # rows (m)
    sum_judge: np.ndarray  # sum of the judge's f over every row (F)
    audited: np.ndarray  # rows a person labelled (A)
    sum_gold: np.ndarray  # sum of gold y over them (G)
    sum_gold2: np.ndarray  # sum of y^2 over them
    sum_judge_audited: np.ndarray  # sum of f over them (H)
    sum_judge2_audited: np.ndarray  # sum of f^2 over them
    sum_gold_judge: np.ndarray  # sum of y f over them

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            object.__setattr__(self, field.name, np.asarray(getattr(self, field.name), dtype=float))


@dataclass(frozen=True)
class JudgedSample:
    """Per-document sums of a judged sample: the judge's labels on every row, a person's on the audited ones.

    ``judge`` is the judge's sample (``sum_y`` = sum of f, ``n`` = rows, ``sum_y2`` = sum of
    f^2; its cluster_id, population_docs and config are the sample's); the other arrays have one
    entry per document, in the same order, summed over the document's audited rows.
    """

    judge: ClusterStats
    audited: np.ndarray  # (K,) rows a person labelled
    sum_gold: np.ndarray  # (K,) sum of gold y over them
    sum_gold2: np.ndarray  # (K,) sum of y^2
    sum_judge_audited: np.ndarray  # (K,) sum of the judge's f over the audited rows
    sum_judge2_audited: np.ndarray  # (K,) sum of f^2 over them
    sum_gold_judge: np.ndarray  # (K,) sum of y f over them
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
        return bool(zero_one(self.sum_gold, self.sum_gold2) and zero_one(self.judge.sum_y, self.judge.sum_y2))

    def gold_sample(self) -> ClusterStats:
        """The audited documents' gold labels as a sample (``sum_y`` = sum of gold y, ``n`` = audited rows)."""
        keep = self.audited > 0
        return ClusterStats(
            self.judge.cluster_id[keep],
            self.sum_gold[keep],
            self.audited[keep],
            self.sum_gold2[keep],
            population_docs=self.judge.population_docs,
            config=self.judge.config,
        )

    def subset(self, index) -> "JudgedSample":
        """The documents at ``index`` (positions or a boolean mask)."""
        index = np.asarray(index)
        return dataclasses.replace(
            self, judge=self.judge.subset(index), **{name: getattr(self, name)[index] for name in _AUDIT_ARRAYS}
        )

    def sums(self) -> JudgedSums:
        """The sums :func:`~ragunc.stats.judged.kernel.judged_arrays` takes."""
        return JudgedSums(
            n=self.judge.n,
            sum_judge=self.judge.sum_y,
            **{name: getattr(self, name) for name in _AUDIT_ARRAYS},
        )


def audit_unit(n, audited) -> str:
    """``"documents"`` when every audited document is audited whole (``audited`` is 0 or ``n``), else ``"rows"``.

    With one row per document the two designs are the same, and "documents" is returned.
    """
    n, audited = np.asarray(n), np.asarray(audited)
    return "documents" if bool(((audited == 0) | (audited == n)).all()) else "rows"


def judged_population(judge: ClusterStats, sum_gold, sum_gold2, sum_gold_judge, audit: str = "rows") -> JudgedSample:
    """The :class:`JudgedSample` of a population where a person labelled every row (the coverage experiment's)."""
    return JudgedSample(
        judge=judge,
        audited=judge.n,
        sum_gold=sum_gold,
        sum_gold2=sum_gold2,
        sum_judge_audited=judge.sum_y,
        sum_judge2_audited=judge.sum_y2,
        sum_gold_judge=sum_gold_judge,
        audit=audit,
    )
