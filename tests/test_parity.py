"""The template does the same arithmetic as a hand-written loop: bitwise-equal weights on the CPU."""

import pytest
import torch
from runkit.callbacks.precise_batchnorm import precise_batchnorm_images

from benchmarks.parity import BARE
from benchmarks.raw_loop import raw_fit
from project.cli import build
from tests.conftest import FAMILIES, SMALL


@pytest.mark.parametrize("family", FAMILIES)
def test_trainer_and_raw_loop_reach_identical_weights(family):
    args = [*BARE, *SMALL[family], "--trainer.max_epochs=2"]
    lightning = build(family, *args)
    lightning.trainer.fit(lightning.model, lightning.datamodule)
    raw = build(family, *args)
    images = precise_batchnorm_images(raw.trainer)
    raw_fit(raw.model, raw.datamodule, epochs=2, clip=raw.trainer.gradient_clip_val, batchnorm_images=images)
    assert lightning.trainer.global_step > 2
    trained, by_hand = lightning.model.state_dict(), raw.model.state_dict()
    assert trained.keys() == by_hand.keys()
    for name, value in trained.items():
        assert torch.equal(value, by_hand[name]), f"{family}: {name} differs"
