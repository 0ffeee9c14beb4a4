"""Every file this project's guides, code and configs cite exists: a guide or a comment naming a file the project
does not have (a family left out at generation, a module moved into runkit) fails here with its line."""

from pathlib import Path

from runkit.testing.references import dangling

ROOT = Path(__file__).resolve().parents[1]
PATTERNS: list[str] = []  # files whose paths are patterns or rewrites, not citations
PATTERNS += ["parts.yaml", "hooks/post_gen_project.py"]  # part: template
PATTERNS += ["tests/test_scaffold.py", "lib/tests/test_references.py"]  # part: template


def test_every_file_cited_exists():
    assert dangling(ROOT, ignore=PATTERNS) == []
