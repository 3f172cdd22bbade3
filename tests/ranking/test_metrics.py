"""Document-level ranking metrics: a worked example, hand-computed fixtures, properties, pytrec_eval parity."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ragunc.data.runs import qrels_from_frame, run_from_frame
from ragunc.ranking.metrics import (
    DEDUP_TRUNCATE,
    ORDERS,
    TRUNCATE_DEDUP,
    chunk_recall,
    hit_rate,
    match_qrels,
    mean_defined,
    metric_table,
    naive_recall_sum,
    ndcg,
    order_differences,
    precision,
    ranked_list,
    recall,
    reciprocal_rank,
)


def matched(lists: dict[str, list[str]], rels: dict[str, dict[str, float]], chunk_rels=None):
    """Run from ranked document lists (chunk ids "<doc>#<n>"); qrels from {query: {doc: grade}}."""
    rows = []
    for q, docs in lists.items():
        seen: dict[str, int] = {}
        for rank, d in enumerate(docs, start=1):
            seen[d] = seen.get(d, 0) + 1
            rows.append((q, rank, f"{d}#{seen[d]}", d))
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "rank", "chunk_id", "doc_id"]))
    qrows = [(q, d, g) for q, docs in rels.items() for d, g in docs.items()]
    frame = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])
    if chunk_rels is not None:
        frame["chunk_id"] = None
        extra = pd.DataFrame(
            [(q, c.split("#")[0], g, c) for q, cs in chunk_rels.items() for c, g in cs.items()],
            columns=["query_id", "doc_id", "relevance", "chunk_id"],
        )
        frame = pd.concat([frame, extra], ignore_index=True)
    return match_qrels(run, qrels_from_frame(frame))


def seed_doc_recall(hits, relevant, k):
    """The worked example's own reference implementation, verbatim in logic."""
    if k < 1:
        raise ValueError("k must be positive")
    if not relevant:
        return None
    return len(set(hits[:k]) & relevant) / len(relevant)


SEED_HITS = ["manual", "manual", "manual", "faq", "terms"]
SEED = {"q": SEED_HITS}
SEED_RELEVANT = {"q": {"manual": 1, "faq": 1}}


def test_seed_case_three_orders():
    j = matched(SEED, SEED_RELEVANT)
    assert naive_recall_sum(j, 3)[0] == pytest.approx(1.50)
    assert recall(j, 3, order=TRUNCATE_DEDUP)[0] == pytest.approx(0.50)
    assert recall(j, 3, order=DEDUP_TRUNCATE)[0] == pytest.approx(1.00)
    # The reference implementation gives the same two numbers.
    assert seed_doc_recall(SEED_HITS, {"manual", "faq"}, 3) == 0.5
    assert seed_doc_recall(list(dict.fromkeys(SEED_HITS)), {"manual", "faq"}, 3) == 1.0


@pytest.mark.parametrize("k", [0, -1, 1.5])
def test_k_below_one_or_fractional_raises(k):
    j = matched(SEED, SEED_RELEVANT)
    for metric in (recall, precision, hit_rate, ndcg, naive_recall_sum):
        with pytest.raises(ValueError, match="k must be a positive integer"):
            metric(j, k)


def test_seed_edge_cases():
    j = matched(
        {"all_manual": ["manual"] * 3, "terms_only": ["terms"], "no_relevant": SEED_HITS},
        {"all_manual": {"manual": 1}, "terms_only": {"manual": 1, "faq": 1}, "empty_list": {"faq": 1}},
    )
    r = dict(zip(j.query_id, recall(j, 3)))
    assert r["all_manual"] == 1.0
    assert r["terms_only"] == 0.0
    assert r["empty_list"] == 0.0  # relevant documents but nothing retrieved
    assert math.isnan(r["no_relevant"])  # empty relevant set: undefined
    mean, used, excluded = mean_defined(recall(j, 3))
    assert (used, excluded) == (3, 1)
    assert mean == pytest.approx(1 / 3)
    for metric in (hit_rate, precision, ndcg, reciprocal_rank):
        assert math.isnan(dict(zip(j.query_id, metric(j, 3)))["no_relevant"])


def test_zero_grade_is_not_relevant():
    j = matched({"q": ["a", "b"]}, {"q": {"a": 0, "b": 2}})
    assert j.n_relevant[0] == 1
    assert recall(j, 1)[0] == 0.0 and recall(j, 2)[0] == 1.0


def test_hand_computed_metrics_with_duplicates():
    # ranks: 1 a(rel 2)  2 a  3 x  4 b(rel 1)  5 c(rel 1)
    j = matched({"q": ["a", "a", "x", "b", "c"]}, {"q": {"a": 2, "b": 1, "c": 1}})
    assert recall(j, 4)[0] == pytest.approx(2 / 3)
    assert precision(j, 4)[0] == pytest.approx(2 / 4)  # a once, b once; the repeated a fills a slot
    assert precision(j, 4, order=DEDUP_TRUNCATE)[0] == pytest.approx(3 / 4)  # documents a, x, b, c
    assert reciprocal_rank(j, order=TRUNCATE_DEDUP)[0] == 1.0
    assert hit_rate(j, 1)[0] == 1.0
    # truncate-dedup nDCG@4: gains at chunk slots 1 (a=2) and 4 (b=1); ideal 2, 1, 1.
    dcg = 2 / math.log2(2) + 1 / math.log2(5)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg(j, 4)[0] == pytest.approx(dcg / idcg)
    # dedup-truncate: document ranks a=1, x=2, b=3, c=4.
    dcg_dt = 2 / math.log2(2) + 1 / math.log2(4) + 1 / math.log2(5)
    assert ndcg(j, 4, order=DEDUP_TRUNCATE)[0] == pytest.approx(dcg_dt / idcg)


def test_reciprocal_rank_slot_depends_on_order():
    j = matched({"q": ["x", "x", "x", "r"]}, {"q": {"r": 1}})
    assert reciprocal_rank(j, order=TRUNCATE_DEDUP)[0] == pytest.approx(1 / 4)  # chunk rank 4
    assert reciprocal_rank(j, order=DEDUP_TRUNCATE)[0] == pytest.approx(1 / 2)  # document rank 2
    assert reciprocal_rank(j, 3, order=TRUNCATE_DEDUP)[0] == 0.0


def test_chunk_recall_counts_relevant_chunks():
    j = matched(
        {"q": ["a", "a", "b", "a"]},
        {"q": {"a": 1}},
        chunk_rels={"q": {"a#2": 1, "a#3": 1, "b#9": 1}},
    )
    # relevant chunks a#2, a#3, b#9 -> in the top 3 chunks (a#1, a#2, b#1): a#2 only.
    assert chunk_recall(j, 3)[0] == pytest.approx(1 / 3)
    assert chunk_recall(j, 4)[0] == pytest.approx(2 / 3)
    assert "chunk_recall" in metric_table(j, 3).columns


def test_chunk_recall_needs_chunk_qrels():
    with pytest.raises(ValueError, match="chunk_id"):
        chunk_recall(matched(SEED, SEED_RELEVANT), 3)


def test_unknown_order_raises():
    with pytest.raises(ValueError, match="order must be one of"):
        recall(matched(SEED, SEED_RELEVANT), 3, order="dedup-first")


def test_order_differences_explains_the_seed_case():
    table = order_differences(matched({**SEED, "same": ["faq", "manual"]}, {**SEED_RELEVANT, "same": {"faq": 1}}), 3)
    row = table.set_index("query_id").loc["q"]
    assert row["differs"]
    assert "faq entered only after dedup: first at chunk rank 4" in row["why"]
    assert "manual counted 3x" in row["why"]
    same = table.set_index("query_id").loc["same"]
    assert not same["differs"] and same["why"] == ""


# -- properties ------------------------------------------------------------------------------------------------

DOCS = list("abcdefg")
ranked_lists = st.lists(st.sampled_from(DOCS), min_size=0, max_size=12)
relevant_sets = st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), max_size=5)


@settings(max_examples=80, deadline=None)
@given(
    lists=st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), ranked_lists, min_size=1),
    rels=st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q4"]), relevant_sets),
    k=st.integers(1, 14),
)
def test_every_metric_in_unit_interval_and_matches_the_seed_reference(lists, rels, k):
    j = matched(lists, rels)
    for order in ORDERS:
        table = metric_table(j, k, order=order)
        for col in ("recall", "hit", "precision", "rr", "ndcg"):
            values = table[col].to_numpy()
            defined = values[~np.isnan(values)]
            assert np.all((defined >= 0) & (defined <= 1 + 1e-12)), (order, col)
    td, dt, naive = recall(j, k), recall(j, k, order=DEDUP_TRUNCATE), naive_recall_sum(j, k)
    for i, q in enumerate(j.query_id):
        relevant = {d for d, g in rels.get(q, {}).items() if g > 0}
        hits = lists.get(q, [])
        for got, hits_in_order in ((td[i], hits), (dt[i], list(dict.fromkeys(hits)))):
            expected = seed_doc_recall(hits_in_order, relevant, k)
            assert (math.isnan(got) and expected is None) or got == pytest.approx(expected)
        if relevant:
            assert dt[i] >= td[i] and naive[i] >= td[i]


@settings(max_examples=60, deadline=None)
@given(
    hits=st.lists(st.sampled_from(DOCS), min_size=1, max_size=10),
    rel=relevant_sets,
    k=st.integers(1, 10),
    where=st.integers(0, 10),
    pick=st.integers(0, 10),
)
def test_inserting_another_chunk_of_a_top_k_document_never_raises_recall(hits, rel, k, where, pick):
    top = list(dict.fromkeys(hits[:k]))
    dup = top[pick % len(top)]
    where = where % (min(k, len(hits)) + 1)  # inside (or right after) the top k
    more = hits[:where] + [dup] + hits[where:]
    j_before, j_after = matched({"q": hits}, {"q": rel}), matched({"q": more}, {"q": rel})
    for order in ORDERS:
        before, after = recall(j_before, k, order=order)[0], recall(j_after, k, order=order)[0]
        assert (math.isnan(before) and math.isnan(after)) or after <= before + 1e-12


# -- parity with trec_eval (pytrec_eval) on runs without duplicate documents -----------------------------------


def test_parity_with_pytrec_eval_without_duplicates():
    rng = np.random.default_rng(7)
    lists, rels = {}, {}
    for i in range(60):
        q = f"q{i}"
        docs = [f"d{j}" for j in rng.permutation(40)[: rng.integers(1, 25)]]
        lists[q] = docs
        judged_docs = rng.choice(40, size=rng.integers(1, 8), replace=False)
        rels[q] = {f"d{j}": int(rng.integers(1, 4)) for j in judged_docs}
        rels[q][f"d{rng.integers(40, 50)}"] = 0  # a matched non-relevant document
    trec_run = {q: {d: float(100 - r) for r, d in enumerate(docs)} for q, docs in lists.items()}
    ks = (1, 3, 5, 10, 20)
    measures = {"recip_rank"} | {f"{m}.{k}" for m in ("recall", "P", "ndcg_cut") for k in ks}
    expected = pytrec_eval.RelevanceEvaluator(rels, measures).evaluate(trec_run)
    j = matched(lists, rels)
    index = {q: i for i, q in enumerate(j.query_id)}
    order = [index[q] for q in lists]
    for k in ks:
        for name, ours in (("recall", recall(j, k)), ("P", precision(j, k)), ("ndcg_cut", ndcg(j, k))):
            ref = np.array([expected[q][f"{name}_{k}"] for q in lists])
            np.testing.assert_allclose(ours[order], ref, atol=1e-4, err_msg=f"{name}@{k}")
            for other in ORDERS:  # without duplicates the two orders agree
                np.testing.assert_allclose(
                    {"recall": recall, "P": precision, "ndcg_cut": ndcg}[name](j, k, order=other)[order], ref, atol=1e-4
                )
    ref_rr = np.array([expected[q]["recip_rank"] for q in lists])
    np.testing.assert_allclose(reciprocal_rank(j)[order], ref_rr, atol=1e-4)


def test_ranked_list_shows_where_each_document_is_first_seen():
    j = matched({**SEED, "other": ["faq"]}, {**SEED_RELEVANT, "other": {"faq": 1}})
    table = ranked_list(j, "q")
    assert list(table["chunk_rank"]) == [1, 2, 3, 4, 5]
    assert list(table["doc_id"]) == SEED_HITS and list(table["chunk_id"]) == [
        "manual#1",
        "manual#2",
        "manual#3",
        "faq#1",
        "terms#1",
    ]
    assert list(table["relevance"]) == [1, 1, 1, 1, 0]
    assert list(table["first_seen"]) == [True, False, False, True, True]
    assert list(table["doc_rank"]) == [1, 1, 1, 2, 3]  # faq is the second document although it is the fourth chunk
    assert list(ranked_list(j, "other")["doc_id"]) == ["faq"]
    with pytest.raises(ValueError, match="query 'nope' is not in the run or the qrels"):
        ranked_list(j, "nope")


def test_longest_list_is_the_longest_result_list_in_chunks():
    assert matched({**SEED, "short": ["faq"]}, SEED_RELEVANT).longest_list == 5
