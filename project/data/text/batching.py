"""Batching for variable-length sequences: pad to the batch's longest, and group similar lengths."""

import copy
from collections.abc import Sequence

import torch
from torch.utils.data import BatchSampler, DistributedSampler, Sampler

from project.data.sampling import EpochOrder

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
