"""The command line as a whole: one module per command, named after it; a run imports its own command alone;
``compare`` and ``recall`` spell a comparison with a baseline alike."""

from __future__ import annotations

import argparse
import json
import os
import re
import pathlib
import subprocess
import sys

import pytest

from ragunc.cli import COMMANDS, build_parser, main
from ragunc.cli.progress import progress_bar

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "ragunc" / "cli"
HELPERS = {
    "__init__.py",
    "options.py",
    "corpus_options.py",
    "output.py",
    "progress.py",
}  # modules of ragunc/cli/ that hold no command


def test_each_command_lives_in_the_module_named_after_it():
    modules = {p.name for p in CLI.glob("*.py")} - HELPERS
    assert modules == {f"{name.replace('-', '_')}.py" for name in COMMANDS}
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(commands.choices) == list(COMMANDS)
    for name, command in commands.choices.items():
        assert command.get_default("func") is not None or name == "evalset", name  # evalset: its subcommands'
        assert command.description, f"{name} has no description"


def test_help_lists_every_command_without_importing_one(capsys):
    code = (
        "import sys\n"
        "from ragunc.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('ragunc.cli.')), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert all(name in out.stdout for name in COMMANDS)
    assert out.stderr.strip() == "[]"


def test_a_run_imports_its_own_command_and_what_it_needs(tmp_path):
    """``ragunc interval`` loads neither another command nor the layers, extras and libraries it does not use."""
    rows = "".join(f"d{d},{c},{int((c + d) % 3 == 0)}\n" for d in range(12) for c in range(1 + d % 4))
    (tmp_path / "r.csv").write_text("doc_id,chunk_index,y\n" + rows)
    code = (
        "import json, sys\n"
        "from ragunc.cli import main\n"
        f"assert main(['interval', {str(tmp_path / 'r.csv')!r}, '--boot', '50', '--json']) == 0\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stderr.strip().splitlines()[-1]))
    assert json.loads(out.stdout)["n_docs"] == 12
    assert {m for m in loaded if m.startswith("ragunc.cli.")} == {
        "ragunc.cli.interval",
        "ragunc.cli.options",
        "ragunc.cli.output",
    }
    unused = {
        "ragunc.evalset",
        "ragunc.retrieval",
        "ragunc.positional",
        "ragunc.present",
        "ragunc.corpus",
        "scipy.stats",
        "scipy.sparse",
        "plotly",
        "torch",
    }
    assert not unused & loaded, unused & loaded


def _comparison_actions(command: str) -> dict[str, argparse.Action]:
    parser = build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {a.option_strings[0]: a for a in sub._actions if a.option_strings}


def test_compare_and_recall_spell_a_comparison_with_a_baseline_alike():
    compare, recall = _comparison_actions("compare"), _comparison_actions("recall")
    for flag in ("--baseline", "--only", "--all-pairs", "--adjust"):
        a, b = compare[flag], recall[flag]
        assert (a.dest, a.nargs, a.choices, a.default, type(a)) == (b.dest, b.nargs, b.choices, b.default, type(b))
        # the same words, the thing compared named by each command
        assert a.help.replace("config", "run") == b.help, flag
    assert "maxt" in compare["--adjust"].choices and "(default maxt)" in compare["--adjust"].help


@pytest.mark.parametrize("argv", [["interval"], ["nonsense"], []])
def test_a_missing_or_unknown_command_is_argparses_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "usage: ragunc" in capsys.readouterr().err


def test_a_run_loads_only_the_compiled_kernel_it_calls_from_the_cache(tmp_path):
    """The first run compiles the kernels it calls into the cache; the next loads them and compiles nothing."""
    rows = "".join(f"d{d},{c},{(c * d) % 5 / 4}\n" for d in range(15) for c in range(1 + d % 3))
    (tmp_path / "r.csv").write_text("doc_id,chunk_index,y\n" + rows)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_DEBUG_CACHE": "1"}
    argv = [sys.executable, "-m", "ragunc", "interval", str(tmp_path / "r.csv"), "--boot", "50", "--json"]
    runs = [subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=True) for _ in range(2)]
    first, second = ([line for line in run.stdout.splitlines() if line.startswith("[cache]")] for run in runs)
    assert [line for line in first if "data saved" in line] and not [line for line in second if "saved" in line]
    loaded = {re.search(r"bootstrap_kernels\.(\w+)-", line).group(1) for line in second if "data loaded" in line}
    # the cluster bootstrap's replicates and the wild bootstrap's inverted test (its sums drawn inside): nothing else
    assert loaded == {"_ratio_replicates", "_wild_bounds"}, second


def test_the_progress_line_is_redrawn_in_place_and_erased_at_the_end(capsys):
    with progress_bar("work") as progress:
        progress(1, 4)
        progress(1, 4)  # the same text: not written again
        progress(4, 4)
    assert capsys.readouterr().err == "\rwork:  25% 1/4\rwork: 100% 4/4\r" + " " * len("work: 100% 4/4") + "\r"
    with progress_bar("work", enabled=False) as progress:
        progress(1, 4)
    assert capsys.readouterr().err == ""
