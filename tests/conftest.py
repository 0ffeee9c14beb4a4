"""Shared fixtures: every test runs in its own folder, and composes real configs shrunk to seconds."""

import functools
import os
from pathlib import Path

import pytest
import torch
from runkit.testing import Server

from project.registry import MODELS, REGISTRY

ROOT = Path(__file__).resolve().parents[1]

# `make test` runs one test process per CPU (pytest -n): each on one thread, and so are the runs it starts.
# Threads beyond the cores make OpenMP's workers wait on each other (the template's docs/design.md, "The test suite").
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    torch.set_num_threads(1)

# The model families this project has (a project generated without some has fewer): one multiclass model each,
# on which the engineering they all share is tested.
FAMILIES = REGISTRY.families()
# The models of the other tasks; with FAMILIES, what doctor, resume and DDP parity are tested on.
TASK_MODELS = [name for name in MODELS if name not in FAMILIES]

# A run of a few seconds on the real configs: small data, no progress bar, no sanity check.
TINY = (
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.num_sanity_val_steps=0",
    "--test_after_fit=false",  # tests/cli/test_cli.py tests it; elsewhere it would only add a test epoch to each run
    "--trainer.min_steps=null",  # a config's floor of steps (the CNN's 100) would outlast these shrunk runs
)

# Each model, shrunk to seconds of training: kept with its registry entry (project/registry.py).
SMALL = {name: list(entry.test_args) for name, entry in MODELS.items()}


# This test process's server of preloaded `python -m` children (runkit/testing/preloaded.py): it imports what every
# command imports before it reads its arguments (project.cli) and the libraries the runs load, once; the commands of
# this repository's packages are forked from it.
PRELOAD = ("lightning.pytorch", "project.cli", "torch.utils.tensorboard", "torchmetrics")
PRELOAD += ("torch_geometric",)  # part: gcn
PRELOADED = Server(ROOT, PRELOAD, forkable=("project", "benchmarks", "tests"))

# The longest modules, longest first (`--durations` of a full run). `make test` runs `--dist loadscope`: each module
# whole on one worker, handed out in collection order (`--no-loadscope-reorder`; xdist's own order is by test
# count, which put the scaffold's few long tests last, one worker busy for minutes while the other had nothing).
LONGEST_FIRST = (
    "tests/test_scaffold.py",  # part: template
    "lib/tests/test_sweeps.py",  # part: template
    "tests/checkpoints/test_resume.py",
    "tests/test_ddp.py",
    "tests/test_real_data_board.py",  # part: template
    "lib/tests/test_signals.py",  # part: template
    "lib/tests/test_trackers.py",  # part: template
    "tests/sweeps/test_sweep_runs.py",
    "tests/test_benchmarks.py",
    "tests/serving/test_answers.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(
        key=lambda item: rank.get(item.path.relative_to(ROOT).as_posix(), len(rank))
    )  # stable: the rest as they are


@pytest.fixture(autouse=True)
def _run_in_tmp(tmp_path, monkeypatch):
    # The configs write logs/ and data/ relative to the working directory.
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def build_small():
    """`build_small(*overrides)`: the first family's config on small data, as `project.fit` would build it."""

    from project.cli import build

    def _build(*overrides: str):
        return build(FAMILIES[0], *TINY, *SMALL[FAMILIES[0]], *overrides)

    return _build


python = PRELOADED.python  # `python(*args, cwd=..., env=...)`: a command as a user types it


python_m = functools.partial(python, "-m")  # `python_m(*args, cwd=..., env=...)`: `python -m ARGS`


run = PRELOADED.stdout_of  # `run(*args, cwd=...)`: `python -m ARGS` to its end, its stdout (exit 0 asserted)
