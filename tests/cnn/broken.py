"""Deliberately broken parts, importable by class path so the doctor can be pointed at them from a command line."""

import torch

from project.data.images import ShapesDataModule
from project.nets.cnn import SimpleCNN


class SoftmaxCNN(SimpleCNN):
    """The classic: probabilities out, and cross-entropy applies log-softmax on top."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x).softmax(dim=-1)


class ColumnLabelShapes(ShapesDataModule):
    """Labels shaped [B, 1], as a dataset returning `[label]` gives them."""

    def collate_for(self, train: bool):
        collate = super().collate_for(train)
        return lambda samples: (lambda x, y: (x, y.unsqueeze(1)))(*collate(samples))
