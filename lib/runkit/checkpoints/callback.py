"""The run's ModelCheckpoint: best by the task's metric, and `last.ckpt` after every epoch."""

from lightning.pytorch import LightningModule, Trainer
from torch import Tensor

from runkit import ConfigError
from runkit.callbacks.early_stopping import AUTO
from runkit.compat import LastAfterEveryEpoch


class Checkpoint(LastAfterEveryEpoch):
    """ModelCheckpoint whose `last.ckpt` is the latest epoch and that saves nothing under `fast_dev_run`
    (both Lightning workarounds, in runkit/compat.py).

    `monitor: auto` is the task's metric, in its direction, with files named `epoch03-acc0.9870.ckpt`,
    `epoch03-mae1.2345.ckpt`...: the CLI writes them into the config before this is built
    (runkit/cli/monitor.py), so the saved config.yaml shows what was watched.

    A later epoch that ties the best replaces it (Lightning keeps the first): on a small validation set many
    epochs tie at a perfect score, and the first of them was reached at a high learning rate. On the board's
    200 face crops the first perfect epoch read 0.900 on the test images.
    """

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if self.monitor == AUTO:
            raise ConfigError(
                "Checkpoint(monitor='auto') is resolved by the CLI from the model's task; built in code, pass "
                "the metric and its mode: Checkpoint(monitor=task.monitor, mode=task.mode)"
            )
        super().setup(trainer, pl_module, stage)

    def check_monitor_top_k(self, trainer: Trainer, current: Tensor | None = None) -> bool:
        if current is None or self.save_top_k == -1 or len(self.best_k_models) < self.save_top_k:
            return super().check_monitor_top_k(trainer, current)
        kept = self.best_k_models[self.kth_best_model_path]
        better_or_tied = bool(current >= kept if self.mode == "max" else current <= kept)
        return trainer.strategy.reduce_boolean_decision(better_or_tied)  # every process decides alike
