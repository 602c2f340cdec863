"""Architecture v2 guards, read from the source (tools/architecture.py).

- no import cycle among the package's module-level imports;
- the package's own modules are imported at module level (a function-level import only
  for heavy optional dependencies such as jax, numpyro, arviz, matplotlib);
- nothing outside ``bayesnb/families`` asks which family it holds;
- the families layer loads no more of the structure package than its pure parts (its
  ``__init__``, ``learn`` and the ``hierarchical`` prior of a categorical node), never the engine;
- no module grows far past the ~500-line budget (DESIGN.md);
- no private name (``_name``) is imported from another package, and no private module
  (``pkg._mod``) from outside ``pkg`` (what is left is listed and may only shrink);
- in the modules listed in ``ONE_LINE_SUMMARY`` (more join as they are cleaned), every public
  function's and class's docstring opens with a one-line numpydoc summary.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("architecture", Path(__file__).resolve().parents[1] / "tools" /
                                               "architecture.py")
arch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(arch)

#: a module may pass ~500 lines a little (a long docstring), never by much
MAX_LINES = 550


def test_no_import_cycles():
    assert arch.cycles(arch.import_graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert arch.cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


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


@pytest.mark.parametrize("path", sorted(arch.line_counts()))
def test_module_size(path):
    assert arch.line_counts()[path] <= MAX_LINES, f"{path} is over {MAX_LINES} lines: split it by job"


#: private names of ``bayesnb/families`` other packages still take, ``(importer, name)`` under ``bayesnb.``:
#: left to the folding of the families' modules (issue 29); this set may only shrink
PRIVATE_IMPORTS_LEFT = {
    ("estimators._dask_fit", "families._default_hooks.same_state"),
    ("inference.numpyro_model", "families._fixed_norm.dirichlet_fixed_norm"),
    ("inference.numpyro_model", "families._fixed_norm.lgamma32"),
    ("inference.private_stats", "families._private.RowBound"),
    ("structure.hierarchical", "families._numeric.maximise_evidence"),
    *[(m, "families._numeric.dirichlet_draws") for m in ("estimators._posterior_methods", "generative.functions",
                                                        "inference.draws", "structure.structure_draws")],
    *[(m, "families._numeric.draw_categories") for m in (
        "generative.conditional", "generative.constrained", "generative.functions", "generative.mnar",
        "generative.mnar_values", "impute.mvn_mnar", "impute.selfmasking", "structure.constrained_draws",
        "structure.engine", "structure.exact_impute")],
}


def test_no_private_name_imported_across_packages():
    found = {(m.removeprefix("bayesnb."), name.removeprefix("bayesnb.")) for m, _, name in arch.private_imports()}
    assert sorted(found - PRIVATE_IMPORTS_LEFT) == [], "a private name imported from another package: make it public"


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
