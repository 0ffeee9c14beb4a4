"""Real-valued targets: MSE, L1 or Huber on standardised targets, or quantiles by the pinball loss; MAE, RMSE and R²
in the targets' units."""

from collections.abc import Sequence
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torchmetrics import MetricCollection
from torchmetrics.regression import MeanAbsoluteError, MeanSquaredError, R2Score

from runkit import ConfigError, TrainingProblem
from runkit.tasks import figures
from runkit.tasks.base import Task

OBSERVED_ROWS = 4096  # the validation rows kept for the pictures
FEW_VALUES = 10  # integer targets with at most this many distinct values look like classes


class Regression(Task):
    """Targets `[rows, num_targets]` (a column per target, also for one); outputs the same shape.

    With `standardize` the network learns `(target - mean) / std` of the training split: every target
    weighs alike in the loss and the output layer starts at the right scale. The mean and std are
    buffers, saved in the checkpoint; metrics and predictions are in the targets' own units.

    With `quantiles` (and `loss: pinball`) the network emits, for each target, one value per quantile (the
    quantile last: outputs `[rows, num_targets * len(quantiles)]`), each trained by the pinball loss to be
    that quantile of the target given the inputs; the metrics score the middle quantile (the median where
    0.5 is one), `interval` gives the outer two, and `predict` writes every one.

    Args:
        loss: mse (the mean), l1 (the median: robust to outliers), huber (MSE near 0, L1 beyond `huber_delta`
            standard deviations), pinball (the `quantiles`).
        standardize: learn standardised targets (above); off, the targets are used as they are.
        huber_delta: where Huber turns from quadratic to linear, in standardised units.
        quantiles: with `loss: pinball`, the levels in (0, 1), increasing: `[0.1, 0.5, 0.9]` forecasts the
            median and an 80 % interval.
    """

    name = "regression"
    monitor = "val/mae"
    mode = "min"
    summary = ("val/mae", "val/rmse", "val/r2")

    def __init__(
        self,
        loss: Literal["mse", "l1", "huber", "pinball"] = "mse",
        standardize: bool = True,
        huber_delta: float = 1.0,
        quantiles: list[float] | None = None,
    ) -> None:
        super().__init__()
        if (loss == "pinball") != (quantiles is not None):
            raise ConfigError(
                "model.task.init_args.quantiles and loss: pinball go together: quantiles are trained by the pinball "
                "loss, and the pinball loss needs the levels (configs/lstm_forecast_intervals.yaml sets both)"
            )
        levels = list(quantiles or [])
        increasing = levels == sorted(set(levels))
        if quantiles is not None and (not levels or any(not 0 < q < 1 for q in levels) or not increasing):
            raise ConfigError(
                f"model.task.init_args.quantiles={quantiles}: give levels strictly between 0 and 1, in increasing "
                "order, e.g. [0.1, 0.5, 0.9]"
            )
        self.quantiles = levels
        # The quantile the metrics score: the one nearest 0.5 (a plain int: the ONNX export traces it as one).
        self.middle = min(range(len(levels)), key=lambda i: abs(levels[i] - 0.5)) if levels else 0
        self.loss_name = loss
        self.standardize = standardize
        self.huber_delta = huber_delta
        self.observed: list[tuple[torch.Tensor, torch.Tensor]] = []

    def bind(self, num_outputs: int) -> None:
        super().bind(num_outputs)
        self.register_buffer("mean", torch.zeros(num_outputs))
        self.register_buffer("std", torch.ones(num_outputs))

    @property
    def needs_train_targets(self) -> bool:
        return self.standardize

    def fit_statistics(self, train_targets: torch.Tensor) -> None:
        if self.standardize:
            targets = train_targets.float().reshape(len(train_targets), -1)
            self.mean.copy_(targets.mean(dim=0))
            # A constant target would divide by 0; check_targets reports it.
            self.std.copy_(targets.std(dim=0).nan_to_num(1.0).clamp(min=1e-8))

    def to_units(self, output: torch.Tensor) -> torch.Tensor:
        """The network's output in the targets' units (with quantiles: `[rows, num_targets, len(quantiles)]`)."""
        if self.quantiles:
            return self.by_quantile(output) * self.std.unsqueeze(1) + self.mean.unsqueeze(1)
        return output * self.std + self.mean

    @property
    def num_quantiles(self) -> int:
        """Values the network emits per target: one, or one per quantile."""
        return len(self.quantiles) or 1

    @property
    def output_width(self) -> int:
        return self.num_outputs * self.num_quantiles

    def by_quantile(self, output: torch.Tensor) -> torch.Tensor:
        """`[rows, num_targets * Q]` as `[rows, num_targets, Q]`, refused if it is not that wide."""
        if output.dim() != 2 or output.shape[1] != self.output_width:
            raise TrainingProblem(
                f"outputs have shape {list(output.shape)}: {len(self.quantiles)} quantiles of {self.num_outputs} "
                f"targets take [batch, {self.output_width}] (the network's quantiles)"
            )
        return output.view(len(output), self.num_outputs, self.num_quantiles)

    def interval(self, output: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The outer two quantiles, `[rows, num_targets]` each, in the targets' units."""
        values = self.to_units(output)
        return values[..., 0], values[..., -1]

    def loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if self.quantiles:
            return pinball(self.by_quantile(output), (target.to(output.dtype) - self.mean) / self.std, self.quantiles)
        if output.shape != target.shape:
            raise TrainingProblem(shape_message(output, target))
        z = (target.to(output.dtype) - self.mean) / self.std
        if self.loss_name == "l1":
            return F.l1_loss(output, z)
        if self.loss_name == "huber":
            return F.huber_loss(output, z, delta=self.huber_delta)
        return F.mse_loss(output, z)

    def metrics(self) -> MetricCollection:
        return MetricCollection(
            {
                "mae": MeanAbsoluteError(),
                "rmse": MeanSquaredError(squared=False),
                "r2": R2Score(multioutput="uniform_average"),
            }
        )

    def scored(self, output: torch.Tensor, target: torch.Tensor | None = None) -> torch.Tensor:
        return self.to_units(output)[..., self.middle] if self.quantiles else self.to_units(output)

    def predict(self, output: torch.Tensor) -> dict[str, torch.Tensor]:
        if self.quantiles:
            return {"value": self.scored(output), "quantiles": self.to_units(output)}
        return {"value": self.to_units(output)}

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        names = list(names) if names and len(names) == self.num_outputs else [f"y{i}" for i in range(self.num_outputs)]
        rows = [[f"{v:.6g}" for v in row] for batch in predictions for row in batch["value"].tolist()]
        return names, rows

    def check_batch(self, output: torch.Tensor, target: torch.Tensor) -> None:
        if self.quantiles:
            output = self.by_quantile(output)[..., self.middle]
        if output.shape != target.shape:
            raise TrainingProblem(shape_message(output, target))
        if not target.is_floating_point():
            distinct = target.unique()
            if len(distinct) <= FEW_VALUES:
                raise TrainingProblem(
                    f"regression targets are integers with {len(distinct)} distinct values "
                    f"({', '.join(str(int(v)) for v in distinct[:FEW_VALUES])}): this looks like classification. "
                    "Classes: use the multiclass task; real values: give float targets."
                )
        if not torch.isfinite(target).all():
            rows = (~torch.isfinite(target.reshape(len(target), -1))).any(dim=1).nonzero().flatten()
            raise TrainingProblem(
                f"regression targets hold NaN or inf in {len(rows)} row(s) of this batch (first: row {int(rows[0])} "
                "of the batch): drop or fill those samples in the data."
            )

    def check_targets(self, train_targets: torch.Tensor) -> list[str]:
        targets = train_targets.float().reshape(len(train_targets), -1)
        warnings = []
        std = targets.std(dim=0)
        if (constant := (std == 0).nonzero().flatten()).numel():
            warnings.append(
                f"target column(s) {constant.tolist()} are constant in the training split: nothing to learn there"
            )
        if not self.standardize:
            mean = targets.mean(dim=0)
            if (mean.abs() > 10).any() or (std > 10).any() or ((std < 0.1) & (std > 0)).any():
                warnings.append(
                    f"targets are far from standardised (mean {fmt(mean)}, std {fmt(std)}) and standardize is off: "
                    "the output layer starts at scale 1, so early steps chase the scale and large targets dominate "
                    "the loss. Fix: --model.task.init_args.standardize true."
                )
        return warnings

    def expected_initial_loss(self, target: torch.Tensor) -> tuple[float, str]:
        # An untrained output near 0 against standardised targets: MSE about their variance, 1.
        z = (target.float().reshape(len(target), -1) - self.mean.cpu()) / self.std.cpu()
        if self.quantiles:
            return float(pinball(torch.zeros(*z.shape, self.num_quantiles), z, self.quantiles)), "pinball at 0"
        if self.loss_name == "l1":
            return float(z.abs().mean()), "the mean |standardised target|"
        if self.loss_name == "huber":
            return float(F.huber_loss(torch.zeros_like(z), z, delta=self.huber_delta)), "Huber of the targets at 0"
        return float(z.pow(2).mean()), "the mean squared standardised target"

    def describe_targets(self, targets: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
        targets = targets.float().reshape(len(targets), -1)
        names = list(names) if names and len(names) == targets.shape[1] else [f"y{i}" for i in range(targets.shape[1])]
        lines = [f"Targets in the first {batches} training batches ({len(targets)} rows):"]
        for name, column in zip(names, targets.T, strict=True):
            lines.append(
                f"  {name:<16} mean {column.mean():.4g}  std {column.std():.4g}  min {column.min():.4g}  "
                f"max {column.max():.4g}"
            )
        return "\n".join(lines)

    def reset_observed(self) -> None:
        self.observed = []

    def observe(self, output: torch.Tensor, target: torch.Tensor) -> None:
        kept = sum(len(t) for _, t in self.observed)
        if kept < OBSERVED_ROWS:
            take = OBSERVED_ROWS - kept
            self.observed.append((self.scored(output[:take]).detach().cpu(), target[:take].detach().cpu()))

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        # This process's share of the validation rows (the first OBSERVED_ROWS), of the first target column:
        # a picture, not a metric.
        if not draw or not self.observed:
            return {}
        pred = torch.cat([p for p, _ in self.observed]).float().reshape(-1, self.num_outputs)[:, 0]
        true = torch.cat([t for _, t in self.observed]).float().reshape(-1, self.num_outputs)[:, 0]
        name = names[0] if names and len(names) == self.num_outputs else "y0"
        return {
            "val/predicted_vs_true": figures.predicted_vs_true(pred, true, name),
            "val/residuals": figures.residual_histogram(pred - true, name),
        }


def pinball(quantiles: torch.Tensor, target: torch.Tensor, levels: Sequence[float]) -> torch.Tensor:
    """The mean pinball loss of `quantiles` `[rows, T, Q]` at `levels` (Q of them) against `target` `[rows, T]`:
    under-forecasting level q costs q per unit, over-forecasting 1 - q, so its minimiser is the q-quantile."""
    q = torch.tensor(levels, dtype=quantiles.dtype, device=quantiles.device)
    error = target.unsqueeze(-1) - quantiles
    return torch.maximum(q * error, (q - 1) * error).mean()


def shape_message(output: torch.Tensor, target: torch.Tensor) -> str:
    seen = f"outputs have shape {list(output.shape)} and targets {list(target.shape)}"
    if output.dim() == 2 and output.shape[1] == 1 and target.dim() == 1 and len(target) == len(output):
        return (
            f"{seen}: MSE would broadcast them to [{len(target)}, {len(target)}] and train every output towards the "
            "mean target, silently. Fix: give targets as [batch, 1] (target.unsqueeze(-1) in the dataset), so "
            "that each output meets its own target."
        )
    if target.dim() == 2 and target.shape[1] == 1 and output.dim() == 1:
        return f"{seen}: the network dropped the output column (a squeeze?); keep its output [batch, 1]."
    return (
        f"{seen}: a regression model wants both [batch, num_targets]. Check num_outputs (linked from the data's "
        "target count) and how the batch is unpacked."
    )


def fmt(values: torch.Tensor) -> str:
    return "[" + ", ".join(f"{v:.3g}" for v in values.tolist()[:4]) + (", ...]" if len(values) > 4 else "]")
