"""The toy's training runs as real processes (`python -m toyproject.fit`), for the signal, sweep and tracker tests."""

import sys
from pathlib import Path

import yaml
from runkit.checkpoints.io import read_checkpoint

from conftest import TINY, TOY, python

DDP = ("--trainer.accelerator=cpu", "--trainer.devices=2", "--trainer.strategy=ddp")  # gloo, 2 processes


def fit_command(cwd: Path, *args: str, every: int = 2) -> list[str]:
    """Deterministic kernels, last.ckpt every `every` steps."""
    return [
        sys.executable, "-m", "toyproject.fit", "--model", TOY, *TINY,
        "--trainer.deterministic=true", f"--config={step_checkpoints(cwd, every)}", *args,
    ]  # fmt: skip


def fit(cwd: Path, *args: str, expect: int = 0, timeout: float = 240):
    result = python(*fit_command(cwd, *args)[1:], cwd=cwd, timeout=timeout)
    assert result.returncode == expect, f"exit {result.returncode}, expected {expect}\n{result.stderr[-3000:]}"
    return result


def step_checkpoints(cwd: Path, every: int) -> Path:
    """last.ckpt every `every` steps too, mid-epoch (as a project's presets/preemptible.yaml saves every 100)."""
    callback = {
        "class_path": "lightning.pytorch.callbacks.ModelCheckpoint",
        "init_args": {
            "every_n_train_steps": every,
            "save_top_k": 0,
            "save_last": True,
            "enable_version_counter": False,
        },
    }
    path = cwd / f"preemptible_{every}.yaml"
    path.write_text(yaml.safe_dump({"trainer": {"callbacks+": [callback]}}))
    return path


def last_checkpoint(cwd: Path) -> dict:
    return read_checkpoint(cwd / "logs" / TOY / "version_0" / "checkpoints" / "last.ckpt")
