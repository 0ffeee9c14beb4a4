"""A command forked from the preloaded server (runkit/testing/preloaded.py) is what the same `python -m` command is as a
real process: arguments, folder, environment, output, exit status; and a timeout still kills it."""

import os
import subprocess
import sys
import time

import pytest

from conftest import ENV, PRELOADED


def both(*args: str, cwd, env: dict[str, str] | None = None):
    env = {**ENV, **(env or {})}
    command = ("-m", "process_probe", *args)
    assert PRELOADED.serves(command, env)
    real = subprocess.run([sys.executable, *command], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    forked = PRELOADED.run(command, cwd=cwd, env=env, timeout=60)
    return real, forked


@pytest.mark.parametrize("args", [(), ("exit", "3"), ("raise",)])
def test_a_forked_command_prints_and_exits_as_a_real_one(tmp_path, args):
    real, forked = both(*args, cwd=tmp_path, env={"PROBE": "yes"})
    assert forked.returncode == real.returncode == {(): 0, ("exit", "3"): 3, ("raise",): 1}[args]
    assert forked.stdout == real.stdout and '"probe": "yes"' in real.stdout and str(tmp_path) in real.stdout
    assert forked.stderr.splitlines()[-1] == real.stderr.splitlines()[-1]
    assert "to stderr" in forked.stderr and ("ValueError: probe failed" in forked.stderr) == (args == ("raise",))


def test_a_forked_command_past_its_timeout_is_killed(tmp_path):
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        PRELOADED.run(
            ("-m", "process_probe", "sleep", "60"),
            cwd=tmp_path,
            env=ENV,
            timeout=2,
        )
    assert time.monotonic() - started < 20
    assert PRELOADED.run(("-m", "process_probe"), cwd=tmp_path, env=ENV, timeout=60).returncode == 0


def test_only_this_repositorys_modules_on_its_path_are_forked():
    env = ENV
    assert PRELOADED.serves(("-m", "toyproject.fit"), env)
    assert not PRELOADED.serves(("-m", "pytest"), env) and not PRELOADED.serves(("-c", "pass"), env)
    assert not PRELOADED.serves(("-m", "toyproject.fit"), {**env, "PYTHONPATH": "/elsewhere"})
    threads = os.environ.get("OMP_NUM_THREADS") == "3"
    assert PRELOADED.serves(("-m", "toyproject.fit"), {**env, "OMP_NUM_THREADS": "3"}) == threads
