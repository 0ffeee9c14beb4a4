"""The guides hold together: every relative link in the README, docs/, runkit's README and guides (lib/) and
benchmarks/README.md points to a file that exists (and to a heading that exists, for `#anchor` links), and the
README stays short.

Template-only (parts.yaml): a generated project has its own README, and its guides are checked by
tests/test_references.py."""

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = [
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "lib" / "README.md",
    *sorted((ROOT / "lib" / "docs").glob("*.md")),
]
LIBRARY = [page for page in PAGES if page.is_relative_to(ROOT / "lib")]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+ (.+?)(?:\s*<!--.*-->)?$", page.read_text(), re.M)  # a part's marker is no title
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_that_exists(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            broken.append(target)
    assert broken == [], f"{page.name}: broken links {broken}"


def test_every_guide_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text()
    for page in PAGES[1:]:
        assert str(page.relative_to(ROOT)) in readme, page


def test_runkits_guides_hold_for_every_project():
    """A project gets runkit's guides whole, whichever parts it kept, and again from `make upgrade-runkit`: they mark
    nothing as a part's (what they cite, every project has: tests/test_scaffold.py checks it in generated ones)."""
    assert [page.name for page in LIBRARY if "part:" in page.read_text()] == []


def test_the_readme_stays_a_short_front_door():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250
