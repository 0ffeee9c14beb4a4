"""A residual network of basic blocks (He et al. 2016), named as torchvision's ResNet-18 and -34 are, so that a
weights file made for those loads into it. Ours because torchvision does not import beside the pinned torch."""

import logging
import pickle
from pathlib import Path
from typing import Literal

import torch
from runkit import ConfigError, UnsafePickle, load_plain_data
from torch import nn

from project.nets.cnn import NormKind, make_norm
from project.nets.init import init_weights

log = logging.getLogger(__name__)

StemKind = Literal["auto", "small", "strided", "standard"]
STRIDED_STEM_FROM, STANDARD_STEM_FROM = 64, 128  # the sides from which `stem: auto` halves once, then twice


class BasicBlock(nn.Module):
    """Two 3×3 convolutions with BatchNorm, added to the input (through a 1×1 projection, `downsample`, where
    the stride or the width changes). torchvision's names: conv1, bn1, conv2, bn2, downsample.0 and .1."""

    def __init__(self, in_channels: int, out_channels: int, stride: int = 1, norm: NormKind = "batch") -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride, padding=1, bias=False)
        self.bn1 = make_norm(out_channels, norm, 0.1)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, 1, padding=1, bias=False)
        self.bn2 = make_norm(out_channels, norm, 0.1)
        self.downsample: nn.Module | None = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride, bias=False), make_norm(out_channels, norm, 0.1)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shortcut = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + shortcut)


class ResNet(nn.Module):
    """Image classifier: `[batch, in_channels, H, W]` → logits `[batch, num_outputs]`, any H and W.

    A stem, four stages of `blocks` basic blocks (the first stage at the stem's resolution, each later one
    halving H and W and widening to its entry of `widths`), global average pooling and a linear head. Each
    block's last BatchNorm starts at zero, so every block starts as the identity and the untrained network is
    as shallow as its stem (Goyal et al. 2017): deep stacks train from the first step.

    The stem follows the input: `small` is one 3×3 convolution at stride 1 (a 32 px image keeps its 32 px for
    the first stage: the CIFAR ResNets); `strided` the same at stride 2 (96 px reach the first stage at 48);
    `standard` is torchvision's 7×7 at stride 2 and a 3×3 max-pool (224 px reach it at 56). `auto` takes
    `small` below 64 px, `strided` below 128 and `standard` from there: the first stage, the costliest, then
    works at 32-64 px whatever the input, and the receptive field still covers it.

    With `widths: [64, 128, 256, 512]`, `stem: standard` and `blocks: [2, 2, 2, 2]` (ResNet-18) or
    `[3, 4, 6, 3]` (ResNet-34), every weight has torchvision's name and shape (conv1, bn1, layer1.0.conv1, ...,
    fc), and `weights: PATH` loads a file of them (`load_torchvision_weights`).

    Args:
        num_outputs: classes (or labels, or targets); linked from the DataModule.
        in_channels: image channels.
        widths: each stage's channels; the stem has the first stage's.
        blocks: basic blocks per stage.
        stem: above.
        image_size: the input side, for `stem: auto`; linked from the DataModule.
        dropout: before the head.
        norm: batch, or group (GroupNorm: statistics per sample, for DDP on CPUs, which have no SyncBatchNorm).
        channels_last: weights and activations stored channel-last (NHWC), where the CPU's convolution
            kernels are faster (benchmarks/image_nets.py; the figures in the template's benchmarks/README.md).
        weights: a state dict of torchvision's names (.pth / .pt, read with weights_only, or .safetensors).
    """

    def __init__(
        self,
        num_outputs: int,
        in_channels: int = 3,
        widths: tuple[int, ...] = (16, 32, 64, 128),
        blocks: tuple[int, ...] = (1, 1, 1, 1),
        stem: StemKind = "auto",
        image_size: int = 32,
        dropout: float = 0.0,
        norm: NormKind = "batch",
        channels_last: bool = True,
        weights: str | None = None,
    ) -> None:
        super().__init__()
        if len(widths) != 4 or len(blocks) != 4 or min(blocks) < 1:
            raise ConfigError(f"ResNet takes four stages: widths {list(widths)} and blocks {list(blocks)} (each >= 1)")
        if stem not in ("auto", "small", "strided", "standard"):
            raise ConfigError(f"unknown stem {stem!r}: use auto, small, strided or standard")
        self.stem = stem if stem != "auto" else auto_stem(image_size)
        if self.stem == "standard":
            self.conv1 = nn.Conv2d(in_channels, widths[0], 7, 2, padding=3, bias=False)
            self.maxpool: nn.Module = nn.MaxPool2d(3, 2, padding=1)
        else:
            self.conv1 = nn.Conv2d(in_channels, widths[0], 3, 2 if self.stem == "strided" else 1, padding=1, bias=False)
            self.maxpool = nn.Identity()
        self.bn1 = make_norm(widths[0], norm, 0.1)
        self.relu = nn.ReLU(inplace=True)
        channels = widths[0]
        for stage, (width, count) in enumerate(zip(widths, blocks, strict=True), start=1):
            stride = 1 if stage == 1 else 2
            layer = [
                BasicBlock(channels, width, stride, norm),
                *(BasicBlock(width, width, 1, norm) for _ in range(count - 1)),
            ]
            setattr(self, f"layer{stage}", nn.Sequential(*layer))
            channels = width
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(channels, num_outputs)
        self.apply(init_weights)
        for module in self.modules():
            if isinstance(module, BasicBlock):
                nn.init.zeros_(module.bn2.weight)  # each block starts as its shortcut (BatchNorm or GroupNorm)
        if weights is not None:
            load_torchvision_weights(self, weights)
        self.channels_last = channels_last
        if channels_last:
            self.to(memory_format=torch.channels_last)

    @property
    def features(self) -> nn.Sequential:
        """Everything before the head, as one module to freeze (`freeze_features`), not registered under this
        name: the weights keep torchvision's names."""
        stages = [getattr(self, f"layer{i}") for i in range(1, 5)]
        return nn.Sequential(self.conv1, self.bn1, self.relu, self.maxpool, *stages, self.avgpool, nn.Flatten())

    @property
    def head(self) -> nn.Sequential:
        """Dropout and the final linear layer (`fc`), as the other networks' heads, not registered either."""
        return nn.Sequential(self.dropout, self.fc)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        if self.channels_last:
            images = images.contiguous(memory_format=torch.channels_last)
        x = self.maxpool(self.relu(self.bn1(self.conv1(images))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.dropout(torch.flatten(self.avgpool(x), 1)))


def auto_stem(image_size: int) -> StemKind:
    """`stem: auto` for inputs of `image_size` px (above)."""
    if image_size >= STANDARD_STEM_FROM:
        return "standard"
    return "strided" if image_size >= STRIDED_STEM_FROM else "small"


def read_state_dict(path: str | Path) -> dict[str, torch.Tensor]:
    """Tensors by name from a .safetensors file or a PyTorch file (weights only: a pickle that holds anything
    else is refused, never run). A file that wraps its weights in `state_dict` or `model` is unwrapped."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"weights {path}: no such file")
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path))
    try:
        saved = load_plain_data(path)
    except UnsafePickle as unsafe:
        raise ConfigError(
            f"weights {path}: refused, it holds Python objects other than tensors ({unsafe.culprit}), "
            "and unpickling them could run code. Save the weights alone: torch.save(model.state_dict(), path)"
        ) from None
    except (RuntimeError, EOFError, OSError, pickle.UnpicklingError) as error:  # not a PyTorch file, or cut short
        raise ConfigError(f"weights {path}: not a PyTorch file of tensors ({error})") from None
    for key in ("state_dict", "model"):
        if isinstance(saved, dict) and isinstance(saved.get(key), dict):
            saved = saved[key]
    if not isinstance(saved, dict) or not all(isinstance(v, torch.Tensor) for v in saved.values()):
        raise ConfigError(f"weights {path}: holds no mapping of names to tensors")
    return saved


def load_torchvision_weights(net: ResNet, path: str | Path) -> None:
    """Load a state dict of torchvision's names into `net`, checked name by name and shape by shape: any name
    missing, extra or of another shape is refused, naming them. The head (`fc`) is the exception: where its
    shape differs (other classes) it stays new, and the log says so."""
    saved, own = read_state_dict(path), net.state_dict()
    head = {name for name in own if name.startswith("fc.")}
    new_head = any(name in saved and saved[name].shape != own[name].shape for name in head)
    if new_head:
        saved = {name: tensor for name, tensor in saved.items() if name not in head}
    missing = sorted(set(own) - set(saved) - (head if new_head else set()))
    extra = sorted(set(saved) - set(own))
    shapes = sorted(
        f"{name} {list(saved[name].shape)} (here {list(own[name].shape)})"
        for name in set(saved) & set(own)
        if saved[name].shape != own[name].shape
    )
    if missing or extra or shapes:
        found = [("missing from the file", missing), ("not in this network", extra), ("of another shape", shapes)]
        lines = [f"  {what} ({len(names)}): {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}"
                 for what, names in found if names]  # fmt: skip
        raise ConfigError(
            f"weights {path} do not fit this ResNet ({sum(map(len, (missing, extra, shapes)))} names):\n"
            + "\n".join(lines)
            + "\nResNet-18 is widths [64, 128, 256, 512], blocks [2, 2, 2, 2], stem standard; ResNet-34 blocks "
            "[3, 4, 6, 3]"
        )
    net.load_state_dict(saved, strict=not new_head)
    log.info(f"loaded {len(saved)} tensors from {path}" + ("; the head (fc) is new: other classes" if new_head else ""))
