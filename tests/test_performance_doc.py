"""docs/performance.md explains every goal that `make bench` finds not met, and the results link to it."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import _common  # noqa: E402

DOC = ROOT / "docs" / "performance.md"
RESULTS = ROOT / "benchmarks" / "results"


def anchors(markdown: str) -> set:
    """The anchors of a Markdown file's headings, as GitHub makes them (lower case, spaces to hyphens)."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", markdown, flags=re.MULTILINE)}


def test_every_not_met_in_the_results_links_to_a_section_that_says_why():
    """As ``_common.verdict`` writes it (setup.md keeps older runs' "NOT met" as history; its latest run is met)."""
    doc_anchors = anchors(DOC.read_text(encoding="utf-8"))
    not_met = []
    for path in sorted(RESULTS.glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for match in re.finditer(r"not met( \(\[why\]\(([^)#]+)#([\w-]+)\)\))?", line):
                not_met.append((path.name, match.group(2), match.group(3)))
    assert not_met, "no goal is marked not met: drop this test's premise or the doc's not-met sections"
    for name, target, anchor in not_met:
        assert target == _common.PERFORMANCE_DOC, f"{name}: a 'not met' without a link to docs/performance.md"
        assert (RESULTS / target).resolve() == DOC.resolve()
        assert anchor in doc_anchors, f"{name}: links to #{anchor}, which docs/performance.md has no heading for"
