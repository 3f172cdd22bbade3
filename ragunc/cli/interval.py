"""CLI command ``ragunc interval``: one sample of documents, every interval, the recommended one, the diagnostics."""
from __future__ import annotations

import argparse

from ..stats.intervals import interval_report
from ..stats.methods import interval_method, interval_methods
from .options import boot_options, load_sample, population_option, results_options
from .output import emit, interval_text, number_text, rows_text


def configure(parser: argparse.ArgumentParser) -> None:
    """``ragunc interval``'s arguments and handler (``func``, returning an exit code)."""
    parser.description = "One sample of documents: the estimate, every interval, DEFF, ICC and effective n."
    results_options(parser)
    population_option(parser)
    boot_options(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    sample = load_sample(args, args.config)
    report = interval_report(sample, estimator=args.estimator, level=args.level, boot=args.boot, rng=args.seed)
    emit(report.to_dict(), as_json=args.json, table=interval_table)
    return 0


def interval_table(d: dict) -> str:
    """The human table of ``interval``'s JSON ``d``."""
    fpc = f"FPC with D={d['population_docs']}" if d["population_docs"] else "no FPC"
    reps = sorted({d[m.json_path[0]]["reps"] for m in interval_methods() if m.resamples})
    head = (f"{d['estimator']} estimate {d['estimate']:.4f}  over {d['n_docs']} documents, "
            f"{d['n_chunks']} chunks  ({d['level']:.0%} intervals, {fpc}, "
            f"B={', '.join(map(str, reps))} bootstrap replicates)")
    rows = [("method", "", "se", "interval")]
    for m in interval_methods():
        obj, field = m.json_path
        rows.append((m.name, m.label, number_text(d[obj]["se"]) if m.has_se else "", interval_text(d[obj][field])))
    rec = d["recommended"]
    recommended = f"recommended: {interval_method(rec['method']).label} {interval_text(rec['ci'])}"
    g = d["diagnostics"]
    diag = [
        ("DEFF", number_text(d["deff"], ".2f")), ("ICC", number_text(d["icc"], ".3f")),
        ("n_eff", number_text(d["n_eff"], ".1f")),
        ("DEFF Kish (ICC, CV)", number_text(g["deff_kish"], ".2f")), ("K/ICC", number_text(g["k_over_rho"], ".1f")),
        ("lag-1 autocorrelation", number_text(g["lag1_autocorr"], ".3f")),
        ("doc_type share", number_text(g["doc_type_share"], ".3f")),
    ]
    return "\n".join([head, "", recommended, rec["reason"], "", rows_text(rows), "", rows_text(diag)])
