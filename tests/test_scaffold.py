"""`cookiecutter <this repository>` writes a project that lints, imports, collects its tests and trains.

Template-only: the post-generation hook removes this file from generated projects. Generation runs
from a copy of the repository as git sees it, plus the stray folders a working copy collects.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cookiecutter.main import cookiecutter

REPO = Path(__file__).resolve().parents[1]
REMOVED_MARKS = {  # what an excluded family must leave no trace of (imports, configs, dependencies)
    "cnn": r"project\.(nets\.cnn|data\.images|models\.image)|cnn\.yaml|build_cnn",
    "lstm": r"project\.(nets\.lstm|data\.text|models\.sequence)|lstm\.yaml",
    "gcn": r"project\.(nets\.gcn|data\.graphs|data\.nodes|models\.graph)|gcn\.yaml|torch[-_]geometric",
}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("template") / "repo"
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True
    )
    for name in listed.stdout.splitlines():
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes((REPO / name).read_bytes())
    for stray in (
        "logs/cnn/version_0/events.out",
        "data/shapes/cache.pt",
        ".venv/pyvenv.cfg",
        "project/__pycache__/x.pyc",
    ):
        (copy / stray).parent.mkdir(parents=True, exist_ok=True)
        (copy / stray).write_text("stray")
    return copy


def generate(template: Path, out: Path, **choices: str) -> Path:
    context = {"project_name": "Bird Songs", "description": "Classifies bird songs.", "author": "A. Tester", **choices}
    return Path(cookiecutter(str(template), no_input=True, extra_context=context, output_dir=str(out)))


def python(project: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python ARGS` inside the generated project, with this environment's packages (nothing reinstalled)."""
    return subprocess.run([sys.executable, *args], cwd=project, capture_output=True, text=True, timeout=timeout)


def lint(project: Path) -> None:
    """`make lint` of the generated project: ruff check and ruff format --check."""
    ruff = Path(sys.executable).parent / "ruff"
    for command in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run([ruff, *command], cwd=project, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout[-2000:]


def text_files(project: Path) -> dict[Path, str]:
    suffixes = {".py", ".toml", ".txt", ".yaml", ".md", ".cfg", ".ipynb", ".yml"}
    return {p: p.read_text() for p in project.rglob("*") if p.suffix in suffixes or p.name == "Makefile"}


@pytest.mark.slow
def test_default_project_is_named_complete_and_passes_its_own_tests(template, tmp_path):
    project = generate(template, tmp_path)
    assert project.name == "bird_songs"
    assert (project / "README.md").read_text().startswith("# Bird Songs\n\nClassifies bird songs.")
    pyproject = (project / "pyproject.toml").read_text()
    assert 'name = "bird_songs"' in pyproject and 'authors = [{ name = "A. Tester" }]' in pyproject
    for left_out in ("logs", "data", ".venv", "hooks", "cookiecutter.json", "tests/test_scaffold.py"):
        assert not (project / left_out).exists(), left_out
    assert not list(project.rglob("__pycache__"))
    assert (project / ".github/workflows/tests.yml").is_file() and (project / "notebooks/01_quickstart.ipynb").is_file()
    assert not any("# part:" in text for text in text_files(project).values())
    # The project's own package, not this repository's, is what runs there.
    where = python(project, "-c", "import project; print(project.__file__)").stdout
    assert Path(where.strip()).is_relative_to(project)
    lint(project)
    tests = python(
        project, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/test_cli.py", "tests/test_diagnostics.py"
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    fit = python(project, "-m", "project.fit", "--model", "lstm", "--trainer.fast_dev_run", "1")
    assert fit.returncode == 0 and "fast_dev_run finished" in fit.stdout, fit.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("excluded", "extras"),
    [
        ("cnn", {}),
        ("lstm", {"include_notebooks": "no", "include_github_actions": "no"}),  # and the optional parts
        ("gcn", {}),
    ],
)
def test_an_excluded_family_leaves_nothing_behind(template, tmp_path, excluded, extras):
    project = generate(template, tmp_path, **{f"include_{excluded}": "no"}, **extras)
    assert (project / "notebooks").exists() == (not extras) and (project / ".github").exists() == (not extras)
    if extras:
        assert "nbmake" not in (project / "pyproject.toml").read_text()
    kept = [family for family in ("cnn", "lstm", "gcn") if family != excluded]
    leftovers = [p for p, text in text_files(project).items() if re.search(REMOVED_MARKS[excluded], text)]
    assert leftovers == [], f"references to the excluded {excluded}: {leftovers}"
    assert not (project / "configs" / f"{excluded}.yaml").exists()
    lint(project)
    # Every remaining test module imports: no dangling import anywhere in the suite.
    collected = python(project, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", "tests")
    assert collected.returncode == 0, collected.stdout[-3000:]
    unknown = python(project, "-m", "project.fit", "--model", excluded)
    assert unknown.returncode == 2 and all(family in unknown.stderr for family in kept)
    fit = python(project, "-m", "project.fit", "--model", kept[0], "--trainer.fast_dev_run", "1")
    assert fit.returncode == 0 and "fast_dev_run finished" in fit.stdout, fit.stderr[-3000:]


def test_questions_and_hooks_are_well_formed():
    questions = json.loads((REPO / "cookiecutter.json").read_text())
    for family in ("cnn", "lstm", "gcn"):
        assert questions[f"include_{family}"] == ["yes", "no"]
    assert questions["_copy_without_render"] == ["*"]  # no Jinja inside the project's own files
    for hook in (REPO / "hooks").glob("*.py"):
        assert 'if __name__ == "__main__":' in hook.read_text(), hook
