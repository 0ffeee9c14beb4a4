"""The LSTM forecaster: batches are `(inputs [B, L, F], future covariates [B, H*K], targets [B, H*C],
baselines [B, 2, H*C])`; the task is regression, scored beside two baselines on the same windows."""

from collections.abc import Sequence
from typing import Any, ClassVar

import torch
from torchmetrics import MetricCollection
from torchmetrics.regression import MeanAbsoluteError

from project.models.base import TaskModule

BASELINES = ("last_value", "seasonal_naive")


class ForecastModel(TaskModule):
    """A regression model of the next `horizon` steps, logged beside the last-value and seasonal-naive
    forecasts of the same windows: `val/mae_last_value`, `val/mae_seasonal_naive`, and `val/mase`, the
    model's MAE over the seasonal-naive MAE (below 1: better than repeating the last season).
    """

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "num_features": ("net.init_args.input_size",),
        "future_size": ("net.init_args.future_size",),
        "num_values": ("net.init_args.num_values",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"inputs": {0: "batch"}, "future": {0: "batch"}}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        baselines = MetricCollection({f"mae_{name}": MeanAbsoluteError() for name in BASELINES})
        self.val_baselines = baselines.clone(prefix="val/")
        self.test_baselines = baselines.clone(prefix="test/")

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor, int]:
        inputs, future, target, _ = batch
        return (inputs, future), target, inputs.shape[0]

    def _score_baselines(self, batch: Any, metrics: MetricCollection) -> None:
        _, _, target, baselines = batch
        for name, forecast in zip(BASELINES, baselines.unbind(1), strict=True):
            metrics[f"mae_{name}"].update(forecast.contiguous(), target)

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        super().validation_step(batch, batch_idx)
        self._score_baselines(batch, self.val_baselines)

    def test_step(self, batch: Any, batch_idx: int) -> None:
        super().test_step(batch, batch_idx)
        self._score_baselines(batch, self.test_baselines)

    def on_validation_epoch_end(self) -> None:
        mae = self.val_metrics["mae"].compute()  # before the base class logs and resets it
        super().on_validation_epoch_end()
        self._log_baselines(self.val_baselines, mae, "val")

    def on_test_epoch_end(self) -> None:
        mae = self.test_metrics["mae"].compute()
        super().on_test_epoch_end()
        self._log_baselines(self.test_baselines, mae, "test")

    def _log_baselines(self, metrics: MetricCollection, mae: torch.Tensor, stage: str) -> None:
        values = metrics.compute()
        values[f"{stage}/mase"] = mae / values[f"{stage}/mae_seasonal_naive"].clamp(min=1e-12)
        self.log_dict(values, sync_dist=True)
        metrics.reset()

    def expected_initial_loss(self, batch: Any, target: torch.Tensor) -> tuple[float, str]:
        if not getattr(self.net, "relative", False):
            return super().expected_initial_loss(batch, target)
        # A relative forecaster starts at the last value (its head outputs about 0 on top of it).
        last_value = batch[3][:, 0].to(self.task.mean.device)
        output = (last_value - self.task.mean) / self.task.std
        loss = self.task.loss(output, target.to(output.device))
        return float(loss), "the loss of repeating the last value, where a relative forecaster starts"

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        """One row per forecast step (`+1`, `+2`...), one column per value: what comes after the series."""
        datamodule = self.trainer.datamodule
        columns, horizon = datamodule.value_names, datamodule.horizon
        rows = []
        for batch in predictions:
            for forecast in batch["value"].reshape(-1, horizon, len(columns)):
                rows += [
                    [f"+{step + 1}", *(f"{v:.6g}" for v in values)] for step, values in enumerate(forecast.tolist())
                ]
        return ["step", *columns], rows
