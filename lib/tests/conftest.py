"""The library's tests run on a project of their own (toyproject/: one small family), each in its own folder."""

import os

import pytest
import torch

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
