"""Batching for variable-length sequences: pad to the batch's longest, and group similar lengths."""

from collections.abc import Iterator, Sequence

import torch
from torch.utils.data import BatchSampler, Sampler

SequenceBatch = tuple[torch.Tensor, torch.Tensor, torch.Tensor]


class PadCollate:
    """`[(ids [T_i], label), ...]` → tokens `[B, T_max]` (0-padded), lengths `[B]` int64, labels `[B]`.

    Pads to the longest sequence of this batch, not of the dataset.
    """

    def __call__(self, samples: list[tuple[torch.Tensor, int]]) -> SequenceBatch:
        lengths = torch.tensor([len(ids) for ids, _ in samples], dtype=torch.int64)
        tokens = torch.zeros(len(samples), int(lengths.max()), dtype=torch.int64)
        for row, (ids, _) in enumerate(samples):
            tokens[row, : len(ids)] = ids
        labels = torch.tensor([label for _, label in samples], dtype=torch.int64)
        return tokens, lengths, labels


def padding_fraction(batches: Sequence[Sequence[int]], lengths: Sequence[int]) -> float:
    """Share of the padded `[B, T_max]` cells that are padding, over all batches."""
    real = sum(lengths[i] for batch in batches for i in batch)
    total = sum(len(batch) * max(lengths[i] for i in batch) for batch in batches)
    return 1 - real / total if total else 0.0


class BucketBatchSampler(BatchSampler):
    """Batches of similar lengths: less padding, and fewer wasted LSTM steps.

    Takes the indices in the order of `sampler`, cuts them into pools of `batch_size * pool_factor`,
    sorts each pool by length, cuts it into batches, and shuffles the order of all batches (seeded,
    new every epoch). The randomness of which samples meet stays the sampler's.

    Under DDP, Lightning rebuilds this sampler around a `DistributedSampler` (it is a `BatchSampler`
    with a `sampler` argument), so each process buckets its own shard, and all get the same number
    of batches.
    """

    def __init__(
        self,
        sampler: Sampler[int],
        batch_size: int,
        drop_last: bool,
        lengths: Sequence[int],
        pool_factor: int = 50,
        shuffle: bool = True,
        seed: int = 0,
    ) -> None:
        super().__init__(sampler, batch_size, drop_last)
        self.lengths, self.pool_factor, self.shuffle, self.seed = lengths, pool_factor, shuffle, seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)

    def __iter__(self) -> Iterator[list[int]]:
        indices = list(self.sampler)
        pool = self.batch_size * self.pool_factor
        batches = []
        for start in range(0, len(indices), pool):
            chunk = sorted(indices[start : start + pool], key=lambda i: self.lengths[i])
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        if self.drop_last:
            batches = [b for b in batches if len(b) == self.batch_size]
        if self.shuffle:
            order = torch.randperm(len(batches), generator=torch.Generator().manual_seed(self.seed + self.epoch))
            batches = [batches[i] for i in order]
        # Lightning does not call set_epoch on a batch sampler: count epochs here, the same on every rank.
        self.epoch += 1
        yield from batches

    def __len__(self) -> int:
        n = len(self.sampler)
        pool = self.batch_size * self.pool_factor
        full, rest = divmod(n, pool)
        per_pool = pool // self.batch_size
        if self.drop_last:
            return full * per_pool + rest // self.batch_size
        return full * per_pool + -(-rest // self.batch_size)
