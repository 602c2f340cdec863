"""Architecture v2 guards, read from the source (tools/architecture.py).

- no import cycle among the package's module-level imports (a declared lazy table, the names of a
  ``lazy_exports(__name__, homes)`` call, counts as the imports of its homes);
- the package's own modules are imported at module level (a function-level import only
  for heavy optional dependencies such as jax, numpyro, arviz, matplotlib);
- nothing outside ``bayesnb/families`` asks which family it holds;
- the families layer loads no more of the structure package than its pure parts (its
  ``__init__``, ``learn`` and the ``hierarchical`` prior of a categorical node), never the engine;
- one family per module: each module of ``bayesnb/families`` defines at most one concrete
  ``Family`` (a wrapper such as ``Hurdle`` or ``Complement`` is a family of its own), and that
  family's module holds its helpers used nowhere else, up to ~700 lines; any other module keeps
  to the ~500-line budget (DESIGN.md);
- no private name (``_name``) is imported from another package, and no private module
  (``pkg._mod``) from outside ``pkg``;
- in the modules listed in ``ONE_LINE_SUMMARY`` (more join as they are cleaned), every public
  function's and class's docstring opens with a one-line numpydoc summary.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import pkgutil
import types
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("architecture", Path(__file__).resolve().parents[1] / "tools" /
                                               "architecture.py")
arch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(arch)

#: a module may pass ~500 lines a little (a long docstring), never by much
MAX_LINES = 550
#: a family's module (the one defining a concrete Family) holds the family and its single-use helpers
MAX_FAMILY_LINES = 700


def test_no_import_cycles():
    assert arch.cycles(arch.import_graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert arch.cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


def test_lazy_tables_are_imports_in_the_graph():
    """The lazy tables of the top level and of the wings are edges of the graph the checks read."""
    graph = arch.import_graph()
    assert {"bayesnb.synth.synthesizer", "bayesnb.impute.table", "bayesnb.io.persistence",
            "bayesnb.criticism.checks"} <= set(graph["bayesnb"])
    assert "bayesnb.synth.quality" in graph["bayesnb.synth"]
    assert "bayesnb.criticism.checks" in arch.reachable(graph, ["bayesnb.criticism"])


def test_a_cycle_through_a_lazy_table_is_seen(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "wing").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "wing" / "__init__.py").write_text("from .._utils import lazy_exports\n_HOMES = {'f': 'impl'}\n"
                                               "__getattr__, __dir__ = lazy_exports(__name__, _HOMES)\n")
    (pkg / "wing" / "impl.py").write_text("from ..user import g\n")
    (pkg / "user.py").write_text("from . import wing\n")
    (pkg / "_utils.py").write_text("")
    graph = arch.import_graph(pkg)
    assert graph["pkg.wing"] == ["pkg._utils", "pkg.wing.impl"]
    assert arch.cycles(graph) == [["pkg.user", "pkg.wing", "pkg.wing.impl"]]


def test_a_modules_table_of_on_call_modules_is_seen(tmp_path):
    """A plain module's lazy table of modules in other packages (``{"engine": "..structure"}``) is an edge to
    each, so a cycle through one is still seen."""
    pkg = tmp_path / "pkg"
    (pkg / "est").mkdir(parents=True)
    (pkg / "structure").mkdir()
    for f in ("__init__.py", "_utils.py", "est/__init__.py", "structure/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "est" / "on_call.py").write_text("from .._utils import lazy_exports\n_HOMES = {'engine': '..structure', "
                                            "'fit': 'model'}\n__getattr__, __dir__ = lazy_exports(__name__, _HOMES)\n")
    (pkg / "est" / "model.py").write_text("def fit():\n    pass\n")
    (pkg / "structure" / "engine.py").write_text("")
    graph = arch.import_graph(pkg)
    assert graph["pkg.est.on_call"] == ["pkg._utils", "pkg.est.model", "pkg.structure", "pkg.structure.engine"]
    assert arch.cycles(graph) == []
    (pkg / "structure" / "engine.py").write_text("from ..est import on_call\n")
    assert arch.cycles(arch.import_graph(pkg)) == [["pkg.est.on_call", "pkg.structure.engine"]]


def test_a_lazy_table_must_be_a_dict_literal(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._utils import lazy_exports\n__getattr__, __dir__ = lazy_exports(__name__, "
                                     "dict(f='impl'))\n")
    with pytest.raises(ValueError, match="dict literal"):
        arch.import_graph(pkg)


def test_package_modules_are_imported_at_module_level():
    assert arch.function_level_imports() == []


def test_the_jax_module_is_imported_inside_functions_only():
    """The one module of NumPyro distributions imports JAX: no module imports it at module level."""
    graph = arch.import_graph()
    assert set(arch.LAZY_MODULES) <= set(graph)
    assert [m for m, targets in graph.items() if set(targets) & set(arch.LAZY_MODULES)] == []
    assert not set(arch.LAZY_MODULES) & arch.reachable(graph, ["bayesnb"])


def test_nothing_outside_families_branches_on_the_family_class():
    assert arch.family_isinstance() == []


def test_family_isinstance_finder_sees_a_branch(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "mod.py").write_text("def f(b):\n    return isinstance(b.family, (Gaussian, int))\n")
    assert arch.family_isinstance(pkg) == [("pkg/mod.py", 2)]


#: the structure modules the families layer may load (pure functions of counts; no engine)
FAMILIES_MAY_LOAD = {"bayesnb.structure", "bayesnb.structure.learn", "bayesnb.structure.hierarchical",
                     "bayesnb.structure.hier_edges"}


def test_families_do_not_load_the_structure_engine():
    graph = arch.import_graph()
    families = [m for m in graph if m == "bayesnb.families" or m.startswith("bayesnb.families.")]
    loaded = {m for m in arch.reachable(graph, families) if m.startswith("bayesnb.structure")}
    assert "bayesnb.structure.hierarchical" in loaded  # the categorical family's hierarchical prior
    assert loaded <= FAMILIES_MAY_LOAD, f"the families layer loads the structure engine: {sorted(loaded)}"


def test_reachable_follows_imports_and_package_inits():
    graph = {"p": [], "p.f": ["p.s.h"], "p.s": ["p.s.l"], "p.s.h": [], "p.s.l": ["p.s.m"], "p.s.m": []}
    assert arch.reachable(graph, ["p.f"]) == {"p.f", "p.s.h", "p.s", "p.s.l", "p.s.m"}


def concrete_families(modules) -> dict:
    """``{module name: [names of the concrete Family subclasses it defines]}`` of the given modules."""
    from bayesnb.families import Family

    return {m.__name__: sorted(name for name, c in vars(m).items()
                               if inspect.isclass(c) and c.__module__ == m.__name__ and issubclass(c, Family)
                               and not inspect.isabstract(c))
            for m in modules}


@functools.cache
def family_modules() -> dict:
    """:func:`concrete_families` of every module of ``bayesnb/families`` (the JAX module left out)."""
    import bayesnb.families as package

    names = [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    return concrete_families(importlib.import_module(n) for n in names if n not in arch.LAZY_MODULES)


def test_one_family_per_module():
    found = family_modules()
    assert {m: names for m, names in found.items() if len(names) > 1} == {}
    assert sum(map(len, found.values())) >= 9  # the finder sees the families (Hurdle and Complement included)


def test_family_finder_sees_two_families_in_one_module():
    from bayesnb.families import Family, Gaussian, Hurdle

    fake = types.ModuleType("fake")
    fake.A = type("A", (Gaussian,), {"__module__": "fake"})
    fake.B = type("B", (Hurdle,), {"__module__": "fake"})
    fake.Base, fake.Gaussian = Family, Gaussian  # abstract, and imported (defined elsewhere): not counted
    assert concrete_families([fake]) == {"fake": ["A", "B"]}


def _line_limit(path) -> int:
    module = path.removesuffix(".py").replace("/", ".")
    return MAX_FAMILY_LINES if family_modules().get(module) else MAX_LINES


#: every module's line count, read once (each test below checks one module's)
LINES = arch.line_counts()


@pytest.mark.parametrize("path", sorted(LINES))
def test_module_size(path):
    limit = _line_limit(path)
    assert LINES[path] <= limit, f"{path} is over {limit} lines: split it by job"


def test_family_modules_get_the_larger_size_limit():
    assert _line_limit("bayesnb/families/gaussian.py") == MAX_FAMILY_LINES
    assert _line_limit("bayesnb/families/numeric.py") == _line_limit("bayesnb/families/capabilities.py") == MAX_LINES


def test_no_private_name_imported_across_packages():
    found = {(m.removeprefix("bayesnb."), name.removeprefix("bayesnb.")) for m, _, name in arch.private_imports()}
    assert sorted(found) == [], "a private name imported from another package: make it public"


def test_private_import_finder_sees_names_modules_and_attributes(tmp_path):
    pkg = tmp_path / "pkg"
    for folder in (pkg, pkg / "a", pkg / "b"):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    (pkg / "_util.py").write_text("def f():\n    pass\n\n\ndef _g():\n    pass\n")
    (pkg / "a" / "_impl.py").write_text("def h():\n    pass\n\n\ndef _k():\n    pass\n")
    (pkg / "a" / "mod.py").write_text("def q():\n    pass\n\n\ndef _p():\n    pass\n")
    (pkg / "a" / "user.py").write_text("from ._impl import _k\nfrom .mod import _p\nfrom .._util import f\n")
    (pkg / "b" / "user.py").write_text("from .._util import _g, f\nfrom ..a._impl import h\nfrom ..a import mod\n"
                                       "from ..a.mod import q\n\n\ndef use():\n    return mod._p(), mod.q()\n")
    assert arch.private_imports(pkg) == [("pkg.b.user", 1, "pkg._util._g"), ("pkg.b.user", 2, "pkg.a._impl.h"),
                                         ("pkg.b.user", 8, "pkg.a.mod._p")]


#: modules whose public docstrings are held to numpydoc's one-line summary (the others: not yet)
ONE_LINE_SUMMARY = ["io/loadcheck.py", "io/latent_file.py", "io/synthesizer_file.py", "criticism/posterior_check.py",
                    "cli/mcmc.py", "criticism/diagnostics.py", "structure/structured_em.py", "structure/engine.py"]


def _long_summaries(source):
    """Public functions and classes (module level and in classes) whose docstring's summary runs on."""
    tree = ast.parse(source)
    out = []
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        for n in scope.body:
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_"):
                lines = (ast.get_docstring(n, clean=False) or "").strip("\n").splitlines()
                if len(lines) > 1 and lines[1].strip():
                    out.append(n.name)
    return out


def test_summary_finder_sees_a_two_line_summary():
    assert _long_summaries('def f():\n    """One\n    two.\n\n    More.\n    """\n') == ["f"]
    assert _long_summaries('def f():\n    """One.\n\n    More.\n    """\n\ndef _g():\n    """a\n    b"""\n') == []


@pytest.mark.parametrize("module", ONE_LINE_SUMMARY)
def test_public_docstrings_open_with_a_one_line_summary(module):
    path = Path(__file__).resolve().parents[1] / "bayesnb" / module
    assert _long_summaries(path.read_text(encoding="utf-8")) == [], f"{module}: a summary over one line"
