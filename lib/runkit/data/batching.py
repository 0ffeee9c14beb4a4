"""Batching for variable-length sequences, of token ids (text) or of values (project/data/sequences/): pad to the
batch's longest, and group similar lengths. Shared by every sequence DataModule."""

import copy
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, DistributedSampler, Sampler

from runkit import BaseDataModule, EpochOrder, seeded_split

SequenceBatch = tuple[torch.Tensor, torch.Tensor, torch.Tensor]
PAD_TAG = -100  # the label of a padding step in per-step labels: never scored (the tasks' ignore_index)
Row = TypeVar("Row")


class PadCollate:
    """`[(sequence [T_i, ...], label), ...]` → inputs `[B, T_max, ...]` zero-padded (token ids `[T_i]` or values
    `[T_i, C]`), lengths `[B]` int64, labels `[B]`, or `[B, T_max]` padded with `PAD_TAG` where each step has
    its own label (tagging).

    Pads to the longest sequence of this batch, not of the dataset.
    """

    def __call__(self, samples: list[tuple[torch.Tensor, Any]]) -> SequenceBatch:
        lengths = torch.tensor([len(x) for x, _ in samples], dtype=torch.int64)
        first = samples[0][0]
        inputs = first.new_zeros((len(samples), int(lengths.max()), *first.shape[1:]))
        for row, (x, _) in enumerate(samples):
            inputs[row, : len(x)] = x
        labels = [label for _, label in samples]
        if not isinstance(labels[0], torch.Tensor):
            return inputs, lengths, torch.tensor(labels)
        tags = torch.full((len(samples), inputs.shape[1]), PAD_TAG, dtype=torch.int64)
        for row, label in enumerate(labels):
            tags[row, : len(label)] = label
        return inputs, lengths, tags


class SequenceDataset(Dataset):
    """`(sequence [T, ...], label)` pairs; `rows` keeps where each came from (`.line`) for errors and predictions."""

    def __init__(self, items: list[torch.Tensor], labels: list[Any], rows: list[Any]) -> None:
        self.items, self.labels, self.rows = items, labels, rows
        self.lengths = [len(x) for x in items]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, Any]:
        return self.items[index], self.labels[index]


class PaddedSequenceDataModule(BaseDataModule):
    """What the sequence DataModules share: padded batches with lengths, training batches of similar lengths
    (`bucketing`), folds that stay `SequenceDataset`s, and the predict file's line of each prediction."""

    bucketing: bool = True
    collate_fn = PadCollate()
    # Set by each subclass's __init__: the files by split (train, val, test, predict), the shares held out of the
    # training file where a split has none, and the seed that picks them.
    paths: dict[str, str | None]
    val_fraction: float
    test_fraction: float
    seed: int

    def held_out(self, rows: list[Row], read: Callable[[str], list[Row]]) -> dict[str, list[Row]]:
        """Train, val and test rows: a split with its own file reads it (`read`), the others are held out of `rows`
        (the training file's, or generated ones) by `seed`, in the file's order."""
        fractions = [0.0 if self.paths[s] else f for s, f in (("val", self.val_fraction), ("test", self.test_fraction))]
        held = dict(zip(("val", "test", "train"), seeded_split(len(rows), fractions, self.seed), strict=True))
        splits = {split: [rows[i] for i in sorted(ids)] for split, ids in held.items()}
        for split in ("val", "test"):
            if self.paths[split]:
                splits[split] = read(self.paths[split])
        return splits

    def predict_lines(self) -> list[int] | None:
        """The line of `predict_path` each prediction comes from."""
        return [row.line for row in self.predict_set.rows] if isinstance(self.predict_set, SequenceDataset) else None

    def pooled(self, train: Dataset, val: Dataset, indices: list[int]) -> Dataset:
        """A fold stays a `SequenceDataset`: bucketing reads its lengths."""
        assert isinstance(train, SequenceDataset) and isinstance(val, SequenceDataset)
        items, labels, rows = train.items + val.items, train.labels + val.labels, train.rows + val.rows
        return SequenceDataset([items[i] for i in indices], [labels[i] for i in indices], [rows[i] for i in indices])

    def _loader(self, dataset: Dataset, train: bool, batch_sampler: Sampler[list[int]] | None = None) -> DataLoader:
        if train and self.bucketing:
            batch_sampler = BucketBatchSampler(
                self._sampler(dataset, train), self.batch_size, drop_last=True, lengths=dataset.lengths
            )
        return super()._loader(dataset, train, batch_sampler)


def padding_fraction(batches: Sequence[Sequence[int]], lengths: Sequence[int]) -> float:
    """Share of the padded `[B, T_max]` cells that are padding, over all batches."""
    real = sum(lengths[i] for batch in batches for i in batch)
    total = sum(len(batch) * max(lengths[i] for i in batch) for batch in batches)
    return 1 - real / total if total else 0.0


class BucketBatchSampler(BatchSampler):
    """Batches of similar lengths: less padding, and fewer wasted LSTM steps.

    Takes the indices in the order of `sampler`, cuts them into pools of `batch_size * pool_factor`,
    sorts each pool by length, cuts it into batches, and shuffles the order of all batches (seeded by
    the sampler's seed and epoch). The randomness of which samples meet stays the sampler's.

    Under DDP its sampler is a `DistributedSampler` (our `EpochRandomSampler`, or the one Lightning
    puts in when it rebuilds this sampler). It then buckets the order all processes share (each rank's
    shard, interleaved back) into batches of `batch_size * world_size`, and each rank takes its share of
    every one: N processes with batch B train on exactly the batches one process with batch N·B would.
    """

    def __init__(
        self,
        sampler: Sampler[int],
        batch_size: int,
        drop_last: bool,
        lengths: Sequence[int],
        pool_factor: int = 50,
        shuffle: bool = True,
    ) -> None:
        super().__init__(sampler, batch_size, drop_last)
        self.lengths, self.pool_factor, self.shuffle = lengths, pool_factor, shuffle
        distributed = isinstance(sampler, DistributedSampler)
        self.world, self.rank = (sampler.num_replicas, sampler.rank) if distributed else (1, 0)

    def __iter__(self) -> EpochOrder[list[int]]:
        return EpochOrder(self._batches, self.sampler)

    def __len__(self) -> int:
        n = len(self.sampler) * self.world
        size = self.batch_size * self.world
        pool = size * self.pool_factor
        full, rest = divmod(n, pool)
        per_pool = pool // size
        if self.drop_last:
            return full * per_pool + rest // size
        return full * per_pool + -(-rest // size)

    def _batches(self, epoch: int) -> list[list[int]]:
        indices = self._shared_order(epoch)
        size = self.batch_size * self.world
        pool = size * self.pool_factor
        batches = []
        for start in range(0, len(indices), pool):
            chunk = sorted(indices[start : start + pool], key=lambda i: self.lengths[i])
            batches += [chunk[i : i + size] for i in range(0, len(chunk), size)]
        if self.drop_last:
            batches = [b for b in batches if len(b) == size]
        if self.shuffle:
            seed = getattr(self.sampler, "seed", 0) + epoch
            order = torch.randperm(len(batches), generator=torch.Generator().manual_seed(seed))
            batches = [batches[i] for i in order]
        return [batch[self.rank :: self.world] for batch in batches]

    def _shared_order(self, epoch: int) -> list[int]:
        """The sampler's order for `epoch`; under DDP, all ranks' shards interleaved back into one."""
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)
        if self.world == 1:
            return list(self.sampler)
        shards = []
        for rank in range(self.world):
            shard = copy.copy(self.sampler)
            shard.rank = rank
            shards.append(list(shard))
        return [i for group in zip(*shards, strict=True) for i in group]
