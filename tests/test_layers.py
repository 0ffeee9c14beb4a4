"""The rooms of project/ import downwards only, in the order docs/design.md ("Layers") writes down: read from
the source's imports (those inside functions too), so a new import that breaks the order, or a cycle between
two rooms, fails here with the file and line; and no two modules import each other, even for type hints only."""

import ast
import graphlib
from pathlib import Path

import runkit

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


def room_of(path: Path, package: Path) -> str:
    parts = path.relative_to(package).parts
    if len(parts) > 1:
        return parts[0]
    return path.stem if path.stem in TOP_MODULES else "entries"


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted name) for every absolute import in `path`, however deep or lazy: `a.b.c` for both
    `import a.b.c` and `from a.b import c`. The one walker the checks below read."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def imported_rooms(path: Path, package_name: str) -> list[tuple[int, str]]:
    """(line, room) for every import of `package_name.ROOM...`."""
    return [(line, name.split(".")[1]) for line, name in imports(path) if name.startswith(f"{package_name}.")]


def violations(package: Path) -> list[str]:
    """Each import of a room that comes later in LAYERS than the importing module's own."""
    found = []
    for path in sorted(package.rglob("*.py")):
        own = room_of(path, package)
        for line, target in imported_rooms(path, package.name):
            target = target if target in LAYERS else "entries"
            if own not in LAYERS:
                found.append(f"{path.relative_to(package)}: room {own!r} is not in LAYERS (tests/test_layers.py)")
            elif LAYERS.index(target) > LAYERS.index(own):
                found.append(f"{path.relative_to(package)}:{line}: {own} imports {target}, which sits above it")
    return found


def test_every_room_imports_only_the_rooms_below_it():
    assert violations(PACKAGE) == []


def test_every_room_of_the_package_is_placed():
    rooms = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert rooms - set(LAYERS) == set(), "a new room: place it in LAYERS and in docs/design.md"


def test_the_registry_and_the_cli_sit_at_the_top_beside_the_thin_commands():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    commands = {"fit", "sweep", "repeat", "runs", "doctor", "lr_find", "export", "serve"}
    assert top - commands == TOP_MODULES
    for name in commands:  # each a few lines that hand over to its room
        assert len((PACKAGE / f"{name}.py").read_text().splitlines()) <= 14, name


def test_the_check_finds_an_upward_import_which_every_cycle_between_rooms_needs(tmp_path):
    package = tmp_path / "project"
    for room in ("nets", "cli"):
        (package / room).mkdir(parents=True)
        (package / room / "__init__.py").write_text("")
    (package / "nets" / "net.py").write_text("def f():\n    from project.cli import main\n")  # up, lazily
    (package / "cli" / "main.py").write_text("import project.nets.net\n")  # down: allowed
    assert violations(package) == ["nets/net.py:2: nets imports cli, which sits above it"]


def module_cycle(package: Path) -> list[str]:
    """A cycle of modules importing each other (by any import, however deep or lazy), or []."""
    modules = {}
    for path in package.rglob("*.py"):
        modules[".".join(path.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__")] = path
    graph = {}
    for name, path in modules.items():
        # `from a.b import c` imports module a.b.c where there is one, else a.b
        found = {name if name in modules else name.rpartition(".")[0] for _, name in imports(path)}
        graph[name] = {m for m in found if m in modules and m != name}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return []


def test_no_two_modules_import_each_other():
    assert module_cycle(PACKAGE) == []


def test_the_check_finds_a_cycle_through_a_type_hint_only_import(tmp_path):
    package = tmp_path / "project"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "data" / "__init__.py").write_text("")
    (package / "data" / "a.py").write_text("from project.data.b import f\n")
    (package / "data" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from project.data.a import A\n"
    )
    assert sorted(set(module_cycle(package))) == ["project.data.a", "project.data.b"]


def runkit_imports(path: Path) -> list[tuple[int, str]]:
    """(line, what) for every import of runkit in `path`: NAME for `from runkit import NAME`, `compat.X` for
    `from runkit.compat import X`, "" for `import runkit`."""
    return [
        (line, name.removeprefix("runkit").lstrip("."))
        for line, name in imports(path)
        if name.split(".")[0] == "runkit"
    ]


def test_the_rooms_a_user_edits_import_only_runkits_public_names(tmp_path):
    inside = tmp_path / "net.py"
    inside.write_text("from runkit import ConfigError\nfrom runkit.compat import unbias\n")
    assert runkit_imports(inside) == [(1, "ConfigError"), (2, "compat.unbias")]  # the second is refused below
    outside = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        outside += [
            f"{name}:{line}: {what}" for line, what in runkit_imports(path) if what not in {*runkit.__all__, ""}
        ]
    assert outside == [], "not in runkit.__all__ (lib/runkit/__init__.py): export it there, or import what is"


def test_runkit_never_imports_the_project():
    library = Path(runkit.__file__).resolve().parent
    found = [
        f"{p.relative_to(library)}:{line}" for p in library.rglob("*.py") for line, _ in imported_rooms(p, "project")
    ]
    assert found == []


def test_the_project_needs_the_runkit_its_pyproject_asks_for():
    import re

    pyproject = (PACKAGE.parent / "pyproject.toml").read_text()
    asked = re.search(r'"lightning-runkit>=([\d.]+),<([\d.]+)"', pyproject)
    assert asked and project.RUNKIT.startswith(asked[1]), "project.RUNKIT and pyproject.toml's range disagree"
    from packaging.version import Version

    assert Version(runkit.__version__) >= Version(project.RUNKIT)
