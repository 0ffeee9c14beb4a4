"""Lightning's ModelCheckpoint, less two surprises."""

from lightning.pytorch import LightningModule, Trainer

from project.compat import LastAfterEveryEpoch


class Checkpoint(LastAfterEveryEpoch):
    """ModelCheckpoint whose `last.ckpt` is the latest epoch (see LastAfterEveryEpoch), and that honours
    `fast_dev_run` at the end of training too.

    Lightning 2.6's `on_train_end` writes `last.ckpt` even under `fast_dev_run`, and with the logger
    disabled it lands in `./checkpoints/` of whatever folder the command ran in.
    """

    def on_train_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if not trainer.fast_dev_run:
            super().on_train_end(trainer, pl_module)
