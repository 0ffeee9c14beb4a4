"""One class per row: cross-entropy on logits, accuracy and macro-F1, a confusion matrix."""

import math
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torchmetrics import MetricCollection
from torchmetrics.classification import MulticlassAccuracy, MulticlassConfusionMatrix, MulticlassF1Score

from runkit import TrainingProblem
from runkit.tasks import figures
from runkit.tasks.base import Task, rows_sum_to_one

IGNORE = -100  # a target that counts in neither the loss nor the metrics (cross_entropy's default)


class Multiclass(Task):
    """Targets are class ids `[rows]`; the network outputs logits `[rows, num_classes]` (no softmax).

    Args:
        label_smoothing: passed to the cross-entropy.
    """

    name = "multiclass"
    monitor = "val/acc"
    mode = "max"
    perfect = 0.9999  # accuracy this close to 1: no later epoch can be a better checkpoint
    summary = ("val/acc", "val/f1")

    def __init__(self, label_smoothing: float = 0.0) -> None:
        super().__init__()
        self.label_smoothing = label_smoothing

    def bind(self, num_outputs: int) -> None:
        super().bind(num_outputs)
        # Drawn by TaskFigures; one bincount per validation batch.
        self.confusion = MulticlassConfusionMatrix(num_outputs, **self._scoring)

    @property
    def _scoring(self) -> dict[str, Any]:
        # validate_args off: torchmetrics' check calls torch.unique on the targets at every update, which on a
        # GPU waits for the device: one sync per metric per step (benchmarks/ablation.py measures it). The
        # labels are checked anyway: the loss refuses an out-of-range class, and Diagnostics names it first.
        return {"ignore_index": IGNORE, "validate_args": False}

    def loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(output, target, ignore_index=IGNORE, label_smoothing=self.label_smoothing)

    def metrics(self) -> MetricCollection:
        return MetricCollection(
            {
                "acc": MulticlassAccuracy(self.num_outputs, average="micro", **self._scoring),
                "f1": MulticlassF1Score(self.num_outputs, average="macro", **self._scoring),
            }
        )

    def predict(self, output: torch.Tensor) -> dict[str, torch.Tensor]:
        probs = output.softmax(dim=-1)
        confidence, pred = probs.max(dim=-1)
        return {"probs": probs, "pred": pred, "confidence": confidence}

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        rows = []
        for batch in predictions:
            for pred, confidence in zip(batch["pred"].tolist(), batch["confidence"].tolist(), strict=True):
                rows.append([names[pred] if names else str(pred), f"{confidence:.4f}"])
        return ["label", "probability"], rows

    def check_batch(self, output: torch.Tensor, target: torch.Tensor) -> None:
        """Logits `[B, C]` and class ids `[B]` in `[0, C)`, before the loss reports it as a size or device-side
        error."""
        num_classes = self.num_outputs
        if target.dim() == 2 and target.shape[1] == 1 and target.shape[0] == output.shape[0]:
            raise TrainingProblem(
                f"labels have shape {list(target.shape)}, logits {list(output.shape)}: cross-entropy wants labels "
                f"[{target.shape[0]}] (one class id per row). Likely a dataset that returns [label] instead of "
                "label; fix: label.squeeze(-1) in the dataset or collate function."
            )
        if target.dim() == 2 and target.shape == output.shape:
            raise TrainingProblem(
                f"labels have shape {list(target.shape)}, the same as the logits: one row of 0/1 per sample is a "
                "multilabel target (or one-hot classes). One class per sample: give class ids [batch] "
                "(target.argmax(-1)); several labels per sample: use the multilabel task "
                "(--model.task runkit.tasks.Multilabel)."
            )
        if target.dim() != 1 or output.dim() != 2 or target.shape[0] != output.shape[0]:
            raise TrainingProblem(
                f"logits have shape {list(output.shape)} and labels {list(target.shape)}: expected logits "
                "[batch, num_classes] and labels [batch] with the same batch size. Check how the batch is unpacked "
                "and that the network keeps the batch dimension first (and does not flatten it away)."
            )
        if target.is_floating_point():
            raise TrainingProblem(
                f"labels are {str(target.dtype).removeprefix('torch.')}, not class ids: cross-entropy wants integer "
                "class ids. Real-valued targets: use the regression task (--model.task runkit.tasks.Regression)."
            )
        if output.shape[1] != num_classes:
            raise TrainingProblem(
                f"the network outputs {output.shape[1]} scores per row but the model has num_outputs={num_classes}: "
                "set the network's num_outputs from the data (the CLI links it)."
            )
        scored = target[target != IGNORE]
        if scored.numel() and (scored.min() < 0 or scored.max() >= num_classes):
            bad = scored[(scored < 0) | (scored >= num_classes)]
            raise TrainingProblem(
                f"class id {int(bad[0])} is out of range for num_classes={num_classes} (valid: 0..{num_classes - 1}; "
                f"{bad.numel()} such labels in this batch). On a GPU this is an opaque 'device-side assert'. "
                "Labels must be 0-based class ids: map them (e.g. 1..C -> 0..C-1) or raise num_classes."
            )

    def check_outputs(self, output: torch.Tensor) -> str | None:
        """Outputs of softmax (rows sum to 1) or log-softmax (all <= 0): cross-entropy would apply it twice."""
        if output.dim() != 2 or output.shape[1] < 2 or not output.is_floating_point():
            return None
        rows = output.detach().float()
        ones = torch.ones(len(rows), device=rows.device, dtype=rows.dtype)  # not the default (float64 under 64-true)
        if rows_sum_to_one(rows):
            seen = "every row is non-negative and sums to 1 (a softmax)"
        elif (rows <= 0).all() and torch.allclose(rows.exp().sum(dim=1), ones, atol=1e-3):
            seen = "every value is <= 0 and each row's exp sums to 1 (a log-softmax)"
        else:
            return None
        return (
            f"the network's outputs look like probabilities: {seen}. Cross-entropy expects raw logits and applies "
            "log-softmax itself, so training is slowed or stalled. Fix: remove the final softmax/log-softmax from "
            "the network; apply softmax only at prediction time (predict_step does)."
        )

    def expected_initial_loss(self, target: torch.Tensor) -> tuple[float, str]:
        return math.log(self.num_outputs), f"ln({self.num_outputs})"

    def describe_targets(self, targets: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
        counts = torch.bincount(targets[targets != IGNORE].clamp(0, self.num_outputs - 1), minlength=self.num_outputs)
        return figures.histogram_lines(counts, names, batches)

    def reset_observed(self) -> None:
        self.confusion.reset()

    def observe(self, output: torch.Tensor, target: torch.Tensor) -> None:
        self.confusion.update(output, target)

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        matrix = self.confusion.compute()
        if not draw or len(matrix) > figures.MAX_CLASSES:
            return {}
        names = list(names) if names else [str(i) for i in range(len(matrix))]
        return {"val/confusion_matrix": figures.confusion(matrix.cpu(), names)}
