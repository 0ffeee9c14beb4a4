"""The rooms of project/ import downwards only, in the order the template's docs/design.md ("Layers") writes down:
read from the source's imports (those inside functions too), so a new import that breaks the order, or a cycle between
two rooms, fails here with the file and line; and no two modules import each other, even for type hints only.
The checks are runkit's (runkit/testing/layers.py); the order is this project's."""

from pathlib import Path

import runkit
from runkit.testing.layers import module_cycle, outside_public_api, violations

import project

PACKAGE = Path(project.__file__).resolve().parent
# Lowest first. A module may import its own room and any room before it; `entries` are the thin commands at
# the top of project/ (fit, sweep, doctor...), which nothing imports.
LAYERS = [
    "nets", "data", "models",  # the rooms a user edits (the tasks, TaskModule and a run's machinery are runkit's)
    "registry", "cli",  # the model families `--model NAME` knows, and runkit's command line bound to them
    "serving",  # how a request for each kind of data is read (runkit serves it)
    "entries",
]  # fmt: skip
TOP_MODULES = {"registry", "cli"}  # beside the thin commands at the top of project/


def test_every_room_imports_only_the_rooms_below_it():
    assert violations(PACKAGE, LAYERS, TOP_MODULES) == []


def test_every_room_of_the_package_is_placed():
    rooms = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert rooms - set(LAYERS) == set(), "a new room: place it in LAYERS and in the template's docs/design.md"


def test_the_registry_and_the_cli_sit_at_the_top_beside_the_thin_commands():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    commands = {"fit", "sweep", "repeat", "runs", "doctor", "lr_find", "export", "serve"}
    assert top - commands == TOP_MODULES
    for name in commands:  # each a few lines that hand over to its room
        assert len((PACKAGE / f"{name}.py").read_text().splitlines()) <= 14, name


def test_no_two_modules_import_each_other():
    assert module_cycle(PACKAGE) == []


def test_the_rooms_a_user_edits_import_only_runkits_public_names():
    assert outside_public_api(PACKAGE) == [], "not in runkit.__all__ (runkit/__init__.py): export it, or import what is"


def test_the_project_needs_the_runkit_its_pyproject_asks_for():
    import re

    pyproject = (PACKAGE.parent / "pyproject.toml").read_text()
    asked = re.search(r'"lightning-runkit>=([\d.]+),<([\d.]+)"', pyproject)
    assert asked and project.RUNKIT.startswith(asked[1]), "project.RUNKIT and pyproject.toml's range disagree"
    from packaging.version import Version

    assert Version(runkit.__version__) >= Version(project.RUNKIT)
