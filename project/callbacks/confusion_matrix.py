"""A confusion-matrix image in TensorBoard after each validation: which classes the model mixes up."""

import itertools
from typing import Any

import torch
from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.loggers import TensorBoardLogger


class ConfusionMatrixImage(Callback):
    """Draws the model's `val_confusion` (rows: true class, columns: predicted) as `val/confusion_matrix`.

    Rows are normalised to sum to 1 (the per-class recall is on the diagonal); the counts are printed in
    the cells. Drawn every `every_n_epochs` and at the last epoch: matplotlib's drawing costs a visible
    share of a short epoch (benchmarks/callback_costs.py). Skips the sanity check, and more than
    `max_classes` classes (unreadable).
    """

    def __init__(self, every_n_epochs: int = 5, max_classes: int = 30) -> None:
        self.every_n_epochs = every_n_epochs
        self.max_classes = max_classes

    def on_validation_epoch_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        epoch = trainer.current_epoch + 1
        due = epoch % self.every_n_epochs == 0 or epoch == trainer.max_epochs
        if trainer.sanity_checking or not due or not isinstance(trainer.logger, TensorBoardLogger):
            return
        matrix = pl_module.val_confusion.compute()  # on every rank: the sync is a collective
        if not trainer.is_global_zero or len(matrix) > self.max_classes:
            return
        names = getattr(trainer.datamodule, "class_names", None) or [str(i) for i in range(len(matrix))]
        trainer.logger.experiment.add_figure("val/confusion_matrix", draw(matrix.cpu(), names), trainer.global_step)


def draw(matrix: torch.Tensor, names: list[str]) -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    recall = (matrix.float() / matrix.sum(dim=1, keepdim=True).clamp(min=1)).numpy()
    size = 1.2 + 0.45 * len(names)
    fig, ax = plt.subplots(figsize=(size, size))
    ax.imshow(recall, cmap="Blues", vmin=0, vmax=1)
    ax.set(xticks=range(len(names)), yticks=range(len(names)), xlabel="predicted", ylabel="true")
    ax.set_xticklabels(names, rotation=90)
    ax.set_yticklabels(names)
    for i, j in itertools.product(range(len(names)), repeat=2):
        shade = "white" if recall[i, j] > 0.5 else "black"
        ax.text(j, i, int(matrix[i, j]), ha="center", va="center", fontsize=7, color=shade)
    fig.tight_layout()
    return fig
