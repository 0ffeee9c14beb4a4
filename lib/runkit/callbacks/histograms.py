"""Weight and gradient histograms in TensorBoard: dead layers, exploding weights and vanishing gradients show here."""

from typing import TYPE_CHECKING

import torch
from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.loggers import TensorBoardLogger
from lightning.pytorch.profilers import PassThroughProfiler
from torch.optim import Optimizer

if TYPE_CHECKING:  # imported by the logger when a run writes, not by every command that reads the config
    from torch.utils.tensorboard import SummaryWriter


class WeightHistograms(Callback):
    """Every `every_n_steps` optimizer steps, one histogram per parameter (`weights/...`) and gradient (`grads/...`).

    Gradients are taken before clipping, as the backward pass left them. Silent without a TensorBoard
    logger, and in the short runs where it would only add cost: fast_dev_run, overfit_batches, profiling.

    Counted by torch into `bins` equal buckets (TensorBoard draws about 30), not by the writer's
    `add_histogram`: that one converts to float64 NumPy and takes a dot product, which wakes OpenBLAS's
    own threads; on a small CPU they then spin beside torch's for the next steps, which cost the CNN
    many times the firing itself (benchmarks/README.md, "The defaults against a bare Trainer").
    """

    def __init__(self, every_n_steps: int = 100, bins: int = 64) -> None:
        self.every_n_steps = every_n_steps
        self.bins = bins

    def on_before_optimizer_step(self, trainer: Trainer, pl_module: LightningModule, optimizer: Optimizer) -> None:
        if trainer.global_step % self.every_n_steps or not self._active(trainer):
            return
        writer = trainer.logger.experiment
        for name, param in pl_module.named_parameters():
            if not param.requires_grad:
                continue
            add_histogram(writer, f"weights/{name}", param, trainer.global_step, self.bins)
            if param.grad is not None:
                add_histogram(writer, f"grads/{name}", param.grad, trainer.global_step, self.bins)

    @staticmethod
    def _active(trainer: Trainer) -> bool:
        return (
            trainer.is_global_zero
            and isinstance(trainer.logger, TensorBoardLogger)
            and not trainer.fast_dev_run
            and not trainer.overfit_batches
            and isinstance(trainer.profiler, PassThroughProfiler)
        )


@torch.no_grad()
def add_histogram(writer: "SummaryWriter", tag: str, tensor: torch.Tensor, step: int, bins: int) -> None:
    """`tensor`'s finite values in `bins` equal buckets from its min to its max (one bucket when all are equal)."""
    values = tensor.detach().flatten().float()
    finite = values.isfinite()
    if not finite.all():
        values = values[finite]
        if values.numel() == 0:
            return
    low, high = values.min(), values.max()
    if low == high:
        limits, counts = high.reshape(1), torch.tensor([float(values.numel())])
    else:
        limits = torch.linspace(low, high, bins + 1, dtype=values.dtype)[1:]  # TensorBoard takes right edges
        counts = torch.histc(values, bins=bins, min=float(low), max=float(high))
    writer.add_histogram_raw(
        tag,
        min=float(low),
        max=float(high),
        num=values.numel(),
        sum=float(values.sum(dtype=torch.float64)),
        sum_squares=float(values.square().sum(dtype=torch.float64)),
        bucket_limits=limits.tolist(),
        bucket_counts=counts.tolist(),
        global_step=step,
    )
