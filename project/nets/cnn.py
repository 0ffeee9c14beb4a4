"""A small CNN: a stem, then one conv block per stage, global average pooling and a linear head."""

import math
from itertools import pairwise
from typing import Literal

import torch
from runkit import ConfigError
from torch import nn

from project.nets.init import init_weights

ConvKind = Literal["standard", "grouped", "depthwise_separable"]
NormKind = Literal["batch", "group"]


def make_conv(in_channels: int, out_channels: int, stride: int, kind: ConvKind, groups: int = 1) -> nn.Module:
    """A 3×3 convolution of the given kind, without bias (the BatchNorm that follows has one)."""
    if kind == "standard":
        return nn.Conv2d(in_channels, out_channels, 3, stride, padding=1, bias=False)
    if kind == "grouped":
        if in_channels % groups or out_channels % groups:
            raise ConfigError(
                f"conv 'grouped' needs channels divisible by groups={groups}, "
                f"got {in_channels} -> {out_channels}: change `groups` or `channels`"
            )
        return nn.Conv2d(in_channels, out_channels, 3, stride, padding=1, groups=groups, bias=False)
    if kind == "depthwise_separable":
        # One 3×3 filter per channel, then a 1×1 that mixes channels: about 8× fewer weights.
        return nn.Sequential(
            nn.Conv2d(in_channels, in_channels, 3, stride, padding=1, groups=in_channels, bias=False),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
        )
    raise ConfigError(f"unknown conv kind {kind!r}: use standard, grouped or depthwise_separable")


class ConvBlock(nn.Sequential):
    """conv → BatchNorm (or GroupNorm) → ReLU."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        stride: int = 1,
        kind: ConvKind = "standard",
        groups: int = 1,
        bn_momentum: float = 0.1,
        norm: NormKind = "batch",
    ) -> None:
        super().__init__(
            make_conv(in_channels, out_channels, stride, kind, groups),
            make_norm(out_channels, norm, bn_momentum),
            nn.ReLU(inplace=True),
        )


def make_norm(channels: int, kind: NormKind, bn_momentum: float) -> nn.Module:
    if kind == "batch":
        return nn.BatchNorm2d(channels, momentum=bn_momentum)
    if kind == "group":
        return nn.GroupNorm(math.gcd(channels, 8), channels)
    raise ConfigError(f"unknown norm {kind!r}: use batch or group")


class SimpleCNN(nn.Module):
    """Image classifier. Input `[batch, in_channels, H, W]`, any H and W; output logits `[batch, num_outputs]`.

    With global average pooling the head sees only what each unit of the last conv layer sees: a
    receptive field smaller than the objects leaves it counting local textures (enough for generated
    shapes, not for digits or faces). So by default the depth follows the input: as many stages as it
    takes for the receptive field to cover `image_size` (3×3 convs, every stage after the stem halving
    H and W: 2^stages + 1 pixels, 33 for 5 stages).

    Args:
        channels: output channels of the stem, then of each later stage, as far as the depth goes.
        depth: how many of `channels`' stages to build, or `auto` (above).
        image_size: the input side that `auto` covers; linked from the DataModule by the CLI.
        conv: convolution of the stages after the stem (the stem is always standard: 3 input
            channels rarely divide into groups).
        groups: groups for `conv: grouped`.
        bn_momentum: PyTorch's default 0.1 follows each batch closely; 0.01 is steadier for small batches.
        norm: batch, or group (GroupNorm, 8 groups): statistics per sample, so the batch size does not
            matter, and DDP processes need no SyncBatchNorm (which torch has on GPUs only).
    """

    def __init__(
        self,
        num_outputs: int,
        in_channels: int = 3,
        channels: tuple[int, ...] = (16, 32, 64, 64, 64, 128, 128, 128),
        depth: int | Literal["auto"] = "auto",
        image_size: int = 32,
        conv: ConvKind = "standard",
        groups: int = 4,
        bn_momentum: float = 0.1,
        norm: NormKind = "batch",
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        channels = tuple(channels[: stages_to_cover(image_size, len(channels)) if depth == "auto" else depth])
        if not channels:
            raise ConfigError(f"depth {depth}: the network needs at least one stage")
        blocks = [ConvBlock(in_channels, channels[0], 1, "standard", 1, bn_momentum, norm)]
        for c_in, c_out in pairwise(channels):
            blocks.append(ConvBlock(c_in, c_out, 2, conv, groups, bn_momentum, norm))
        # Global average pooling: the head's input size is channels[-1] whatever the image size.
        self.features = nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(channels[-1], num_outputs))
        self.apply(init_weights)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(images))


def stages_to_cover(image_size: int, available: int) -> int:
    """The fewest stages whose receptive field (2^stages + 1) covers `image_size`, at most `available`."""
    stages = 1
    while 2**stages + 1 < image_size and stages < available:
        stages += 1
    return stages
