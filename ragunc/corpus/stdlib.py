"""The embedded corpus: the running Python's standard-library documentation, cached as JSONL."""

from __future__ import annotations

import ast
import os
import sys
import sysconfig
import tempfile
import warnings
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .model import Corpus, corpus_from_frame
from .render import ClassResolver, render_module

#: Bump when the rendering changes, so stale caches are rebuilt.
STDLIB_BUILDER_VERSION = 4

# Never rendered: joke/side-effect modules, GUI toolkits, test suites, bundled data.
STDLIB_SKIP = frozenset(
    {
        "antigravity",
        "this",
        "__hello__",
        "__phello__",
        "idlelib",
        "tkinter",
        "turtle",
        "turtledemo",
        "test",
        "tests",
        "idle_test",
        "ensurepip",
        "pydoc_data",
        "lib2to3",
        "site-packages",
        "dist-packages",
        "config-3",
        "venv",
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
    "concurrency": "threading multiprocessing concurrent subprocess sched queue contextvars _thread dummy_threading",
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


# --------------------------------------------------------------------- stdlib corpus


def cache_root() -> Path:
    """ragunc's cache folder: ``$RAGUNC_CACHE_DIR``, else ``~/.cache/ragunc``."""
    env = os.environ.get("RAGUNC_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "ragunc"


def stdlib_cache_path(cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the stdlib corpus of this Python is cached (keyed by Python and builder version)."""
    version = "{}.{}.{}".format(*sys.version_info[:3])
    base = Path(cache_dir) if cache_dir is not None else cache_root()
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
    resolver = ClassResolver(
        {name: tree for name, (tree, _) in trees.items()}, {name for name, (_, pkg) in trees.items() if pkg}
    )
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
