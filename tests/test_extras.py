"""Each optional feature's pip command (runkit's extras) installs what this project's pyproject.toml lists for it."""

import re

from runkit import extras

from tests.conftest import ROOT


def test_each_extras_pip_command_installs_what_pyproject_lists_for_it():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for extra, packages in extras.EXTRAS.items():
        line = re.search(rf"^{extra} = \[(.*)\]", pyproject, re.M)
        assert line, f"pyproject.toml lists no '{extra}' extra"
        assert [re.split(r"[<>=\[]", p.strip(' "'))[0] for p in line.group(1).split(",")] == list(packages), extra
