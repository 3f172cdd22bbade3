"""Which interval to report: ragunc's recommendation for one sample, with the reason in words.

The default, :data:`RECOMMENDED_METHOD`, comes from the battery of
:mod:`ragunc.stats.battery` plus the stdlib sample at small K (``bench/study_small_k.py``;
its figures are in bench/RESULTS.md and the README's "Which interval to report"):
Korn–Graubard with Bell–McCaffrey degrees of freedom holds its level outside the weak
corner below at a width close to R survey's Korn–Graubard.

Its weak corner is where a few long documents carry the sample (the battery's heavy-tailed
populations): there the variance rests on those few documents, and Korn–Graubard–BM and the
restricted wild cluster bootstrap each miss on samples where the other holds.  On such samples,
read off the sample itself (:func:`wild_evidence`: G* under :data:`WILD_SHARE` of K), ragunc
reports the span of the two, as MacKinnon, Nielsen & Webb (2023) advise when few clusters carry
the estimate: compute several intervals and trust none of the shorter ones alone
(:func:`recommended_methods`, batch-wise for the coverage experiment).  The jackknife (CV3)
under-covers at small K and is never recommended (bench/RESULTS.md).  Where the corpus rate
hangs on documents a sample seldom contains, no interval computed from the sample holds its
level (docs/weak_corner.md): the reason says so on samples that look like it
(:func:`weak_corner`), pointing to the design that avoids it, documents drawn with probability
proportional to their chunks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .leverage import effective_documents
from .linearization import bell_mccaffrey_df, check_options
from .methods import ByMethod, IntervalEstimate, interval_method

# The registry's selection step: which registered method to report.  Looked up in the
# registry at import, so a renamed or removed method fails here, not in a report.
# RECOMMENDED_METHOD is the default, reported unless the sample shows the evidence below.
RECOMMENDED_METHOD = interval_method("korn_graubard_bm").name
WILD_METHOD = interval_method("wild_restricted").name
SPAN_METHOD = interval_method("wild_span").name  # the span of RECOMMENDED_METHOD's and WILD_METHOD's
# G*/K (chunks independent) below which the span of the default and the wild bootstrap is reported
# (bench/study_small_k.py, bench/RESULTS.md).
WILD_SHARE = 0.3


@dataclass(frozen=True)
class Recommendation:
    method: str  # a registered method (stats.methods.METHODS): a key of IntervalReport.intervals
    reason: str  # plain-language why, for this K and these data
    df: float  # degrees of freedom the interval uses
    documents_with_hits: int
    documents_with_misses: int

    def to_dict(self) -> dict:
        return asdict(self)


class Recommends(ByMethod):
    """A result holding ``intervals`` and the ``recommendation`` of which of them to report (None: none defined)."""

    recommendation: Recommendation | None

    def recommended(self) -> IntervalEstimate:
        """The interval of the recommended method."""
        if self.recommendation is None:
            raise KeyError(f"this {type(self).__name__} has no recommendation")
        return self.interval(self.recommendation.method)

    def recommended_dict(self) -> dict | None:
        """The JSON's ``recommended``: ``{method, ci, reason, df}`` (None without a recommendation)."""
        rec = self.recommendation
        if rec is None:
            return None
        return {"method": rec.method, "ci": list(self.recommended().ci), "reason": rec.reason, "df": rec.df}


def weak_corner(sum_y, n):
    """Samples like the recommended interval's weak corner (docs/weak_corner.md), batch-wise (documents last).

    True where more than half of the documents have no hit (or more than half no miss),
    at least one has, and the Bell–McCaffrey df of the sizes is under (K - 1) / 2: most
    documents say nothing and a few long ones carry most of the chunks.  On corpora
    like that the micro rate hangs on the corpus's longest documents, which a sample
    of K documents seldom contains; no interval computed from the sample sees them.
    """
    sum_y, n = np.asarray(sum_y, dtype=float), np.asarray(n, dtype=float)
    k, few = sum_y.shape[-1], _rarer_outcome_documents(sum_y, n)
    return (few > 0) & (few < k / 2) & (bell_mccaffrey_df(n) < (k - 1) / 2)


def _rarer_outcome_documents(sum_y, n):
    """How many documents have the rarer outcome: the fewer of those with a hit and those with a miss."""
    return np.minimum((sum_y > 0).sum(-1), (sum_y < n).sum(-1))


def wild_evidence(sum_y, n):
    """Samples on which the span of the default and the wild bootstrap is recommended (micro), batch-wise.

    True where at least one document has a hit and one a miss (else the wild bootstrap has no
    spread to reweigh) and G* with chunks independent (:func:`~ragunc.stats.leverage.effective_documents`)
    is under :data:`WILD_SHARE` of K: a few long documents carry the sample.  There
    Korn–Graubard's variance rests on those few documents, while the wild bootstrap asks of each
    candidate rate whether reweighting the documents' residuals could have produced the estimate;
    each misses on samples where the other holds.
    """
    sum_y, n = np.asarray(sum_y, dtype=float), np.asarray(n, dtype=float)
    k = sum_y.shape[-1]
    return (_rarer_outcome_documents(sum_y, n) > 0) & (effective_documents(n, 0.0) < WILD_SHARE * k)


def recommended_methods(sum_y, n, *, estimator: str = "micro"):
    """The recommended method of each row (documents last): :data:`SPAN_METHOD` where :func:`wild_evidence`
    holds (micro only), else :data:`RECOMMENDED_METHOD`; an array of names of the rows' shape."""
    wild = wild_evidence(sum_y, n) if estimator == "micro" else np.zeros(np.shape(sum_y)[:-1], dtype=bool)
    return np.where(wild, SPAN_METHOD, RECOMMENDED_METHOD)


def recommend(sum_y, n, *, estimator: str = "micro", binary: bool = True) -> Recommendation:
    """The interval ragunc recommends for the documents' hits ``sum_y`` and chunks ``n`` (one sample).

    :data:`RECOMMENDED_METHOD`, or its span with the wild bootstrap where :func:`wild_evidence` holds
    (see :func:`recommended_methods`); the reason names the degrees of freedom against K - 1, says when
    the interval is R survey's own ``svyciprop(method = "beta")``, why the span when it is
    chosen, and warns when the sample has no hits or misses, only one or two documents with them,
    or looks like the weak corner (:func:`weak_corner`, micro only).
    """
    check_options(estimator)
    sum_y, n = np.asarray(sum_y, dtype=float), np.asarray(n, dtype=float)
    if sum_y.ndim != 1 or sum_y.shape != n.shape or sum_y.size < 2:
        raise ValueError(
            f"need one sample of at least 2 documents (1-D sum_y and n), got shapes {sum_y.shape} and {n.shape}"
        )
    k = sum_y.size
    hits, misses = int((sum_y > 0).sum()), int((sum_y < n).sum())
    df = float(bell_mccaffrey_df(n)) if estimator == "micro" else float(k - 1)
    method = str(recommended_methods(sum_y, n, estimator=estimator))
    parts = ["Korn–Graubard: Clopper–Pearson limits on the effective n, with Bell–McCaffrey degrees of freedom."]
    if method == SPAN_METHOD:
        g_star = float(effective_documents(n, 0.0))
        parts.insert(
            0,
            f"Korn–Graubard and the wild cluster bootstrap together: the {k} documents are worth "
            f"G* = {g_star:.1f} equal ones (under {WILD_SHARE:.0%} of K), so a few long documents carry the "
            "estimate. Korn–Graubard's variance then rests on those few documents, and the wild bootstrap "
            "(every rate that reweighting the documents' own residuals could have produced) misses on other "
            "samples than it does: this interval keeps every rate either keeps (in ragunc's study each alone "
            "covered as little as 87-88% on such corpora, the two together at least 91.8% on all but one).",
        )
    if hits == 0 or misses == 0:
        parts.append(
            f"No document has {'a hit' if hits == 0 else 'a miss'}: the sample says nothing about the design "
            f"effect, so the far bound is Clopper–Pearson with one trial per document ({k} trials), the worst case."
        )
    elif estimator == "macro":
        parts.append(
            f"The macro mean weighs every document the same: df = K - 1 = {k - 1}, and this is R survey's "
            'svyciprop(method = "beta") on the document rates.'
        )
    elif df > k - 1.5:
        parts.append(
            f"Document sizes are near-equal (df = {df:.1f}, K - 1 = {k - 1}): this is close to R survey's "
            'svyciprop(method = "beta").'
        )
    else:
        parts.append(
            f"df = {df:.1f} instead of K - 1 = {k - 1}: a few long documents carry most of the chunks, "
            "so the variance rests on fewer documents than K and the interval widens to say so "
            "(with K - 1, R's interval covered 86-91% on such populations in ragunc's study)."
        )
    few = min(hits, misses)  # documents with the rarer outcome
    side, sides = ("hit", "hits") if hits <= misses else ("miss", "misses")
    if estimator == "micro" and weak_corner(sum_y, n):
        parts.append(
            f"{k - few} of the {k} documents have no {side} as well: on corpora like this the rate hangs on the "
            "corpus's longest documents, which a sample of K documents seldom contains, and no interval computed "
            "from the sample can see what they hold (in ragunc's study "
            + ("Korn–Graubard" if method == SPAN_METHOD else "this interval")
            + " covered as little as 88% on "
            f"such corpora instead of 95%, and 25% when their longest document had {sides}). Drawing documents "
            "with probability proportional to their chunks avoids this: the mean of the drawn documents' rates "
            "then estimates the chunk rate (docs/weak_corner.md)."
        )
    if 0 < few <= 2:
        parts.append(
            f"Only {few} document{'s' if few > 1 else ''} {'have' if few > 1 else 'has'} {sides}: the "
            f"between-document variance rests on {'them' if few > 1 else 'it'} and the interval may be "
            "too short; the bootstrap cannot help (most resamples leave them out). Add documents if you can."
        )
    if not binary:
        parts.append("y is a score, not 0/1: the interval treats the mean as a proportion (chosen on 0/1 hits).")
    return Recommendation(method, " ".join(parts), df, hits, misses)
