"""CLI command ``ragunc interval``: one sample of documents, every interval, the recommended one, the diagnostics."""

from __future__ import annotations

import argparse

from ..stats.intervals import interval_report
from ..stats.judged.report import judged_report
from ..stats.judged.sample import LABELS
from ..stats.methods import interval_method, interval_methods
from .options import (
    boot_options,
    judge_option,
    judged_sample,
    load_results_of,
    population_option,
    results_options,
    with_population,
)
from .output import emit, interval_text, number_text, rows_text


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc interval``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = (
        "One sample of documents: the estimate, every interval, DEFF, ICC and effective n. With a "
        "judge column: the judge's labels, the audited rows' and both together "
        "(prediction-powered)."
    )
    results_options(parser)
    judge_option(parser)
    population_option(parser)
    boot_options(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    results = load_results_of(args)
    sample = with_population(args, results.population(args.config))
    report = interval_report(sample, estimator=args.estimator, level=args.level, boot=args.boot, rng=args.seed)
    payload = report.to_dict()
    recorded = results.recorded.get(sample.config)
    if recorded is not None:  # what the tool that wrote the file recorded, beside ragunc's cluster SE
        reading = recorded.reading(
            payload["cluster"]["se"], estimator=args.estimator, fpc=sample.population_docs is not None
        )
        payload["recorded"] = {**recorded.to_dict(), "reading": reading}
    if results.judged:  # the report above is of the judge's labels; the audit's estimates join it
        judged = judged_sample(args, results, sample)
        payload |= judged_report(judged, estimator=args.estimator, level=args.level).to_dict()
    emit(payload, as_json=args.json, table=interval_table)
    return 0


def interval_table(d: dict) -> str:
    """The human table of ``interval``'s JSON ``d``."""
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    reps = sorted({d[m.json_path[0]]["reps"] for m in interval_methods() if m.resamples})
    head = (
        f"{d['estimator']} estimate {d['estimate']:.4f}  over {d['n_docs']} documents, "
        f"{d['n_chunks']} chunks  ({d['level']:.0%} intervals, {fpc}, "
        f"B={', '.join(map(str, reps))} bootstrap replicates)"
    )
    rows = [("method", "", "se", "interval")]
    for m in interval_methods():
        obj, field = m.json_path
        rows.append((m.name, m.label, number_text(d[obj]["se"]) if m.has_se else "", interval_text(d[obj][field])))
    rec = d["recommended"]
    recommended = f"recommended: {interval_method(rec['method']).label} {interval_text(rec['ci'])}"
    g = d["diagnostics"]
    diag = [
        ("DEFF", number_text(d["deff"], ".2f")),
        ("ICC", number_text(d["icc"], ".3f")),
        ("n_eff", number_text(d["n_eff"], ".1f")),
        ("DEFF Kish (ICC, CV)", number_text(g["deff_kish"], ".2f")),
        ("K/ICC", number_text(g["k_over_rho"], ".1f")),
        ("lag-1 autocorrelation", number_text(g["lag1_autocorr"], ".3f")),
        ("doc_type share", number_text(g["doc_type_share"], ".3f")),
    ]
    if "leverage" in d:  # which documents dominate (stats.leverage)
        lev = d["leverage"]
        top = lev["documents"][0]
        diag += [
            (f"worth G* documents (of {d['n_docs']})", number_text(lev["g_star"], ".1f")),
            (f"largest leverage ({top['doc_id']})", number_text(lev["max_leverage"], ".3f")),
        ]
    lines = [head, "", recommended, rec["reason"], "", rows_text(rows), "", rows_text(diag)]
    if "recorded" in d:
        lines += ["", d["recorded"]["reading"]]
    if "prediction_powered" in d:
        lines = [f"the judge's labels (y_judge) on every row: {lines[0]}", *lines[1:], "", _judged_table(d)]
    return "\n".join(lines)


def _judged_table(d: dict) -> str:
    a = d["audit"]
    head = (
        f"audit: {a['n_audited']:,} of {a['n_rows']:,} rows in {a['n_audited_docs']} of {a['n_docs']} documents "
        f"({a['unit']}: {a['design']})"
    )
    rows = [("estimate", "", "se", f"{d['level']:.0%} interval")]
    for name in ("judge_only", "gold_only", "prediction_powered", "judge_bias"):
        label = LABELS[name] + (f" (lambda = {d[name]['lambda']:.3f})" if name == "prediction_powered" else "")
        rows.append((label, number_text(d[name]["estimate"]), number_text(d[name]["se"]), interval_text(d[name]["ci"])))
    method = (
        f"intervals: {interval_method(d['judged_method']).label}; judge's bias: judge minus gold on the audited rows"
    )
    lines = [head, "", rows_text(rows), method]
    if d["judged_note"]:
        lines += ["", f"note: {d['judged_note']}"]
    return "\n".join(lines)
