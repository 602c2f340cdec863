"""The documentation site builds with ``mkdocs build --strict`` (warnings fail), and the README
keeps its promises (its ``>>>`` examples run as doctests through ``--doctest-glob=README.md``)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from conftest import run_python

ROOT = Path(__file__).resolve().parents[1]


def test_mkdocs_build_strict(tmp_path):
    missing = [m for m in ("mkdocs", "material", "mkdocstrings") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"docs toolchain not installed ({', '.join(missing)}): pip install -e '.[docs]' "
                    "(make test installs it)")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    r = run_python(["-m", "mkdocs", "build", "--strict", "-d", tmp_path / "site"], cwd=ROOT, env=env)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "predict_proba" in api and "log_evidence_" in api  # mkdocstrings rendered the docstrings


def test_nav_pages_exist():
    import re

    text = (ROOT / "mkdocs.yml").read_text()
    pages = re.findall(r":\s*([\w/]+\.md)\s*$", text, flags=re.M)
    assert {"model.md", "smoothing.md", "generative.md", "mcmc.md", "api.md", "benchmarks.md"} <= set(pages)
    assert [p for p in pages if not (ROOT / "docs" / p).exists()] == []


def test_readme_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "\ndemo:" in makefile and "bayesnb demo" in makefile
