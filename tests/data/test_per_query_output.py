"""Per-query scores printed by ir_measures (run here on TREC files) and trec_eval ``-q``, read as results."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from ragunc.cli import main
from ragunc.data import DataError
from ragunc.data.results import load_results

# trec_eval -q as trec_eval 9.0.7 prints it: measure, query (``all`` for the summary), value.
TREC_EVAL_Q = """runid                 \tall\tbm25
num_q                 \tall\t3
recall_5              \tq1\t0.5000
recall_5              \tq2\t1.0000
recall_5              \tq3\t0.0000
recall_5              \tall\t0.5000
P_5                   \tq1\t0.2000
P_5                   \tq2\t0.4000
P_5                   \tq3\t0.0000
P_5                   \tall\t0.2000
"""


def ir_measures_q(tmp_path, run_lines, name):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\nq{i} 0 d{i}b 1\n" for i in range(12)))
    run = tmp_path / f"{name}.run"
    run.write_text("".join(run_lines))
    out = subprocess.run(
        [sys.executable, "-m", "ir_measures", str(qrels), str(run), "R@2", "-q"],
        capture_output=True,
        text=True,
        check=True,
    )
    path = tmp_path / f"{name}.txt"
    path.write_text(out.stdout)
    return path, {q: float(v) for q, m, v in (line.split() for line in out.stdout.splitlines()) if q != "all"}


def run_lines(seed):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(12):
        docs = [f"d{i}", f"d{i}b", "x1", "x2", "x3"]
        for r, j in enumerate(rng.permutation(5)):
            lines.append(f"q{i} Q0 {docs[j]} {r + 1} {10 - r} tag\n")
    return lines


def test_ir_measures_output_compares_as_scipys_paired_t(tmp_path, capsys):
    a, ya = ir_measures_q(tmp_path, run_lines(1), "a")
    b, yb = ir_measures_q(tmp_path, run_lines(2), "b")
    assert main(["compare", str(a), str(b), "--a", "a", "--b", "b", "--boot", "50", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    queries = sorted(ya)
    want = stats.ttest_rel([yb[q] for q in queries], [ya[q] for q in queries])
    assert d["p_value"] == pytest.approx(want.pvalue, rel=1e-12) and d["n_docs"] == 12


def test_trec_eval_q_output_reads_one_measure(tmp_path):
    path = tmp_path / "bm25.eval.txt"
    path.write_text(TREC_EVAL_Q)
    first = load_results(path)
    assert first.configs == ["bm25"]  # its runid
    pop = first.population()
    assert sorted(pop.cluster_id) == ["q1", "q2", "q3"] and pop.sum_y.sum() == pytest.approx(1.5)
    assert load_results(path, scorer="P_5").population().sum_y.sum() == pytest.approx(0.6)
    with pytest.raises(DataError, match=r"no measure 'ndcg'.*'recall_5', 'P_5'"):
        load_results(path, scorer="ndcg")
