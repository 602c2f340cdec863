"""Every snippet of the README and the docs runs as pasted.

README.md: each ```bash line that starts with ``bayesnb`` runs through ``bayesnb.cli.main``
(``shlex.split``), in order, in an empty folder; the other lines must be on the allow-list
:data:`NOT_RUN_COMMANDS` (each with its reason); the shell session also runs in bash as pasted,
from a folder holding the ``.venv`` that ``make demo`` makes; each ```python block is executed in an empty
folder (the ``>>>`` examples are doctests: ``--doctest-glob=README.md`` in pyproject.toml).

docs/**/*.md: the ``bayesnb`` lines of the ```bash blocks run like the README's (other
lines on the allow-list :data:`DOCS_NOT_RUN_COMMANDS`); the ```python blocks of a page run in order, in one namespace, in an empty
folder; a block followed by a ```text block must print that text (``same_printout``). A
block run by another test is listed in :data:`RUN_ELSEWHERE`; a block too slow for the suite
is preceded by an explicit marker ``<!-- not-run: REASON -->`` (and must still compile).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import same_printout

from bayesnb.cli import main

ROOT = Path(__file__).resolve().parents[1]

#: README shell lines not run here, by their first words, and why
NOT_RUN_COMMANDS = {
    "make demo": "creates .venv and pip-installs the package (minutes, needs the network); the demo itself "
                 "is tested by tests/test_cli.py",
    "make test": "runs this very test suite",
    "pip install": "installs packages (needs the network)",
    "git clone": "needs the network",
    "cd ": "changes into the clone or a new temporary folder; the lines that follow run in a temporary folder",
    "source .venv/bin/activate": "puts .venv's bayesnb on the PATH; test_readme_shell_session_runs_in_bash_as_pasted "
                                 "runs it",
}

#: docs python blocks run by another test: (page, index of the block on the page) -> that test
RUN_ELSEWHERE = {
    ("generative.md", 1): "tests/test_conditional_sampling.py",
    ("model.md", 0): "tests/test_auto_features.py",
    ("structure.md", 0): "tests/test_structure_mixed.py",
    ("structure.md", 2): "tests/test_structure.py",
    ("synthetic.md", 2): "tests/test_synthetic_report.py",
    ("synthetic.md", 3): "tests/test_synthetic_report.py",
}

NOT_RUN = re.compile(r"<!--\s*not-run:\s*(\S[^>]*?)\s*-->\s*$")
BLOCK = re.compile(r"^( *)```(\w+)\n(.*?)^\1```", flags=re.DOTALL | re.MULTILINE)


def _blocks(text, lang):
    """``(code, marker reason or None, the text block shown after it or None)`` per ``lang`` block."""
    out = []
    for m in BLOCK.finditer(text):
        if m.group(2) != lang:
            continue
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = NOT_RUN.search(before)
        after = BLOCK.match(text, m.end() + len(text[m.end():]) - len(text[m.end():].lstrip("\n")))
        shown = textwrap.dedent(after.group(3)) if after and after.group(2) == "text" else None
        out.append((textwrap.dedent(m.group(3)), marker.group(1) if marker else None, shown))
    return out


def _run(code, namespace, where):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, "exec"), namespace)  # noqa: S102 - this repository's own snippets
    return out.getvalue()


def test_readme_bash_lines_run_as_pasted(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for code, _, _ in _blocks((ROOT / "README.md").read_text(encoding="utf-8"), "bash"):
        for line in code.splitlines():
            line = line.split(" #")[0].strip()
            if not line or line.startswith("#"):
                continue
            if any(line.startswith(prefix) for prefix in NOT_RUN_COMMANDS):
                continue
            words = shlex.split(line)
            assert words[0] == "bayesnb", f"README shell line neither run nor on the allow-list: {line!r}"
            assert main(words[1:]) == 0, (line, capsys.readouterr().err)
            ran += 1
    assert ran >= 5
    assert {"votes.csv", "votes.bnb", "predictions.csv", "scored.csv", "posterior.csv"} <= {
        p.name for p in tmp_path.iterdir()}


def _session_blocks():
    """The README's bash blocks that run ``bayesnb`` (the shell session)."""
    return [code for code, _, _ in _blocks((ROOT / "README.md").read_text(encoding="utf-8"), "bash")
            if any(line.startswith("bayesnb ") for line in code.splitlines())]


@pytest.mark.slow
@pytest.mark.e2e
def test_readme_shell_session_runs_in_bash_as_pasted(tmp_path):
    """The README's shell session, pasted into bash in the repository folder after ``make demo``
    (a ``.venv`` holding ``activate`` and the ``bayesnb`` script), runs and fills a new folder."""
    venv = Path(sys.prefix)
    if shutil.which("bash") is None or not all((venv / "bin" / f).exists() for f in ("activate", "bayesnb")):
        pytest.skip("needs bash and a virtual environment with the bayesnb script, as 'make demo' makes")
    [block] = _session_blocks()
    clone, tmp = tmp_path / "clone", tmp_path / "tmp"
    clone.mkdir()
    tmp.mkdir()
    (clone / ".venv").symlink_to(venv, target_is_directory=True)
    env = dict(os.environ, TMPDIR=str(tmp), MPLBACKEND="Agg",  # mktemp -d makes its folder under tmp
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("VIRTUAL_ENV", None)
    r = subprocess.run(["bash", "-e", "-c", block], cwd=clone, env=env, capture_output=True, text=True,
                       timeout=900, check=False)
    assert r.returncode == 0, r.stderr
    [work] = tmp.iterdir()
    written = {p.name for p in work.iterdir()}
    assert {"votes.csv", "votes.bnb", "predictions.csv", "scored.csv", "posterior.csv"} <= written
    assert "accuracy:" in r.stdout and "command not found" not in r.stderr


def test_readme_python_blocks_run_as_pasted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for code, marker, _ in _blocks(text, "python"):
        assert marker is None, "no README block may be skipped"
        _run(code, {}, "README.md")
    assert ">>> " in text  # the doctests, run by --doctest-glob=README.md
    assert "--doctest-glob=README.md" in (ROOT / "pyproject.toml").read_text()


PAGES = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")
               if "```python" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES)
def test_docs_python_blocks_run_as_pasted(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for i, (code, marker, shown) in enumerate(_blocks((ROOT / "docs" / page).read_text(encoding="utf-8"),
                                                      "python")):
        where = f"docs/{page} block {i}"
        if (page, i) in RUN_ELSEWHERE:
            assert marker is None, where
            continue
        if marker is not None:
            compile(code, where, "exec")  # a skipped block still parses
            continue
        printed = _run(code, namespace, where)
        if shown is not None:
            same_printout(printed.strip(), shown.strip())


#: docs shell lines not run here, by their first words, and why
DOCS_NOT_RUN_COMMANDS = {
    **NOT_RUN_COMMANDS,
    ".venv/bin/python benchmarks/": "benchmark scripts take minutes; their printed tables are the pages' numbers",
    ".venv/bin/python examples/": "tests/test_examples.py runs the examples",
}

#: docs bash blocks run by another test: (page, index of the bash block on the page) -> that test
BASH_RUN_ELSEWHERE = {("cli.md", 1): "tests/test_cli_generate.py"}

BASH_PAGES = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")
                    if "```bash" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", BASH_PAGES)
def test_docs_bash_lines_run_as_pasted(page, tmp_path, monkeypatch, capsys):
    """Each ``bayesnb`` line of a page's bash blocks runs, in order, in an empty folder."""
    monkeypatch.chdir(tmp_path)
    for i, (code, marker, _) in enumerate(_blocks((ROOT / "docs" / page).read_text(encoding="utf-8"), "bash")):
        if marker is not None or (page, i) in BASH_RUN_ELSEWHERE:
            continue
        for line in code.splitlines():
            line = line.split(" #")[0].strip()
            if not line or line.startswith("#") or any(line.startswith(p) for p in DOCS_NOT_RUN_COMMANDS):
                continue
            words = shlex.split(line)
            assert words[0] == "bayesnb", f"docs/{page}: shell line neither run nor allowed: {line!r}"
            assert main(words[1:]) == 0, (page, line, capsys.readouterr().err)


def test_blocks_run_elsewhere_are_run_there():
    assert '"cli.md"' in (ROOT / BASH_RUN_ELSEWHERE["cli.md", 1]).read_text(encoding="utf-8")
    for (page, _), test in RUN_ELSEWHERE.items():
        assert f'"{page}"' in (ROOT / test).read_text(encoding="utf-8"), (page, test)


def test_every_skipped_block_says_why():
    skipped = {}
    for page in sorted(set(PAGES) | set(BASH_PAGES)):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        skipped[page] = [m for lang in ("python", "bash") for _, m, _ in _blocks(text, lang) if m is not None]
        # a marker is only ever right before a block
        assert text.count("<!-- not-run:") == len(skipped[page]), page
    assert sum(map(len, skipped.values())) >= 1
    assert all(len(reason) > 10 for reasons in skipped.values() for reason in reasons)
