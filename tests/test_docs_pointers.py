"""The package's pointers into the docs resolve: every ``docs/<page>.md`` a module cites exists, and every
section it names there (``docs/page.md, "Section"``) begins a heading, or a bold paragraph label, of that page.

Module docstrings keep their role and point to the docs for the rest, so a renamed or missing section leaves
the reader with nothing to follow."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TITLE = r'"((?:`[^`]*`|[^"`])+)"'  # a quoted section title; code spans may hold quotes (How `"auto"` ...)
POINTER = re.compile(r"docs/([\w/-]+\.md)((?:\s*(?:,|and)\s*" + TITLE + r")*)")


def pointers():
    """``(module, page, [section, ...])`` for every ``docs/<page>.md`` cited in the package's sources."""
    for path in sorted((ROOT / "bayesnb").rglob("*.py")):
        text = re.sub(r"\s*\n\s*", " ", path.read_text())  # titles wrap across docstring lines
        for m in POINTER.finditer(text):
            yield path.relative_to(ROOT), m.group(1), re.findall(TITLE, m.group(2))


def section_starts(page):
    """The headings of a docs page (without the ``#``) and its bold paragraph labels (``**Label.**``)."""
    lines = (ROOT / "docs" / page).read_text().splitlines()
    return ([re.sub(r"^#+\s*", "", line).strip() for line in lines if line.startswith("#")]
            + [line[2:].strip() for line in lines if line.startswith("**")])


def test_every_cited_docs_page_and_section_exists():
    found, missing = 0, []
    for module, page, sections in pointers():
        found += 1
        if not (ROOT / "docs" / page).is_file():
            missing.append(f"{module}: docs/{page} does not exist")
            continue
        starts = section_starts(page)
        missing += [f'{module}: docs/{page} has no section "{s}"' for s in sections
                    if not any(h.startswith(s) for h in starts)]
    assert found > 20  # the pattern still finds the pointers
    assert not missing, "\n".join(missing)


def test_a_missing_section_is_reported():
    """The check itself: a title that begins no heading is not found, a heading's prefix is."""
    starts = section_starts("structure.md")
    assert any(h.startswith("The candidates, and the cross-validation check") for h in starts)
    assert not any(h.startswith("No such section here") for h in starts)
    m = POINTER.search('(docs/structure.md, "The edge score" and "How `"auto"` scores the candidates").')
    assert m.group(1) == "structure.md"
    assert re.findall(TITLE, m.group(2)) == ["The edge score", 'How `"auto"` scores the candidates']
