"""Training order as a pure function of (seed, epoch): resumable mid-epoch, and the same under DDP.

torch's RandomSampler draws each epoch from a generator whose state moves on, so resuming exactly
would need that state captured at the right instant. Here an epoch's order depends on the seed and
the epoch number only (DistributedSampler's recipe), and the iterators save how far they got, so
`StatefulDataLoader` (and through it Lightning's checkpoints) can put a loader back mid-epoch.

Our DataModules shard for DDP themselves with these samplers (`use_distributed_sampler: false` in
configs/trainer.yaml): Lightning's own replacement would drop both properties.
"""

import os
from collections.abc import Callable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

import torch
from torch.utils.data import DistributedSampler

T = TypeVar("T")


def global_seed() -> int:
    """The run's seed as `seed_everything` exported it; Lightning seeds its DistributedSampler with it too."""
    return int(os.environ.get("PL_GLOBAL_SEED", 0))


def loader_generator() -> torch.Generator:
    """A loader's own generator: it seeds the workers, so making an iterator takes nothing from the global
    RNG (which dropout and augmentation use, and the ResumeState callback restores)."""
    return torch.Generator().manual_seed(global_seed())


class EpochOrder(Iterator[T], Generic[T]):
    """One epoch's items, `order_of(epoch)`, drawn lazily; its state is (epoch, items yielded so far).

    `clock` is what holds the epoch (a sampler with `epoch` and `set_epoch`). Its epoch is read at the
    first `next()`, because Lightning creates the loader's iterator before it calls `set_epoch`. A
    restored state sets the clock to the saved epoch and skips what was yielded; if Lightning then
    moves the clock on (the checkpoint was taken after the epoch's last batch), the new epoch starts
    from its beginning.
    """

    def __init__(self, order_of: Callable[[int], Sequence[T]], clock: Any) -> None:
        self.order_of, self.clock = order_of, clock
        self.epoch: int | None = None
        self.yielded = 0
        self._items: Sequence[T] | None = None

    def __next__(self) -> T:
        if self._items is None:
            epoch = getattr(self.clock, "epoch", 0)
            if self.epoch is not None and epoch != self.epoch:
                self.yielded = 0
            self.epoch = epoch
            self._items = self.order_of(epoch)
        if self.yielded >= len(self._items):
            raise StopIteration
        self.yielded += 1
        return self._items[self.yielded - 1]

    def state_dict(self) -> dict[str, int]:
        return {"epoch": getattr(self.clock, "epoch", 0) if self.epoch is None else self.epoch, "yielded": self.yielded}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.epoch, self.yielded, self._items = state["epoch"], state["yielded"], None
        if hasattr(self.clock, "set_epoch"):
            self.clock.set_epoch(self.epoch)


class EpochRandomSampler(DistributedSampler):
    """A new permutation every epoch, drawn from `seed + epoch` alone; with `num_replicas > 1`, this rank's share.

    DistributedSampler's recipe also in one process, so one process with batch N·B sees in each epoch
    the order that N DDP processes with batch B share out between them (rank r takes every N-th index).
    Iterating gives an `EpochOrder`: a loader stopped mid-epoch resumes where it was.
    """

    def __init__(self, data_source: Sized, num_replicas: int = 1, rank: int = 0, seed: int | None = None) -> None:
        seed = global_seed() if seed is None else seed
        super().__init__(data_source, num_replicas=num_replicas, rank=rank, shuffle=True, seed=seed)

    def __iter__(self) -> EpochOrder[int]:
        return EpochOrder(self._order, self)

    def _order(self, epoch: int) -> list[int]:
        self.epoch = epoch
        return list(super().__iter__())
