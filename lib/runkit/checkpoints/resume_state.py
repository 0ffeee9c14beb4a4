"""What a resumed run needs beyond Lightning's checkpoint to continue exactly as if never stopped."""

import random
from typing import Any

import lightning.pytorch as L
import numpy as np
import torch
from lightning.pytorch.utilities import rank_zero_warn

from runkit.compat import load_pending_loader_state


class ResumeState(L.Callback):
    """Saves the Python, NumPy and torch (CPU and CUDA) RNG states of every rank; restores them at train
    start, with the training loader's position when Lightning dropped it.

    Lightning's checkpoints hold weights, optimizers, loop progress and the loader's position, not the
    RNG states: without them a resumed run restarts dropout masks and main-process augmentation from
    the seed. The samplers need nothing here: their order is a function of seed and epoch
    (runkit/data/sampling.py).

    Lightning 2.6 also forgets the loader's saved position when `configure_optimizers` asked for
    `trainer.estimated_stepping_batches` (our schedulers do): the loader is built before the
    checkpoint is read and never given its state (Lightning-AI/pytorch-lightning#20550). The state is
    then still pending in the fit loop; it is loaded here and the loader's iterator made anew.

    Restored at `on_train_start`: after the sanity check (which Lightning runs under `isolate_rng`) and
    the loaders' set-up, just before the first batch is fetched, the same point the uninterrupted run
    was at when it saved. The states are stored as tensors and plain numbers, so the checkpoint still
    loads with `torch.load(weights_only=True)`.
    """

    def __init__(self) -> None:
        self._to_restore: list[dict[str, Any]] | None = None

    def state_dict(self) -> dict[str, Any]:
        # Called on every rank while the checkpoint is assembled; only rank 0 writes it, so gather first.
        states = _collect()
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            gathered: list[Any] = [None] * torch.distributed.get_world_size()
            torch.distributed.all_gather_object(gathered, states)
            return {"ranks": gathered}
        return {"ranks": [states]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self._to_restore = state_dict["ranks"]

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        load_pending_loader_state(trainer)  # Lightning-AI/pytorch-lightning#20550, above
        if self._to_restore is None:
            return
        ranks, self._to_restore = self._to_restore, None
        if len(ranks) != trainer.world_size:
            rank_zero_warn(
                f"the checkpoint holds RNG states of {len(ranks)} processes, this run has {trainer.world_size}: "
                "each process starts from the seed instead (the weights, optimizer and data order still resume)"
            )
            return
        _restore(ranks[trainer.global_rank])


def _collect() -> dict[str, Any]:
    version, mt_state, gauss = random.getstate()
    kind, keys, position, has_gauss, cached = np.random.get_state()
    return {
        "python": (version, torch.tensor(mt_state, dtype=torch.int64), gauss),
        "numpy": (kind, torch.from_numpy(keys.astype(np.int64)), position, has_gauss, cached),
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }


def _restore(states: dict[str, Any]) -> None:
    version, mt_state, gauss = states["python"]
    random.setstate((version, tuple(mt_state.tolist()), gauss))
    kind, keys, position, has_gauss, cached = states["numpy"]
    np.random.set_state((kind, keys.numpy().astype(np.uint32), position, has_gauss, cached))
    torch.set_rng_state(states["torch"])
    if states["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])
