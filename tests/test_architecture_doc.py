"""docs/architecture.md holds the module map that tools/gen_architecture.py writes from the code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("gen_architecture", ROOT / "tools" / "gen_architecture.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def test_architecture_page_is_the_generated_one():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert gen.render(page) == page, "docs/architecture.md is out of date: run `python tools/gen_architecture.py`"


def test_the_map_names_every_module():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "bayesnb").rglob("*.py")):
        if path.name == "__init__.py":
            assert f"### `{'.'.join(path.parent.relative_to(ROOT).parts)}`" in page, path
        else:
            assert f"- `{path.name}`: " in page, path


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""The package.\n\nMore text."""\n')
    (pkg / "b.py").write_text('"""Module b: a summary\nrunning on, with :func:`~pkg.a.f` and ``x``.\n\nDetails."""\n')
    (pkg / "a.py").write_text("'''Module a.'''\nX = 1\n")
    (pkg / "sub" / "__init__.py").write_text('"""Sub."""\n')
    (pkg / "sub" / "c.py").write_text('"""Module c."""\n')
    return pkg


def test_module_map_is_sorted_one_line_per_module(tmp_path):
    assert gen.module_map(_package(tmp_path)) == (
        "### `pkg`\n\nThe package.\n\n"
        "- `a.py`: Module a.\n"
        "- `b.py`: Module b: a summary running on, with `pkg.a.f` and `x`.\n\n"
        "### `pkg.sub`\n\nSub.\n\n"
        "- `c.py`: Module c.\n")


def test_render_replaces_only_the_marked_map(tmp_path):
    pkg = _package(tmp_path)
    page = f"# Title\n\nProse.\n\n{gen.BEGIN}\nstale map\n{gen.END}\n\nMore prose.\n"
    new = gen.render(page, pkg)
    assert new.startswith("# Title\n\nProse.\n\n") and new.endswith(f"{gen.END}\n\nMore prose.\n")
    assert "stale map" not in new and "- `c.py`: Module c." in new
    assert gen.render(new, pkg) == new  # regenerating a current page changes nothing
    (pkg / "sub" / "d.py").write_text('"""Module d."""\n')
    assert gen.render(new, pkg) != new  # a new module makes the page out of date


def test_a_module_without_docstring_or_markers_is_refused(tmp_path):
    pkg = _package(tmp_path)
    with pytest.raises(ValueError, match="marker|once"):
        gen.render("# Title\n\nno markers\n", pkg)
    (pkg / "e.py").write_text("X = 1\n")
    with pytest.raises(ValueError, match="e.py: the module has no docstring"):
        gen.module_map(pkg)
