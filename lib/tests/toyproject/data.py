"""Generated blobs: one Gaussian cloud per class, each point labelled by its cloud."""

import torch
from runkit import BaseDataModule
from torch.utils.data import TensorDataset


def blobs(samples: int, classes: int, features: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`samples` points around `classes` seeded centres; their class is their centre's index."""
    generator = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, features, generator=generator)
    labels = torch.randint(classes, (samples,), generator=generator)
    return centres[labels] + torch.randn(samples, features, generator=generator), labels


class BlobsDataModule(BaseDataModule):
    """Train, validation and test blobs from one seed (test and predict share the test points)."""

    request_reader = "toyproject.serving.PointsReader"

    def __init__(
        self,
        num_train: int = 512,
        num_val: int = 128,
        num_classes: int = 4,
        in_features: int = 8,
        seed: int = 0,
        batch_size: int = 32,
        num_workers: int = 0,
    ) -> None:
        super().__init__(batch_size, num_workers)
        self.num_train, self.num_val = num_train, num_val
        self.num_classes, self.in_features, self.seed = num_classes, in_features, seed
        self.class_names = [f"blob{i}" for i in range(num_classes)]

    def setup(self, stage: str | None = None) -> None:
        points, labels = blobs(self.num_train + 2 * self.num_val, self.num_classes, self.in_features, self.seed)
        train, val = self.num_train, self.num_train + self.num_val
        self.train_set = TensorDataset(points[:train], labels[:train])
        self.val_set = TensorDataset(points[train:val], labels[train:val])
        self.test_set = self.predict_set = TensorDataset(points[val:], labels[val:])
