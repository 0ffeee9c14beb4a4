"""A module that moved into runkit still imports by its old name, as the same module, saying so in one line; a
module of the old name that the project has again wins."""

import subprocess
import sys
from pathlib import Path


def python(code: str, path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=path, capture_output=True, text=True, timeout=120)


def a_project(root: Path, with_own_crf: bool) -> Path:
    """A package named `project`, as a generated one is, whose nets/ may or may not hold crf.py again."""
    (root / "project" / "nets").mkdir(parents=True)
    (root / "project" / "__init__.py").write_text("import runkit\n")
    (root / "project" / "nets" / "__init__.py").write_text("")
    if with_own_crf:
        (root / "project" / "nets" / "crf.py").write_text("OWN = True\n")
    return root


def test_an_old_name_imports_the_moved_module_itself_and_says_so_once(tmp_path):
    code = (
        "import project.tasks.regression as old, runkit.tasks.regression as new\n"
        "from project.tasks import Multilabel\n"
        "import project.tasks.multilabel\n"
        "from project.nets.crf import CRF\n"
        "import runkit\n"
        "assert old is new and Multilabel is runkit.Multilabel and CRF is runkit.CRF\n"
    )
    done = python(code, a_project(tmp_path, with_own_crf=False))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "project.tasks moved to runkit.tasks in runkit 0.2.0: read as runkit.tasks (a config or script naming the "
        "old path runs; rename it there to drop this line)",
        "project.nets.crf moved to runkit.tasks.crf in runkit 0.2.0: read as runkit.tasks.crf (a config or script "
        "naming the old path runs; rename it there to drop this line)",
    ]


def test_a_module_of_the_old_name_that_exists_again_wins(tmp_path):
    done = python("import project.nets.crf as crf; print(crf.OWN)", a_project(tmp_path, with_own_crf=True))
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")


def test_a_name_that_never_moved_is_still_missing(tmp_path):
    done = python("import project.nets.nothing", a_project(tmp_path, with_own_crf=False))
    assert "ModuleNotFoundError: No module named 'project.nets.nothing'" in done.stderr
