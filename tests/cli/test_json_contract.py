"""The ``--json`` output of ``interval``, ``simulate``, ``plan``, ``compare`` and ``recall`` is a public contract.

Each case runs the CLI on files written here from integer formulas (no random distribution
whose algorithm numpy may change) with a fixed seed, and compares the output with the JSON
recorded in ``golden/`` by an earlier version: the same keys, in the same order, with the
same values.  A command may only add keys, and each added key is named in ``ADDED``.

To record the goldens again (only when a change of the contract is intended and said so):
``PYTHONPATH=$PWD python tests/cli/test_json_contract.py``.
"""

from __future__ import annotations

import io
import json
import pathlib
import sys
import tempfile
from contextlib import redirect_stdout

import pytest

from ragunc.cli import main

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"

# Keys a command (or one case of it) gained after its golden was recorded: top-level names, or dotted
# paths to a key inside an object ("bootstrap.ci_t_logit"; a list's objects share their list's path).
ADDED: dict[str, set[str]] = {
    # the paired t test (K - 1 df) of a two-config comparison
    "compare": {"p_value", "t", "df"},
    "recall_grouped": {"recommended", "comparison.p_value", "comparison.t", "comparison.df"},
    # the paired t and the per-query (each query its own cluster) answer beside the clustered one
    "recall_runs": {"comparisons.t", "comparisons.df", "comparisons.per_query"},
    "interval": {  # R survey's intervals, the recommended one and the logit-scale studentized bootstrap
        "korn_graubard",
        "logit",
        "korn_graubard_bm",
        "recommended",
        "bootstrap.ci_t_logit",
        # the jackknife (CV3), the wild cluster bootstrap and which documents dominate
        "jackknife",
        "wild_restricted",
        "leverage",
        "wild_span",  # the span of korn_graubard_bm and wild_restricted (recommended where G* < 0.3 K)
    },
    "simulate": {
        "undefined",
        "width",  # undefined intervals are counted, not missed
        # the registry methods' coverage, and the recommended method's under "recommended"
        *(
            f"{block}.{method}"
            for block in ("coverage", "coverage_mcse")
            for method in ("korn_graubard", "logit", "korn_graubard_bm", "bootstrap_t_logit", "recommended")
        ),
        *(
            f"{block}.{method}"
            for block in ("coverage", "coverage_mcse", "undefined", "width", "se_mean")
            for method in ("jackknife", "wild_restricted", "wild_span")
        ),
    },
}


def _chunks(n_docs: int = 24) -> list[tuple]:
    """(doc_id, chunk_index, doc_type, config, y01, score) rows: unequal sizes, clustered hits."""
    rows = []
    for d in range(n_docs):
        n = 1 + (7 * d) % 13
        hits = (5 * d) % (n + 1)
        for c in range(n):
            y = int((3 * c + d) % n < hits)
            score = ((d * (c + 1)) % 5) / 4
            rows.append((f"doc{d:02d}", c, f"t{d % 3}", "a", y, score))
            rows.append((f"doc{d:02d}", c, f"t{d % 3}", "b", int(y or (c + d) % 4 == 0), score))
    return rows


def _write_results(directory: pathlib.Path) -> dict[str, pathlib.Path]:
    rows = _chunks()
    binary = directory / "binary.csv"
    binary.write_text(
        "doc_id,chunk_index,doc_type,config,y\n" + "".join(f"{d},{c},{t},{g},{y}\n" for d, c, t, g, y, _ in rows)
    )
    scores = directory / "scores.csv"
    scores.write_text("doc_id,chunk_index,y\n" + "".join(f"{d},{c},{s}\n" for d, c, _, g, _, s in rows if g == "a"))
    # the judge's label on every row, the gold label on the audited rows (a fourth of them)
    judged = directory / "judged.csv"
    judged.write_text(
        "doc_id,chunk_index,config,y_judge,y\n"
        + "".join(
            f"{d},{c},{g},{int(y or (c + 2 * int(d[3:])) % 5 == 0)},{y if (3 * int(d[3:]) + c) % 4 == 0 else ''}\n"
            for d, c, _, g, y, _ in rows
        )
    )
    return {"binary": binary, "scores": scores, "judged": judged}


def _write_run(directory: pathlib.Path) -> dict[str, pathlib.Path]:
    """Two runs over 30 queries in 6 groups (their source document) and the qrels."""
    qrels = directory / "qrels.csv"
    qrel_lines = []
    for q in range(30):
        source = f"doc{q % 6}"
        qrel_lines.append(f"q{q},{source},1,{source}\n")
        if q % 6 == 5:
            qrel_lines.append(f"q{q},extra{q},1,{source}\n")  # two relevant documents: recall 1/2
    qrels.write_text("query_id,doc_id,relevance,source\n" + "".join(qrel_lines))
    paths = {"qrels": qrels}
    for name, shift in (("run", 0), ("run_b", 3)):
        lines = []
        for q in range(30):
            source = f"doc{q % 6}"
            found = (q * 7 + shift) % 10 < (3 if q % 6 < 3 else 8)
            for rank, doc in enumerate([source if found else "other", "other", source], start=1):
                lines.append(f"q{q},{rank},q{q}c{rank},{doc}\n")
        paths[name] = directory / f"{name}.csv"
        paths[name].write_text("query_id,rank,chunk_id,doc_id\n" + "".join(lines))
    return paths


CASES = {
    "interval_micro_fpc": [
        "interval",
        "{binary}",
        "--config",
        "a",
        "--population-docs",
        "60",
        "--boot",
        "300",
        "--seed",
        "7",
    ],
    "interval_macro_scores": [
        "interval",
        "{scores}",
        "--estimator",
        "macro",
        "--level",
        "0.9",
        "--boot",
        "200",
        "--seed",
        "1",
    ],
    "simulate_micro": [
        "simulate",
        "{binary}",
        "--config",
        "a",
        "--k",
        "4",
        "--reps",
        "60",
        "--boot",
        "40",
        "--seed",
        "3",
    ],
    "simulate_iid_control": [
        "simulate",
        "{binary}",
        "--config",
        "b",
        "--k",
        "5",
        "--reps",
        "40",
        "--boot",
        "0",
        "--control",
        "iid",
        "--seed",
        "2",
    ],
    "simulate_macro_scores": [
        "simulate",
        "{scores}",
        "--estimator",
        "macro",
        "--k",
        "6",
        "--reps",
        "30",
        "--boot",
        "30",
        "--seed",
        "5",
    ],
    "plan": ["plan", "{binary}", "--config", "a", "--half-width", "0.05", "--population-docs", "60"],
    "compare": ["compare", "{binary}", "--a", "a", "--b", "b", "--boot", "100", "--seed", "4"],
    # judged labels with an audit, the audit's plan, and which config is best
    "interval_judged": [
        "interval",
        "{judged}",
        "--config",
        "a",
        "--judge-col",
        "y_judge",
        "--boot",
        "100",
        "--seed",
        "2",
    ],
    "plan_judged": ["plan", "{judged}", "--config", "b", "--judge-col", "y_judge", "--half-width", "0.1"],
    "compare_rank": ["compare", "{binary}", "--rank", "--boot", "200", "--seed", "8"],
    "recall_grouped": [
        "recall",
        "{run}",
        "{qrels}",
        "--k",
        "1",
        "--group-col",
        "source",
        "--boot",
        "100",
        "--seed",
        "6",
        "--compare",
        "{run_b}",
    ],
    # several runs against a baseline, runs named by their file names
    "recall_runs": [
        "recall",
        "{run}",
        "{run_b}",
        "{qrels}",
        "--k",
        "1",
        "--group-col",
        "source",
        "--baseline",
        "run_b",
        "--boot",
        "100",
        "--seed",
        "6",
    ],
}


def cli_json(name: str, directory: pathlib.Path) -> dict:
    """Case ``name``'s ``--json`` output, its files written to ``directory`` (which it names as ``<dir>``)."""
    paths = {**_write_results(directory), **_write_run(directory)}
    argv = [arg.format(**{k: str(v) for k, v in paths.items()}) for arg in CASES[name]]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*argv, "--json"]) == 0
    return _paths_masked(json.loads(out.getvalue()), directory)


def _paths_masked(value, directory: pathlib.Path):
    """File paths echoed in the output (compare's config names) do not depend on tmp_path."""
    if isinstance(value, dict):
        return {k: _paths_masked(v, directory) for k, v in value.items()}
    if isinstance(value, list):
        return [_paths_masked(v, directory) for v in value]
    if isinstance(value, str):
        return value.replace(str(directory), "<dir>")
    return value


def assert_same_contract(got, want, where: str = "") -> None:
    """Same keys in the same order, same types and the same values (floats exactly)."""
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{where}: expected an object, got {got!r}"
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            assert_same_contract(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_contract(g, w, f"{where}[{i}]")
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_output_is_the_recorded_contract(name, tmp_path):
    got = cli_json(name, tmp_path)
    want = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    command = CASES[name][0]
    added = ADDED.get(command, set()) | ADDED.get(name, set())
    new = {
        p for p in _key_paths(got) - _key_paths(want) if not any(p == a or p.startswith(a + ".") for a in added)
    }  # an added key brings its contents
    assert not new, f"{name}: keys added beyond {sorted(added)}: {sorted(new)}"
    # A case's own additions must be there; a command's may be absent from some of its cases.
    assert {a for a in ADDED.get(name, set()) if "." not in a} <= set(got), f"{name}: an added key is missing"
    assert_same_contract(_without(got, added), want, name)


def _key_paths(value, prefix: str = "") -> set[str]:
    """Dotted paths of every key in nested objects (the objects of a list under the list's path)."""
    if isinstance(value, list):
        return {p for v in value for p in _key_paths(v, prefix)}
    if not isinstance(value, dict):
        return set()
    return {p for k, v in value.items() for p in ({prefix + k} | _key_paths(v, f"{prefix}{k}."))}


def _without(value, paths: set[str], prefix: str = ""):
    """``value`` without the keys at ``paths`` (dotted), at any depth."""
    if isinstance(value, list):
        return [_without(v, paths, prefix) for v in value]
    if not isinstance(value, dict):
        return value
    return {k: _without(v, paths, f"{prefix}{k}.") for k, v in value.items() if prefix + k not in paths}


def test_the_checker_catches_a_changed_value_key_or_order():
    want = {"a": {"se": 0.1, "ci": [0.0, 1.0]}, "b": None}
    assert_same_contract({"a": {"se": 0.1, "ci": [0.0, 1.0]}, "b": None}, want)
    for wrong in (
        {"a": {"se": 0.1 + 1e-17 + 1e-16, "ci": [0.0, 1.0]}, "b": None},  # a value
        {"a": {"ci": [0.0, 1.0], "se": 0.1}, "b": None},  # the order of keys
        {"a": {"se": 0.1, "ci": [0.0, 1.0]}, "b": 0},  # null became a number
        {"a": {"se": 0.1, "ci": [0.0]}, "b": None},  # a shorter list
    ):
        with pytest.raises(AssertionError):
            assert_same_contract(wrong, want)


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for case in sorted(CASES):
        with tempfile.TemporaryDirectory() as tmp:
            payload = cli_json(case, pathlib.Path(tmp))
        (GOLDEN / f"{case}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"recorded {case}", file=sys.stderr)
