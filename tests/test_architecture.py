"""Architecture v2 guards, read from the source (tools/architecture.py).

- no import cycle among the package's module-level imports;
- the package's own modules are imported at module level (a function-level import only
  for heavy optional dependencies such as jax, numpyro, arviz, matplotlib);
- nothing outside ``bayesnb/families`` asks which family it holds;
- no module grows far past the ~500-line budget (DESIGN.md).
"""

from __future__ import annotations

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


def test_nothing_outside_families_branches_on_the_family_class():
    assert arch.family_isinstance() == []


def test_family_isinstance_finder_sees_a_branch(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "mod.py").write_text("def f(b):\n    return isinstance(b.family, (Gaussian, int))\n")
    assert arch.family_isinstance(pkg) == [("pkg/mod.py", 2)]


@pytest.mark.parametrize("path", sorted(arch.line_counts()))
def test_module_size(path):
    assert arch.line_counts()[path] <= MAX_LINES, f"{path} is over {MAX_LINES} lines: split it by job"
