"""Page "Ranking metrics": document-level Recall@k that counts each document once, three orders side by side."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dashboard import run_sources, widgets
from dashboard.cache import cached
from dashboard.routing import require_app
from dashboard.url_state import bind, clamp, forget, one_of, parse_bool, stop, sync_url
from ragunc.data.serialize import json_text
from ragunc.present import numbers, ranking_figures
from ragunc.present.export import csv_text
from ragunc.present.headlines import recall_headline
from ragunc.present.style import method_label
from ragunc.present.summary import comparison_table
from ragunc.ranking import metrics
from ragunc.ranking.comparison import compare_runs
from ragunc.ranking.metrics import ranked_list
from ragunc.ranking.overview import ranking_overview
from ragunc.stats.linearization import ESTIMATORS
from ragunc.stats.multiple import ADJUSTMENTS, adjustment
from ragunc.stats.recommend import RECOMMENDED_METHOD

require_app()  # before anything: a first visitor's deep link reruns through app.py

# Controls whose default depends on the run: reset when the source changes.
PER_SOURCE = ("rk_k", "rk_group", "rk_run", "rk_baseline")
NO_GROUP = "(none: every query is its own group)"
BOOTS = (200, 500, 1000, 2000)
RANKED_LIST_HEADERS = {
    "chunk_rank": "chunk rank",
    "first_seen": "first time this document appears",
    "doc_rank": "document rank (first-seen order)",
}
EXPLANATION = """
A run lists **chunks**; several chunks can come from the same document. Recall@k asks which **relevant documents**
the top k chunks bring. Three ways to count them:

* **truncate-dedup** (the default): cut the list at k chunks, then map chunks to documents and count each document
  once. This is what a k-chunk context given to the LLM really holds.
* **dedup-truncate**: deduplicate documents first (first-seen order), then take k documents. A document first seen
  at chunk rank 4 can count at k = 3 although the LLM never saw it.
* **naive per-chunk sum**: +1 for every chunk of a relevant document. It can pass 1 (1.50 in the five-chunk example), and finer
  chunking "improves" it by itself.

Queries **without relevant documents** have no recall: they are excluded from the mean and counted as excluded;
a query whose result list is empty scores 0.
Queries generated from the same source document are not independent, so beside the **naive** interval (queries as
independent draws) the **cluster** interval treats each group of queries as one sampling unit; **DEFF** is the ratio
of the two variances.

With **several runs** on the same queries (e.g. the bundled sample runs, or an upload with a column naming the run),
each run is compared with a baseline on the queries every run answered: the paired difference keeps each group of
queries together, and simultaneous intervals and adjusted p-values allow for making several comparisons at once.
"""
UNDEFINED = "undefined (fewer than 2 groups)"

widgets.page_intro(
    "Ranking metrics",
    EXPLANATION,
    caption=("Document-level Recall@k that counts each document once, and how sure the mean over queries is."),
)

kind = st.radio(
    "Run and qrels",
    list(run_sources.KINDS),
    format_func=run_sources.KINDS.get,
    horizontal=True,
    key=bind("rk_source", "sample", fix=one_of(run_sources.KINDS, "sample")),
    on_change=forget,
    args=PER_SOURCE,
)
loaded = run_sources.load(kind)
if loaded is None:
    stop()
qrels = loaded.qrels
names = list(loaded.runs)
longest = max(j.longest_list for j in loaded.matched.values())

with st.sidebar:
    st.header("Ranking metrics")
    k_max = max(longest, 2)
    k = st.slider(
        "k: chunks retrieved",
        1,
        k_max,
        key=bind("rk_k", min(loaded.default_k, longest), parse=int, fix=clamp(1, k_max)),
    )
    order = st.radio(
        "Order reported with intervals",
        metrics.ORDERS,
        key=bind("rk_order", metrics.TRUNCATE_DEDUP, fix=one_of(metrics.ORDERS, metrics.TRUNCATE_DEDUP)),
        help="truncate-dedup is what a k-chunk context holds",
    )
    first_run = loaded.runs[loaded.default_baseline or names[0]]
    candidates = list(dict.fromkeys([*qrels.query_attrs.columns, *first_run.query_attrs.columns]))
    options = [NO_GROUP, *candidates]
    default = loaded.default_group if loaded.default_group in options else NO_GROUP
    group_col = st.selectbox(
        "Group queries by",
        options,
        key=bind("rk_group", default, fix=one_of(options, default)),
        help="A column constant within each query, e.g. the source document a question was generated from.",
    )
    level = widgets.level_slider()
    boot = widgets.choice_slider("Bootstrap replicates", BOOTS, key="rk_boot", default=1000)
    seed = widgets.seed_input("Bootstrap seed")

group_col = None if group_col == NO_GROUP else group_col


def _ci_text(est) -> str:
    low, high = est.ci
    return UNDEFINED if math.isnan(low) else numbers.score_interval(low, high)


def _metric_label(name: str) -> str:
    """A column of the per-query table as the registry names it (at k), or the naive sum's label."""
    return metrics.ranking_metric(name).at("k") if name in metrics.METRICS else metrics.NAIVE_SUM_LABEL


if len(names) > 1:
    st.subheader(f"{len(names)} runs on the same queries: which is better, and how sure?")
    baseline_default = loaded.default_baseline if loaded.default_baseline in names else names[0]
    cols = st.columns(4)
    baseline = cols[0].selectbox(
        "Baseline run", names, key=bind("rk_baseline", baseline_default, fix=one_of(names, baseline_default))
    )
    available = [m for m in metrics.METRICS if m != "chunk_recall" or qrels.has_chunks]
    metric = cols[1].selectbox(
        "Metric", available, format_func=_metric_label, key=bind("rk_metric", "recall", fix=one_of(available, "recall"))
    )
    adjust = cols[2].selectbox(
        "Adjustment",
        ADJUSTMENTS,
        format_func=lambda a: adjustment(a).label,
        key=bind("rk_adjust", "maxt", fix=one_of(ADJUSTMENTS, "maxt")),
    )
    estimator = cols[3].selectbox(
        "Mean",
        ESTIMATORS,
        format_func={"micro": "over queries (micro)", "macro": "over groups (macro)"}.get,
        key=bind("rk_estimator", "micro", fix=one_of(ESTIMATORS, "micro")),
    )
    cols = st.columns([3, 1])
    # Not in the URL (a list); one key per source, so another source's names never linger.
    chosen = cols[0].multiselect(
        "Runs compared (the baseline is always in)", names, default=names, key=f"rk_runs:{loaded.key}"
    )
    all_pairs = cols[1].toggle("All pairs", key=bind("rk_pairs", False, parse=parse_bool))
    try:
        many = cached(
            compare_runs,
            loaded.runs,
            qrels,
            loaded.matched,
            k=k,
            baseline=baseline,
            names=tuple(chosen),
            metric=metric,
            order=order,
            group_col=group_col,
            all_pairs=all_pairs,
            adjust=adjust,
            estimator=estimator,
            level=level,
            boot=boot,
            rng=seed,
        )
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.markdown(
            f"**{many.n_queries:,} queries** shared by every run, in **{many.n_clusters:,} groups**"
            + (f" by `{group_col}`" if group_col else " (every query its own group)")
            + f"; **{many.dropped:,} dropped** for not being in every run."
        )
        st.plotly_chart(ranking_figures.runs_forest_figure(many), key="runs_forest")
        st.dataframe(
            pd.DataFrame(
                {
                    "run": [r.config for r in many.comparison.configs],
                    _metric_label(metric): [numbers.score(r.estimate) for r in many.comparison.configs],
                    "cluster SE": [widgets.number(r.interval("cluster").se, ".4f") for r in many.comparison.configs],
                    f"{level:.0%} interval": [_ci_text(r.interval("cluster")) for r in many.comparison.configs],
                    "queries dropped": [r.dropped for r in many.comparison.configs],
                }
            ),
            hide_index=True,
        )
        table = comparison_table(many.comparison).rename(columns={"difference (pp)": "difference (points)"})
        st.dataframe(table, hide_index=True)
        st.download_button(
            "Comparison (JSON, as `ragunc recall RUN ... --baseline --json`)",
            json_text(many.to_dict()),
            f"runs_{metric}_k{k}.json",
            "application/json",
        )
    shown = st.selectbox("One run in detail (below)", names, key=bind("rk_run", baseline, fix=one_of(names, baseline)))
else:
    shown = names[0]
run, matched = loaded.runs[shown], loaded.matched[shown]

try:
    overview = cached(
        ranking_overview,
        run,
        qrels,
        matched,
        k=k,
        order=order,
        group_col=group_col,
        level=level,
        boot=boot,
        rng=seed,
    )
except ValueError as exc:
    stop(str(exc))
report = overview.recall
recommended = report.recommendation.method if report.recommendation else RECOMMENDED_METHOD

st.markdown(f"**{recall_headline(report)}**")
tr, dt, naive = st.columns(3)
tr.metric(
    f"Relevant documents in the top {k} chunks",
    numbers.score(report.recall_by_order[metrics.TRUNCATE_DEDUP]),
    help="documents of the top-k chunks ∩ relevant / relevant",
)
dt.metric(
    f"… in the first {k} distinct documents",
    numbers.score(report.recall_by_order[metrics.DEDUP_TRUNCATE]),
    help="first k distinct documents ∩ relevant / relevant",
)
naive.metric(
    "… counting every matching chunk",
    numbers.score(report.naive_sum),
    help="one per matching chunk: can pass 1",
)
with st.expander("Method"):
    st.markdown(
        f"The first tile is **truncate-dedup** Recall@{k} (cut at {k} chunks, then count each document once: what "
        f"the LLM's context holds); the second **dedup-truncate** (documents in first-seen order, then cut at {k} "
        f"documents); the third the **{metrics.NAIVE_SUM_LABEL}**, which can pass 1. The headline's interval is "
        f"the recommended one ({method_label(recommended)}), its width set against the naive interval's."
    )
st.markdown(
    f"**{report.n_queries:,} {'query' if report.n_queries == 1 else 'queries'}** in the mean, "
    f"**{report.n_excluded:,} excluded** (no relevant documents); "
    f"**{report.n_groups:,} {'group' if report.n_groups == 1 else 'groups'}** of queries"
    + (f" by `{group_col}`" if group_col else " (every query its own group)")
    + "."
)


st.subheader(f"{level:.0%} intervals for Recall@{k} ({order})")
intervals_shown = {
    "recommended": recommended,
    "naive (queries independent)": "naive",
    "cluster (groups of queries)": "cluster",
    "cluster bootstrap": "bootstrap",
}
st.dataframe(
    pd.DataFrame(
        {
            "interval": [
                f"{what}: {method_label(m)}" if what == "recommended" else what for what, m in intervals_shown.items()
            ],
            "SE": [widgets.number(report.interval(m).se, ".4f") for m in intervals_shown.values()],
            "CI": [_ci_text(report.interval(m)) for m in intervals_shown.values()],
        }
    ),
    hide_index=True,
)
if report.recommendation is not None:
    st.caption(report.recommendation.reason)
st.markdown(
    "How many times less a query tells you here (the design effect: cluster variance / naive variance): "
    + (UNDEFINED if math.isnan(report.deff) else f"**{numbers.deff(report.deff)}**")
)
if report.n_groups >= 2:
    st.plotly_chart(ranking_figures.recall_interval_figure(report))

st.plotly_chart(ranking_figures.order_curve_figure(overview.curve, k=k))

st.subheader(f"Other metrics at k = {k} ({order}; each document counted once)")
st.dataframe(
    pd.DataFrame([{_metric_label(name): numbers.score(mean) for name, mean in overview.metric_means.items()}]),
    hide_index=True,
)

st.subheader("Per query: where the orders differ, and why")
table = overview.order_differences
only = st.toggle("Only queries where the orders differ", key=bind("rk_only", True, parse=parse_bool))
shown = table[table["differs"]] if only else table
st.caption(f"{int(table['differs'].sum()):,} of {len(table):,} queries differ at k = {k}.")
st.dataframe(shown, hide_index=True)
if len(table):
    st.plotly_chart(ranking_figures.per_query_difference_figure(table))
    picks = list(shown["query_id"] if len(shown) else table["query_id"])
    pick = st.selectbox("Ranked list of one query", picks, key=bind("rk_query", picks[0], fix=one_of(picks, picks[0])))
    st.dataframe(ranked_list(matched, pick).rename(columns=RANKED_LIST_HEADERS), hide_index=True)

st.subheader("Downloads")
download = overview.per_query.merge(table[["query_id", "truncate_dedup", "dedup_truncate", "why"]], on="query_id")
left, right = st.columns(2)
left.download_button("Per-query table (CSV)", csv_text(download), f"ranking_k{k}.csv", "text/csv")
right.download_button(
    "Report (JSON, as `ragunc recall --json`)", json_text(report.to_dict()), f"recall_k{k}.json", "application/json"
)
sync_url()
