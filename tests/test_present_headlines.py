"""The pages' one-sentence headlines say the statistics' own numbers."""

from pathlib import Path

from ragunc import positional
from ragunc.present import numbers
from ragunc.present.headlines import positional_headline

BUNDLED = Path(__file__).resolve().parents[1] / "sample_data" / "positional_stdlib.json"


def test_positional_headline_says_the_sweeps_gap_and_its_intervals():
    sweep = positional.load_sweep(BUNDLED)
    line = sweep.along_lambda(*sweep.series()[0])
    best = max(line[1:], key=lambda s: s.metrics["hm"])
    text = positional_headline(sweep, best)
    stock = sweep.reference
    assert stock.metrics["gap"] == stock.metrics["begin"] - stock.metrics["end"]
    for value in (
        stock.metrics["end"],
        stock.metrics["begin"],
    ):
        assert numbers.percent(value) in text
    for value in (stock.metrics["gap"], *stock.ci["gap"], best.diff["gap"], *best.diff_ci["gap"]):
        assert numbers.signed_points(value) in text
    assert f"{sweep.passages['n_passages']:,} passages" in text and f"λ = {best.calibration.lam:g}" in text
    # The verdict follows the interval: clear of zero exactly when it excludes zero.
    low, high = stock.ci["gap"]
    assert ("clear of zero" in text.split(";")[0]) == (low > 0 or high < 0)


def test_recall_headline_says_the_tiles_numbers_and_the_width_against_the_naive_interval():
    import pandas as pd

    from ragunc.data.runs import qrels_from_frame, run_from_frame
    from ragunc.present.headlines import recall_headline
    from ragunc.ranking.metrics import match_qrels
    from ragunc.ranking.uncertainty import recall_report

    # Eight queries, each with relevant documents a and b; query i's top 3 chunks hold a, then b when i is
    # even and c otherwise, plus i % 3 chunks of a again: recall 1 or 1/2, mean 3/4; per-chunk sum 1 + i % 3 (+1).
    rows, qrows = [], []
    for i in range(8):
        docs = ["a", "b" if i % 2 == 0 else "c", *["a"] * (i % 3)][:3] + ["z"] * 3
        rows += [(f"q{i}", r + 1, f"q{i}:{d}#{r}", d) for r, d in enumerate(docs[:3])]
        qrows += [(f"q{i}", d, 1, f"g{i // 2}") for d in ("a", "b")]
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "rank", "chunk_id", "doc_id"]))
    qrels = qrels_from_frame(pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance", "source"]))
    matched = match_qrels(run, qrels)
    report = recall_report(matched, 3, groups=qrels.query_attrs["source"], group_col="source", boot=50, rng=0)
    assert (report.n_queries, report.n_groups, report.recall) == (8, 4, 0.75)
    low, high = report.recommended().ci
    naive_low, naive_high = report.interval("naive").ci
    assert recall_headline(report) == (
        "Over 8 queries, the top 3 chunks bring 0.750 of a query's relevant documents on average (95% interval "
        f"{low:.3f} – {high:.3f} with the 4 groups of queries by source as the sampling units, "
        f"{(high - low) / (naive_high - naive_low):.1f}× as wide as if every query were independent); counting "
        f"every matching chunk instead would claim {report.naive_sum:.3f}."
    )


def test_plan_headline_says_the_plans_counts_in_the_tiles_rounding():
    from ragunc.present.headlines import plan_headline
    from ragunc.stats.planning import plan_documents
    from ragunc.stats.synthetic import synthesize
    from ragunc.data.results import results_from_frame

    population = results_from_frame(synthesize(n_docs=200, mean_chunks=12, rng=1)).populations
    plan = plan_documents(next(iter(population.values())), half_width=0.03)
    text = plan_headline(plan, what="hit@1")
    assert text == (
        f"To know hit@1 within ±3.00 pp at 95%, judge {plan.docs_needed:,} documents (about "
        f"{plan.chunks_expected:,.0f} chunks); the binomial formula, which takes chunks as independent, would stop "
        f"at {plan.naive_chunks_needed:,} chunks."
    )
    assert plan.naive_chunks_needed < plan.chunks_expected  # alike chunks: the formula stops too early
