"""Every command in the README's `bash` blocks parses, as written: a project command composes its config
(`--print_config`), `make` names a target of the Makefile, a tool exists. Nothing is trained here. (The checks:
runkit/testing/readme.py.)"""

import pytest
from runkit.testing.readme import bash_commands, parses

from project.cli import commands
from tests.conftest import ROOT

COMMANDS = bash_commands((ROOT / "README.md").read_text())


@pytest.mark.parametrize("command", COMMANDS)
def test_every_readme_command_parses(command, monkeypatch):
    monkeypatch.chdir(ROOT)  # as the README runs them: from the repository root (--print_config writes nothing)
    parses(command, ROOT, commands)


def test_the_readme_has_commands():
    assert len(COMMANDS) >= 5 and any("project.fit" in c for c in COMMANDS)
