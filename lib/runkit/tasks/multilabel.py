"""A set of labels per row: binary cross-entropy per label on logits, F1, mean average precision, exact match."""

import math
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torchmetrics import MetricCollection
from torchmetrics.classification import (
    MultilabelAveragePrecision,
    MultilabelExactMatch,
    MultilabelF1Score,
    MultilabelStatScores,
)

from runkit import TrainingProblem
from runkit.tasks import figures
from runkit.tasks.base import Task, rows_sum_to_one

THRESHOLDS = torch.linspace(0.05, 0.95, 19)  # the candidates `tune_threshold` picks from
MISSING = -1  # a label not measured (an assay not run on that molecule): neither the loss nor a metric counts it


class Multilabel(Task):
    """Targets are 0/1 rows `[rows, num_labels]`; the network outputs one logit per label (no sigmoid). A target of
    -1 (`MISSING`) is a label not known for that row (Tox21-style data): the loss and every metric leave it out.

    Args:
        threshold: a label is predicted when its probability reaches this.
        pos_weight: weigh each label's positives by negatives/positives of the training split, so rare
            labels are not drowned by their many negatives (BCEWithLogitsLoss's `pos_weight`).
        tune_threshold: after each validation, set `threshold` to the candidate (0.05..0.95) with the best
            macro-F1 on that validation; it is saved in the checkpoint and used by `predict` and the next
            validation. Validation then also chose the threshold: judge the final model on the test split.
    """

    name = "multilabel"
    monitor = "val/f1_macro"
    mode = "max"
    perfect = 0.9999
    summary = ("val/f1_macro", "val/f1_micro", "val/map", "val/exact_match")

    def __init__(self, threshold: float = 0.5, pos_weight: bool = False, tune_threshold: bool = False) -> None:
        super().__init__()
        self.weighted = pos_weight
        self.tune_threshold = tune_threshold
        self.register_buffer("threshold", torch.tensor(float(threshold)))

    def bind(self, num_outputs: int) -> None:
        super().bind(num_outputs)
        self.register_buffer("pos_weight", torch.ones(num_outputs))
        # Per label and candidate threshold: true positives, false positives, false negatives.
        unchecked = {"average": None, "validate_args": False, "ignore_index": MISSING}
        self.per_threshold = torch.nn.ModuleList(
            MultilabelStatScores(num_outputs, threshold=float(t), **unchecked) for t in THRESHOLDS
        )
        self.per_label = MultilabelF1Score(num_outputs, **unchecked)

    @property
    def needs_train_targets(self) -> bool:
        return self.weighted

    def fit_statistics(self, train_targets: torch.Tensor) -> None:
        if self.weighted:
            positives, negatives = (train_targets == 1).sum(dim=0).float(), (train_targets == 0).sum(dim=0).float()
            # A label never positive gets weight 1 (nothing to up-weigh), not infinity.
            weight = negatives / positives.clamp(min=1)
            self.pos_weight.copy_(torch.where(positives > 0, weight, torch.ones_like(weight)))

    def loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        # The mean over the known labels: with every label known, BCEWithLogitsLoss's mean. No branch on whether
        # any is missing: asking would wait for the device at every step.
        known = target != MISSING
        each = F.binary_cross_entropy_with_logits(
            output,
            target.clamp(min=0).to(output.dtype),
            pos_weight=self.pos_weight if self.weighted else None,
            reduction="none",
        )
        return (each * known).sum() / known.sum().clamp(min=1)

    def metrics(self) -> MetricCollection:
        scoring = {"num_labels": self.num_outputs, "validate_args": False, "ignore_index": MISSING}
        threshold = float(self.threshold)
        return MetricCollection(
            {
                "f1_micro": MultilabelF1Score(average="micro", threshold=threshold, **scoring),
                "f1_macro": MultilabelF1Score(average="macro", threshold=threshold, **scoring),
                "map": MultilabelAveragePrecision(average="macro", thresholds=None, **scoring),
                "exact_match": MultilabelExactMatch(threshold=threshold, **scoring),
            }
        )

    def prepare_metrics(self, metrics: MetricCollection) -> None:
        for metric in metrics.values():
            if hasattr(metric, "threshold"):
                metric.threshold = float(self.threshold)  # a tuned or reloaded threshold, read at each update

    def scored(self, output: torch.Tensor, target: torch.Tensor | None = None) -> torch.Tensor:
        return output.sigmoid()

    def predict(self, output: torch.Tensor) -> dict[str, torch.Tensor]:
        probs = output.sigmoid()
        return {"probs": probs, "labels": probs >= self.threshold}

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        names = list(names) if names else [str(i) for i in range(self.num_outputs)]
        rows = []
        for batch in predictions:
            for probs, chosen in zip(batch["probs"].tolist(), batch["labels"].tolist(), strict=True):
                labels = ",".join(name for name, on in zip(names, chosen, strict=True) if on)
                rows.append([labels, *(f"{p:.4f}" for p in probs)])
        return ["labels", *(f"p_{name}" for name in names)], rows

    def check_batch(self, output: torch.Tensor, target: torch.Tensor) -> None:
        if target.dim() == 1 and not target.is_floating_point() and output.dim() == 2 and len(target) == len(output):
            raise TrainingProblem(
                f"targets have shape {list(target.shape)} (class ids?), outputs {list(output.shape)}: a multilabel "
                f"model wants one 0/1 row per sample, [{len(output)}, {output.shape[-1]}]. One class per sample: "
                "use the multiclass task; several: build the rows (torch.nn.functional.one_hot(ids, num_labels) "
                "for one label each, or a 1 per label present)."
            )
        if target.shape != output.shape:
            raise TrainingProblem(
                f"targets have shape {list(target.shape)} and outputs {list(output.shape)}: a multilabel model wants "
                "both [batch, num_labels]. Check num_outputs (linked from the data's label count) and how the "
                "batch is unpacked."
            )
        allowed = (target == 0) | (target == 1) | (target == MISSING)
        if target.numel() and not allowed.all():
            bad = target[~allowed]
            raise TrainingProblem(
                f"multilabel targets must be 0 or 1 (-1: not known); this batch holds {float(bad[0]):g} ({bad.numel()} "
                "such values). Counts or scores are not labels: threshold them, or use the regression task for real "
                "values."
            )

    def check_outputs(self, output: torch.Tensor) -> str | None:
        if output.dim() != 2 or output.shape[1] < 2 or not output.is_floating_point():
            return None
        rows = output.detach().float()
        if rows_sum_to_one(rows):
            return (
                "the network's outputs are non-negative and each row sums to 1 (a softmax across labels): the labels "
                "then compete, and two labels cannot both be likely. Fix: remove the softmax; the loss applies a "
                "sigmoid per label itself (BCEWithLogitsLoss)."
            )
        if (rows >= 0).all() and (rows <= 1).all():
            return (
                "every output lies in [0, 1], as after a sigmoid; BCEWithLogitsLoss applies the sigmoid itself, so "
                "the probabilities are squashed twice and the loss can hardly fall. Fix: remove the final sigmoid."
            )
        return None

    def check_targets(self, train_targets: torch.Tensor) -> list[str]:
        never = int(((train_targets == 1).sum(dim=0) == 0).sum())
        return (
            [f"{never} label(s) never occur in the training split: the model can only learn to say no"] if never else []
        )

    def expected_initial_loss(self, target: torch.Tensor) -> tuple[float, str]:
        # A logit of 0 costs ln 2 per known label; pos_weight w multiplies a positive's share by w.
        target = target.float()
        weight = self.pos_weight.cpu() if self.weighted else torch.ones(target.shape[-1])
        known = target != MISSING
        per_element = ((target * weight + (1 - target)) * known).sum() / known.sum().clamp(min=1)
        return math.log(2) * float(per_element), "ln(2) per label" + (" (weighted)" if self.weighted else "")

    def describe_targets(self, targets: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
        counts = (targets == 1).long().sum(dim=0)
        per_row = (targets == 1).float().sum(dim=1)
        return figures.histogram_lines(counts, names, batches) + (
            f"\n  labels per sample: mean {per_row.mean():.2f}, min {int(per_row.min())}, max {int(per_row.max())}"
        )

    def reset_observed(self) -> None:
        self.per_label.reset()
        for scores in self.per_threshold:
            scores.reset()

    def observe(self, output: torch.Tensor, target: torch.Tensor) -> None:
        probs, target = output.sigmoid(), target.long()
        self.per_label.update(probs, target)
        if self.tune_threshold:
            for scores in self.per_threshold:
                scores.update(probs, target)

    def on_validation_epoch_end(self, computed: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        if not self.tune_threshold:
            return {}
        macro_f1 = []
        for scores in self.per_threshold:
            stats = scores.compute()  # per label: tp, fp, tn, fn, support
            tp, fp, fn = stats[:, 0], stats[:, 1], stats[:, 3]
            macro_f1.append((2 * tp / (2 * tp + fp + fn).clamp(min=1)).float().mean())
        best = int(torch.stack(macro_f1).argmax())
        self.threshold.fill_(float(THRESHOLDS[best]))
        return {"val/threshold": self.threshold.clone(), "val/f1_macro_tuned": macro_f1[best]}

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        per_label = self.per_label.compute()
        if not draw or len(per_label) > figures.MAX_CLASSES:
            return {}
        names = list(names) if names else [str(i) for i in range(len(per_label))]
        return {"val/f1_per_label": figures.bars(per_label.cpu(), names, "F1 on validation")}
