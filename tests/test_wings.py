"""The package's wings by job (issue 29): a small top level, one package per job, lazy exports.

- ``bayesnb/`` keeps only its public face at the top level; the old top-level modules are
  gone (no alias modules), and no two modules share a name;
- each wing (``io``, ``impute``, ``synth``, ``criticism``) exports its public names, the same
  objects as ``bayesnb``'s, and imports a submodule only when one of its names is used.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import bayesnb
from bayesnb._utils import lazy_exports

PACKAGE = Path(bayesnb.__file__).resolve().parent

#: the top level: the public face and the helpers every wing shares
TOP_LEVEL = {"__init__.py", "__main__.py", "_progress.py", "_utils.py", "_version.py", "plot.py", "privacy.py"}


WINGS = {
    "bayesnb.io": ["ModelFileError", "load", "save"],
    "bayesnb.impute": ["Imputer", "MNARImputation", "TableImputation", "impute_mnar", "impute_table",
                       "mnar_sensitivity", "pool"],
    "bayesnb.synth": ["Synthesizer", "SyntheticReport", "synthetic_report"],
    "bayesnb.criticism": ["check_independence", "check_marginals", "check_mcar", "compare_posteriors"],
}


def test_the_top_level_keeps_only_the_public_face():
    assert {p.name for p in PACKAGE.glob("*.py")} == TOP_LEVEL


@pytest.mark.parametrize("old", ["persistence", "_safeio", "imputation", "imputer", "mnar", "pooling", "model",
                                 "posterior", "diagnostics", "synthetic", "arviz", "_dask", "_mcmc_stats",
                                 "cli.io"])
def test_no_alias_module_at_an_old_path(old):
    # a file check: an editable install of another checkout could still answer the import
    path = PACKAGE.joinpath(*old.split("."))
    assert not path.with_suffix(".py").exists() and not (path / "__init__.py").exists()


def test_no_module_name_shared_between_folders():
    # one name, one module: ``_private`` and ``private`` count as the same name (package __init__ excepted)
    paths = [p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"]
    counts = Counter(p.stem.lstrip("_") for p in paths)
    shared = sorted(str(p.relative_to(PACKAGE)) for p in paths if counts[p.stem.lstrip("_")] > 1)
    assert shared == []


#: command modules of the CLI, named after their command (``bayesnb datasets``, ``bayesnb families``)
COMMANDS_NAMED_LIKE_A_PACKAGE = {"cli/datasets.py", "cli/families.py"}


def test_no_module_named_like_a_package_of_another_folder():
    packages = {p.parent.name for p in PACKAGE.rglob("__init__.py")} - {PACKAGE.name}
    named = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if p.stem.lstrip("_") in packages}
    assert sorted(named - COMMANDS_NAMED_LIKE_A_PACKAGE) == []


@pytest.mark.parametrize("wing", sorted(WINGS))
def test_a_wing_exports_the_top_level_objects(wing):
    module = importlib.import_module(wing)
    assert module.__all__ == WINGS[wing]
    for name in module.__all__:
        obj = getattr(module, name)
        assert getattr(bayesnb, name, obj) is obj
        assert name in dir(module)
    with pytest.raises(AttributeError, match=f"module '{wing}' has no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


def test_from_a_wing_import_its_names():
    from bayesnb.criticism import check_independence, compare_posteriors
    from bayesnb.impute import Imputer, impute_mnar, impute_table, pool
    from bayesnb.io import load
    from bayesnb.synth import Synthesizer, synthetic_report

    assert load is bayesnb.load and Synthesizer is bayesnb.Synthesizer and pool is bayesnb.pool
    assert {f.__module__ for f in (check_independence, compare_posteriors, Imputer, impute_mnar, impute_table,
                                   synthetic_report)} == {
        "bayesnb.criticism.checks", "bayesnb.criticism.diagnostics", "bayesnb.impute.imputer",
        "bayesnb.impute.selfmasking", "bayesnb.impute.table", "bayesnb.synth.quality"}


def test_lazy_exports_import_a_submodule_only_when_its_name_is_used(tmp_path):
    pkg = tmp_path / "wingpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from bayesnb._utils import lazy_exports\n"
                                     "__all__ = ['a', 'b']\n"
                                     "__getattr__, __dir__ = lazy_exports(__name__, {'a': 'first', 'b': 'second'})\n")
    (pkg / "first.py").write_text("a = 1\n")
    (pkg / "second.py").write_text("b = 2\n")
    code = ("import sys, wingpkg\n"
            "assert 'wingpkg.first' not in sys.modules and 'wingpkg.second' not in sys.modules\n"
            "from wingpkg import a\n"
            "assert a == 1 and 'wingpkg.first' in sys.modules and 'wingpkg.second' not in sys.modules\n"
            "assert sorted(n for n in dir(wingpkg) if not n.startswith('_')) == ['a', 'b', 'first', 'lazy_exports']\n"
            "print('ok')\n")
    _prints_ok(code, tmp_path)


def _prints_ok(code, folder):
    """Run ``code`` in a fresh interpreter that sees ``folder`` and bayesnb; it must print ``ok``."""
    out = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True,
                         env={"PYTHONPATH": os.pathsep.join([str(folder), str(PACKAGE.parent)]),
                              "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_lazy_exports_reach_modules_of_other_packages_on_first_use(tmp_path):
    """A module's table may name a module elsewhere (``{"engine": "..structure"}``, as ``from ..structure import
    engine`` would): imported on first use, and looked up on each use (a patched home is seen)."""
    pkg = tmp_path / "lazypkg"
    for d in ("est", "structure"):
        (pkg / d).mkdir(parents=True)
        (pkg / d / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "est" / "on_call.py").write_text("from bayesnb._utils import lazy_exports\n"
                                            "__getattr__, __dir__ = lazy_exports(__name__, {'engine': '..structure', "
                                            "'fit': '..structure.engine'})\n")
    (pkg / "structure" / "engine.py").write_text("def fit():\n    return 3\n")
    code = ("import sys\nfrom lazypkg.est import on_call\n"
            "assert 'lazypkg.structure.engine' not in sys.modules and 'engine' not in vars(on_call)\n"
            "assert on_call.engine is sys.modules['lazypkg.structure.engine']\n"
            "assert on_call.fit() == 3 and 'fit' in dir(on_call)\n"
            "on_call.engine.fit = lambda: 4\n"
            "assert on_call.fit() == 4\n"
            "print('ok')\n")
    _prints_ok(code, tmp_path)


def test_lazy_exports_refuses_an_unknown_name():
    getattr_, dir_ = lazy_exports("bayesnb.io", {"load": "persistence"})
    assert getattr_("load") is bayesnb.load
    with pytest.raises(AttributeError, match="module 'bayesnb.io' has no attribute 'loads'"):
        getattr_("loads")
    assert "load" in dir_()
