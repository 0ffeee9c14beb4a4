"""The interface every task implements; `TaskModule` calls only these."""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import torch
from torch import nn
from torchmetrics import MetricCollection


def rows_sum_to_one(output: torch.Tensor) -> bool:
    """Every row non-negative and summing to 1: the outputs of a softmax (the output checks of both label tasks)."""
    rows = output.detach().float()
    return bool((rows >= 0).all()) and torch.allclose(
        rows.sum(dim=1), torch.ones(len(rows), device=rows.device, dtype=rows.dtype), atol=1e-3
    )


class Task(nn.Module, ABC):
    """A task: how outputs `[rows, num_outputs]` are scored against targets, and what is made of them.

    An `nn.Module` so that what it learns from the training split (standardisation, label weights, a
    tuned threshold) are buffers: saved in every checkpoint, restored on resume, used by `predict`
    without the training data.

    Class attributes say what the checkpoints and early stopping watch (`monitor`, `mode`) and the score
    past which no later epoch can be better (`perfect`; None where there is none, as for an error).
    """

    name: ClassVar[str]
    monitor: ClassVar[str]
    mode: ClassVar[Literal["min", "max"]]
    perfect: ClassVar[float | None] = None
    # The metrics beside the monitored one in the HParams tab (`hp/...`).
    summary: ClassVar[tuple[str, ...]] = ()

    def bind(self, num_outputs: int) -> None:
        """Called once by the module with the network's output width: build what depends on it."""
        self.num_outputs = num_outputs

    @property
    def output_width(self) -> int:
        """The network's output width: `num_outputs`, or more where each output is several values (quantiles)."""
        return self.num_outputs

    def fit_statistics(self, train_targets: torch.Tensor) -> None:
        """Learn what the task needs from the training split's targets (before the first step)."""

    @property
    def needs_train_targets(self) -> bool:
        """Whether `fit_statistics` uses the targets: the data is asked for them only then."""
        return False

    @abstractmethod
    def loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """The training loss; refuses shapes that would silently broadcast."""

    @abstractmethod
    def metrics(self) -> MetricCollection:
        """One collection; the module clones it per stage with the `train/`, `val/`, `test/` prefixes."""

    def train_metrics(self) -> MetricCollection:
        """The training metrics: `metrics()` unless some mean nothing on training batches."""
        return self.metrics()

    def prepare_metrics(self, metrics: MetricCollection) -> None:
        """Called as each stage's epoch starts: bring the metrics up to date with the task's state."""

    def scored(self, output: torch.Tensor, target: torch.Tensor | None = None) -> torch.Tensor:
        """What the metrics compare with the targets: the outputs as the task's predictions (probabilities,
        values in the targets' units). `target` only says where the padding is (tagging: each sequence's length);
        no prediction depends on its values."""
        return output

    @abstractmethod
    def predict(self, output: torch.Tensor) -> dict[str, torch.Tensor]:
        """`predict_step`'s result for a batch of outputs: tensors with one row per input."""

    @abstractmethod
    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        """The columns of `predictions.tsv` after the row's index, and one row of cells per input."""

    # Checks (Diagnostics and the doctor): each returns a message or raises TrainingProblem.

    @abstractmethod
    def check_batch(self, output: torch.Tensor, target: torch.Tensor) -> None:
        """Raise `TrainingProblem` on targets this task cannot be trained on, naming what was seen."""

    def check_outputs(self, output: torch.Tensor) -> str | None:
        """A warning when the network's outputs look already transformed (softmax, sigmoid...)."""
        return None

    def check_targets(self, train_targets: torch.Tensor) -> list[str]:
        """Warnings about the training split's targets as a whole (the data, not a batch)."""
        return []

    @abstractmethod
    def expected_initial_loss(self, target: torch.Tensor) -> tuple[float, str]:
        """The loss an untrained network should show on `target`, and how that number comes about."""

    @abstractmethod
    def describe_targets(self, targets: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
        """A few lines on the targets of the first batches, for the doctor."""

    # What the task keeps of each validation epoch for its pictures (`TaskFigures`).

    def reset_observed(self) -> None:
        """Forget the last validation epoch."""

    def observe(self, output: torch.Tensor, target: torch.Tensor) -> None:
        """Keep what the pictures need of one validation batch."""

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        """matplotlib figures by TensorBoard tag. Called on every rank, since a metric's sync is a collective;
        only the rank that logs draws (`draw`)."""
        return {}

    def on_validation_epoch_end(self, computed: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Act on the epoch's validation metrics (e.g. tune a threshold); return more values to log."""
        return {}
