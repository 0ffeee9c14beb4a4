"""The task's pictures in TensorBoard after validation: a confusion matrix, per-label F1, predicted vs true."""

from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.loggers import TensorBoardLogger

from runkit import offers


class TaskFigures(Callback):
    """Draws `pl_module.figures()` (the task's, runkit/tasks/, and the model's own) every `every_n_epochs` and at
    the last epoch.

    matplotlib's drawing costs a visible share of a short epoch (benchmarks/callback_costs.py), hence not
    every epoch. Skips the sanity check.
    """

    def __init__(self, every_n_epochs: int = 5) -> None:
        self.every_n_epochs = every_n_epochs

    def on_validation_epoch_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        epoch = trainer.current_epoch + 1
        due = epoch % self.every_n_epochs == 0 or epoch == trainer.max_epochs
        figures = getattr(pl_module, "figures", None)
        if trainer.sanity_checking or not due or figures is None or not isinstance(trainer.logger, TensorBoardLogger):
            return
        names = offers(trainer.datamodule).output_names
        for tag, figure in figures(names, draw=trainer.is_global_zero).items():
            trainer.logger.experiment.add_figure(tag, figure, trainer.global_step)
