"""The run's ModelCheckpoint: best by the task's metric, and `last.ckpt` after every epoch."""

from lightning.pytorch import LightningModule, Trainer

from project.callbacks.early_stopping import AUTO
from project.compat import LastAfterEveryEpoch
from project.errors import ConfigError


class Checkpoint(LastAfterEveryEpoch):
    """ModelCheckpoint whose `last.ckpt` is the latest epoch and that saves nothing under `fast_dev_run`
    (both Lightning workarounds, in project/compat.py).

    `monitor: auto` is the task's metric, in its direction, with files named `epoch03-acc0.9870.ckpt`,
    `epoch03-mae1.2345.ckpt`...: the CLI writes them into the config before this is built
    (project/cli/monitor.py), so the saved config.yaml shows what was watched.
    """

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if self.monitor == AUTO:
            raise ConfigError(
                "Checkpoint(monitor='auto') is resolved by the CLI from the model's task; built in code, pass "
                "the metric and its mode: Checkpoint(monitor=task.monitor, mode=task.mode)"
            )
        super().setup(trainer, pl_module, stage)
