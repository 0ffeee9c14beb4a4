"""A served checkpoint for the tests: a few steps of training, saved where serving and `predict` read it."""

from pathlib import Path
from typing import Any

from runkit.testing.serving import fit_and_save

from project.cli import build
from tests.conftest import TINY


def trained(model: str, *args: str) -> tuple[Any, Path]:
    """A few steps of `model`, saved in its run folder beside the config.yaml that serving and `predict` read."""
    cli = build(model, *TINY, *args, "--trainer.max_steps=3", "--trainer.limit_val_batches=1")
    return cli, fit_and_save(cli)
