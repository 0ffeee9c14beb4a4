"""The LSTM forecaster: batches are `(inputs [B, L, F], future covariates [B, H*K], targets [B, H*C],
baselines [B, 4, H*C])`; the task is regression, scored beside the classical forecasts of the same windows."""

from collections.abc import Sequence
from typing import Any, ClassVar

import torch
from torchmetrics import MetricCollection
from torchmetrics.regression import MeanAbsoluteError

from project.data.series.baselines import BASELINES, NAMES
from project.models.base import TaskModule


class ForecastModel(TaskModule):
    """A regression model of the next `horizon` steps, logged beside the classical forecasts of the same
    windows (`data/series/baselines.py`): `val/mae_last_value`, `val/mae_seasonal_naive`,
    `val/mae_seasonal_drift`, `val/mae_ets`, and `val/mase`, the model's MAE over the seasonal-naive MAE
    (below 1: better than repeating the last season); the same under `test/`.
    """

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "num_features": ("net.init_args.input_size",),
        "future_size": ("net.init_args.future_size",),
        "num_values": ("net.init_args.num_values",),
        "season": ("net.init_args.season",),
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

    def against_baselines(self, tested: dict[str, float]) -> str | None:
        """`test: model MASE 0.36; ETS 0.31, seasonal naive with drift 0.46, ...: the model loses to ETS by 16 %`."""
        if "test/mase" not in tested:
            return None
        scale = tested["test/mae_seasonal_naive"]
        if scale <= 0:
            return None
        scores = {NAMES[name]: tested[f"test/mae_{name}"] / scale for name in BASELINES if f"test/mae_{name}" in tested}
        ranked = sorted(scores.items(), key=lambda item: item[1])
        (best, best_score), mase = ranked[0], tested["test/mase"]
        shown = ", ".join(f"{name} {score:.3f}" for name, score in ranked)
        if mase <= best_score:
            outcome = f"the model beats them all ({best} by {100 * (1 - mase / best_score):.0f} %)"
        else:
            outcome = f"the model loses to {best} by {100 * (mase / best_score - 1):.0f} %"
        return f"test MASE: model {mase:.3f}; {shown}: {outcome}"

    def setup(self, stage: str) -> None:
        super().setup(stage)
        # The task's scale is the inputs' scale (the training part's mean and std of each value column), so
        # the network's output and its inputs are in one space: a naive forecast read off the inputs is the
        # same forecast in the task's units, which the skip connection needs to start exactly at it.
        # (A checkpoint's values, the same, are loaded after this.)
        datamodule = self.trainer.datamodule
        values = len(datamodule.value_names)
        self.task.mean.copy_(datamodule.mean[:values].repeat(datamodule.horizon))
        self.task.std.copy_(datamodule.std[:values].repeat(datamodule.horizon))

    def expected_initial_loss(self, batch: Any, target: torch.Tensor) -> tuple[float, str]:
        skip = getattr(self.net, "skip", "none")
        if skip == "none":
            return super().expected_initial_loss(batch, target)
        # The head starts as the naive forecast (`learned`: it reads the seasonal naive through, the rest at 0).
        start = "seasonal_naive" if skip == "learned" else skip
        naive = batch[3][:, BASELINES.index(start)].to(self.task.mean.device)
        output = (naive - self.task.mean) / self.task.std
        loss = self.task.loss(output, target.to(output.device))
        return float(loss), f"the loss of the {NAMES[start]} forecast, where the untrained forecaster starts"

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
