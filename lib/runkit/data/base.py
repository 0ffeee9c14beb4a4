"""What every DataModule of the template shares: its loaders and the checks on them."""

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import lightning.pytorch as L
import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset, DistributedSampler, Sampler, SequentialSampler, Subset
from torchdata.stateful_dataloader import StatefulDataLoader

from runkit.data.offers import DataOffers
from runkit.data.sampling import EpochRandomSampler, loader_generator
from runkit.errors import ConfigError, DataError

log = logging.getLogger(__name__)


class BaseDataModule(L.LightningDataModule, DataOffers):
    """Loaders for `train_set`, `val_set`, `test_set` and `predict_set`, which subclasses fill in `setup`.

    Training shuffles (each epoch's order from the seed and the epoch alone, so it resumes and splits
    across DDP processes exactly) and drops the last partial batch (a batch of 1 breaks BatchNorm);
    evaluation does neither, so every sample counts once. Subclasses set `num_classes` in `__init__`, because
    the CLI links it into the model before `setup` runs.
    """

    num_classes: int
    collate_fn: Callable[[list[Any]], Any] | None = None
    # Why cross-validation folds cannot be cut from this data (None: they can), e.g. one graph, a time series.
    folds_refused: ClassVar[str | None] = None

    def __init__(self, batch_size: int = 64, num_workers: int = 0) -> None:
        super().__init__()
        if batch_size < 1:
            raise DataError(f"data.batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.train_set: Dataset | None = None
        self.val_set: Dataset | None = None
        self.test_set: Dataset | None = None
        self.predict_set: Dataset | None = None

    @property
    def num_outputs(self) -> int:
        """The network's output width: the class count here; labels or targets in multilabel and regression data."""
        return self.num_classes

    def train_dataloader(self) -> DataLoader:
        dataset = self._require(self.train_set, "train")
        self.fit_batch_size(dataset)
        return self._loader(dataset, train=True)

    def fit_batch_size(self, dataset: Dataset) -> None:
        """Cap `batch_size` at the training samples each process has: with drop_last a batch larger than the
        split would leave no batch at all, and a first small dataset should train (said in one line)."""
        world = self.trainer.world_size if self.trainer else 1
        samples = len(dataset) // world
        if self.batch_size_for(dataset) <= samples:
            return
        if samples < 1:
            raise DataError(f"the training set has {len(dataset)} samples, fewer than the {world} processes")
        log.warning(
            f"data.batch_size={self.batch_size} is more than the {samples} training samples"
            + (" of each process" if world > 1 else "")
            + f": batches of {samples} (one per epoch); set --data.batch_size to choose"
        )
        self.batch_size = samples

    def val_dataloader(self) -> DataLoader:
        return self._loader(self._require(self.val_set, "val"), train=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader(self._require(self.test_set, "test"), train=False)

    def predict_dataloader(self) -> DataLoader:
        return self._loader(self._require(self.predict_set, "predict"), train=False)

    def _loader(self, dataset: Dataset, train: bool, batch_sampler: Sampler[list[int]] | None = None) -> DataLoader:
        # A batch sampler decides batch size, order and drop_last itself.
        batching = (
            {"batch_sampler": batch_sampler}
            if batch_sampler is not None
            else {
                "batch_size": self.batch_size_for(dataset),
                "sampler": self._sampler(dataset, train),
                "drop_last": train,
            }
        )
        # StatefulDataLoader: Lightning saves how far into the epoch it got, so a mid-epoch checkpoint resumes
        # exactly.
        return StatefulDataLoader(
            dataset,
            **batching,
            num_workers=self.num_workers,
            # Workers are forked once, not every epoch.
            persistent_workers=self.num_workers > 0,
            # Page-locked memory only helps host-to-GPU copies; on the CPU it costs memory.
            pin_memory=self._on_gpu(),
            # A dataset that batches itself (link prediction's pairs) brings its own collate.
            collate_fn=getattr(dataset, "collate", None) or self.collate_for(train),
            generator=loader_generator(),
        )

    def use_fold(self, folds: int, fold: int, seed: int = 0) -> None:
        """Cross-validation, after `setup`: the training and validation samples pooled, cut into `folds` seeded
        parts; part `fold` validates, the others train. The test split is left as it is."""
        if self.folds_refused:
            raise ConfigError(f"{type(self).__name__} has no cross-validation folds: {self.folds_refused}")
        train, val = self._require(self.train_set, "train"), self._require(self.val_set, "val")
        val_ids, train_ids = fold_split(len(train) + len(val), folds, fold, seed)
        self.train_set, self.val_set = self.pooled(train, val, train_ids), self.pooled(train, val, val_ids)

    def pooled(self, train: Dataset, val: Dataset, indices: list[int]) -> Dataset:
        """The samples at `indices` of the training samples followed by the validation ones."""
        return Subset(ConcatDataset([train, val]), indices)

    def batch_size_for(self, dataset: Dataset) -> int:
        """Samples per batch from `dataset`: data.batch_size, unless a loader takes a split whole."""
        return self.batch_size

    def collate_for(self, train: bool) -> Callable[[list[Any]], Any] | None:
        """How the loaders join samples into a batch; image modules augment there, for training only."""
        return self.collate_fn

    def _sampler(self, dataset: Dataset, train: bool) -> Sampler[int]:
        """Training: a new order each epoch. Under DDP each process takes its share: evaluation in order,
        padded by a few repeats so every process has as many batches (Lightning's choice too)."""
        world, rank = (self.trainer.world_size, self.trainer.global_rank) if self.trainer else (1, 0)
        if train:
            return EpochRandomSampler(dataset, num_replicas=world, rank=rank)
        if world > 1:
            return DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=False)
        return SequentialSampler(dataset)

    def _on_gpu(self) -> bool:
        return self.trainer is not None and self.trainer.strategy.root_device.type == "cuda"

    def _require(self, dataset: Dataset | None, split: str) -> Dataset:
        if dataset is None:
            raise RuntimeError(f"{type(self).__name__} has no {split} split: call setup() first")
        if len(dataset) == 0:
            raise DataError(f"{type(self).__name__}: the {split} split is empty")
        return dataset


def seeded_split(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    """Indices 0..n-1 shuffled by `seed`, cut into one part per fraction (`round(f * n)` each), then the rest."""
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
    parts, start = [], 0
    for fraction in fractions:
        size = round(fraction * n)
        parts.append(order[start : start + size])
        start += size
    return [*parts, order[start:]]


def fold_split(n: int, folds: int, fold: int, seed: int) -> tuple[list[int], list[int]]:
    """Indices 0..n-1 shuffled by `seed`, cut into `folds` parts of near-equal size: part `fold`, and the rest.
    Over `fold` = 0..folds-1 the parts partition the indices."""
    if not 2 <= folds <= n or not 0 <= fold < folds:
        raise ConfigError(
            f"cross-validation needs 2 <= folds <= {n} samples and 0 <= fold < folds; got fold {fold} of {folds}"
        )
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
    held = order[fold::folds]
    kept = set(held)
    return held, [i for i in order if i not in kept]


def ensure_writable_dir(path: Path, field: str = "data.data_dir") -> Path:
    """Create `path` if needed and prove it can be written, or fail naming the config field."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"  # its own: runs started together share the folder
        probe.touch()
        probe.unlink()
    except OSError as err:
        raise DataError(
            f"{field}={str(path)!r} cannot be written ({err.strerror}): pass a writable folder, "
            f"e.g. --{field} /tmp/data"
        ) from err
    return path
