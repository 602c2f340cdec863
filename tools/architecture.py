"""Module sizes and the import graph of the ``bayesnb`` package, read from the source (AST).

Usage::

    python tools/architecture.py                 # line counts and module-level import graph
    python tools/architecture.py --base 88866ab  # line counts before (at a git revision) and now

The functions are also used by ``tests/test_architecture.py``: the package has no import
cycle among module-level imports, imports of its own modules are module-level (function-level
imports only for heavy optional dependencies), nothing outside ``bayesnb/families`` asks
which family it holds, the families load no more of ``bayesnb/structure`` than its
learning and hierarchical prior (never the engine), and no private name or private module
is imported from another package (:func:`private_imports`).
"""

from __future__ import annotations

import argparse
import ast
import functools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bayesnb"
#: heavy or optional dependencies that may be imported inside functions
LAZY_OK = ("jax", "numpyro", "arviz", "matplotlib", "dask", "xarray", "mkdocs", "pyarrow")
#: the package's own modules that import JAX at module level: imported inside functions only
#: (never at module level, so ``import bayesnb`` loads no JAX)
LAZY_MODULES = ("bayesnb.families._numpyro_dists",)
FAMILY_CLASSES = ("Categorical", "Bernoulli", "Multinomial", "Gaussian")


def parse(path: Path) -> ast.Module:
    """The AST of the file at ``path``, parsed once per version of the file (its modification time and
    size) in a process: the checks read every module several times. The tree must not be modified."""
    st = Path(path).stat()
    return _parse(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4096)
def _parse(path: str, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text())


def modules(root: Path = PACKAGE) -> dict:
    """``{dotted module name: path}`` of every ``.py`` file of the package."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, known: dict) -> list:
    """Package modules a ``from ... import ...`` statement in ``module`` needs.

    ``from . import sub`` needs the submodule ``sub`` (its package is always imported
    first, so that is not an edge); ``from .mod import name`` needs ``mod``.
    """
    if node.level == 0:
        base = node.module or ""
    else:
        parts = module.split(".")
        keep = len(parts) - node.level + (1 if is_package else 0)
        base = ".".join(parts[:keep] + ([node.module] if node.module else []))
    subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
    if node.module is None and len(subs) == len(node.names):
        return subs
    return [base] + subs


def imports(module: str, path: Path, known: dict, *, level: str = "module") -> list:
    """Package modules imported by ``module``: at module level, or (``level="function"``) inside functions.

    Returns
    -------
    list of (target, lineno)
    """
    tree = parse(path)
    is_package = path.name == "__init__.py"
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)) and (in_function == (level == "function")):
                names = ([a.name for a in child.names] if isinstance(child, ast.Import)
                         else _resolve(module, is_package, child, known))
                for name in names:
                    if name in known and name != module:
                        found.append((name, child.lineno))
            visit(child, inner)

    visit(tree, False)
    if level == "module":
        found += [(name, line) for name, line in lazy_imports(module, tree, known, is_package)
                  if name in known and name != module]
    return sorted(set(found))


def lazy_imports(module: str, tree: ast.Module, known: dict | None = None, is_package: bool = True) -> list:
    """Modules a declared lazy table imports on first use, as ``(target, lineno)``.

    A ``lazy_exports(__name__, homes)`` call at module level (``homes`` a dict literal, or a
    name bound to one at module level) runs ``from <home> import <name>`` (a bare home is a
    sibling, ``.<home>``) when one of its names is first used: the import-graph checks see those
    as the module-level imports they stand for (the home, and the submodule ``<home>.<name>``
    when the name is one).
    """
    known = modules() if known is None else known
    tables = {t.id: node.value for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
              for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
              if isinstance(t, ast.Name) and isinstance(node.value, ast.Dict)}
    found = []
    for node in tree.body:
        call = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", None)) == "lazy_exports"
                and len(call.args) == 2):
            continue
        homes = tables.get(call.args[1].id) if isinstance(call.args[1], ast.Name) else call.args[1]
        if not isinstance(homes, ast.Dict):
            raise ValueError(f"{module}: line {call.lineno}: lazy_exports needs a dict literal of homes")
        for k, v in zip(homes.keys, homes.values):
            if not (isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(v.value, str)):
                continue
            home = v.value if v.value.startswith(".") else f".{v.value}"
            dots = len(home) - len(home.lstrip("."))
            node = ast.ImportFrom(module=home[dots:] or None, names=[ast.alias(name=k.value)], level=dots)
            found += [(t, call.lineno) for t in _resolve(module, is_package, node, known)]
    return found


def import_graph(root: Path = PACKAGE) -> dict:
    """``{module: sorted module-level imports of package modules}``."""
    known = modules(root)
    return {m: sorted({t for t, _ in imports(m, p, known)}) for m, p in known.items()}


def cycles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 10 * len(graph)))
    for v in graph:
        if v not in index:
            strong(v)
    return out


def reachable(graph: dict, start) -> set:
    """Modules loaded, at module level, by importing the modules ``start`` (themselves included).

    Importing ``a.b.c`` first runs the ``__init__`` of its packages below the top level
    (``a.b``), so that package is reached too (the top-level ``bayesnb`` is left out: every
    import runs it, and it imports everything).
    """
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts)) if ".".join(parts[:i]) in graph]
        todo += graph.get(m, [])
    return seen


def function_level_imports(root: Path = PACKAGE) -> list:
    """``(module, lineno, target)`` of package modules imported inside a function (:data:`LAZY_MODULES` aside)."""
    known = modules(root)
    return [(m, line, t) for m, p in known.items() for t, line in imports(m, p, known, level="function")
            if t not in LAZY_MODULES]


def family_isinstance(root: Path = PACKAGE) -> list:
    """``(path, lineno)`` of ``isinstance(..., <a bayesnb family class>)`` outside ``families/``."""
    hits = []
    for path in sorted(root.rglob("*.py")):
        if "families" in path.relative_to(root).parts:
            continue
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("isinstance", "issubclass"):
                kinds = node.args[1] if len(node.args) > 1 else None
                names = {getattr(n, "id", getattr(n, "attr", None)) for n in ast.walk(kinds)} if kinds else set()
                if names & set(FAMILY_CLASSES):
                    hits.append((str(path.relative_to(root.parent)), node.lineno))
    return hits


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _folder(module: str, known: dict) -> str:
    """The package (folder) a module lives in: itself for a package, its parent for a module."""
    return module if known[module].name == "__init__.py" else module.rpartition(".")[0]


def _private_module_owner(module: str) -> str | None:
    """The package a private module path belongs to (``a.b._c.d`` -> ``a.b``), or None if all is public."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if _private(part):
            return ".".join(parts[:i])
    return None


def private_imports(root: Path = PACKAGE) -> list:
    """``(module, lineno, name)`` of private names a module takes from another package.

    Counted: ``from X import _name`` (and ``alias._name`` on a module alias) where ``X`` lives in
    another folder than the importing module; and any import of a private module
    (``pkg._mod``) from outside ``pkg`` and its subpackages (a leading underscore on a module
    means "private to its package"). Module- and function-level imports alike.
    """
    known = modules(root)
    hits = []
    for module, path in known.items():
        here = _folder(module, known)
        tree = parse(path)
        aliases = {}

        def outside(owner):
            return owner is not None and here != owner and not here.startswith(owner + ".")

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in known:
                        if outside(_private_module_owner(a.name)):
                            hits.append((module, node.lineno, a.name))
                        if a.asname:
                            aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path.name == "__init__.py", node, known)[0]
                if base not in known:
                    continue
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    if sub in known:
                        aliases[a.asname or a.name] = sub
                        if outside(_private_module_owner(sub)):
                            hits.append((module, node.lineno, sub))
                    elif outside(_private_module_owner(base)):
                        hits.append((module, node.lineno, f"{base}.{a.name}"))
                    elif _private(a.name) and _folder(base, known) != here:
                        hits.append((module, node.lineno, f"{base}.{a.name}"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and _private(node.attr) and _folder(aliases[node.value.id], known) != here):
                hits.append((module, node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return sorted(set(hits))


def line_counts(rev: str | None = None) -> dict:
    """``{path: lines}`` of the package's modules, now or at git revision ``rev``."""
    if rev is None:
        return {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in modules().values()}
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "bayesnb"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    out = {}
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True,
                                  text=True).stdout
            out[name] = len(text.splitlines())
    return out


def main(argv=None) -> int:
    """Print line counts (optionally against ``--base``) and the module-level import graph."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=None, help="git revision to compare line counts with")
    args = ap.parse_args(argv)
    now = line_counts()
    before = line_counts(args.base) if args.base else {}
    print("| module | lines" + (f" at {args.base} | lines now |" if args.base else " |"))
    print("|---|---" + ("|---|" if args.base else "|"))
    for name in sorted(set(now) | set(before)):
        if args.base:
            print(f"| {name} | {before.get(name, '-')} | {now.get(name, '-')} |")
        else:
            print(f"| {name} | {now[name]} |")
    graph = import_graph()
    print("\nModule-level imports of package modules (module -> imports):")
    for m in sorted(graph):
        if graph[m]:
            print(f"  {m} -> {', '.join(graph[m])}")
    print(f"\ncycles: {cycles(graph) or 'none'}")
    families = [m for m in graph if m.startswith("bayesnb.families")]
    print(f"structure modules the families load: {sorted(m for m in reachable(graph, families) if m.startswith('bayesnb.structure'))}")
    print(f"function-level imports of package modules: {function_level_imports() or 'none'}")
    print(f"isinstance on a family outside families/: {family_isinstance() or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
