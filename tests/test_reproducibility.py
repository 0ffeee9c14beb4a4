"""One seed, one result: bitwise-equal weights for every family, yet fresh augmentations every epoch."""

import lightning.pytorch as L
import pytest
import torch
from torch.utils.data import Dataset

from project.cli import build
from project.data.images import ShapesDataModule
from tests.conftest import SMALL, TINY


@pytest.mark.parametrize("family", ["cnn", "lstm", "gcn"])
def test_same_seed_same_weights(family):
    runs = []
    for _ in range(2):
        cli = build(family, *TINY, *SMALL[family], "--trainer.max_steps=6")
        cli.trainer.fit(cli.model, datamodule=cli.datamodule)
        runs.append(cli.model.state_dict())
    assert runs[0].keys() == runs[1].keys()
    for name, value in runs[0].items():
        assert torch.equal(value, runs[1][name]), f"{family}: {name} differs between two runs with one seed"


class Indexed(Dataset):
    """The training set's (augmented image, label) with its index, to follow one sample across epochs."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, i: int) -> tuple[int, torch.Tensor]:
        return i, self.dataset[i][0]


def augmented_epochs(seed: int, epochs: int = 2) -> list[dict[int, torch.Tensor]]:
    L.seed_everything(seed, workers=True)  # what `seed_everything: 42` in the config does
    data = ShapesDataModule(data_dir="data", num_train=64, num_val=16, num_test=16, batch_size=16, num_workers=2)
    data.prepare_data()
    data.setup("fit")
    loader = data._loader(Indexed(data.train_set), train=True)  # the real loader: workers, shuffling
    seen = []
    for _ in range(epochs):
        seen.append({int(i): image for index, images in loader for i, image in zip(index, images, strict=True)})
    return seen


def test_augmentations_change_every_epoch_and_repeat_with_the_seed():
    first, second = augmented_epochs(seed=3)
    changed = sum(not torch.equal(first[i], second[i]) for i in first)
    assert changed > 0.6 * len(first)  # crop offset and flip: most samples differ from one epoch to the next
    again, _ = augmented_epochs(seed=3)
    assert all(torch.equal(first[i], again[i]) for i in first)  # and the seed repeats them
