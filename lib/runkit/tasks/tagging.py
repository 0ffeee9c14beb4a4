"""A tag per step (named entities, parts of speech, chunks): the outputs `[batch, time, tags]`, the targets tag ids
`[batch, time]` with the padding at `IGNORE`. Only real steps count in the loss and the metrics."""

import math
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torchmetrics import MetricCollection
from torchmetrics.classification import MulticlassAccuracy

from runkit import TrainingProblem
from runkit.tasks import figures
from runkit.tasks.base import Task
from runkit.tasks.crf import CRF
from runkit.tasks.multiclass import IGNORE
from runkit.tasks.spans import SpanCounts


class Tagging(Task):
    """Cross-entropy over the real steps, or with `crf` a linear-chain CRF's likelihood of each whole tag sequence
    and its Viterbi decoding (`runkit/tasks/crf.py`): the tags then depend on each other, not only on the LSTM.

    Metrics: span precision, recall and F1 as the CoNLL evaluation defines them (`f1`, monitored), where the tags are
    BIO or IOBES (`B-PER`, `I-PER`...), beside the accuracy per step; the pictures show the F1 of each entity type.
    Tags without prefixes (parts of speech) have no spans: monitor `val/acc` then (`--early_stopping.monitor`).

    Args:
        crf: a CRF on top of the per-step scores. Its transitions are this task's parameters: trained with the
            network, saved in the checkpoint; an ONNX file of the network gives the per-step scores before it.
        tag_names: the tags in id order; linked from the data by the CLI.
    """

    name = "tagging"
    monitor = "val/f1"
    mode = "max"
    perfect = 0.9999
    summary = ("val/f1", "val/acc")

    def __init__(self, crf: bool = False, tag_names: list[str] | None = None) -> None:
        super().__init__()
        self.use_crf, self.tag_names = crf, tag_names

    def bind(self, num_outputs: int) -> None:
        super().bind(num_outputs)
        if self.tag_names is None:
            self.tag_names = [f"tag{i}" for i in range(num_outputs)]
        self.crf = CRF(num_outputs) if self.use_crf else None
        self.per_type = SpanCounts(self.tag_names, "per_type")

    def decode(self, output: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Tag ids `[batch, time]`: the CRF's best sequences, or each step's best tag."""
        if self.crf is not None:
            return self.crf.decode(output, lengths)
        return output.argmax(-1)

    def loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """Per sentence: the loss of each sentence's steps summed, the mean over the sentences. Not the mean over the
        batch's steps: under DDP every process has as many sentences, not as many steps, and the mean of the
        processes' means over sentences is the whole batch's (tests/test_ddp.py); over steps it would not be."""
        if self.crf is not None:
            return self.crf.nll(output, target, (target != IGNORE).sum(1)).mean()
        per_step = F.cross_entropy(output.transpose(1, 2), target, ignore_index=IGNORE, reduction="none")
        return per_step.sum(1).mean()

    def scored(self, output: torch.Tensor, target: torch.Tensor | None = None) -> torch.Tensor:
        """The decoded tags; the CRF's over each sequence's own steps (the real ones of `target`), since a path
        through the padding's scores could change the best one. The metrics skip the padding by the targets."""
        if target is None:
            lengths = torch.full(output.shape[:1], output.shape[1], device=output.device)
        else:
            lengths = (target != IGNORE).sum(1)
        return self.decode(output, lengths)

    def metrics(self) -> MetricCollection:
        spans = {kind: SpanCounts(self.tag_names, kind) for kind in ("f1", "precision", "recall")}
        steps = StepAccuracy(self.num_outputs, average="micro", ignore_index=IGNORE, validate_args=False)
        return MetricCollection({**spans, "acc": steps})

    def train_metrics(self) -> MetricCollection:
        """The accuracy per step alone: the spans are found in Python, sentence by sentence, too slow for every
        training step."""
        return MetricCollection({"acc": self.metrics()["acc"]})

    def predict(self, output: torch.Tensor, lengths: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """Tag ids `[batch, time]` and the lengths (every step where none are given). Rows of scores without a time
        axis `[rows, tags]` are one step each."""
        if output.dim() == 2:
            output = output.unsqueeze(1)
        if lengths is None:
            lengths = torch.full(output.shape[:1], output.shape[1], device=output.device)
        return {"tags": self.decode(output, lengths), "lengths": lengths}

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        """A row per real step (token), its tag: the rows follow the predict file's tokens in order."""
        names = names or self.tag_names
        rows = []
        for batch in predictions:
            for tags, length in zip(batch["tags"].tolist(), batch["lengths"].tolist(), strict=True):
                rows += [[names[t]] for t in tags[:length]]
        return ["tag"], rows

    def check_batch(self, output: torch.Tensor, target: torch.Tensor) -> None:
        if output.dim() != 3 or target.dim() != 2 or output.shape[:2] != target.shape:
            raise TrainingProblem(
                f"scores have shape {list(output.shape)} and tags {list(target.shape)}: tagging wants scores "
                "[batch, time, tags] and tag ids [batch, time] (the padding at -100)"
            )
        real = target[target != IGNORE]
        if real.numel() and (real.min() < 0 or real.max() >= self.num_outputs):
            raise TrainingProblem(f"tag id {int(real.max())} is out of range for {self.num_outputs} tags")

    def expected_initial_loss(self, target: torch.Tensor) -> tuple[float, str]:
        steps = (target != IGNORE).sum(1).float().mean().item()
        return steps * math.log(self.num_outputs), f"{steps:.1f} steps a sentence × ln({self.num_outputs})"

    def describe_targets(self, targets: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
        counts = torch.bincount(targets[targets != IGNORE].flatten(), minlength=self.num_outputs)
        return figures.histogram_lines(counts, names, batches)

    def reset_observed(self) -> None:
        self.per_type.reset()

    def observe(self, output: torch.Tensor, target: torch.Tensor) -> None:
        self.per_type.update(self.scored(output, target), target)

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        per_type = self.per_type.compute()  # synced: a collective, on every rank, drawing or not
        if not draw or not self.per_type.types:
            return {}
        return {"val/f1_per_type": figures.bars(per_type.cpu(), self.per_type.types, "span F1")}


class StepAccuracy(MulticlassAccuracy):
    """The accuracy per real step of tag ids `[batch, time]`: flattened, the padding skipped by the targets' IGNORE."""

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        super().update(preds.flatten(), target.flatten())
