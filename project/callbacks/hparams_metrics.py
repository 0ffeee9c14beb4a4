"""Hyperparameters with the run's final metrics in TensorBoard's HParams tab, so runs compare side by side."""

from collections.abc import Sequence

from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.loggers import TensorBoardLogger


class HParamsMetrics(Callback):
    """At the end of fit, logs the model's and data's hyperparameters with `metrics` as `hp/<metric>`.

    The `hp/` prefix keeps these single points apart from the metrics' own curves.
    """

    def __init__(self, metrics: Sequence[str] = ("val/acc_best", "val/acc", "val/f1", "val/loss")) -> None:
        self.metrics = tuple(metrics)

    def on_fit_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        logger = trainer.logger
        if not trainer.is_global_zero or not isinstance(logger, TensorBoardLogger) or trainer.fast_dev_run:
            return
        final = {f"hp/{k}": float(trainer.callback_metrics[k]) for k in self.metrics if k in trainer.callback_metrics}
        if not final:
            return
        # The same merge as Lightning's at the start, so hparams.yaml keeps its content.
        params = dict(trainer.datamodule.hparams) if trainer.datamodule is not None else {}
        logger.log_hyperparams(params | dict(pl_module.hparams), metrics=final)
