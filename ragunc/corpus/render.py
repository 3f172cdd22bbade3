"""A pydoc-like renderer of a module's source (``ast``: nothing is imported or run)."""

from __future__ import annotations

import ast
import builtins
import inspect


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
        item
        for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not _is_property(item)
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


class ClassResolver:
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
                            alias.name if alias.asname else alias.name.split(".")[0],
                            None,
                        )
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


def _render_class(module: str, node: ast.ClassDef, indent: str, resolver: ClassResolver | None) -> str:
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
        parts.append(
            f"{indent}    Data and other attributes defined here:\n" + "\n".join(f"{indent}    {a}" for a in attributes)
        )
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
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return None
    return None


def render_module(name: str, tree: ast.Module, resolver: ClassResolver | None = None) -> str:
    """pydoc-like text of a module from its syntax tree: NAME, DESCRIPTION, CLASSES, FUNCTIONS, DATA."""
    exported = _exported(tree)
    doc = ast.get_docstring(tree) or ""
    summary = doc.strip().splitlines()[0] if doc.strip() else ""
    sections = [f"NAME\n    {name}" + (f" - {summary}" if summary else "")]
    if doc:
        sections.append("DESCRIPTION\n" + _indent(doc, "    "))
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and _public(n.name, exported)]
    functions = [
        n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(n.name, exported)
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
