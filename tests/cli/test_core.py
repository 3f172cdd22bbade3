"""``ragunc interval|simulate|plan|compare`` on small files written here, checked against hand computation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragunc.cli import main
from ragunc.data.results import load_results
from ragunc.stats.coverage import coverage_experiment

Z = stats.norm.ppf(0.975)
# docs a: [1, 0], b: [1, 1, 0, 1], c: [0, 0] -> p = 1/2, cluster variance 3/64, naive 1/32
HAND_ROWS = [("a", 1), ("a", 0), ("b", 1), ("b", 1), ("b", 0), ("b", 1), ("c", 0), ("c", 0)]


def run_json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def hand_csv(tmp_path):
    path = tmp_path / "hand.csv"
    pd.DataFrame(HAND_ROWS, columns=["doc_id", "y"]).to_csv(path, index=False)
    return str(path)


@pytest.fixture
def population_csv(tmp_path):
    """60 documents with clustered 0/1 results under two configs (b a little better)."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(60):
        m, p = int(rng.integers(1, 30)), rng.beta(0.6, 2)
        for c in range(m):
            hit = rng.random() < p
            rows.append((f"d{d}", c, int(hit), "a"))
            rows.append((f"d{d}", c, int(hit or rng.random() < 0.1), "b"))
    path = tmp_path / "pop.csv"
    pd.DataFrame(rows, columns=["doc_id", "chunk_index", "y", "config"]).to_csv(path, index=False)
    return str(path)


def test_interval_hand_case(capsys, hand_csv):
    d = run_json(capsys, ["interval", hand_csv, "--boot", "200"])
    assert (d["estimator"], d["n_docs"], d["n_chunks"], d["level"]) == ("micro", 3, 8, 0.95)
    assert d["estimate"] == 0.5
    assert d["naive"]["se"] == pytest.approx(np.sqrt(1 / 32))
    assert d["naive"]["ci"] == pytest.approx([0.5 - Z * np.sqrt(1 / 32), 0.5 + Z * np.sqrt(1 / 32)])
    assert d["cluster"]["se"] == pytest.approx(np.sqrt(3 / 64))
    assert d["cluster"]["ci"] == pytest.approx([0.5 - Z * np.sqrt(3 / 64), 0.5 + Z * np.sqrt(3 / 64)])
    assert d["deff"] == pytest.approx(1.5) and d["n_eff"] == pytest.approx(8 / 1.5)
    assert d["icc"] == pytest.approx(1 / 6)
    assert d["bootstrap"]["reps"] == 200 and len(d["bootstrap"]["ci"]) == 2
    assert len(d["wilson"]["ci"]) == 2
    # Korn–Graubard by hand: Clopper–Pearson at n_eff = p(1-p)/v (t_{N-1} / t_{K-1})^2, x = n_eff p
    n_eff = 0.25 / (3 / 64) * (stats.t.ppf(0.025, 7) / stats.t.ppf(0.025, 2)) ** 2
    kg = [stats.beta.ppf(0.025, n_eff / 2, n_eff / 2 + 1), stats.beta.ppf(0.975, n_eff / 2 + 1, n_eff / 2)]
    assert d["korn_graubard"]["ci"] == pytest.approx(kg, rel=1e-9)
    half = stats.t.ppf(0.975, 2) * np.sqrt(3 / 64) / 0.25  # logit scale, centred at logit(0.5) = 0
    assert d["logit"]["ci"] == pytest.approx([1 / (1 + np.exp(half)), 1 / (1 + np.exp(-half))], rel=1e-9)
    rec = d["recommended"]
    assert rec["method"] == "korn_graubard_bm" and rec["ci"] == d["korn_graubard_bm"]["ci"]
    assert rec["reason"] and rec["df"] < 2  # sizes 2, 4, 2: fewer than K - 1 = 2 degrees of freedom
    assert len(d["bootstrap"]["ci_t_logit"]) == 2


def test_interval_table_leads_with_the_recommendation(capsys, hand_csv):
    assert main(["interval", hand_csv, "--boot", "50"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("recommended: Korn–Graubard, Bell–McCaffrey df [")
    assert lines[3].startswith("Korn–Graubard: Clopper–Pearson limits")


def test_interval_options(capsys, hand_csv):
    d = run_json(
        capsys,
        [
            "interval",
            hand_csv,
            "--population-docs",
            "12",
            "--level",
            "0.9",
            "--estimator",
            "macro",
            "--boot",
            "50",
            "--seed",
            "3",
        ],
    )
    rates = np.array([0.5, 0.75, 0.0])
    assert d["estimate"] == pytest.approx(rates.mean())
    se = np.sqrt((1 - 3 / 12) * rates.var(ddof=1) / 3)
    assert d["cluster"]["se"] == pytest.approx(se)
    z = stats.norm.ppf(0.95)
    assert d["cluster"]["ci"] == pytest.approx([rates.mean() - z * se, rates.mean() + z * se])
    assert d["level"] == 0.9 and d["estimator"] == "macro"


def test_interval_table_and_errors(capsys, hand_csv, population_csv):
    assert main(["interval", hand_csv, "--boot", "50"]) == 0
    out = capsys.readouterr().out
    assert "cluster" in out and "DEFF" in out and "0.5000" in out
    assert main(["interval", population_csv, "--boot", "50"]) == 2  # two configs: must choose
    assert "several configs" in capsys.readouterr().err
    assert main(["interval", hand_csv, "--estimator", "micro", "--level", "1.5"]) == 2
    assert "level" in capsys.readouterr().err


def test_interval_of_random_bytes_says_the_file_is_not_a_table(capsys, tmp_path):
    path = tmp_path / "random.csv"
    path.write_bytes(np.random.default_rng(3).integers(0, 256, 2000, dtype=np.uint8).tobytes())
    assert main(["interval", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not a readable table" in err and "missing column" not in err


@pytest.mark.parametrize("command", ["interval", "recall", "chunk-eval", "synth"])
def test_a_negative_seed_is_named_as_the_seed_argument(capsys, command):
    required = {
        "interval": ["f.csv"],
        "recall": ["run.csv", "qrels.csv", "--k", "1"],
        "chunk-eval": ["stdlib"],
        "synth": ["--out", "x.csv"],
    }[command]
    with pytest.raises(SystemExit) as exit_:
        main([command, *required, "--seed", "-1"])
    assert exit_.value.code == 2
    assert "argument --seed: a seed is a non-negative integer, got -1" in capsys.readouterr().err


def test_simulate_matches_the_library(capsys, population_csv):
    d = run_json(
        capsys,
        ["simulate", population_csv, "--config", "a", "--k", "10", "--reps", "300", "--boot", "100", "--seed", "4"],
    )
    ref = coverage_experiment(load_results(population_csv).population("a"), k=10, reps=300, boot=100, rng=4)
    assert d["population"] == {
        "n_docs": 60,
        "n_chunks": ref.population_chunks,
        "value": pytest.approx(ref.population_value),
    }
    assert (d["k"], d["reps"]) == (10, 300)
    for key in ("naive", "wilson", "cluster", "bootstrap"):
        assert d["coverage"][key] == ref.methods[key].coverage
        assert d["coverage_mcse"][key] == pytest.approx(ref.methods[key].mcse)
    assert d["sd_empirical"] == pytest.approx(ref.sd_empirical)
    assert set(d["se_mean"]) >= {"naive", "cluster", "bootstrap"}
    assert d["variance_ratio"] == pytest.approx(ref.variance_ratio)
    assert d["coverage"]["recommended"] == ref.methods["korn_graubard_bm"].coverage
    assert d["width"]["recommended"] == pytest.approx(ref.methods["korn_graubard_bm"].width)
    assert {"korn_graubard", "logit", "bootstrap_t_logit"} <= set(d["coverage"])


def test_simulate_reports_widths_and_undefined_intervals(capsys, population_csv):
    argv = ["simulate", population_csv, "--config", "a", "--k", "2", "--reps", "50", "--boot", "20", "--seed", "1"]
    d = run_json(capsys, argv)
    ref = coverage_experiment(load_results(population_csv).population("a"), k=2, reps=50, boot=20, rng=1)
    assert d["undefined"] == ref.to_dict()["undefined"]
    assert {m: w for m, w in d["width"].items() if w is not None} == pytest.approx(
        {m: w for m, w in ref.to_dict()["width"].items() if w == w}
    )
    # K = 2: the studentized bootstraps are undefined in every repetition: null, not a coverage of 0
    for method in ("bootstrap_t", "bootstrap_t_logit"):
        assert d["coverage"][method] is None and d["coverage_mcse"][method] is None
        assert d["undefined"][method] == 50 and d["width"][method] is None
    assert main(argv) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("bootstrap_t "))
    assert "undefined" in row and "50 of 50" in row and "0.000" not in row


def test_simulate_control_and_errors(capsys, population_csv):
    d = run_json(
        capsys,
        ["simulate", population_csv, "--config", "a", "--k", "10", "--reps", "100", "--boot", "20", "--control", "iid"],
    )
    assert d["control"] == "iid"
    d = run_json(
        capsys,
        [
            "simulate",
            population_csv,
            "--config",
            "b",
            "--k",
            "10",
            "--reps",
            "100",
            "--boot",
            "20",
            "--two-stage-fraction",
            "0.5",
        ],
    )
    assert d["two_stage_fraction"] == 0.5
    assert main(["simulate", population_csv, "--config", "a", "--k", "60", "--reps", "10"]) == 2
    assert (
        "k must be a whole number of documents from 2 to 59 of the population's 60, got 60" in capsys.readouterr().err
    )


def test_plan_hand_case(capsys, hand_csv):
    d = run_json(capsys, ["plan", hand_csv, "--half-width", "0.05"])
    s2 = 2 * (3 / 8) ** 2 / 2
    assert d["docs_needed"] == int(np.ceil(Z**2 * s2 / 0.05**2))
    assert d["naive_chunks_needed"] == int(np.ceil(Z**2 * 0.25 / 0.05**2))
    assert main(["plan", hand_csv, "--half-width", "0.05"]) == 0
    assert "documents needed" in capsys.readouterr().out


def test_compare(capsys, population_csv):
    d = run_json(capsys, ["compare", population_csv, "--a", "a", "--b", "b", "--boot", "300"])
    frame = pd.read_csv(population_csv)
    per_doc = frame.pivot_table(index="doc_id", columns="config", values="y", aggfunc="sum")
    sizes = frame[frame.config == "a"].groupby("doc_id").size()
    diff = (per_doc["b"] - per_doc["a"]).sum() / sizes.sum()
    assert d["difference"] == pytest.approx(diff)
    assert (d["n_docs"], d["dropped_a"], d["dropped_b"]) == (60, 0, 0)
    assert d["paired"]["se"] < d["naive"]["se"]
    assert d["bootstrap"]["reps"] == 300
    assert main(["compare", population_csv, "--a", "a", "--b", "zzz"]) == 2
    assert "zzz" in capsys.readouterr().err


def test_tables_are_readable(capsys, population_csv):
    assert main(["simulate", population_csv, "--config", "a", "--k", "5", "--reps", "40", "--boot", "20"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert any(line.startswith("cluster_t ") for line in lines) and "coverage (nominal 95%)" in out
    # aligned: every method row starts its coverage figure in the same column
    rows = [line for line in lines if line.split()[:1] and line.split()[0] in ("naive", "cluster", "bootstrap")]
    assert len({line.index(line.split()[1]) for line in rows}) == 1
    assert main(["compare", population_csv, "--a", "a", "--b", "b", "--boot", "50"]) == 0
    out = capsys.readouterr().out
    assert "paired (documents)" in out and "naive (unpaired chunks)" in out


def test_column_mapping_reads_other_names(capsys, tmp_path):
    path = tmp_path / "renamed.csv"
    pd.DataFrame(HAND_ROWS, columns=["document", "hit1"]).to_csv(path, index=False)
    d = run_json(capsys, ["interval", str(path), "--boot", "50", "--column", "y=hit1", "--column", "doc_id=document"])
    assert (d["estimate"], d["n_docs"], d["n_chunks"]) == (0.5, 3, 8)
    assert main(["interval", str(path)]) == 2  # unmapped: the error names the missing column
    assert "doc_id" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["interval", str(path), "--column", "y"])  # not NAME=COLUMN: argparse rejects it
    assert "NAME=COLUMN" in capsys.readouterr().err


def test_compare_many_configs_against_a_baseline(capsys, population_csv, tmp_path):
    frame = pd.read_csv(population_csv)
    c = frame[frame.config == "b"].assign(config="c")
    c = c[c.doc_id != "d0"]  # c lacks one document: it is dropped from every config
    second = tmp_path / "c.csv"
    c.to_csv(second, index=False)
    # c's own improvements on a: the two comparisons differ, so the max-|t| interval is wider than each
    # marginal one (for identical comparisons the max over them is the marginal |t| itself)
    own = c.assign(
        y=frame[frame.config == "a"]
        .set_index(["doc_id", "chunk_index"])["y"]
        .reindex(pd.MultiIndex.from_frame(c[["doc_id", "chunk_index"]]))
        .to_numpy()
        | (np.random.default_rng(1).random(len(c)) < 0.1)
    )
    other = tmp_path / "c_own.csv"
    own.to_csv(other, index=False)
    d = run_json(capsys, ["compare", population_csv, str(other), "--baseline", "a", "--boot", "400"])
    assert [x["config"] for x in d["configs"]] == ["a", "b", "c"]
    assert d["n_docs"] == 59 and [x["dropped"] for x in d["configs"]] == [1, 1, 0]
    assert [(x["a"], x["b"]) for x in d["comparisons"]] == [("a", "b"), ("a", "c")]
    for x in d["comparisons"]:
        assert set(x) >= {"a", "b", "difference", "naive", "paired", "simultaneous", "p_adjusted"}
        lo, hi = x["simultaneous"]["ci"]
        assert lo < x["paired"]["ci"][0] and hi > x["paired"]["ci"][1]
    for x in d["configs"]:
        assert set(x["cluster"]) == {"se", "ci"}
    # b and c are the same results on the shared documents: difference 0, SE 0
    d = run_json(capsys, ["compare", population_csv, str(second), "--baseline", "b", "--only", "c", "--adjust", "holm"])
    assert d["comparisons"][0]["difference"] == 0 and d["comparisons"][0]["p_adjusted"] == 1
    d = run_json(capsys, ["compare", population_csv, str(second), "--baseline", "a", "--all-pairs", "--adjust", "none"])
    assert len(d["comparisons"]) == 3
    assert main(["compare", population_csv, str(second), "--baseline", "a"]) == 0
    assert "p adjusted" in capsys.readouterr().out
    assert main(["compare", population_csv]) == 2
    assert "--baseline" in capsys.readouterr().err
    # as in recall, a flag of a comparison with a baseline is refused without one, not ignored
    assert main(["compare", population_csv, "--a", "a", "--b", "b", "--only", "b", "--adjust", "holm"]) == 2
    assert (
        "--only, --adjust: only for comparing several configs; name the baseline config with --baseline CONFIG"
    ) in capsys.readouterr().err


def test_plan_a_difference(capsys, population_csv):
    d = run_json(capsys, ["plan", population_csv, "--difference", "0.02", "--power", "0.8"])
    assert set(d) >= {"difference", "power", "level", "n_docs", "n_docs_naive", "curve"}
    assert (d["difference"], d["power"], d["level"]) == (0.02, 0.8, 0.95)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert d["n_docs"] == pytest.approx(z**2 * d["paired_variance"] / 0.02**2, abs=1.5)
    powers = [p["power"] for p in d["curve"]]
    assert set(d["curve"][0]) >= {"k", "power"} and powers == sorted(powers)
    assert main(["plan", population_csv, "--difference", "0.02", "--a", "a", "--b", "b"]) == 0
    assert "documents needed" in capsys.readouterr().out
