"""Corpora of documents: loaders (folder, JSONL, CSV) and the embedded standard-library corpus.

A :class:`Corpus` is the one validated form every later step takes: unique ``doc_id``,
non-empty text, a ``doc_type`` per document, and at least two documents.

The default corpus is the documentation of the running Python's standard library,
rendered pydoc-like from source with :mod:`ast` (no module is imported or run), one
document per module, built on first use and cached as JSONL.
"""
from __future__ import annotations

import ast
import builtins
import gzip
import html.parser
import inspect
import io
import json
import os
import sys
import sysconfig
import tempfile
import warnings
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

#: Bump when the rendering changes, so stale caches are rebuilt.
STDLIB_BUILDER_VERSION = 4

TEXT_SUFFIXES = (".txt", ".md", ".html", ".htm")

# Never rendered: joke/side-effect modules, GUI toolkits, test suites, bundled data.
STDLIB_SKIP = frozenset(
    {
        "antigravity", "this", "__hello__", "__phello__", "idlelib", "tkinter", "turtle",
        "turtledemo", "test", "tests", "idle_test", "ensurepip", "pydoc_data", "lib2to3",
        "site-packages", "dist-packages", "config-3", "venv",
    }
)

# doc_type of top-level single-file modules, after the chapters of the library reference;
# modules of a package take the package's name.
_CATEGORIES = {
    "text": "string re difflib textwrap unicodedata stringprep rlcompleter",
    "binary": "struct codecs",
    "datatypes": "datetime zoneinfo calendar collections heapq bisect array weakref types copy "
    "pprint reprlib enum graphlib",
    "numeric": "numbers math cmath decimal fractions random statistics",
    "functional": "itertools functools operator",
    "files": "pathlib fileinput stat filecmp tempfile glob fnmatch linecache shutil genericpath "
    "posixpath ntpath macpath",
    "persistence": "pickle copyreg shelve marshal dbm sqlite3 pickletools",
    "compression": "zlib gzip bz2 lzma zipfile tarfile zipimport",
    "fileformats": "csv configparser tomllib netrc plistlib",
    "crypto": "hashlib hmac secrets",
    "os": "os io time argparse getopt logging getpass curses platform errno ctypes",
    "concurrency": "threading multiprocessing concurrent subprocess sched queue contextvars "
    "_thread dummy_threading",
    "ipc": "asyncio socket ssl select selectors signal mmap",
    "internet": "email json mailbox mimetypes base64 binascii quopri mailcap uu",
    "markup": "html xml",
    "protocols": "webbrowser wsgiref urllib http ftplib poplib imaplib smtplib uuid socketserver "
    "xmlrpc ipaddress nntplib telnetlib smtpd asynchat asyncore cgi cgitb",
    "multimedia": "wave colorsys aifc audioop chunk sndhdr sunau imghdr ossaudiodev",
    "i18n": "gettext locale",
    "frameworks": "cmd shlex",
    "devtools": "typing pydoc doctest unittest lib2to3 test",
    "debugging": "bdb faulthandler pdb timeit trace tracemalloc cProfile profile pstats",
    "packaging": "ensurepip venv zipapp distutils",
    "runtime": "sys sysconfig builtins warnings dataclasses contextlib abc atexit traceback "
    "__future__ gc inspect site code codeop",
    "importing": "importlib pkgutil modulefinder runpy",
    "language": "ast symtable token keyword tokenize tabnanny pyclbr py_compile compileall dis opcode",
    "unix": "posix pwd grp crypt termios tty pty fcntl resource syslog pipes nis spwd",
}
# Private and legacy modules whose docs belong with a public chapter.
_CATEGORIES_EXTRA = {
    "datatypes": "_collections_abc _weakrefset _py_abc _strptime",
    "numeric": "_pydecimal",
    "os": "_pyio optparse",
    "persistence": "_compat_pickle",
    "compression": "_compression",
    "markup": "_markupbase",
    "runtime": "_sitebuiltins _bootsubprocess",
    "packaging": "_aix_support _osx_support",
    "concurrency": "_threading_local",
    "importing": "imp",
    "protocols": "nturl2path",
    "text": "sre_compile sre_constants sre_parse",
    "fileformats": "xdrlib",
}
STDLIB_CATEGORY = {
    name: cat for table in (_CATEGORIES, _CATEGORIES_EXTRA) for cat, names in table.items() for name in names.split()
}


@dataclass(frozen=True)
class Corpus:
    """Validated documents: unique ids, non-empty texts, one ``doc_type`` each (>= 2 documents)."""

    doc_ids: tuple[str, ...]
    texts: tuple[str, ...]
    doc_types: tuple[str, ...]
    source: str
    n_empty_skipped: int = 0  # documents dropped because their text was empty/blank
    n_decode_replaced: int = 0  # files decoded with U+FFFD replacement (not valid UTF-8)

    def __len__(self) -> int:
        return len(self.doc_ids)

    @cached_property
    def n_words(self) -> int:
        """Whitespace-separated words over all documents."""
        return sum(len(text.split()) for text in self.texts)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"doc_id": self.doc_ids, "text": self.texts, "doc_type": self.doc_types})

    def to_dict(self) -> dict:
        """Counts for summaries (not the texts)."""
        return {
            "source": self.source,
            "n_docs": len(self),
            "n_words": self.n_words,
            "n_empty_skipped": self.n_empty_skipped,
            "n_decode_replaced": self.n_decode_replaced,
        }


def corpus_from_frame(
    frame: pd.DataFrame,
    *,
    source: str = "<frame>",
    n_decode_replaced: int = 0,
    id_column: str = "doc_id",
    text_column: str = "text",
    type_column: str = "doc_type",
) -> Corpus:
    """Validate a frame of documents into a :class:`Corpus` (the one validation boundary).

    Blank texts are skipped and counted; a duplicate ``doc_id`` or fewer than two
    remaining documents raise ``ValueError``. Missing ``doc_type`` becomes ``"default"``.
    """
    for column in (id_column, text_column):
        if column not in frame.columns:
            raise ValueError(
                f"{source}: missing column {column!r} (columns are {list(map(str, frame.columns))})"
            )
    ids = frame[id_column]
    # CSV is read without NA parsing, so an empty id arrives as "" rather than NaN.
    blank = ids.isna().to_numpy() | (ids.astype(str).str.strip() == "").to_numpy()
    if blank.any():
        rows = (np.flatnonzero(blank)[:5] + 1).tolist()
        raise ValueError(f"{source}: column {id_column!r} is empty in data rows {rows}")
    ids = ids.astype(str)
    duplicated = ids[ids.duplicated()].unique()
    if len(duplicated):
        raise ValueError(
            f"{source}: duplicate doc_id {', '.join(map(repr, duplicated[:5]))}"
            + (f" and {len(duplicated) - 5} more" if len(duplicated) > 5 else "")
        )
    texts = frame[text_column].fillna("").astype(str)
    keep = texts.str.strip().str.len() > 0
    n_empty = int((~keep).sum())
    if type_column in frame.columns:
        types = frame[type_column].fillna("").astype(str).str.strip()
        # Blank is missing (CSV keeps "" as text); the results loader rejects an empty doc_type.
        types = types.where(types != "", "default")
    else:
        types = pd.Series("default", index=frame.index)
    if int(keep.sum()) < 2:
        raise ValueError(
            f"{source}: a corpus needs at least two non-empty documents, got {int(keep.sum())}"
            f" ({n_empty} empty skipped)"
        )
    return Corpus(
        doc_ids=tuple(ids[keep]),
        texts=tuple(texts[keep]),
        doc_types=tuple(types[keep]),
        source=source,
        n_empty_skipped=n_empty,
        n_decode_replaced=n_decode_replaced,
    )


def load_corpus(source: str | os.PathLike | Corpus | pd.DataFrame, **kwargs) -> Corpus:
    """A corpus from ``"stdlib"``, a folder, a ``.jsonl`` or ``.csv`` file (``.gz`` allowed), or a frame."""
    if isinstance(source, Corpus):
        return source
    if isinstance(source, pd.DataFrame):
        return corpus_from_frame(source, **kwargs)
    if str(source) == "stdlib":
        return stdlib_corpus(**kwargs)
    path = Path(source)
    if path.is_dir():
        return load_folder(path)
    if not path.exists():
        raise FileNotFoundError(f"no corpus at {str(path)!r} (expected 'stdlib', a folder, .jsonl or .csv)")
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return load_jsonl(path, **kwargs)
    if name.endswith(".csv"):
        return load_csv(path, **kwargs)
    raise ValueError(f"{path}: unknown corpus format (expected a folder, .jsonl or .csv)")


def _read_text(path: Path) -> tuple[str, bool]:
    """File text as UTF-8; invalid bytes become U+FFFD and the flag says so."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise ValueError(f"{path}: not a readable gzip file ({exc})") from None
    try:
        return raw.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


def _warn_replaced(paths: list[str]) -> None:
    if paths:
        warnings.warn(
            f"{len(paths)} file(s) are not valid UTF-8 and were decoded with replacement: "
            + ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else ""),
            UnicodeWarning,
            stacklevel=3,
        )


class _TextExtractor(html.parser.HTMLParser):
    _SKIP = {"script", "style", "head", "template", "noscript"}
    _BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "section",
              "article", "table", "ul", "ol", "dd", "dt", "blockquote"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self._skipping:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """Visible text of an HTML page (scripts, styles and the head dropped), one line per block."""
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)


def load_folder(path: str | os.PathLike) -> Corpus:
    """Every ``.txt``/``.md``/``.html`` file under ``path`` (recursively) is a document.

    ``doc_id`` is the path relative to the folder; ``doc_type`` its first sub-folder
    (``"default"`` at the top level).
    """
    root = Path(path)
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES)
    if not files:
        raise ValueError(f"{root}: no {'/'.join(TEXT_SUFFIXES)} files in this folder")
    rows, replaced = [], []
    for file in files:
        text, bad = _read_text(file)
        if bad:
            replaced.append(str(file))
        if file.suffix.lower() in (".html", ".htm"):
            text = html_to_text(text)
        rel = file.relative_to(root)
        rows.append((rel.as_posix(), text, rel.parts[0] if len(rel.parts) > 1 else "default"))
    _warn_replaced(replaced)
    frame = pd.DataFrame(rows, columns=["doc_id", "text", "doc_type"])
    return corpus_from_frame(frame, source=str(root), n_decode_replaced=len(replaced))


def load_jsonl(path: str | os.PathLike, **columns) -> Corpus:
    """JSON lines ``{"doc_id": ..., "text": ..., ["doc_type": ...]}``."""
    file = Path(path)
    text, bad = _read_text(file)
    if bad:
        _warn_replaced([str(file)])
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{file}: line {number} is not valid JSON ({exc.msg})") from None
    return corpus_from_frame(pd.DataFrame.from_records(records), source=str(file),
                             n_decode_replaced=int(bad), **columns)


def load_csv(path: str | os.PathLike, **columns) -> Corpus:
    """A CSV with columns ``doc_id, text[, doc_type]`` (or the names given)."""
    file = Path(path)
    text, bad = _read_text(file)
    if bad:
        _warn_replaced([str(file)])
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return corpus_from_frame(frame, source=str(file), n_decode_replaced=int(bad), **columns)


# --------------------------------------------------------------------- stdlib corpus


def _cache_dir() -> Path:
    env = os.environ.get("RAGUNC_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "ragunc"


def stdlib_cache_path(cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the stdlib corpus of this Python is cached (keyed by Python and builder version)."""
    version = "{}.{}.{}".format(*sys.version_info[:3])
    base = Path(cache_dir) if cache_dir is not None else _cache_dir()
    return base / f"stdlib-py{version}-v{STDLIB_BUILDER_VERSION}.jsonl"


def _write_atomic(frame: pd.DataFrame, path: Path) -> None:
    """JSONL via a temporary file and a rename: a concurrent reader sees the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            frame.to_json(handle, orient="records", lines=True, force_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def stdlib_corpus(*, cache_dir: str | os.PathLike | None = None, rebuild: bool = False) -> Corpus:
    """The running Python's standard-library documentation, one document per module.

    Built from source with :mod:`ast` on first use (no module is imported), then read
    from the JSONL cache.
    """
    path = stdlib_cache_path(cache_dir)
    if not rebuild and path.exists():
        frame = pd.read_json(path, orient="records", lines=True, dtype={"doc_id": str, "text": str})
    else:
        frame = build_stdlib_frame()
        try:
            _write_atomic(frame, path)
        except OSError as exc:
            # A read-only home still gets its corpus, just rebuilt next time.
            warnings.warn(f"could not cache the stdlib corpus at {path}: {exc}", RuntimeWarning, stacklevel=2)
    return corpus_from_frame(frame, source="stdlib")


def stdlib_modules(root: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """``(module name, source file)`` of the public standard-library modules, sorted by name.

    Private modules stay (``_pydecimal`` is where ``decimal`` is documented in source);
    :data:`STDLIB_SKIP` packages, ``__main__`` scripts and the generated codecs are left out.
    """
    base = Path(root) if root is not None else Path(sysconfig.get_paths()["stdlib"])
    found = []
    for folder, subdirs, files in os.walk(base):
        # Prune skipped and non-package folders (site-packages, tests) before descending.
        subdirs[:] = sorted(d for d in subdirs if d not in STDLIB_SKIP and d.isidentifier())
        package = Path(folder).relative_to(base).parts
        for filename in files:
            if not filename.endswith(".py"):
                continue
            stem = filename[:-3]
            parts = package if stem == "__init__" else (*package, stem)
            if not parts or parts[-1] in STDLIB_SKIP or parts[-1] == "__main__" or not stem.isidentifier():
                continue
            # The per-codec modules are hundreds of near-identical generated tables.
            if parts[0] == "encodings" and len(parts) > 1:
                continue
            file = Path(folder) / filename
            found.append((".".join(parts), file))
    return sorted(found)


def build_stdlib_frame(
    root: str | os.PathLike | None = None, *, modules: Iterable[str] | None = None, topics: bool = True
) -> pd.DataFrame:
    """Render every stdlib module (see :func:`stdlib_modules`) as a ``doc_id, text, doc_type`` frame,
    plus pydoc's help topics (the language reference pages ``help("for")`` shows).

    ``modules`` restricts the rendering to those names (small corpora for tests and examples).
    """
    wanted = set(modules) if modules is not None else None
    trees: dict[str, tuple[ast.Module, bool]] = {}
    for name, file in stdlib_modules(root):
        if wanted is not None and name not in wanted:
            continue
        try:
            trees[name] = (ast.parse(file.read_bytes(), filename=str(file)), file.name == "__init__.py")
        except (SyntaxError, ValueError):
            continue  # a few files are deliberately invalid Python 2 or data
    resolver = _ClassResolver({name: tree for name, (tree, _) in trees.items()},
                              {name for name, (_, pkg) in trees.items() if pkg})
    rows = []
    for name, (tree, is_init) in trees.items():
        top = name.split(".")[0]
        doc_type = top if ("." in name or is_init) else STDLIB_CATEGORY.get(top, "other")
        rows.append((name, render_module(name, tree, resolver), doc_type))
    if topics:
        rows.extend((f"topics.{key}", text, "topics") for key, text in _help_topics(root).items())
    return pd.DataFrame(rows, columns=["doc_id", "text", "doc_type"])


def _help_topics(root: str | os.PathLike | None) -> dict[str, str]:
    """``pydoc_data.topics``: a dict literal, read without importing it."""
    base = Path(root) if root is not None else Path(sysconfig.get_paths()["stdlib"])
    file = base / "pydoc_data" / "topics.py"
    if not file.exists():
        return {}
    for node in ast.parse(file.read_bytes()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "topics" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line.strip() else "" for line in text.splitlines())


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    prefix = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
    return f"{prefix}{node.name}({ast.unparse(node.args)}){returns}"


def _public(name: str, exported: set[str] | None) -> bool:
    if exported is not None:
        return name in exported
    return not name.startswith("_")


def _render_function(node, indent: str) -> str:
    doc = ast.get_docstring(node)
    out = indent + _signature(node)
    if doc:
        out += "\n" + _indent(doc, indent + "    ")
    return out


def _is_property(node) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
        or (isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter", "getter", "cached_property"))
        for d in node.decorator_list
    )


def _shown_methods(node: ast.ClassDef) -> list:
    """Methods pydoc shows: public ones and special (dunder) ones; properties are data."""
    return [
        item for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_property(item)
        and (not item.name.startswith("_") or (item.name.startswith("__") and item.name.endswith("__")))
    ]


def _class_data(node: ast.ClassDef) -> tuple[list[str], list[str]]:
    """pydoc's data descriptors (properties: name and doc) and other attributes (``name = value``)."""
    descriptors, attributes, seen = [], [], set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_property(item):
            if item.name in seen or item.name.startswith("_"):
                continue
            seen.add(item.name)
            doc = ast.get_docstring(item)
            descriptors.append(item.name + (f"\n{_indent(doc, '    ')}" if doc else ""))
        elif isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None:
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            value = ast.unparse(item.value)
            for target in targets:
                if isinstance(target, ast.Name) and not target.id.startswith("_") and len(value) <= 80:
                    attributes.append(f"{target.id} = {value}")
    return descriptors, attributes


def _render_builtin_members(cls: type, indent: str, seen: set[str]) -> list[str]:
    """Documented members a builtin class defines (pydoc's ``Methods inherited from builtins.X``)."""
    out = []
    for name, member in vars(cls).items():
        if name in seen or (name.startswith("_") and not name.startswith("__")):
            continue
        doc = getattr(member, "__doc__", None)
        if not isinstance(doc, str) or not doc.strip() or name == "__doc__":
            continue
        seen.add(name)
        text = inspect.cleandoc(doc)
        sig = getattr(member, "__text_signature__", None)
        head = f"{name}{sig.replace('$', '')}" if sig else name
        out.append(f"{indent}{head}\n{_indent(text, indent + '    ')}")
    return out


class _ClassResolver:
    """Finds the classes a ``class`` statement inherits from, across stdlib modules and builtins.

    Bases are resolved through the module's own classes and its ``import``/``from``
    statements (one hop, no star imports), which covers what pydoc lists as inherited
    for the vast majority of stdlib classes.
    """

    def __init__(self, trees: dict[str, ast.Module], packages: set[str]) -> None:
        self.classes: dict[tuple[str, str], ast.ClassDef] = {}
        self.imports: dict[str, dict[str, tuple[str, str | None]]] = {}
        for module, tree in trees.items():
            package = module if module in packages else module.rpartition(".")[0]
            names: dict[str, tuple[str, str | None]] = {}
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.classes[(module, node.name)] = node
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        names[alias.asname or alias.name.split(".")[0]] = (
                            alias.name if alias.asname else alias.name.split(".")[0], None)
                elif isinstance(node, ast.ImportFrom):
                    source = node.module or ""
                    if node.level:
                        parts = package.split(".")
                        base = ".".join(parts[: len(parts) - node.level + 1])
                        source = f"{base}.{source}".strip(".")
                    for alias in node.names:
                        if alias.name != "*":
                            names[alias.asname or alias.name] = (source, alias.name)
            self.imports[module] = names

    def resolve(self, module: str, expr: ast.expr) -> tuple[str, ast.ClassDef | type] | None:
        """``(qualified name, ClassDef or builtin class)`` of a base expression, if found."""
        if isinstance(expr, ast.Name):
            if (module, expr.id) in self.classes:
                return f"{module}.{expr.id}", self.classes[(module, expr.id)]
            source, attr = self.imports.get(module, {}).get(expr.id, (None, None))
            if source is not None and attr is not None and (source, attr) in self.classes:
                return f"{source}.{attr}", self.classes[(source, attr)]
            builtin = getattr(builtins, expr.id, None)
            if isinstance(builtin, type) and builtin is not object:
                return f"builtins.{expr.id}", builtin
        elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            source, attr = self.imports.get(module, {}).get(expr.value.id, (None, None))
            if source is not None and attr is None and (source, expr.attr) in self.classes:
                return f"{source}.{expr.attr}", self.classes[(source, expr.attr)]
        return None

    def ancestors(self, module: str, node: ast.ClassDef) -> list[tuple[str, ast.ClassDef | type]]:
        """Base classes in depth-first, left-to-right order without repeats (an MRO approximation)."""
        found: list[tuple[str, ast.ClassDef | type]] = []
        seen: set[str] = set()

        def visit(mod: str, cls: ast.ClassDef) -> None:
            for base in cls.bases:
                hit = self.resolve(mod, base)
                if hit is None or hit[0] in seen:
                    continue
                seen.add(hit[0])
                found.append(hit)
                if isinstance(hit[1], ast.ClassDef):
                    visit(hit[0].rpartition(".")[0], hit[1])
                else:
                    for parent in hit[1].__mro__[1:]:
                        qual = f"builtins.{parent.__name__}"
                        if parent is not object and qual not in seen:
                            seen.add(qual)
                            found.append((qual, parent))

        visit(module, node)
        return found


def _render_class(module: str, node: ast.ClassDef, indent: str, resolver: _ClassResolver | None) -> str:
    bases = ", ".join(ast.unparse(b) for b in node.bases) or "builtins.object"
    parts = [f"{indent}class {node.name}({bases})"]
    doc = ast.get_docstring(node)
    if doc:
        parts.append(_indent(doc, indent + "    "))
    methods = _shown_methods(node)
    if methods:
        parts.append(f"{indent}    Methods defined here:")
        parts.extend(_render_function(m, indent + "    ") for m in methods)
    descriptors, attributes = _class_data(node)
    if descriptors:
        parts.append(f"{indent}    Data descriptors defined here:")
        parts.extend(_indent(d, indent + "    ") for d in descriptors)
    if attributes:
        parts.append(f"{indent}    Data and other attributes defined here:\n"
                     + "\n".join(f"{indent}    {a}" for a in attributes))
    seen = {m.name for m in methods}
    for qualname, base in resolver.ancestors(module, node) if resolver else ():
        if isinstance(base, ast.ClassDef):
            inherited = [m for m in _shown_methods(base) if m.name not in seen]
            seen.update(m.name for m in inherited)
            rendered = [_render_function(m, indent + "    ") for m in inherited]
        else:
            rendered = _render_builtin_members(base, indent + "    ", seen)
        if rendered:
            parts.append(f"{indent}    Methods inherited from {qualname}:")
            parts.extend(rendered)
    return "\n\n".join(parts)


def _exported(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return None
    return None


def render_module(name: str, tree: ast.Module, resolver: _ClassResolver | None = None) -> str:
    """pydoc-like text of a module from its syntax tree: NAME, DESCRIPTION, CLASSES, FUNCTIONS, DATA."""
    exported = _exported(tree)
    doc = ast.get_docstring(tree) or ""
    summary = doc.strip().splitlines()[0] if doc.strip() else ""
    sections = [f"NAME\n    {name}" + (f" - {summary}" if summary else "")]
    if doc:
        sections.append("DESCRIPTION\n" + _indent(doc, "    "))
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and _public(n.name, exported)]
    functions = [
        n for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(n.name, exported)
    ]
    data = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and _public(target.id, exported) and node.value is not None:
                    value = ast.unparse(node.value)
                    if len(value) <= 80:  # pydoc elides long values too
                        data.append(f"    {target.id} = {value}")
    if classes:
        sections.append("CLASSES\n" + "\n\n".join(_render_class(name, c, "    ", resolver) for c in classes))
    if functions:
        sections.append("FUNCTIONS\n" + "\n\n".join(_render_function(f, "    ") for f in functions))
    if data:
        sections.append("DATA\n" + "\n".join(data))
    return "\n\n".join(sections) + "\n"
