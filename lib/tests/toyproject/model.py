"""The toy family's network, LightningModule and schedule: as small as a family can be."""

from typing import Any, ClassVar

import torch
from runkit import TaskModule
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR


class MLP(nn.Module):
    """`features` then `head`, as every family's network (freeze_features and init_from read the two)."""

    def __init__(self, num_outputs: int, in_features: int = 8, hidden: int = 32, batch_norm: bool = True) -> None:
        super().__init__()
        norm = nn.BatchNorm1d(hidden) if batch_norm else nn.Identity()
        self.features = nn.Sequential(nn.Linear(in_features, hidden), norm, nn.ReLU(), nn.Linear(hidden, hidden))
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, num_outputs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class BlobsModel(TaskModule):
    """Batches are `(points [B, F], targets [B])`."""

    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"points": {0: "batch"}}

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor], torch.Tensor, int]:
        points, targets = batch
        return (points,), targets, points.shape[0]


class LinearDecay(LambdaLR):
    """The LR falls linearly to zero at the run's last step (`total_steps`, filled in by TaskModule)."""

    def __init__(self, optimizer: Optimizer, total_steps: int) -> None:
        self.total_steps = max(int(total_steps), 1)
        super().__init__(optimizer, lambda step: 1 - min(step, self.total_steps) / (self.total_steps + 1))
