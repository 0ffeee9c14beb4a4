"""Weight and gradient histograms in TensorBoard: dead layers, exploding weights and vanishing gradients show here."""

from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.loggers import TensorBoardLogger
from lightning.pytorch.profilers import PassThroughProfiler
from torch.optim import Optimizer


class WeightHistograms(Callback):
    """Every `every_n_steps` optimizer steps, one histogram per parameter (`weights/...`) and gradient (`grads/...`).

    Gradients are taken before clipping, as the backward pass left them. Silent without a TensorBoard
    logger, and in the short runs where it would only add cost: fast_dev_run, overfit_batches, profiling.
    """

    def __init__(self, every_n_steps: int = 100) -> None:
        self.every_n_steps = every_n_steps

    def on_before_optimizer_step(self, trainer: Trainer, pl_module: LightningModule, optimizer: Optimizer) -> None:
        if trainer.global_step % self.every_n_steps or not self._active(trainer):
            return
        writer = trainer.logger.experiment
        for name, param in pl_module.named_parameters():
            if not param.requires_grad:
                continue
            writer.add_histogram(f"weights/{name}", param.detach().float().cpu(), trainer.global_step)
            if param.grad is not None:
                writer.add_histogram(f"grads/{name}", param.grad.detach().float().cpu(), trainer.global_step)

    @staticmethod
    def _active(trainer: Trainer) -> bool:
        return (
            trainer.is_global_zero
            and isinstance(trainer.logger, TensorBoardLogger)
            and not trainer.fast_dev_run
            and not trainer.overfit_batches
            and isinstance(trainer.profiler, PassThroughProfiler)
        )
