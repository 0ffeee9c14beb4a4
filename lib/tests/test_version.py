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
