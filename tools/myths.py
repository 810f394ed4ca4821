"""The *Myth or fact?* verdict cells of the solved notebooks, written from their one home (``lessons.myths``).

In ``solutions/``, every claim is asked by a code cell ``cu.widgets.MythOrFact("NN-name")`` and answered by the
markdown cell right below it: the verdict folded in a ``<details>`` (``verdict_markdown``), for a page without
a running notebook (GitHub, nbconvert, ``python tools/html_pages.py``). ``problems`` says where a notebook departs
from that; ``write`` rewrites the verdict cells from the claims (after an edit of ``course_utils/content/myths.toml``),
inserting one where it is missing. Then execute the notebook and regenerate its learner version (``python tools/build.py``).

Command line (from the repository root)::

    python tools/myths.py            # check: exit 1 and one line per problem
    python tools/myths.py --write    # rewrite the verdict cells of solutions/01-07

Exit codes: 0 in step (or written); 1 a problem left (the line says which notebook, cell and claim); 2 bad usage.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
import textwrap
from pathlib import Path

import nbformat
from _checkout import REPO_ROOT
from build import write_notebook

from course_utils.lessons import myths

__all__ = ["asked_claims", "problems", "verdict_markdown", "write", "main"]

SOLUTIONS_DIR = REPO_ROOT / "solutions"
#: The notebooks that have a Myth or fact? section.
NOTEBOOKS = tuple(sorted({claim.notebook for claim in myths.CLAIMS}))
#: The width the notebooks' markdown is wrapped at.
WIDTH = 118
_MATH = re.compile(r"\$[^$]+\$")
_NO_BREAK = "\x00"


def verdict_markdown(key: str) -> str:
    """The markdown cell that follows a claim's widget: the claim, its verdict and the feedback, folded away.

    A page without a running notebook shows the fold closed; opening it gives the verdict, why, and what each
    choice probably meant. The claim stands inside as ``**"..."**``, which is how the notebooks' claims are found.
    """
    claim = myths.by_key(key)
    other = next(choice for choice, _ in myths.ANSWERS if choice != claim.answer)
    after = f" {myths.DEMO_NOTE}" if claim.demo else ""
    quoted = f"**\"{claim.claim}\"**".replace(" ", _NO_BREAK)  # on one line: how the notebooks' claims are found
    paragraphs = [f"{quoted} **{claim.ruling}.** {claim.explanation}{after}",
                  f"*If you chose {claim.label(other)}:* {claim.feedback[other]}",
                  f"*If you chose {claim.label(claim.answer)}:* {claim.feedback[claim.answer]}"]
    body = "\n\n".join(_wrap(paragraph) for paragraph in paragraphs)
    return f"<details><summary>Verdict (choose first)</summary>\n\n{body}\n</details>"


def _wrap(paragraph: str) -> str:
    """A paragraph wrapped at ``WIDTH``, never inside ``$...$`` (inline maths stays on one line) nor where
    ``_NO_BREAK`` stands for a space."""
    kept = _MATH.sub(lambda m: m.group(0).replace(" ", _NO_BREAK), paragraph)
    lines = textwrap.wrap(kept, WIDTH, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines).replace(_NO_BREAK, " ")


def _asked_key(cell):
    """The key of the ``MythOrFact("...")`` call of a code cell, or None."""
    if cell.cell_type != "code" or "MythOrFact" not in cell.source:
        return None
    try:
        tree = ast.parse(cell.source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("MythOrFact") and node.args
                and isinstance(node.args[0], ast.Constant)):
            return node.args[0].value
    return None


def asked_claims(nb):
    """[(index of the asking cell, key)] of a notebook, in order."""
    return [(n, key) for n, cell in enumerate(nb.cells) if (key := _asked_key(cell)) is not None]


def _verdict_cell(key, cell_id):
    cell = nbformat.v4.new_markdown_cell(verdict_markdown(key))
    cell["id"] = cell_id
    return cell


def problems(nb, number):
    """Where notebook ``number`` (``"01"``) departs from myths.toml: a list of sentences (empty when in step).

    Every claim of the notebook is asked once, in the file's order; the cell below each asking cell is its verdict
    as ``verdict_markdown`` writes it; no other markdown cell holds a claim of the file.
    """
    found = []
    asked = asked_claims(nb)
    keys = [key for _, key in asked]
    expected = [claim.key for claim in myths.claims_of(number)]
    if keys != expected:
        found.append(f"notebook {number} asks {keys}; myths.toml has {expected}, in that order")
    verdict_cells = set()
    for n, key in asked:
        try:
            text = verdict_markdown(key)
        except KeyError as err:
            found.append(f"cell {nb.cells[n].get('id')}: {err.args[0]}")
            continue
        below = nb.cells[n + 1] if n + 1 < len(nb.cells) else None
        if below is None or below.cell_type != "markdown" or below.source != text:
            found.append(f"cell {nb.cells[n].get('id')}: the cell below must be the verdict of {key!r} as "
                         "verdict_markdown writes it (python tools/myths.py --write)")
        else:
            verdict_cells.add(n + 1)
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or n in verdict_cells:
            continue
        for claim in myths.CLAIMS:
            if f'"{claim.claim}"' in cell.source or f"\u201c{claim.claim}\u201d" in cell.source:
                found.append(f"cell {cell.get('id')}: holds the claim {claim.key!r}, whose home is "
                             "course_utils/lessons/myths.py (only its verdict cell repeats it)")
    return found


def write(path):
    """Rewrite the verdict cell below each asking cell of one solved notebook (insert it when missing).

    Returns
    -------
    bool
        True if the file changed.
    """
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    changed = False
    for n, key in reversed(asked_claims(nb)):
        text = verdict_markdown(key)
        below = nb.cells[n + 1] if n + 1 < len(nb.cells) else None
        if below is not None and below.cell_type == "markdown" and "<details><summary>Verdict" in below.source:
            if below.source != text:
                below.source, changed = text, True
        else:
            asking_id = nb.cells[n].get("id") or f"nb{key[:2]}-{key[3:]}"
            nb.cells.insert(n + 1, _verdict_cell(key, f"{asking_id}-verdict"))
            changed = True
    if changed:
        write_notebook(nb, path)
    return changed


def _paths(solutions_dir):
    return [next(Path(solutions_dir).glob(f"{number}-*.ipynb")) for number in NOTEBOOKS]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/myths.py", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the verdict cells from course_utils/content/myths.toml")
    parser.add_argument("--solutions", default=str(SOLUTIONS_DIR), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    left = []
    for path in _paths(args.solutions):
        if args.write and write(path):
            print(f"wrote the verdict cells of {path.name}")
        left += [f"{path.name}: {p}" for p in problems(nbformat.read(path, as_version=4), path.name[:2])]
    for line in left:
        print(line)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
