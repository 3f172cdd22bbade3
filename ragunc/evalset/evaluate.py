"""A retriever measured on a frozen set: document-level Recall@k and friends, with intervals that
cluster questions by their source document, and the negatives reported apart.

Questions made from one document are not independent draws, so every mean over questions
goes through :func:`ragunc.ranking.uncertainty.query_interval` with the question's
``source_doc_id`` as its group: the naive interval (questions independent) beside the
cluster interval, and the DEFF between them. Negatives have no relevant document, so they
have no recall; what matters is whether the retriever still answers them: the share with
any result at all, and (with scores) the share whose top score reaches the median top
score of the answerable questions, a retriever's "confident" level.

The relevant sets are partly a judge's (the uniqueness step's YES to each extra chunk).  An
audit file, a person's verdict on judged (question, chunk) pairs, corrects them: each audited
question's recall is recomputed on its relevant set as the person has it, and the mean recall
is estimated by prediction-powered inference (:mod:`ragunc.stats.judged`), the judge's recall
on every question corrected by the audited ones, questions clustered by source document.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.reader import DataError, read_table, rows_phrase
from ..data.results import results_from_frame
from ..data.runs import Run, load_run, qrels_from_frame, run_from_frame
from ..data.serialize import jsonable
from ..ranking.metrics import METRICS, TRUNCATE_DEDUP, match_qrels, metric_table, recall
from ..ranking.uncertainty import RecallReport, query_interval, recall_report
from ..retrieval.bm25 import top_k
from ..retrieval.pipeline import prepare_retrieval
from ..stats.judged.report import JudgedReport, judged_report
from ..stats.intervals import undefined_estimates
from ..stats.methods import IntervalEstimate
from ..stats.recommend import Recommendation, Recommends
from .store import EvalSet, load_evalset, origin_counts

FRIENDS = tuple(m for m in METRICS if m != "recall")  # reported beside recall, each with its intervals
MIN_DEPTH = 100  # chunks retrieved per question by the BM25 run (>= k)


@dataclass(frozen=True)
class MetricSummary(Recommends):
    """Mean of one per-question metric with every interval of :func:`query_interval`, led by the recommended one."""

    name: str
    mean: float
    n_questions: int
    intervals: dict[str, IntervalEstimate]  # every registered method; NaN with fewer than 2 source documents
    recommendation: Recommendation | None  # which to report (stats.recommend); None with fewer than 2
    deff: float

    def to_dict(self) -> dict:
        return {
            "mean": self.mean,
            "n_questions": self.n_questions,
            "naive": self.interval("naive").to_dict(),
            "cluster": self.interval("cluster").to_dict(),
            "deff": self.deff,
            "recommended": self.recommended_dict(),
        }


def _summary(name: str, scores: np.ndarray, groups: np.ndarray, *, level: float, boot: int, rng) -> MetricSummary:
    scores = np.asarray(scores, dtype=float)
    defined = ~np.isnan(scores)
    mean = float(scores[defined].mean()) if defined.any() else float("nan")
    if np.unique(groups[defined]).size >= 2:
        report = query_interval(scores, groups, level=level, boot=boot, rng=rng)
        return MetricSummary(
            name, mean, int(defined.sum()), report.intervals, report.recommendation, report.diagnostics.deff
        )
    return MetricSummary(name, mean, int(defined.sum()), undefined_estimates(), None, float("nan"))


@dataclass(frozen=True)
class NegativesSummary:
    """How the retriever treats questions whose right outcome is to abstain."""

    n: int
    returned: MetricSummary  # share with any result
    confident: MetricSummary | None  # share whose top score >= threshold (runs with scores only)
    threshold: float | None  # median top-1 score over answerable questions

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "returned": self.returned.to_dict(),
            "confident": None if self.confident is None else self.confident.to_dict(),
            "threshold": self.threshold,
        }


AUDIT_COLUMNS = ("question_id", "chunk_id", "relevant")
_VERDICTS = {"1": True, "1.0": True, "true": True, "yes": True, "0": False, "0.0": False, "false": False, "no": False}


@dataclass(frozen=True)
class AuditedRecall:
    """Recall@k with the judge's relevant sets, and corrected by a person's audit of judged pairs."""

    report: JudgedReport  # judge-only (the uncorrected recall), gold-only (audited questions), prediction-powered
    pairs: int  # audited (question, chunk) pairs
    made_relevant: int  # pairs the person calls relevant and the judge's set lacks
    made_irrelevant: int  # pairs in the judge's set the person calls irrelevant
    left_out: int  # audited questions left with no relevant chunk (no recall to measure)

    def to_dict(self) -> dict:
        return {
            "recall_judge": self.report["judge_only"].estimate,
            "recall_corrected": self.report["prediction_powered"].estimate,
            **self.report.to_dict(),
            "pairs": self.pairs,
            "made_relevant": self.made_relevant,
            "made_irrelevant": self.made_irrelevant,
            "left_out": self.left_out,
        }


def load_audit(source: str | os.PathLike | pd.DataFrame, questions: list[dict]) -> pd.DataFrame:
    """A person's verdicts on judged pairs: ``question_id, chunk_id, relevant`` (1/0, true/false, yes/no).

    Every question named must be an answerable question of the set, every pair named once.
    Returns the pairs with ``relevant`` as bool; a :class:`DataError` names the column and rows.
    """
    if isinstance(source, pd.DataFrame):
        frame, name = source.astype(object), "<audit>"
    else:
        table = read_table(source)
        frame, name = table.frame, table.source
    missing = [c for c in AUDIT_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(
            f"{name}: missing column(s) {', '.join(map(repr, missing))}; an audit has columns "
            f"{', '.join(AUDIT_COLUMNS)} (one row per judged pair, relevant 1 or 0)"
        )
    if frame.empty:
        raise DataError(f"{name} has no data rows")
    text = {c: frame[c].map(lambda v: "" if v is None or v != v else str(v).strip()) for c in AUDIT_COLUMNS}
    verdict = text["relevant"].str.lower().map(_VERDICTS)
    answerable = {q["question_id"] for q in questions if q["relevant_doc_ids"]}
    problems = [
        ("question_id", "row(s) with an empty value", text["question_id"] == ""),
        (
            "question_id",
            "row(s) naming no answerable question of the set",
            (text["question_id"] != "") & ~text["question_id"].isin(answerable),
        ),
        ("chunk_id", "row(s) with an empty value", text["chunk_id"] == ""),
        ("relevant", "row(s) that are not 1/0, true/false or yes/no", verdict.isna()),
        (
            "chunk_id",
            "row(s) repeat the (question_id, chunk_id) of an earlier row",
            pd.DataFrame(text).duplicated(["question_id", "chunk_id"]),
        ),
    ]
    lines = [f"column {c!r}: {int(m.sum())} {what}: {rows_phrase(m.to_numpy())}" for c, what, m in problems if m.any()]
    if lines:
        raise DataError(f"{name}: " + "; ".join(lines) + " (row numbers count data rows from 1)")
    return pd.DataFrame(
        {"question_id": text["question_id"], "chunk_id": text["chunk_id"], "relevant": verdict.astype(bool)}
    )


def _audited_recall(
    audit: pd.DataFrame,
    answerable: list[dict],
    run: Run,
    judge_recall: np.ndarray,
    query_id: np.ndarray,
    groups: np.ndarray,
    k: int,
    level: float,
) -> AuditedRecall:
    """Each audited question's recall on its relevant set as the person has it, and the corrected mean."""
    by_id = {q["question_id"]: q for q in answerable}
    corrected, made_relevant, made_irrelevant = [], 0, 0
    for qid, pairs in audit.groupby("question_id", sort=False):
        q = by_id[qid]
        judged = set(q["relevant_chunk_ids"])
        yes = set(pairs.loc[pairs["relevant"], "chunk_id"])
        no = set(pairs.loc[~pairs["relevant"], "chunk_id"])
        made_relevant += len(yes - judged)
        made_irrelevant += len(no & judged)
        chunks = [c for c in q["relevant_chunk_ids"] if c not in no] + sorted(yes - judged)
        docs_without_chunk = [
            d for d in q["relevant_doc_ids"] if d not in {c.rpartition("#")[0] for c in q["relevant_chunk_ids"]}
        ]
        corrected.append(
            {
                **q,
                "relevant_chunk_ids": chunks,
                "relevant_doc_ids": list(dict.fromkeys([c.rpartition("#")[0] for c in chunks] + docs_without_chunk)),
            }
        )
    kept = [q for q in corrected if q["relevant_doc_ids"]]
    ids = [q["question_id"] for q in kept]
    gold = pd.Series(np.nan, index=query_id)
    if kept:
        rows = run.to_frame()[np.isin(run.query_id[run.qidx], ids)]
        audited = match_qrels(run_from_frame(rows, source=run.source), qrels_from_frame(_qrels_frame(kept)))
        gold.loc[audited.query_id] = recall(audited, k, order=TRUNCATE_DEDUP)
    defined = ~np.isnan(judge_recall)
    frame = pd.DataFrame({"doc_id": groups[defined], "y_judge": judge_recall[defined], "y": gold.to_numpy()[defined]})
    sample = results_from_frame(frame, source="the audited recall").judged_sample()
    return AuditedRecall(
        report=judged_report(sample, level=level),
        pairs=len(audit),
        made_relevant=made_relevant,
        made_irrelevant=made_irrelevant,
        left_out=len(corrected) - len(kept),
    )


@dataclass(frozen=True)
class EvalsetReport:
    """Everything ``ragunc evalset eval`` prints; ``results`` are per-question results in the data contract."""

    k: int
    retriever: str
    level: float
    n_questions: int
    origin: dict
    complete: bool  # the set's manifest says its build finished
    recall: RecallReport
    metrics: tuple[MetricSummary, ...]
    by_type: dict[str, dict]
    by_origin: dict[str, dict]
    negatives: NegativesSummary
    results: pd.DataFrame
    language: dict | None  # the set's language, as its manifest records it
    audit: AuditedRecall | None = None  # with an audit file: recall corrected by the person's verdicts

    def to_dict(self) -> dict:
        return jsonable(
            {
                "k": self.k,
                "retriever": self.retriever,
                "level": self.level,
                "n_questions": self.n_questions,
                "n_answerable": self.recall.n_queries,
                "n_negatives": self.negatives.n,
                "origin": self.origin,
                "complete": self.complete,
                "recall": self.recall.to_dict(),
                "metrics": {m.name: m.to_dict() for m in self.metrics},
                "by_type": self.by_type,
                "by_origin": self.by_origin,
                "negatives": self.negatives.to_dict(),
                "language": self.language,
                **({} if self.audit is None else {"audit": self.audit.to_dict()}),
            }
        )


def _qrels_frame(questions: list[dict]) -> pd.DataFrame:
    rows = []
    for q in questions:
        chunk_docs = {c: c.rpartition("#")[0] for c in q["relevant_chunk_ids"]}
        rows += [(q["question_id"], doc, chunk) for chunk, doc in chunk_docs.items()]
        rows += [(q["question_id"], doc, None) for doc in q["relevant_doc_ids"] if doc not in chunk_docs.values()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "chunk_id"]).assign(relevance=1)


def _bm25_run(evalset: EvalSet, depth: int) -> tuple[pd.DataFrame, str, dict[str, str]]:
    corpus = evalset.corpus()
    chunking = evalset.manifest["chunking"]
    retrieval = prepare_retrieval(corpus, chunk_words=chunking["chunk_words"], language=evalset.language)
    questions = evalset.questions
    positions, scores = top_k(retrieval.index, retrieval.encode_queries([q["question"] for q in questions]), depth)
    n, width = positions.shape
    frame = pd.DataFrame(
        {
            "query_id": np.repeat([q["question_id"] for q in questions], width),
            "rank": np.tile(np.arange(1, width + 1), n),
            "score": scores.ravel(),
            "chunk_id": retrieval.chunk_ids[positions.ravel()],
            "doc_id": retrieval.chunks.doc_ids[positions.ravel()],
        }
    )
    frame = frame[frame["score"] > 0]  # a chunk no question term matches was not retrieved
    doc_types = dict(zip(corpus.doc_ids, corpus.doc_types))
    return frame, f"ragunc BM25 over {retrieval.chunks.config} chunks", doc_types


def evaluate_evalset(
    evalset: EvalSet | str | os.PathLike,
    *,
    k: int = 10,
    run: Run | str | os.PathLike | None = None,
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = 0,
    audit: str | os.PathLike | pd.DataFrame | None = None,
) -> EvalsetReport:
    """Measure ``run`` (default: ragunc's BM25 over the set's corpus and chunking) on the set.

    ``run``: a :class:`~ragunc.data.runs.Run` or a run file (``query_id`` = ``question_id``);
    questions it lacks count as empty result lists.  ``audit``: a person's verdicts on judged
    (question, chunk) pairs (:func:`load_audit`); a question named there is taken as audited
    whole (every judged pair of it looked at), and the report adds the recall corrected by the
    audit (:class:`AuditedRecall`) beside the judge's.
    """
    evalset = evalset if isinstance(evalset, EvalSet) else load_evalset(evalset)
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    questions = list(evalset.questions)
    answerable = [q for q in questions if q["relevant_doc_ids"]]
    negatives = [q for q in questions if not q["relevant_doc_ids"]]
    if not answerable:
        raise ValueError(f"{evalset.folder}: the set has no answerable question to measure recall on")
    verdicts = None if audit is None else load_audit(audit, questions)
    doc_types: dict[str, str] = {}
    scores = None
    if run is None:
        frame, retriever, doc_types = _bm25_run(evalset, max(int(k), MIN_DEPTH))
        scores = frame.groupby("query_id")["score"].max()
        run = run_from_frame(frame, source=retriever)
    elif not isinstance(run, Run):
        run = load_run(run)
    retriever = run.source
    ids = {q["question_id"] for q in answerable}
    keep = np.isin(run.query_id[run.qidx], list(ids))
    rows = run.to_frame()[keep]
    matched = match_qrels(run_from_frame(rows, source=retriever), qrels_from_frame(_qrels_frame(answerable)))
    source_doc = {q["question_id"]: q["source_doc_id"] or q["question_id"] for q in questions}
    groups = np.array([source_doc.get(qid, qid) for qid in matched.query_id])
    recall_all = recall_report(
        matched, int(k), groups=groups, group_col="source_doc_id", level=level, boot=boot, rng=rng
    )
    table = metric_table(matched, int(k))
    metrics = tuple(
        _summary(name, table[name].to_numpy(), groups, level=level, boot=boot, rng=rng)
        for name in FRIENDS
        if name in table.columns
    )

    by_id = {q["question_id"]: q for q in questions}
    info = pd.DataFrame({"query_id": matched.query_id}).assign(
        type=[by_id[q]["type"] for q in matched.query_id], origin=[by_id[q]["origin"] for q in matched.query_id]
    )
    by_type = {
        t: {"n": int(m.size), "recall": float(np.nanmean(table["recall"].to_numpy()[m]))}
        for t in pd.unique(info["type"])
        for m in [np.flatnonzero(info["type"].to_numpy() == t)]
    }
    by_origin = {
        o: {"n": int(m.size), "recall": float(np.nanmean(table["recall"].to_numpy()[m]))}
        for o in pd.unique(info["origin"])
        for m in [np.flatnonzero(info["origin"].to_numpy() == o)]
    }

    negatives_summary = _negatives(run, negatives, scores, answerable, source_doc, level=level, boot=boot, rng=rng)
    results = pd.DataFrame(
        {
            "query_id": matched.query_id,
            "doc_id": groups,
            "relevant_chunk_id": [(by_id[q]["relevant_chunk_ids"] or [""])[0] for q in matched.query_id],
            "config": f"{retriever} @{int(k)}",
            "question_type": info["type"].to_numpy(),
            "origin": info["origin"].to_numpy(),
            "y": table["recall"].to_numpy(),
            "hit": table["hit"].to_numpy(),
            "rr": table["rr"].to_numpy(),
            "ndcg": table["ndcg"].to_numpy(),
        }
    )
    if doc_types:
        results.insert(4, "doc_type", [doc_types.get(d, "default") for d in groups])
    audited = (
        None
        if verdicts is None
        else _audited_recall(verdicts, answerable, run, recall_all.per_query, matched.query_id, groups, int(k), level)
    )
    return EvalsetReport(
        k=int(k),
        retriever=retriever,
        level=level,
        n_questions=len(questions),
        origin=origin_counts(questions),
        complete=bool(evalset.manifest.get("complete", True)),
        recall=recall_all,
        metrics=metrics,
        by_type=by_type,
        by_origin=by_origin,
        negatives=negatives_summary,
        results=results,
        language=evalset.manifest.get("language"),
        audit=audited,
    )


def _negatives(run: Run, negatives, scores, answerable, source_doc, *, level, boot, rng) -> NegativesSummary:
    ids = [q["question_id"] for q in negatives]
    groups = np.array([source_doc[q] for q in ids], dtype=object).astype(str)
    in_run = set(run.query_id[run.qidx]) if run.qidx.size else set()
    returned = np.array([q in in_run for q in ids], dtype=float)
    confident = threshold = None
    if scores is not None and ids:
        threshold = float(np.median(scores.reindex([q["question_id"] for q in answerable]).fillna(0.0)))
        top = scores.reindex(ids).fillna(0.0).to_numpy()
        confident = _summary("confident", (top >= threshold).astype(float), groups, level=level, boot=boot, rng=rng)
    return NegativesSummary(
        n=len(ids),
        returned=_summary("returned", returned, groups, level=level, boot=boot, rng=rng),
        confident=confident,
        threshold=threshold,
    )
