"""A served checkpoint for the tests: a few steps of training, then the real server (runkit/serving/launch.py)."""

from pathlib import Path
from typing import Any

from runkit.serving.launch import served as serving  # noqa: F401 (the tests' name for it)
from runkit.testing.serving import ask_together  # noqa: F401

from project.cli import build
from tests.conftest import TINY


def trained(model: str, *args: str) -> tuple[Any, Path]:
    """A few steps of `model`, saved in its run folder beside the config.yaml that serving and `predict` read."""
    cli = build(model, *TINY, *args, "--trainer.max_steps=3", "--trainer.limit_val_batches=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    path = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(path)
    return cli, path
