"""One seed, one result: bitwise-equal weights for every family (fresh augmentations: test_data_images.py)."""

import pytest
import torch

from project.cli import build
from tests.conftest import FAMILIES, SMALL, TINY


@pytest.mark.parametrize("family", FAMILIES)
def test_same_seed_same_weights(family):
    runs = []
    for _ in range(2):
        cli = build(family, *TINY, *SMALL[family], "--trainer.max_steps=6")
        cli.trainer.fit(cli.model, datamodule=cli.datamodule)
        runs.append(cli.model.state_dict())
    assert runs[0].keys() == runs[1].keys()
    for name, value in runs[0].items():
        assert torch.equal(value, runs[1][name]), f"{family}: {name} differs between two runs with one seed"
