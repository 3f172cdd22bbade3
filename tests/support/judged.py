"""Judged samples summed the slow, obvious way from rows (for tests of ragunc.stats.judged)."""

from __future__ import annotations

import numpy as np

from ragunc.stats.judged.sample import JudgedSample, audit_unit
from ragunc.stats.sample import ClusterStats


def judged_from_rows(doc, judge, gold, audited, *, audit: str | None = None, population_docs=None) -> JudgedSample:
    """Per-document sums of row arrays: ``doc`` codes 0..K-1, ``gold`` read only where ``audited``."""
    doc = np.asarray(doc)
    judge, gold, audited = np.asarray(judge, float), np.asarray(gold, float), np.asarray(audited, bool)
    k = doc.max() + 1

    def total(x):
        return np.bincount(doc, weights=x, minlength=k)

    gold = np.where(audited, gold, 0.0)
    size = np.bincount(doc, minlength=k)
    count = np.bincount(doc, weights=audited, minlength=k).astype(int)
    sample = ClusterStats(
        np.arange(k).astype(str), total(judge), size, total(judge**2), population_docs=population_docs
    )
    return JudgedSample(
        sample,
        count,
        total(gold),
        total(gold**2),
        total(judge * audited),
        total(judge**2 * audited),
        total(gold * judge),
        audit=audit or audit_unit(size, count),
    )
