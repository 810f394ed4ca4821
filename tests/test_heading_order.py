"""Heading order in every notebook's markdown, without a browser (issue 12).

Screen-reader users move through a page by its headings; a skipped level (an ``###`` straight under a ``#``) or
a second title hides where a section belongs. For each solved and learner notebook: exactly one ``#`` title,
first; then no heading more than one level deeper than the one before it. Headings inside code fences and
``<details>`` hints count as well (a hint's heading is read in the page too).
"""
import json
import re
from pathlib import Path

import course_notebooks
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = course_notebooks.ALL  # the course's, solved and learner, and every translation's
ATX = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.IGNORECASE | re.DOTALL)


def headings(markdown):
    """The (level, text) of each heading of one markdown cell, in order (ATX and HTML; none inside code fences)."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        match = ATX.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
        found += [(int(level), re.sub(r"<[^>]+>", "", text).strip()) for level, text in HTML_HEADING.findall(line)]
    return found


def heading_problems(cells):
    """Sentences naming each heading out of order, for cells given as nbformat-like dicts."""
    problems, previous = [], None
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        for level, text in headings(source):
            if previous is None and level != 1:
                problems.append(f"cell {index}: the first heading {text!r} is level {level}; a notebook opens with one # title")
            elif previous is not None and level == 1:
                problems.append(f"cell {index}: a second # title {text!r}; use ## for a section")
            elif previous is not None and level > previous + 1:
                problems.append(f"cell {index}: {'#' * level} {text!r} follows a level-{previous} heading "
                                f"(skips level {previous + 1})")
            previous = level
    if previous is None:
        problems.append("no heading at all: a notebook opens with one # title")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=course_notebooks.name)
def test_headings_open_with_one_title_and_never_skip_a_level(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    problems = heading_problems(cells)
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


def md(*sources):
    return [{"cell_type": "markdown", "source": s} for s in sources]


def test_the_check_finds_a_skipped_level_a_second_title_and_a_missing_title():
    assert heading_problems(md("# Title", "## Part", "### Detail", "## Next")) == []
    assert "skips level 2" in heading_problems(md("# Title", "### Detail"))[0]
    assert "second # title" in heading_problems(md("# Title", "# Again"))[0]
    assert "first heading" in heading_problems(md("## Part"))[0]
    assert heading_problems(md("no heading")) == ["no heading at all: a notebook opens with one # title"]
    assert "skips level 3" in heading_problems(md("# T\n## P\n<details><h4>Hint</h4></details>"))[0]
    assert heading_problems(md("# T\n```python\n# a comment, not a heading\n### nor this\n```")) == []
