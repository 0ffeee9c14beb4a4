"""A project whose installed runkit is older than its code needs stops at start, in one line."""

import pytest
import runkit


def test_an_older_runkit_stops_with_both_versions_and_the_upgrade_command():
    runkit.require_version(runkit.__version__, upgrade="make setup")  # as new as needed: nothing happens
    with pytest.raises(SystemExit) as stopped:
        runkit.require_version("99.0", upgrade="make upgrade-runkit TEMPLATE=../template")
    line = str(stopped.value)
    assert "\n" not in line and runkit.__version__ in line and "99.0" in line
    assert line.endswith("make upgrade-runkit TEMPLATE=../template")


def test_versions_are_ordered_by_their_numbers_not_as_strings():
    assert runkit._release("0.10") > runkit._release("0.9.3")
    assert runkit._release("0.1") == runkit._release("0.1.0") == runkit._release("0.1.0rc1")
    assert runkit._release("1.0.0+local") < runkit._release("1.0.1")
