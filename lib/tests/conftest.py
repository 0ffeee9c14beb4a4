"""The library's tests run on a project of their own (toyproject/: one small family), each in its own folder."""

import os
from pathlib import Path
from typing import Any

import pytest
import torch
from runkit.testing import Server
from runkit.testing.serving import fit_and_save

from postgres import postgres_server  # noqa: F401 (a fixture: a PostgreSQL server of the test's own)

# One test process per CPU (pytest -n), each on one thread: threads beyond the cores wait on each other.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    torch.set_num_threads(1)

# A run of a few seconds: no progress bar, no summary, no sanity check, no test after the fit.
TINY = (
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.num_sanity_val_steps=0",
    "--test_after_fit=false",
)
TOY = "toy"  # the toy project's family


@pytest.fixture(autouse=True)
def _run_in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # runs write logs/ relative to the working directory


@pytest.fixture
def build_small():
    """`build_small(*overrides)`: the toy family's config, as `python -m toyproject.fit` would build it."""
    from toyproject.cli import build

    return lambda *overrides: build(TOY, *TINY, *overrides)


HERE = Path(__file__).resolve().parent  # on PYTHONPATH: the toy project, and the probe of the preloaded server
ENV = {**os.environ, "PYTHONPATH": str(HERE)}
ENV.pop("WANDB_SERVICE", None)  # a W&B service of this test process is not a child's
PRELOADED = Server(
    HERE, ("lightning.pytorch", "toyproject.cli", "torchmetrics"), forkable=("toyproject", "process_probe")
)


python = PRELOADED.python  # `python(*args, cwd=..., env=...)`: a command as a user types it
run = PRELOADED.stdout_of  # `run(*args, cwd=...)`: `python -m ARGS` to its end, its stdout (exit 0 asserted)


def trained(*args: str) -> tuple[Any, Path]:
    """A few steps of the toy, saved in its run folder beside the config.yaml that serving and `predict` read."""
    from toyproject.cli import build

    cli = build(TOY, *TINY, *args, "--trainer.max_steps=3", "--trainer.limit_val_batches=1")
    return cli, fit_and_save(cli)
