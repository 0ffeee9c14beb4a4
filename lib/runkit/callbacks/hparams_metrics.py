"""Hyperparameters with the run's final metrics in TensorBoard's HParams tab, so runs compare side by side."""

from collections.abc import Sequence

from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.loggers import TensorBoardLogger


class HParamsMetrics(Callback):
    """At the end of fit, logs the model's and data's hyperparameters with `metrics` as `hp/<metric>`.

    The `hp/` prefix keeps these single points apart from the metrics' own curves. By default the metrics
    are the task's: the best monitored value, the task's summary metrics and `val/loss`.
    """

    def __init__(self, metrics: Sequence[str] | None = None) -> None:
        self.metrics = tuple(metrics) if metrics is not None else None

    def on_fit_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        logger = trainer.logger
        if not trainer.is_global_zero or not isinstance(logger, TensorBoardLogger) or trainer.fast_dev_run:
            return
        metrics = self.metrics if self.metrics is not None else task_metrics(pl_module)
        final = {f"hp/{k}": float(trainer.callback_metrics[k]) for k in metrics if k in trainer.callback_metrics}
        if not final:
            return
        # The same merge as Lightning's at the start, so hparams.yaml keeps its content.
        params = dict(trainer.datamodule.hparams) if trainer.datamodule is not None else {}
        logger.log_hyperparams(params | dict(pl_module.hparams), metrics=final)


def task_metrics(pl_module: LightningModule) -> tuple[str, ...]:
    task = getattr(pl_module, "task", None)
    if task is None:
        return ("val/loss",)
    return (f"{task.monitor}_best", *task.summary, "val/loss")
