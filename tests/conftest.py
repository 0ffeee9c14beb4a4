"""Shared fixtures: every test runs in its own folder, and composes real configs shrunk to seconds."""

import pytest

from project.cli import build

# A run of a few seconds on the real configs: small data, no progress bar, no sanity check.
TINY = (
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.num_sanity_val_steps=0",
)

# Each family's default task, shrunk to seconds of training.
SMALL = {
    "cnn": ["--data.num_train=256", "--data.num_val=64"],
    "lstm": ["--data.synthetic_samples=300", "--model.net.hidden_size=16"],
    "gcn": ["--data.num_graphs=300"],
}


@pytest.fixture(autouse=True)
def _run_in_tmp(tmp_path, monkeypatch):
    # The configs write logs/ and data/ relative to the working directory.
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def build_cnn():
    """`build_cnn(*overrides)`: the CNN config on small data, as `project.fit --model cnn` would build it."""

    def _build(*overrides: str):
        return build("cnn", *TINY, "--data.num_train=512", "--data.num_val=256", "--data.num_test=256", *overrides)

    return _build
