"""Entity spans of BIO / IOBES tag sequences, and their precision, recall and F1 as the CoNLL evaluation defines
them (conlleval, and seqeval's default mode): a span counts only when its type, start and end all match.

Hand-written rather than seqeval's: its scores take Python lists of strings at the end of an epoch, where a
torchmetrics state sums across DDP processes and resets by itself. tests/test_task_tagging.py checks these spans
and scores against seqeval's on hand-made sequences.
"""

from collections.abc import Sequence

import torch
from torchmetrics import Metric

Span = tuple[str, int, int]  # type, first step, last step


def _parts(tag: str) -> tuple[str, str]:
    """`B-PER` → (`B`, `PER`); `O` → (`O`, ``)."""
    prefix, _, kind = tag.partition("-")
    return (prefix, kind) if kind else (tag[:1], "")


def _ends(previous: str, tag: str, previous_kind: str, kind: str) -> bool:
    if previous in ("E", "S") or (previous in ("B", "I") and tag in ("B", "S", "O")):
        return True
    return previous not in ("O", "") and previous_kind != kind


def _starts(previous: str, tag: str, previous_kind: str, kind: str) -> bool:
    if tag in ("B", "S") or (previous in ("E", "S", "O", "") and tag in ("E", "I")):
        return True
    return tag != "O" and previous_kind != kind


def spans(tags: Sequence[str]) -> list[Span]:
    """The spans of one tag sequence, conlleval's way: an `I-` after `O` or after another type starts a span."""
    found, start, previous, previous_kind = [], 0, "O", ""
    for i, tag in enumerate([*tags, "O"]):
        prefix, kind = _parts(tag)
        if _ends(previous, prefix, previous_kind, kind) and previous != "O":
            found.append((previous_kind, start, i - 1))
        if _starts(previous, prefix, previous_kind, kind):
            start = i
        previous, previous_kind = prefix, kind
    return found


def forbidden_steps(tags: Sequence[str]) -> list[int]:
    """Where a BIO sequence breaks its rule: an `I-X` not after `B-X` or `I-X` (after `O`, at the start, or after
    another type). What the reader repairs (to `B-X`) or refuses."""
    bad, previous = [], "O"
    for i, tag in enumerate(tags):
        prefix, kind = _parts(tag)
        if prefix == "I" and previous not in (f"B-{kind}", f"I-{kind}"):
            bad.append(i)
        previous = tag
    return bad


class SpanCounts(Metric):
    """True positive, predicted and true span counts per entity type, summed over batches (and DDP processes).

    `update(predicted, target)` takes tag ids `[batch, time]`, padding steps marked by `ignore_index` in `target`.
    `compute()` gives `kind` (f1, precision or recall) over all spans (micro, as conlleval reports), or with
    `per_type` the F1 of each type `[types]` (in `types`' order).
    """

    full_state_update = False

    def __init__(self, tag_names: Sequence[str], kind: str = "f1", ignore_index: int = -100) -> None:
        super().__init__()
        self.tag_names, self.kind, self.ignore_index = list(tag_names), kind, ignore_index
        self.types = sorted({_parts(t)[1] for t in self.tag_names} - {""})
        for name in ("correct", "predicted", "true"):
            self.add_state(name, default=torch.zeros(max(len(self.types), 1)), dist_reduce_fx="sum")

    def update(self, predicted: torch.Tensor, target: torch.Tensor) -> None:
        index = {kind: i for i, kind in enumerate(self.types)}
        for guess, truth in zip(predicted.tolist(), target.tolist(), strict=True):
            length = sum(t != self.ignore_index for t in truth)
            guessed = set(spans([self.tag_names[t] for t in guess[:length]]))
            true = set(spans([self.tag_names[t] for t in truth[:length]]))
            for bucket, found in ((self.predicted, guessed), (self.true, true), (self.correct, guessed & true)):
                for kind, _, _ in found:
                    bucket[index[kind]] += 1

    def compute(self) -> torch.Tensor:
        if self.kind == "per_type":
            counts = zip(self.correct, self.predicted, self.true, strict=True)
            return torch.stack([scores(*count)["f1"] for count in counts])
        return scores(self.correct.sum(), self.predicted.sum(), self.true.sum())[self.kind]


def scores(correct: torch.Tensor, predicted: torch.Tensor, true: torch.Tensor) -> dict[str, torch.Tensor]:
    """Precision, recall and F1 from span counts; 0 where nothing was predicted or nothing was there (seqeval's)."""
    precision = correct / predicted if predicted > 0 else torch.zeros_like(correct)
    recall = correct / true if true > 0 else torch.zeros_like(correct)
    total = precision + recall
    f1 = 2 * precision * recall / total if total > 0 else torch.zeros_like(correct)
    return {"precision": precision, "recall": recall, "f1": f1}
