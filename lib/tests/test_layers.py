"""The layering checks a project runs on itself (runkit/testing/layers.py) find what they are for; and runkit never
imports a project."""

from pathlib import Path

import runkit
from runkit.testing.layers import imports, module_cycle, outside_public_api, runkit_imports, violations


def test_the_check_finds_an_upward_import_which_every_cycle_between_rooms_needs(tmp_path):
    package = tmp_path / "project"
    for room in ("nets", "cli"):
        (package / room).mkdir(parents=True)
        (package / room / "__init__.py").write_text("")
    (package / "nets" / "net.py").write_text("def f():\n    from project.cli import main\n")  # up, lazily
    (package / "cli" / "main.py").write_text("import project.nets.net\n")  # down: allowed
    assert violations(package, ["nets", "cli", "entries"]) == ["nets/net.py:2: nets imports cli, which sits above it"]


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


def test_an_import_of_runkit_beyond_its_public_names_is_found(tmp_path):
    package = tmp_path / "project"
    package.mkdir()
    (package / "net.py").write_text("from runkit import ConfigError\nfrom runkit.compat import unbias\n")
    assert runkit_imports(package / "net.py") == [(1, "ConfigError"), (2, "compat.unbias")]
    assert outside_public_api(package) == ["net.py:2: compat.unbias"]


def test_runkit_never_imports_a_project():
    library = Path(runkit.__file__).resolve().parent
    found = [
        f"{p.relative_to(library)}:{line}: {name}"
        for p in library.rglob("*.py")
        for line, name in imports(p)
        if name.split(".")[0] in ("project", "toyproject", "tests", "conftest")
    ]
    assert found == []
