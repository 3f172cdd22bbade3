"""Several runs compared: a hand-computed case, statsmodels (cluster-robust OLS, Holm), the stats core, bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import special
from statsmodels.stats.multitest import multipletests

from ragunc.data.runs import qrels_from_frame, query_groups, run_from_frame, runs_from_frame
from ragunc.ranking.comparison import compare_runs
from ragunc.ranking.metrics import match_qrels, metric_scores
from ragunc.ranking.uncertainty import scores_sample
from ragunc.stats.multiple import compare_configs

# Hand case: 4 groups of queries (sizes 1, 2, 2, 3), hit@1 per query for three runs.
GROUP = {"q1": "g1", "q2": "g2", "q3": "g2", "q4": "g3", "q5": "g3", "q6": "g4", "q7": "g4", "q8": "g4"}
HITS = {"A": [1, 0, 1, 0, 0, 1, 0, 0], "B": [1, 1, 1, 0, 1, 1, 1, 0], "C": [0, 0, 1, 0, 0, 1, 0, 1]}


def hand_runs():
    """One table holding runs A, B, C (column ``run``): the top chunk is the query's relevant document or not.

    q9 (group g4, relevant doc) is listed by A and B only: dropped.  q10 has no judgment: no score.
    """
    rows = []
    for run, hits in HITS.items():
        for q, hit in zip(GROUP, hits):
            top = f"d{q}" if hit else "other"
            rows += [(run, q, 1, f"{q}-1", top), (run, q, 2, f"{q}-2", "filler")]
        for q in ("q9", "q10") if run != "C" else ("q10",):
            rows += [(run, q, 1, f"{q}-1", f"d{q}")]
    frame = pd.DataFrame(rows, columns=["run", "query_id", "rank", "chunk_id", "doc_id"])
    qrels = pd.DataFrame(
        {
            "query_id": [*GROUP, "q9"],
            "doc_id": [f"d{q}" for q in [*GROUP, "q9"]],
            "relevance": 1,
            "source": [*GROUP.values(), "g4"],
        }
    )
    return runs_from_frame(frame, "run", source="hand"), qrels_from_frame(qrels)


def test_hand_computed_three_runs_four_groups():
    runs, qrels = hand_runs()
    r = compare_runs(runs, qrels, None, 1, "A", metric="hit", group_col="source", adjust="holm")
    assert (r.n_queries, r.n_clusters, r.dropped) == (8, 4, 1)
    assert [e.config for e in r.comparison.configs] == ["A", "B", "C"]  # the baseline, then the others in file order
    assert [e.dropped for e in r.comparison.configs] == [1, 1, 0]  # q9: listed by A and B, not by C
    est = {e.config: e for e in r.comparison.configs}
    assert (est["A"].estimate, est["B"].estimate, est["C"].estimate) == (3 / 8, 6 / 8, 3 / 8)
    # A's cluster SE: e_g = (T_g - p m_g) K / n = ([1, 1, 0, 1] - 3/8 [1, 2, 2, 3]) / 2 = [5, 2, -6, -1] / 16.
    assert est["A"].interval("cluster").se == pytest.approx(math.sqrt((25 + 4 + 36 + 1) / 256 / 12))
    comp = {c.b: c for c in r.comparison.comparisons}
    # B - A: group sums of differences [0, 1, 1, 1], difference 3/8; e_g = (D_g - 3/8 m_g) / 2 = [-3, 2, 2, -1] / 16.
    se_ba = math.sqrt((9 + 4 + 4 + 1) / 256 / 12)
    assert comp["B"].difference == pytest.approx(3 / 8)
    assert comp["B"].interval("paired").se == pytest.approx(se_ba)
    # C - A: group sums [-1, 0, 0, 1], difference 0; e_g = D_g / 2.
    se_ca = math.sqrt(0.5 / 12)
    assert comp["C"].difference == pytest.approx(0.0)
    assert comp["C"].interval("paired").se == pytest.approx(se_ca)
    # Naive: two independent binomial proportions over 8 queries.
    assert comp["B"].interval("naive").se == pytest.approx(math.sqrt((3 / 8 * 5 / 8 + 6 / 8 * 2 / 8) / 8))
    # Holm over two comparisons: 2 p for the smaller, max(2 p_min, p) for the larger; Bonferroni intervals.
    # The paired t over the 4 groups: 3 degrees of freedom.
    p_ba = 2 * special.stdtr(3, -(3 / 8) / se_ba)
    assert comp["B"].p_value == pytest.approx(p_ba)
    assert comp["B"].p_adjusted == pytest.approx(2 * p_ba)
    assert comp["C"].p_value == pytest.approx(1.0) and comp["C"].p_adjusted == pytest.approx(1.0)
    z_bonf = special.ndtri(1 - 0.05 / 4)
    assert comp["B"].interval("simultaneous").ci == pytest.approx((3 / 8 - z_bonf * se_ba, 3 / 8 + z_bonf * se_ba))


def test_hand_computed_macro_is_the_mean_over_groups():
    runs, qrels = hand_runs()
    r = compare_runs(runs, qrels, None, 1, "A", metric="hit", group_col="source", estimator="macro", adjust="none")
    # Group means of A [1, 1/2, 0, 1/3], of B [1, 1, 1/2, 2/3]: differences [0, 1/2, 1/2, 1/3].
    diff = np.array([0, 1 / 2, 1 / 2, 1 / 3])
    b = next(c for c in r.comparison.comparisons if c.b == "B")
    assert b.difference == pytest.approx(diff.mean())
    assert b.interval("paired").se == pytest.approx(diff.std(ddof=1) / 2)
    assert r.comparison.configs[0].estimate == pytest.approx((1 + 1 / 2 + 0 + 1 / 3) / 4)


def random_runs(seed: int, n_runs: int = 4, n_queries: int = 90, n_groups: int = 25, depth: int = 6):
    """Runs over the same queries: ranked lists drawn from 12 documents, 1-3 relevant per query, grouped queries."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n_queries)
    qrels_rows, run_rows = [], []
    for q in range(n_queries):
        for d in rng.choice(12, rng.integers(1, 4), replace=False):
            qrels_rows.append((f"q{q}", f"d{d}", int(rng.integers(1, 3)), f"g{group[q]}"))
    for r in range(n_runs):
        for q in range(n_queries):
            docs = rng.choice(12, depth, replace=True)  # repeated documents: several chunks of one document
            run_rows += [(f"r{r}", f"q{q}", rank, f"q{q}c{rank}", f"d{d}") for rank, d in enumerate(docs, 1)]
    qrels = qrels_from_frame(pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance", "source"]))
    runs = runs_from_frame(pd.DataFrame(run_rows, columns=["run", "query_id", "rank", "chunk_id", "doc_id"]), "run")
    return runs, qrels


@pytest.mark.parametrize("metric", ["recall", "ndcg"])
def test_paired_se_is_statsmodels_cluster_robust_ols_of_the_per_query_difference(metric):
    runs, qrels = random_runs(1)
    r = compare_runs(runs, qrels, None, 4, "r0", metric=metric, group_col="source", adjust="none")
    queries = r.query_id
    groups = query_groups(runs["r0"], qrels, "source", queries)
    score = {
        name: pd.Series(metric_scores(match_qrels(run, qrels), metric, 4), index=run.query_id).reindex(queries)
        for name, run in runs.items()
    }
    for comp in r.comparison.comparisons:
        diff = (score[comp.b] - score[comp.a]).to_numpy(dtype=float)
        fit = sm.OLS(diff, np.ones((diff.size, 1))).fit(
            cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]}
        )
        assert comp.difference == pytest.approx(fit.params[0])
        assert comp.interval("paired").se == pytest.approx(fit.bse[0])  # G/(G-1) small-sample factor on both sides


def test_holm_p_values_are_statsmodels_multipletests():
    runs, qrels = random_runs(2, n_runs=5)
    r = compare_runs(runs, qrels, None, 3, "r2", group_col="source", adjust="holm", all_pairs=True)
    assert len(r.comparison.comparisons) == 10
    raw = [c.p_value for c in r.comparison.comparisons]
    assert [c.p_adjusted for c in r.comparison.comparisons] == pytest.approx(multipletests(raw, method="holm")[1])


def test_maxt_is_the_config_comparison_of_the_same_per_group_sums():
    runs, qrels = random_runs(3)
    r = compare_runs(runs, qrels, None, 3, "r1", names=["r3", "r0"], group_col="source", boot=300, rng=11)
    groups = query_groups(runs["r1"], qrels, "source", r.query_id)
    samples = {
        name: scores_sample(
            pd.Series(metric_scores(match_qrels(runs[name], qrels), "recall", 3), index=runs[name].query_id)
            .reindex(r.query_id)
            .to_numpy(),
            groups,
        )
        for name in ("r1", "r3", "r0")
    }
    want = compare_configs(samples, "r1", boot=300, rng=11)
    assert [c.config for c in r.comparison.configs] == ["r1", "r3", "r0"]
    for got, exp in zip(r.comparison.comparisons, want.comparisons):
        assert (got.a, got.b, got.difference, got.p_adjusted) == (exp.a, exp.b, exp.difference, exp.p_adjusted)
        assert got.interval("simultaneous").ci == exp.interval("simultaneous").ci
        assert got.interval("paired").se == exp.interval("paired").se
    assert r.comparison.critical_value == want.critical_value
    for c in r.comparison.comparisons:  # three comparisons at once: wider than each one's own interval
        (s_lo, s_hi), (p_lo, p_hi) = c.interval("simultaneous").ci, c.interval("paired").ci
        assert s_hi - s_lo > p_hi - p_lo


def test_without_groups_every_query_is_a_cluster():
    runs, qrels = random_runs(4, n_runs=2)
    r = compare_runs(runs, qrels, None, 3, "r0", adjust="none")
    assert r.n_clusters == r.n_queries == 90 and r.group_col is None
    d = (
        pd.Series(metric_scores(match_qrels(runs["r1"], qrels), "recall", 3), index=runs["r1"].query_id)
        - pd.Series(metric_scores(match_qrels(runs["r0"], qrels), "recall", 3), index=runs["r0"].query_id)
    ).to_numpy()
    assert r.comparison.comparisons[0].interval("paired").se == pytest.approx(d.std(ddof=1) / math.sqrt(d.size))


def test_to_dict_mirrors_the_compare_contract():
    runs, qrels = hand_runs()
    d = compare_runs(runs, qrels, None, 1, "B", metric="hit", group_col="source", boot=50, rng=0).to_dict()
    for key in ("metric", "k", "n_queries", "n_clusters", "dropped", "runs", "comparisons"):
        assert key in d
    assert list(d["runs"][0]) == ["run", "estimate", "cluster", "dropped"]
    assert d["runs"][0]["run"] == "B" and set(d["runs"][0]["cluster"]) == {"se", "ci"}
    first = d["comparisons"][0]
    assert {"a", "b", "difference", "naive", "paired", "simultaneous", "p_adjusted"} <= set(first)
    assert first["a"] == "B" and set(first["simultaneous"]) == {"ci"}


def test_bad_inputs_are_named():
    runs, qrels = hand_runs()
    with pytest.raises(ValueError, match=r"run\(s\) \['Z'\] not among the runs \['A', 'B', 'C'\]"):
        compare_runs(runs, qrels, None, 1, "Z")
    with pytest.raises(ValueError, match=r"run\(s\) \['Y'\] not among"):
        compare_runs(runs, qrels, None, 1, "A", names=["Y"])
    with pytest.raises(ValueError, match="at least 2 runs"):
        compare_runs(runs, qrels, None, 1, "A", names=["A"])
    with pytest.raises(ValueError, match="metric must be one of"):
        compare_runs(runs, qrels, None, 1, "A", metric="map")
    with pytest.raises(ValueError, match="missing column tag"):
        runs_from_frame(pd.DataFrame({"query_id": ["q"], "rank": [1], "chunk_id": ["c"], "doc_id": ["d"]}), "tag")
    # Runs that share no query.
    left = run_from_frame(pd.DataFrame({"query_id": ["q1"], "rank": [1], "chunk_id": ["c"], "doc_id": ["dq1"]}))
    right = run_from_frame(pd.DataFrame({"query_id": ["q2"], "rank": [1], "chunk_id": ["c"], "doc_id": ["dq2"]}))
    with pytest.raises(ValueError, match=r"share no query with relevant items.*L 1, R 1"):
        compare_runs({"L": left, "R": right}, qrels, None, 1, "L")
    # One group of queries: no cluster-level SE.
    with pytest.raises(ValueError, match="in 1 group.*at least 2 groups"):
        compare_runs(
            runs,
            qrels_from_frame(
                pd.DataFrame({"query_id": ["q2", "q3"], "doc_id": ["dq2", "dq3"], "relevance": 1, "source": "g2"})
            ),
            None,
            1,
            "A",
            group_col="source",
        )


def ranx_case(n_queries: int = 30):
    """Two document-level runs with distinct scores and two relevant documents per query, as ranx dicts."""
    qrels = {f"q{i}": {f"d{i}": 1, f"d{i}x": 1} for i in range(n_queries)}

    def scores(seed):
        rng = np.random.default_rng(seed)
        return {q: {d: float(rng.random()) for d in [*rel, *(f"n{j}" for j in range(6))]} for q, rel in qrels.items()}

    return qrels, {"A": scores(1), "B": scores(2)}


def test_per_query_paired_t_is_ranx_students_t():
    import ranx

    qrels, runs = ranx_case()
    report = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=n) for n, r in runs.items()], ["recall@3"], "student")
    frame = lambda r: pd.DataFrame(  # noqa: E731
        [(q, d, d, s) for q, docs in r.items() for d, s in docs.items()],
        columns=["query_id", "chunk_id", "doc_id", "score"],
    )
    qframe = pd.DataFrame(
        [(q, d, 1, q[1:] if int(q[1:]) % 3 else "g") for q, docs in qrels.items() for d in docs],
        columns=["query_id", "doc_id", "relevance", "source"],
    )
    ours = {n: run_from_frame(frame(r)) for n, r in runs.items()}
    matched = qrels_from_frame(qframe)
    r = compare_runs(ours, matched, None, 3, "A", metric="recall", adjust="none")
    (c,) = r.comparison.comparisons
    want = report.comparisons["A", "B"]["recall@3"]["p_value"]
    assert c.p_value == pytest.approx(want, rel=1e-12)
    assert c.df == 29
    # Queries grouped (every third query in one group): the per-query answer kept beside is still ranx's.
    g = compare_runs(ours, matched, None, 3, "A", metric="recall", adjust="none", group_col="source")
    assert g.per_query.comparisons[0].p_value == pytest.approx(want, rel=1e-12)
    assert g.comparison.comparisons[0].df == g.n_clusters - 1 < 29
