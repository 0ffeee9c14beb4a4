"""Exact resume: a run killed with SIGKILL and resumed with `--ckpt_path last` ends with the same weights,
bit for bit, as a run never stopped. Real processes, through `python -m project.fit`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from project.checkpoint_io import read_checkpoint
from tests.conftest import FAMILIES, SMALL, TINY

ROOT = Path(__file__).resolve().parents[1]
PRESET = ROOT / "configs" / "presets" / "preemptible.yaml"

# Per family: epochs, and the steps at which a run is killed. Step checkpoints every 2 steps, so a kill
# at an odd step loses one step; the epochs are 8 (cnn), 3 (lstm) and 3 (gcn) steps long, so the kill
# points fall mid-epoch, on an epoch's last step and just after an epoch-end checkpoint.
PLAN = {
    "cnn": (3, [5, 13]),  # part: cnn
    "lstm": (4, [4, 9]),  # part: lstm
    "gcn": (4, [3, 7]),  # part: gcn
}
EXTRA = {"cnn": ["--data.num_train=512"]}  # part: cnn


def fit(family: str, cwd: Path, *args: str, expect: int = 0, timeout: float = 240) -> subprocess.CompletedProcess:
    """`python -m project.fit --model FAMILY` on small data, deterministic, in `cwd`."""
    command = [sys.executable, "-m", "project.fit", "--model", family, *TINY, *SMALL[family], *EXTRA.get(family, [])]
    command += ["--trainer.deterministic=true", f"--config={step_checkpoints(cwd)}", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == expect, f"exit {result.returncode}\n{result.stderr[-3000:]}"
    return result


def step_checkpoints(cwd: Path, every: int = 2) -> Path:
    """The preemptible preset, saving every `every` steps instead of 100."""
    config = yaml.safe_load(PRESET.read_text())
    config["trainer"]["callbacks+"][0]["init_args"]["every_n_train_steps"] = every
    path = cwd / "preemptible.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def killed_at(cwd: Path, step: int, signal_name: str = "SIGKILL") -> Path:
    """A config that adds a SignalAt callback."""
    path = cwd / f"kill_{step}.yaml"
    callback = {"class_path": "tests.signal_at.SignalAt", "init_args": {"step": step, "signal": signal_name}}
    path.write_text(yaml.safe_dump({"trainer": {"callbacks+": [callback]}}))
    return path


def weights(cwd: Path, family: str) -> dict[str, torch.Tensor]:
    ckpt = read_checkpoint(cwd / "logs" / family / "version_0" / "checkpoints" / "last.ckpt")
    return ckpt["state_dict"]


def global_step(cwd: Path, family: str) -> int:
    return read_checkpoint(cwd / "logs" / family / "version_0" / "checkpoints" / "last.ckpt")["global_step"]


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_killed_and_resumed_run_equals_an_uninterrupted_one(tmp_path, family):
    epochs, kills = PLAN[family]
    reference = tmp_path / "reference"
    reference.mkdir()
    fit(family, reference, f"--trainer.max_epochs={epochs}")
    expected = weights(reference, family)

    run = tmp_path / "killed"
    run.mkdir()
    done = 0
    for step in kills:  # killed at each step in turn, resumed each time
        resume = ["--ckpt_path=last"] if done else []
        fit(family, run, f"--trainer.max_epochs={epochs}", f"--config={killed_at(run, step)}", *resume, expect=-9)
        done = global_step(run, family)
        assert done in (step - 1, step), f"killed at step {step}, last.ckpt is at step {done}"
    fit(family, run, f"--trainer.max_epochs={epochs}", "--ckpt_path=last")

    resumed = weights(run, family)
    assert resumed.keys() == expected.keys()
    different = [name for name in expected if not torch.equal(expected[name], resumed[name])]
    assert not different, f"after resuming, these differ from the uninterrupted run: {different}"
    assert sorted(p.name for p in (run / "logs" / family).iterdir()) == ["version_0"]  # one run, continued
