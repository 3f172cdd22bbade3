"""``ragunc interval|plan --judge-col`` and ``ragunc compare --rank``: the library's numbers, the tables, bad input."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from ragunc.cli import main
from ragunc.data.results import load_results
from ragunc.stats.judged.plan import plan_audit
from ragunc.stats.judged.report import judged_report
from ragunc.stats.multiple import rank_configs
from ragunc.stats.synthetic import synthesize, synthesize_judged


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def judged_csv(tmp_path):
    frame = synthesize_judged(n_docs=80, mean_chunks=8, false_positive=0.15, rng=1).rename(columns={"y_judge": "llm"})
    audited = np.random.default_rng(0).random(len(frame)) < 0.25
    path = tmp_path / "judged.csv"
    frame.assign(y=np.where(audited, frame["y"].astype(str), "")).to_csv(path, index=False)
    return path


def test_interval_adds_the_three_estimates_to_the_json(capsys, judged_csv):
    code, out, _ = run(capsys, ["interval", str(judged_csv), "--judge-col", "llm", "--boot", "50", "--json"])
    assert code == 0
    d = json.loads(out)
    expected = judged_report(load_results(judged_csv, columns={"y_judge": "llm"}).judged_sample()).to_dict()
    # JSON keeps floats exactly (repr round-trips), so the library's dict is the command's.
    for key in ("judge_only", "gold_only", "prediction_powered", "judge_bias", "audit"):
        assert d[key] == expected[key]
    assert set(d["prediction_powered"]) >= {"estimate", "se", "ci", "lambda", "n_audited", "n_audited_docs"}
    # The report the command always printed is the judge's labels, every key as before.
    assert d["estimate"] == pytest.approx(d["judge_only"]["estimate"])
    for key in ("naive", "cluster", "bootstrap", "recommended", "deff", "diagnostics"):
        assert key in d


def test_interval_table_shows_the_audit(capsys, judged_csv):
    code, out, _ = run(capsys, ["interval", str(judged_csv), "--judge-col", "llm", "--boot", "50"])
    assert code == 0
    assert "the judge's labels (y_judge) on every row" in out
    assert "Prediction-powered (judge + audit) (lambda = " in out and "Judge's bias" in out
    assert "audit: " in out and " rows in " in out


def test_plan_with_a_judge_says_how_much_to_audit(capsys, judged_csv):
    code, out, _ = run(capsys, ["plan", str(judged_csv), "--judge-col", "llm", "--half-width", "0.06", "--json"])
    assert code == 0
    d = json.loads(out)
    expected = plan_audit(load_results(judged_csv, columns={"y_judge": "llm"}).judged_sample(), half_width=0.06)
    assert d["needed"] == expected.needed and d["gold_only_needed"] == expected.gold_only_needed
    assert d["unit"] == "rows"
    code, out, _ = run(capsys, ["plan", str(judged_csv), "--judge-col", "llm", "--half-width", "0.06"])
    assert "rows to audit, with the judge" in out


def test_compare_rank(capsys, tmp_path):
    frames = [synthesize(n_docs=60, p=p, config=name, rng=3) for name, p in (("50w", 0.2), ("100w", 0.3))]
    path = tmp_path / "two.csv"
    pd.concat(frames).to_csv(path, index=False)
    code, out, _ = run(capsys, ["compare", str(path), "--rank", "--boot", "300", "--seed", "1", "--json"])
    assert code == 0
    d = json.loads(out)
    expected = rank_configs(load_results(path).populations, boot=300, rng=1).to_dict()
    assert d == expected
    code, out, _ = run(capsys, ["compare", str(path), "--rank", "--boot", "300", "--estimator", "macro"])
    assert code == 0 and "P(best)" in out and "rank interval" in out


@pytest.mark.parametrize(
    ("edit", "flags", "message"),
    [
        (
            lambda f: f.assign(llm=f["llm"].astype(float) * 2),
            [],
            r"column 'y_judge' \(file column 'llm'\): \d+ row\(s\) outside \[0, 1\]: rows ",
        ),
        (
            lambda f: f.assign(llm="maybe"),
            [],
            r"column 'y_judge' \(file column 'llm'\): \d+ row\(s\) that are not numbers",
        ),
        (lambda f: f.assign(y=""), [], r"column 'y' is empty on every one of the \d+ rows.*no row is audited"),
        (None, ["--config", "x"], r"config 'x' is not in"),
    ],
)
def test_bad_input_is_one_line(capsys, judged_csv, edit, flags, message):
    if edit is not None:
        edit(pd.read_csv(judged_csv, dtype=str, keep_default_na=False)).to_csv(judged_csv, index=False)
    code, out, err = run(capsys, ["interval", str(judged_csv), "--judge-col", "llm", "--boot", "20", *flags])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and re.search(message, err), err


def test_rank_with_one_config_is_one_line(capsys, tmp_path):
    path = tmp_path / "one.csv"
    synthesize(n_docs=20, rng=5).to_csv(path, index=False)
    code, _, err = run(capsys, ["compare", str(path), "--rank"])
    assert code == 2 and err.count("\n") == 1 and "--rank needs at least 2 configs" in err


def test_an_audit_of_one_document_and_a_full_audit_say_so(capsys, tmp_path):
    frame = synthesize_judged(n_docs=30, mean_chunks=6, rng=4)
    one = tmp_path / "one.csv"
    frame.assign(y=frame["y"].where(frame["doc_id"] == frame["doc_id"].iloc[0])).to_csv(one, index=False)
    code, out, _ = run(capsys, ["interval", str(one), "--judge-col", "y_judge", "--boot", "20", "--json"])
    d = json.loads(out)
    assert code == 0 and "single document" in d["judged_note"]
    assert d["prediction_powered"]["ci"] == [None, None] and d["judge_only"]["ci"][0] is not None
    full = tmp_path / "full.csv"
    frame.to_csv(full, index=False)
    code, out, _ = run(capsys, ["interval", str(full), "--judge-col", "y_judge", "--boot", "20"])
    assert code == 0 and "note: gold labels on every row" in out and "report the gold estimate" in out
