"""Will these two nodes be linked? Balanced binary cross-entropy on pairs; AUROC, AP, MRR and Hits@K."""

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torchmetrics import Metric, MetricCollection
from torchmetrics.classification import BinaryAUROC, BinaryAveragePrecision
from torchmetrics.wrappers import LambdaInputTransformer

from runkit import TrainingProblem
from runkit.tasks.base import Task


def _balanced_probabilities(scores: torch.Tensor) -> torch.Tensor:
    """Each positive and its first negative: AUROC and AP on as many negatives as positives."""
    return scores[:, :2].flatten().sigmoid()


def _balanced_targets(target: torch.Tensor) -> torch.Tensor:
    return target[:, :2].flatten().long()


class PositiveRank(Metric):
    """The rank of each row's positive (column 0) among its negatives (the other columns), as OGB ranks:
    the mean of the optimistic and pessimistic rank, so ties cost half. Two sums as state, whatever the
    number of rows (torchmetrics' retrieval metrics keep every score).

    Args:
        k: None: the mean reciprocal rank (MRR); an int: the share of positives ranked in the top k (Hits@k).
    """

    full_state_update = False
    higher_is_better = True

    def __init__(self, k: int | None = None) -> None:
        super().__init__()
        self.k = k
        self.add_state("total", torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, scores: torch.Tensor, target: torch.Tensor) -> None:
        positive, negatives = scores[:, :1], scores[:, 1:]
        rank = 1 + 0.5 * ((negatives > positive).sum(dim=1) + (negatives >= positive).sum(dim=1))
        value = rank.float().reciprocal() if self.k is None else (rank <= self.k).float()
        self.total += value.sum()
        self.count += len(rank)

    def compute(self) -> torch.Tensor:
        return self.total / self.count.clamp(min=1)


class LinkPrediction(Task):
    """Rows are positive pairs: outputs `[pairs, 1 + negatives]`, column 0 the true link's logit, the others
    those of pairs sharing its source node with another destination (corrupted links). Targets are the same
    shape: 1 in column 0, 0 elsewhere.

    The loss is the mean of the positives' BCE and of the negatives' BCE, so it weighs a positive like all of
    its negatives however many there are (with one negative per positive: plain BCE). AUROC and AP compare
    each positive with its first negative; MRR and Hits@K rank it among all of its negatives, which for
    validation and test are a fixed set per positive (`data.eval_negatives`), as OGB's benchmarks do.

    Args:
        hits_k: K of `hits_at_k`: the share of positives ranked within the first K of their row.
    """

    name = "link"
    monitor = "val/auroc"
    mode = "max"
    perfect = 0.9999
    summary = ("val/auroc", "val/ap", "val/mrr", "val/hits_at_k")

    def __init__(self, hits_k: int = 10) -> None:
        super().__init__()
        self.hits_k = hits_k

    @staticmethod
    def _check_shapes(output: torch.Tensor, target: torch.Tensor) -> None:
        if output.shape != target.shape or output.dim() != 2 or output.shape[1] < 2:
            raise TrainingProblem(
                f"link scores have shape {list(output.shape)} and targets {list(target.shape)}: expected both "
                "[pairs, 1 + negatives], the true link in column 0 and at least one negative beside it"
            )

    def loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        self._check_shapes(output, target)
        target = target.to(output.dtype)
        positive = F.binary_cross_entropy_with_logits(output[:, 0], target[:, 0])
        negative = F.binary_cross_entropy_with_logits(output[:, 1:], target[:, 1:])
        return 0.5 * (positive + negative)

    def metrics(self) -> MetricCollection:
        balanced = {"transform_pred": _balanced_probabilities, "transform_target": _balanced_targets}
        return MetricCollection(
            {
                "auroc": LambdaInputTransformer(BinaryAUROC(validate_args=False), **balanced),
                "ap": LambdaInputTransformer(BinaryAveragePrecision(validate_args=False), **balanced),
                "mrr": PositiveRank(),
                "hits_at_k": PositiveRank(self.hits_k),
            }
        )

    def train_metrics(self) -> MetricCollection:
        # Training rows have `num_negatives` (1) negatives: a rank among them says little.
        metrics = self.metrics()
        return MetricCollection({name: metrics[name] for name in ("auroc", "ap")})

    def predict(self, output: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"probability": output.sigmoid()}

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        rows = []
        for batch in predictions:
            for src, dst, p in zip(*(batch[k].flatten().tolist() for k in ("src", "dst", "probability")), strict=True):
                rows.append([names[src] if names else str(src), names[dst] if names else str(dst), f"{p:.4f}"])
        return ["src", "dst", "probability"], rows

    def check_batch(self, output: torch.Tensor, target: torch.Tensor) -> None:
        self._check_shapes(output, target)
        if not bool((target[:, 0] == 1).all()) or bool((target[:, 1:] != 0).any()):
            raise TrainingProblem(
                "link targets must be 1 in column 0 (the true link) and 0 in every other column (its negatives); "
                f"this batch has {int((target[:, 0] != 1).sum())} positives not 1 and "
                f"{int((target[:, 1:] != 0).sum())} negatives not 0"
            )

    def check_outputs(self, output: torch.Tensor) -> str | None:
        # The first batches' scores are untrained: raw, they spread around 0 (a dot product of embeddings that
        # share a direction may put them all in [0, 1]); through a sigmoid they bunch within 0.25 of 0.5.
        scores = output.detach().float()
        if scores.numel() > 1 and bool(((scores > 0) & (scores < 1)).all()) and (scores - 0.5).abs().max() < 0.25:
            return (
                "every link score lies within 0.25 of 0.5, as a sigmoid of untrained scores does: the loss applies "
                "its own sigmoid to raw scores, so they would be squashed twice. Remove the decoder's final sigmoid "
                "(predict applies it)."
            )
        return None

    def expected_initial_loss(self, target: torch.Tensor) -> tuple[float, str]:
        return math.log(2), "ln(2) (scores near 0)"

    def describe_targets(self, targets: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
        return (
            f"Pairs in the first {batches} batch(es): {targets.shape[0]} true links, each beside "
            f"{targets.shape[1] - 1} sampled non-link(s) with the same source node"
        )
