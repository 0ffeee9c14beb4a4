"""`cookiecutter <this repository>` writes a project that lints, imports and passes its own tests, whatever
families it keeps: each family alone, and all three.

Template-only (parts.yaml): the post-generation hook removes this file from generated projects. Generation
runs from a copy of the repository as git sees it, plus the stray folders a working copy collects. What a
part owns comes from parts.yaml, the same manifest the hook removes parts by.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
import runkit
import yaml
from cookiecutter.main import cookiecutter

REPO = Path(__file__).resolve().parents[1]
PARTS = yaml.safe_load((REPO / "parts.yaml").read_text())
FAMILIES = ("cnn", "lstm", "gcn")
TASKS = ("multilabel", "regression")  # the tasks beyond multiclass, each a part that can be left out


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


def unmarked(text: str) -> str:
    """A template file as the hook leaves it when every part is kept: the `# part:` markers gone, and the lines of
    the template's own part (`# part: template`, never generated)."""
    lines = [line for line in text.splitlines(keepends=True) if not line.rstrip().endswith("# part: template")]
    lines = [line for line in lines if not line.strip().startswith("# part:")]
    kept = "".join(re.sub(r"\s*# part: \w+(, \w+)*\s*$", "\n", line) for line in lines)
    return re.sub(r"\n{4,}", "\n\n\n", kept).rstrip("\n") + "\n"


def uncited(text: str) -> str:
    """A file with the hook's citations undone: runkit's guides and modules where the template has them (lib/), and
    a file only the template has named as it is."""
    text = text.replace("the template's ", "").replace("lib/docs/", "docs/").replace("lib/runkit/", "runkit/")
    return text.replace("lib/README.md", "docs/runkit.md")


def imports_every_module(project: Path) -> subprocess.CompletedProcess:
    """Import every module of the generated package: a file that needs a removed part fails here."""
    code = (
        "import importlib, pkgutil, project\n"
        "for m in pkgutil.walk_packages(project.__path__, 'project.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
    )
    return python(project, "-c", code)


def extras_for(kept: str) -> dict[str, str]:
    """The LSTM-alone project also leaves out the optional parts, and the GCN-alone project the tasks beyond
    multiclass and the molecules, so that their removal is tested too (the CNN-alone project keeps multilabel, the
    LSTM-alone one regression: what stays when a family goes is tested as well)."""
    if kept == "lstm":
        return {"include_notebooks": "no", "include_github_actions": "no"}
    if kept == "gcn":
        return {"include_multilabel": "no", "include_regression": "no", "include_molecules": "no"}
    return {}


# What of a one-family project's own suite runs here: what the template's suite, running beside it, does not test
# already. Its test files are the template's less their markers, run there against every family; what differs is
# the package, less the other parts' files, and the files the hook cut or rewrote. So every test module collects
# (imports, fixtures and parameters over the families left), and these run: the notebooks (cells cut with their
# parts), the README's commands, the layers, the CLI over the registry that is left.
OWN_SUITE = ["notebooks", "tests/test_readme.py", "tests/test_layers.py", "tests/cli", "tests/test_references.py"]


@pytest.fixture(scope="module")
def alone(template, tmp_path_factory) -> Iterator[dict[str, tuple[Path, subprocess.Popen, Path]]]:
    """One project per family kept alone, each already collecting its whole suite and running `OWN_SUITE`.

    The three run side by side, one thread each (two cores here), while the tests below check the projects'
    files; each test then waits for its project's run.
    """
    runs = {}
    for kept in FAMILIES:
        others = {f"include_{f}": "no" for f in FAMILIES if f != kept}
        project = generate(template, tmp_path_factory.mktemp(kept), **others, **extras_for(kept))
        log = project.parent / "pytest.log"
        pytest_ = f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
        own = [p for p in OWN_SUITE if (project / p).exists()]  # an LSTM-only project has no notebooks
        command = f"{pytest_} --collect-only && {pytest_} -x --tb=short --disable-warnings -m 'not slow' "
        command += " ".join(own)
        with open(log, "w") as out:
            env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            runs[kept] = (
                project,
                subprocess.Popen(["sh", "-c", command], cwd=project, stdout=out, stderr=subprocess.STDOUT, env=env),
                log,
            )
    yield runs
    for _, process, _ in runs.values():
        if process.poll() is None:
            process.kill()


@pytest.mark.slow
def test_default_project_is_named_complete_and_passes_its_own_tests(template, alone, tmp_path):
    # `alone` only to start the family-alone projects' suites first: they run in the background meanwhile.
    project = generate(template, tmp_path)
    assert project.name == "bird_songs"
    assert (project / "README.md").read_text().startswith("# Bird Songs\n\nClassifies bird songs.")
    pyproject = (project / "pyproject.toml").read_text()
    assert 'name = "bird_songs"' in pyproject and 'authors = [{ name = "A. Tester" }]' in pyproject
    for left_out in ("logs", "data", ".venv", "hooks", "cookiecutter.json", "lib", *PARTS["template_only"]):
        assert not (project / left_out).exists(), left_out
    # runkit, as a wheel the Makefile installs, in the version range the project asks for
    assert [p.name for p in (project / "vendor").iterdir()] == [
        f"lightning_runkit-{runkit.__version__}-py3-none-any.whl"
    ]
    assert '"lightning-runkit>=0.3.2,<0.4"' in pyproject and "--find-links vendor" in (project / "Makefile").read_text()
    assert not list(project.rglob("__pycache__"))
    assert (project / ".github/workflows/tests.yml").is_file() and (project / "notebooks/01_quickstart.ipynb").is_file()
    assert not any("# part:" in text for text in text_files(project).values())
    # The project's own package, not this repository's, is what runs there.
    where = python(project, "-c", "import project; print(project.__file__)").stdout
    assert Path(where.strip()).is_relative_to(project)
    # With every part kept, each file is the template's own, less its markers: its full suite is the template's,
    # which runs beside this test. The hook rewrites only the files it names, and what cites runkit's files (as the
    # installed library has them) or the template's own; the guides are checked by what they cite
    # (tests/test_references.py, in the project's suite).
    rewritten = {"README.md", "pyproject.toml", "Makefile", "project/__init__.py"}
    for path in project.rglob("*"):
        name = str(path.relative_to(project))
        if path.is_file() and name not in rewritten and not name.endswith((".ipynb", ".whl", ".md")):
            assert uncited(path.read_text()) == uncited(unmarked((template / name).read_text())), name
    runkits = sorted(p.name for p in (template / "lib" / "docs").glob("*.md"))
    assert [(project / "docs" / name).read_text() for name in runkits] == [
        (template / "lib" / "docs" / name).read_text() for name in runkits
    ]
    lint(project)
    tests = python(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_readme.py")
    assert tests.returncode == 0, tests.stdout[-3000:]  # the generated README's own commands
    fit = python(project, "-m", "project.fit", "--model", "lstm", "--trainer.fast_dev_run", "1")
    assert fit.returncode == 0 and "fast_dev_run finished" in fit.stdout, fit.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("kept", FAMILIES)
def test_each_family_alone_is_a_whole_project_that_passes_its_own_tests(alone, kept):
    """A project with one family: nothing of the others left, every module imports, every test collects, and what
    its suite tests beyond the template's passes (`OWN_SUITE`)."""
    project, suite, log = alone[kept]
    extras = extras_for(kept)
    excluded = [f for f in FAMILIES if f != kept] + [name.removeprefix("include_") for name in extras]
    for name in excluded:
        part = PARTS[name]
        assert not [p for p in part["paths"] if (project / p).exists()], name
        assert not [n for n in part["notebooks"] if list(project.rglob(f"{n}.*"))], name
        leftovers = [
            str(p.relative_to(project))
            for p, text in text_files(project).items()
            if p.suffix != ".md" and re.search(part["references"], text)
        ]
        assert leftovers == [], f"references to the excluded {name}: {leftovers}"
    optional = "include_notebooks" not in extras
    assert (project / "notebooks").exists() == optional and (project / ".github").exists() == optional
    lint(project)
    imported = imports_every_module(project)
    assert imported.returncode == 0, imported.stderr[-3000:]
    # the README names each guide the project has, and no other (what they cite: tests/test_references.py)
    readme = (project / "README.md").read_text()
    guides = sorted(str(p.relative_to(project)) for p in (project / "docs").glob("*.md"))
    assert sorted(set(re.findall(r"\]\((docs/[\w-]+\.md)", readme))) == guides
    unknown = python(project, "-m", "project.fit", "--model", excluded[0])
    assert unknown.returncode == 2 and kept in unknown.stderr
    assert suite.wait(timeout=900) == 0, log.read_text()[-4000:]
    assert re.search(r"\d+ passed", log.read_text())


def test_the_manifest_names_existing_paths_once():
    owned = [path for name, part in PARTS.items() if name not in ("template_only", *TASKS) for path in part["paths"]]
    owned += PARTS["template_only"]
    assert len(owned) == len(set(owned)), "a path belongs to two parts"
    # A task's paths are its own, or its family's too (they go when either is left out).
    for task in TASKS:
        assert [p for p in PARTS[task]["paths"] if owned.count(p) > 1] == []
    owned += [path for task in TASKS for path in PARTS[task]["paths"]]
    assert [p for p in owned if not (REPO / p).exists()] == []
    for name in FAMILIES:
        assert all((REPO / "notebooks" / "cells" / f"{n}.py").is_file() for n in PARTS[name]["notebooks"])
    # Every family-specific folder of the package and the tests belongs to exactly one family; the tests of the
    # package's rooms (tests/cli/, tests/checkpoints/...) are shared, as those rooms are.
    packages = [*(REPO / "project").iterdir(), *(REPO / "lib" / "runkit").iterdir()]  # runkit's rooms' tests too
    rooms = {f"tests/{p.name}/" for p in packages if (p / "__init__.py").is_file()}
    for parent in ("project/data", "tests"):
        folders = {
            f"{p.relative_to(REPO)}/" for p in (REPO / parent).iterdir() if p.is_dir() and p.name != "__pycache__"
        }
        shared = rooms if parent == "tests" else set()
        assert folders - shared <= set(owned), f"{parent}: folders that no part owns: {folders - shared - set(owned)}"


def test_questions_and_hooks_are_well_formed():
    questions = json.loads((REPO / "cookiecutter.json").read_text())
    for part in (*FAMILIES, *TASKS):
        assert questions[f"include_{part}"] == ["yes", "no"]
    assert questions["_copy_without_render"] == ["*"]  # no Jinja inside the project's own files
    for hook in (REPO / "hooks").glob("*.py"):
        assert 'if __name__ == "__main__":' in hook.read_text(), hook


@pytest.mark.slow
def test_a_generated_project_upgrades_its_runkit_in_one_command_and_passes_its_tests_again(template, tmp_path):
    """`make upgrade-runkit TEMPLATE=...` builds the newer template's runkit into vendor/ and installs it; here into
    a venv of the project's own in front of this one's packages (so this environment's runkit stays), as `make setup`
    would have made it. An older runkit than the code needs stops the project's commands in one line."""
    project = generate(template, tmp_path / "out", include_lstm="no", include_gcn="no")
    major, minor, patch = runkit._release(runkit.__version__)
    bugfix, next_minor = f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.0"
    newer = tmp_path / "newer"  # the template a release later: runkit's next bugfix
    shutil.copytree(template / "lib", newer / "lib", ignore=shutil.ignore_patterns("*.egg-info", "build"))
    init = newer / "lib" / "runkit" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{runkit.__version__}"', f'__version__ = "{bugfix}"'))
    guide = newer / "lib" / "docs" / "sweeps.md"  # and its guides, as they describe the bugfix
    guide.write_text(guide.read_text() + f"\nChanged in {bugfix}: see [trackers](trackers.md).\n")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    bin_ = venv / "bin"
    # this environment's packages behind the venv's own (a path in a .pth file comes after the venv's site-packages)
    where = subprocess.run([bin_ / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    (Path(where.stdout.strip()) / "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    upgrade = ["make", "upgrade-runkit", f"TEMPLATE={newer}", f"BIN={bin_}", f"STAMP={project / 'Makefile'}"]
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's runkit, not a checkout's
    made = subprocess.run(upgrade, cwd=project, capture_output=True, text=True, timeout=600, env=alone)
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    assert [p.name for p in (project / "vendor").iterdir()] == [f"lightning_runkit-{bugfix}-py3-none-any.whl"]
    assert (project / "docs" / "sweeps.md").read_text() == guide.read_text()
    assert "](sweeps.md)" in (project / "docs" / "runkit.md").read_text()  # its README, linking the guides beside it

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [bin_ / "python", *args], cwd=project, capture_output=True, text=True, timeout=600, env=alone
        )

    assert run("-c", "import runkit; print(runkit.__version__)").stdout.strip() == bugfix
    tests = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_layers.py", "tests/test_references.py")
    assert tests.returncode == 0 and re.search(r"\d+ passed", tests.stdout), tests.stdout[-3000:]
    fit = run("-m", "project.fit", "--model", "cnn", "--trainer.fast_dev_run", "1")
    assert fit.returncode == 0 and "fast_dev_run finished" in fit.stdout, fit.stderr[-3000:]
    # code that needs a newer runkit than the one installed: one line, both versions, the upgrade command
    code = project / "project" / "__init__.py"
    code.write_text(re.sub(r'RUNKIT = "[\d.]+"', f'RUNKIT = "{next_minor}"', code.read_text()))
    stopped = run("-m", "project.fit", "--model", "cnn", "--trainer.fast_dev_run", "1")
    assert stopped.returncode == 1 and stopped.stdout == ""
    needs = f"runkit {bugfix} is installed, and this project needs {next_minor} or newer"
    assert stopped.stderr.strip() == f"{needs}: make upgrade-runkit"
    assert f"\nTEMPLATE ?= {template}\n" in (project / "Makefile").read_text()  # the checkout it came from
