"""Readouts that pool an RNN's outputs over the valid steps of each sequence only.

Masks come from the lengths, never from token values: a real token may share the padding id's
embedding row by accident, a length cannot lie.
"""

import torch
from torch import nn


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """`[batch, max_len]` bool, True at the valid steps `t < lengths[b]`."""
    steps = torch.arange(max_len, device=lengths.device)
    return steps.unsqueeze(0) < lengths.unsqueeze(1)


def masked_mean(outputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over valid steps: `[batch, time, dim]`, `[batch, time]` → `[batch, dim]`."""
    weights = mask.unsqueeze(-1).to(outputs.dtype)
    return (outputs * weights).sum(1) / weights.sum(1).clamp_min(1)


def masked_max(outputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Max over valid steps; padding is -inf, so it can never win."""
    return outputs.masked_fill(~mask.unsqueeze(-1), float("-inf")).amax(1)


class AttentionPool(nn.Module):
    """A learned score per step, softmax over the valid steps only, weighted sum of the outputs."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, outputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores = self.score(outputs).squeeze(-1).masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=1)  # [batch, time], zero at padding
        return torch.einsum("bt,btd->bd", weights, outputs)
