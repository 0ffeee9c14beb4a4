"""SIGTERM and Ctrl-C: the run saves last.ckpt at a step boundary, exits 143 / 130, and `--ckpt_path last`
continues it; in one process and under 2-process DDP, every wait bounded."""

import signal
import subprocess
import time
from pathlib import Path

import pytest
from runkit.callbacks.run_status import read_status
from runkit.checkpoints.io import read_checkpoint
from runkit.testing import differing, signal_at

from conftest import ENV, TOY
from processes import DDP, fit, fit_command, last_checkpoint

LONG = "--trainer.max_epochs=1000"  # runs until a signal stops it
WAIT = 120  # seconds: the longest any run or stop may take before the test fails instead of hanging


def start(cwd: Path, *args: str) -> subprocess.Popen:
    # Its own session, so a signal to its process group never reaches pytest.
    command = fit_command(cwd, *args)
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    return subprocess.Popen(command, cwd=cwd, env=ENV, start_new_session=True, **pipes)


def wait_for(path: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        assert process.poll() is None, f"the run ended before writing {path}:\n{process.stderr.read()[-3000:]}"
        assert time.monotonic() < deadline, f"no {path} after {WAIT} s"
        time.sleep(0.2)


def stopped(process: subprocess.Popen) -> tuple[int, str]:
    """Its exit code, and what it wrote: stderr, then stdout (the fit summary)."""
    try:
        stdout, stderr = process.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"the run did not stop within {WAIT} s of the signal")
    return process.returncode, stderr + stdout


def resumes(cwd: Path, saved_step: int, *args: str) -> None:
    """`--ckpt_path last` picks up at `saved_step` and trains on."""
    epoch = last_checkpoint(cwd)["epoch"]
    result = fit(cwd, *args, f"--trainer.max_epochs={epoch + 2}", "--ckpt_path=last", timeout=WAIT)
    assert f"resuming logs/{TOY}/version_0/checkpoints/last.ckpt" in result.stderr
    assert last_checkpoint(cwd)["global_step"] > saved_step


@pytest.mark.slow
@pytest.mark.parametrize("ddp", [False, True], ids=["one-process", "ddp-2"])
def test_sigterm_from_outside_saves_and_exits_143(tmp_path, ddp):
    """As a scheduler or `kill PID` sends it: to the main process only (under DDP, rank 0)."""
    extra = list(DDP) if ddp else []
    process = start(tmp_path, LONG, *extra)
    wait_for(tmp_path / "logs" / TOY / "version_0" / "checkpoints" / "last.ckpt", process)
    process.send_signal(signal.SIGTERM)
    code, stderr = stopped(process)
    assert code == 143, stderr[-3000:]
    saved = last_checkpoint(tmp_path)["global_step"]
    assert f"SIGTERM: saved logs/{TOY}/version_0/checkpoints/last.ckpt at step {saved}" in stderr
    assert "Fit stopped.\n  stopped by SIGTERM at step" in stderr and "resume with --ckpt_path last" in stderr
    assert not list(tmp_path.rglob(".writing-*"))  # no half-written file left behind
    status = read_status(tmp_path / "logs" / TOY / "version_0")  # what `runs` shows
    assert status["status"] == "stopped by a signal" and status["attempts"] == 1
    resumes(tmp_path, saved, *extra)
    assert read_status(tmp_path / "logs" / TOY / "version_0")["attempts"] == 2  # one run, resumed


@pytest.mark.slow
def test_ctrl_c_under_ddp_reaches_every_process_and_exits_130(tmp_path):
    """A terminal's Ctrl-C signals the whole process group: both ranks at once."""
    process = start(tmp_path, LONG, *DDP, signal_at(tmp_path, step=7, signal="SIGINT", group=True))
    code, stderr = stopped(process)
    assert code == 130, stderr[-3000:]
    saved = last_checkpoint(tmp_path)["global_step"]
    assert saved == 8, f"Ctrl-C at step 7 should save after step 8 (the next step boundary), saved {saved}"
    resumes(tmp_path, saved, *DDP)


@pytest.mark.slow
def test_ctrl_c_then_resume_equals_an_uninterrupted_run(tmp_path):
    reference, run = tmp_path / "reference", tmp_path / "interrupted"
    reference.mkdir(), run.mkdir()
    fit(reference, "--trainer.max_epochs=4")
    result = fit(run, "--trainer.max_epochs=4", signal_at(run, step=4, signal="SIGINT"), expect=130)
    assert "SIGINT received: stopping after this step" in result.stderr
    fit(run, "--trainer.max_epochs=4", "--ckpt_path=last")
    expected = read_checkpoint(reference / "logs" / TOY / "version_0" / "checkpoints" / "last.ckpt")
    assert not differing(expected["state_dict"], last_checkpoint(run)["state_dict"])
