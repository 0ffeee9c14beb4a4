"""Training runs as real processes (`python -m project.fit`), for the resume, signal and DDP tests."""

import os
import subprocess
import sys
from pathlib import Path

import yaml
from runkit.checkpoints.io import read_checkpoint
from runkit.testing import differing, signal_at  # noqa: F401 (the tests' names for them)

from tests.conftest import SMALL, TINY, python

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ROOT / "configs" / "presets"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # this project's package, in every process
ENV.pop("WANDB_SERVICE", None)  # a W&B service of this test process is not the child's (tests/conftest.py: python)


def fit_command(family: str, cwd: Path, *args: str, every: int = 2) -> list[str]:
    """Small data, deterministic kernels, last.ckpt every `every` steps."""
    return [
        sys.executable, "-m", "project.fit", "--model", family, *TINY, *SMALL[family],
        "--trainer.deterministic=true", f"--config={step_checkpoints(cwd, every)}", *args,
    ]  # fmt: skip


def fit(family: str, cwd: Path, *args: str, expect: int = 0, timeout: float = 240) -> subprocess.CompletedProcess:
    command = fit_command(family, cwd, *args)
    result = python(*command[1:], cwd=cwd, timeout=timeout)
    assert result.returncode == expect, f"exit {result.returncode}, expected {expect}\n{result.stderr[-3000:]}"
    return result


def step_checkpoints(cwd: Path, every: int) -> Path:
    """configs/presets/preemptible.yaml, saving every `every` steps instead of 100."""
    config = yaml.safe_load((PRESETS / "preemptible.yaml").read_text())
    config["trainer"]["callbacks+"][0]["init_args"]["every_n_train_steps"] = every
    path = cwd / f"preemptible_{every}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def last_checkpoint(cwd: Path, family: str) -> dict:
    return read_checkpoint(cwd / "logs" / family / "version_0" / "checkpoints" / "last.ckpt")
