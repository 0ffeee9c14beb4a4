"""Lightning's ModelCheckpoint, less two surprises, watching the task's metric unless told otherwise."""

import torch
from lightning.pytorch import LightningModule, Trainer

from project.compat import LastAfterEveryEpoch

AUTO = "auto"  # `monitor: auto`: the metric and direction the model's task names (project/tasks/)


def task_monitor(pl_module: LightningModule) -> tuple[str, str, float | None]:
    """The model's task's monitored metric, its mode and its perfect score; multiclass for a module without one."""
    from project.tasks import Multiclass

    task = getattr(pl_module, "task", Multiclass)
    return task.monitor, task.mode, task.perfect


class Checkpoint(LastAfterEveryEpoch):
    """ModelCheckpoint whose `last.ckpt` is the latest epoch (see LastAfterEveryEpoch), that honours
    `fast_dev_run` at the end of training too, and whose `monitor: auto` is the task's metric.

    Lightning 2.6's `on_train_end` writes `last.ckpt` even under `fast_dev_run`, and with the logger
    disabled it lands in `./checkpoints/` of whatever folder the command ran in.

    With `monitor: auto`, the mode follows the task (max for accuracy and F1, min for an error) and a file
    name left unset is `epoch03-acc0.9870.ckpt`, `epoch03-mae1.2345.ckpt`...
    """

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if self.monitor == AUTO:
            self.monitor, self.mode, _ = task_monitor(pl_module)
            # What ModelCheckpoint's __init__ derives from the mode: the worst value, for the top-k heap.
            self.kth_value = torch.tensor(torch.inf if self.mode == "min" else -torch.inf)
            if self.filename is None:
                # auto_insert_metric_name is off: "val/acc=" in a file name would make a folder.
                self.filename = f"epoch{{epoch:02d}}-{self.monitor.rsplit('/', 1)[-1]}{{{self.monitor}:.4f}}"
        super().setup(trainer, pl_module, stage)

    def on_train_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if not trainer.fast_dev_run:
            super().on_train_end(trainer, pl_module)
