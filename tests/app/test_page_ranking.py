"""AppTest of the page "Ranking metrics" run on its own (as ``AppTest.from_file`` and ``streamlit run`` do)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

PAGE = "ranking_metrics.py"
SAMPLE_RUN = Path(__file__).resolve().parents[2] / "sample_data" / "stdlib_run_100w.csv.gz"
SAMPLE_QRELS = SAMPLE_RUN.with_name("stdlib_qrels_100w.csv.gz")
EXAMPLE = "example"
UPLOAD = "upload"


def numbers(at: AppTest) -> list[str]:
    return [m.value for m in at.metric]


def headline(at: AppTest) -> str:
    """The page's one-sentence finding, in bold before the tiles."""
    return next(m.value for m in at.markdown if m.value.startswith("**Over "))


def test_worked_example_shows_its_numbers_and_moves_with_k(open_page):
    at = open_page(PAGE)
    at.radio[0].set_value(EXAMPLE).run()
    assert not at.exception
    assert numbers(at) == ["0.500", "1.000", "1.500"]
    assert headline(at) == (
        "**Over 1 query, the top 3 chunks bring 0.500 of a query's relevant documents on average (too few groups "
        "of queries for an interval); counting every matching chunk instead would claim 1.500.**"
    )
    assert any("0 excluded" in m.value for m in at.markdown)
    assert any("**1 query** in the mean" in m.value and "**1 group** of" in m.value for m in at.markdown)
    intervals = at.dataframe[0].value  # the recommended interval first, then naive, cluster, bootstrap
    assert intervals["interval"].iloc[0].startswith("recommended: ") and len(intervals) == 4
    assert list(intervals["SE"]) == ["—"] * 4  # one query: no SE, shown as a dash, not "None"
    assert set(intervals["CI"]) == {"undefined (fewer than 2 groups)"}
    drill = at.dataframe[2].value  # per-query table, filtered to queries where the orders differ
    assert list(drill["query_id"]) == ["q1"]
    assert "faq entered only after dedup: first at chunk rank 4" in drill["why"].iloc[0]
    at.sidebar.slider[0].set_value(4).run()
    # k = 4: manual and faq both inside the top 4 chunks; the naive sum adds manual three times.
    assert numbers(at) == ["1.000", "1.000", "2.000"]
    at.sidebar.slider[0].set_value(1).run()
    assert numbers(at) == ["0.500", "0.500", "0.500"]


def test_upload_of_a_trec_qrels_and_csv_run(open_page):
    at = open_page(PAGE)
    at.radio[0].set_value(UPLOAD).run()
    assert any("Upload a run" in i.value for i in at.info)
    run = "query_id,score,chunk_id,doc_id\n" + "".join(
        f"q{i},{s},c{i}{s},{d}\n" for i in range(6) for s, d in ((9, f"a{i}"), (8, f"a{i}"), (7, f"b{i}"))
    )
    qrels = "".join(f"q{i} 0 b{i} 1\n" for i in range(6)) + "q9 0 zz 1\n"
    at.file_uploader[0].set_value(("run.csv.gz", gzip.compress(run.encode()), "application/gzip"))
    at.file_uploader[1].set_value(("qrels.txt", qrels.encode(), "text/plain"))
    at.run()
    assert not at.exception and not at.error
    at.sidebar.slider[0].set_value(2).run()
    # b_i sits at chunk rank 3: truncate-dedup misses it, dedup-truncate (documents a_i, b_i) finds it; q9 has
    # a relevant document but no results, so it scores 0 in both and the mean is over 7 queries.
    assert numbers(at) == [f"{0:.3f}", f"{6 / 7:.3f}", f"{0:.3f}"]
    assert any("7 queries" in m.value and "0 excluded" in m.value for m in at.markdown)


def test_bad_upload_is_an_error_naming_column_and_rows_not_a_traceback(open_page):
    at = open_page(PAGE)
    at.radio[0].set_value(UPLOAD).run()
    at.file_uploader[0].set_value(("run.csv", b"query_id,rank,chunk_id,doc_id\nq,1,a,A\nq,1.5,b,B\n", "text/csv"))
    at.file_uploader[1].set_value(("qrels.csv", b"query_id,doc_id,relevance\nq,A,1\n", "text/csv"))
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "column rank" in at.error[0].value and "row 2" in at.error[0].value
    assert not at.metric


def reference_recall(hits: list[str], relevant: set[str], k: int) -> float | None:
    """doc_recall by its definition: len(set(hits[:k]) & relevant) / len(relevant)."""
    return None if not relevant else len(set(hits[:k]) & relevant) / len(relevant)


@pytest.mark.skipif(not SAMPLE_RUN.is_file(), reason="sample run not built in this checkout")
def test_sample_run_default_matches_an_independent_computation(open_page):
    at = open_page(PAGE)
    assert not at.exception and not at.error
    run = pd.read_csv(SAMPLE_RUN, dtype={"query_id": str, "doc_id": str}).sort_values(["query_id", "rank"])
    qrels = pd.read_csv(SAMPLE_QRELS, dtype={"query_id": str, "doc_id": str})
    relevant = qrels[qrels["relevance"] > 0].groupby("query_id")["doc_id"].agg(set).to_dict()
    hits = run.groupby("query_id")["doc_id"].agg(list).to_dict()
    k = at.sidebar.slider[0].value
    queries = set(hits) | set(qrels["query_id"])
    scores = [reference_recall(hits.get(q, []), relevant.get(q, set()), k) for q in queries]
    defined = [s for s in scores if s is not None]
    assert numbers(at)[0] == f"{sum(defined) / len(defined):.3f}"
    summary = next(m.value for m in at.markdown if "in the mean" in m.value)
    assert f"**{len(defined):,} queries**" in summary and f"**{len(scores) - len(defined):,} excluded**" in summary
    assert "by `doc_id`" in summary  # queries grouped by their source document
    intervals = at.dataframe[0].value
    assert intervals["CI"].str.contains("–").all()
    # The headline says the tile's recall and the table's recommended interval, with the same digits.
    text = headline(at)
    assert text.startswith(f"**Over {len(defined):,} queries, the top {k} chunks bring {numbers(at)[0]} ")
    assert f"95% interval {intervals['CI'].iloc[0]} with the " in text and "groups of queries by doc_id" in text
    assert text.endswith(f"counting every matching chunk instead would claim {numbers(at)[2]}.**")


def test_through_the_app_the_sidebar_says_its_per_chunk_source_is_not_used_here(open_app):
    at = open_app(PAGE)
    assert not at.exception
    assert at.title[0].value == "Ranking metrics"
    assert any("not this per-chunk source" in c.value for c in at.sidebar.caption)
    at.main.radio[0].set_value(EXAMPLE).run()
    assert not at.exception
    assert numbers(at) == ["0.500", "1.000", "1.500"]
    explorer = open_app()
    assert not any("not this per-chunk source" in c.value for c in explorer.sidebar.caption)


def test_a_link_restores_the_ranking_view_and_the_url_follows_the_controls(open_page):
    at = open_page(PAGE, rk_source="example", rk_k="4", level="0.9", rk_order="dedup-truncate")
    assert not at.exception
    assert at.sidebar.slider[0].value == 4
    assert numbers(at) == ["1.000", "1.000", "2.000"]
    assert any(s.value == "90% intervals for Recall@4 (dedup-truncate)" for s in at.subheader)
    at.sidebar.slider[0].set_value(2).run()
    assert at.query_params["rk_k"] == "2" and at.query_params["rk_source"] == "example"


def test_switching_the_run_resets_k_to_that_runs_default(open_page):
    at = open_page(PAGE)
    at.sidebar.slider[0].set_value(9).run()
    at.radio[0].set_value(EXAMPLE).run()
    assert at.sidebar.slider[0].value == 3  # the worked example's k, not the sample run's 9 clamped to 5
    assert numbers(at) == ["0.500", "1.000", "1.500"]


def test_other_metrics_are_means_over_queries_with_relevant_documents(open_page):
    at = open_page(PAGE)
    at.radio[0].set_value(EXAMPLE).run()
    means = at.dataframe[1].value.iloc[0]
    # k = 3: manual, manual, manual; relevant {manual, faq}: recall 1/2, a hit, precision 1/3, RR 1.
    # said as the tiles say a ranking score: three decimals
    assert (means["Recall@k"], means["Hit@k"], means["Precision@k"], means["MRR@k"]) == (
        "0.500",
        "1.000",
        "0.333",
        "1.000",
    )
    assert means["naive per-chunk sum"] == "1.500"


SAMPLE_RUNS = SAMPLE_RUN.with_name("stdlib_runs.csv.gz")


@pytest.mark.skipif(not SAMPLE_RUNS.is_file(), reason="sample runs not built in this checkout")
def test_sample_runs_show_every_run_against_the_baseline(open_page):
    from ragunc.data.runs import load_qrels, load_runs
    from ragunc.ranking.comparison import compare_runs

    at = open_page(PAGE, rk_source="runs")
    assert not at.exception and not at.error
    assert any(s.value == "4 runs on the same queries: which is better, and how sure?" for s in at.subheader)
    shared = next(m.value for m in at.markdown if "shared by every run" in m.value)
    assert "**2,000 queries**" in shared and "by `doc_id`" in shared and "**0 dropped**" in shared
    estimates, comparisons = at.dataframe[0].value, at.dataframe[1].value
    assert list(estimates["run"]) == ["100w", "50w", "200w", "100w-k0.9-b0.4"]
    assert list(comparisons["comparison"]) == ["50w − 100w", "200w − 100w", "100w-k0.9-b0.4 − 100w"]
    assert {"paired interval", "simultaneous interval", "p adjusted"} <= set(comparisons.columns)
    k = at.sidebar.slider[0].value
    want = compare_runs(
        load_runs(SAMPLE_RUNS, runs_col="run"),
        load_qrels(SAMPLE_RUNS.with_name("stdlib_runs_qrels.csv.gz")),
        None,
        k,
        "100w",
        group_col="doc_id",
        adjust="none",
    )
    assert list(estimates["Recall@k"]) == [f"{r.estimate:.3f}" for r in want.comparison.configs]
    assert list(comparisons["difference (points)"]) == pytest.approx(
        [round(100 * c.difference, 2) for c in want.comparison.comparisons]
    )
    assert at.selectbox(key="rk_baseline").value == "100w"
    # Another baseline and Holm: the comparisons follow; the detail below shows the chosen run.
    at.selectbox(key="rk_baseline").set_value("50w").run()
    at.selectbox(key="rk_adjust").set_value("holm").run()
    assert not at.exception and not at.error
    assert list(at.dataframe[1].value["comparison"])[0] == "100w − 50w"
    assert at.query_params["rk_baseline"] == "50w" and at.query_params["rk_adjust"] == "holm"
    at.selectbox(key="rk_run").set_value("200w").run()
    assert numbers(at)[0] == f"{want.comparison.configs[2].estimate:.3f}"  # the detail is 200w's


@pytest.mark.skipif(not SAMPLE_RUNS.is_file(), reason="sample runs not built in this checkout")
def test_a_link_to_a_missing_run_falls_back_and_one_run_left_is_an_error(open_page):
    at = open_page(PAGE, rk_source="runs", rk_baseline="nope")
    assert not at.exception and at.selectbox(key="rk_baseline").value == "100w"
    at.multiselect[0].set_value(["100w"]).run()
    assert not at.exception
    assert len(at.error) == 1 and "at least 2 runs" in at.error[0].value
    assert at.metric  # the single-run detail below still shows


def test_upload_with_a_runs_column(open_page):
    at = open_page(PAGE)
    at.radio[0].set_value(UPLOAD).run()
    rows = "".join(
        f"{r},q{i},1,c{i}{r},{'b' if (i + len(r)) % 3 else 'a'}{i}\n"
        for r in ("bm25", "dense", "hybrid")
        for i in range(12)
    )
    qrels = "query_id,doc_id,relevance,topic\n" + "".join(f"q{i},a{i},1,t{i % 4}\n" for i in range(12))
    at.file_uploader[0].set_value(("runs.csv", ("tag,query_id,rank,chunk_id,doc_id\n" + rows).encode(), "text/csv"))
    at.file_uploader[1].set_value(("qrels.csv", qrels.encode(), "text/csv"))
    at.run()
    assert len(at.error) == 1 and "column tag names 3 runs" in at.error[0].value  # told what to do, no traceback
    at.text_input[0].set_value("run").run()
    assert len(at.error) == 1 and "missing column run" in at.error[0].value
    at.text_input[0].set_value("tag").run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["run"]) == ["bm25", "dense", "hybrid"]
    shared = next(m.value for m in at.markdown if "shared by every run" in m.value)
    assert "**12 queries**" in shared
