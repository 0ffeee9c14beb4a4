"""Image transforms on uint8 batches `[B, C, H, W]`, written with torch ops (no torchvision)."""

from typing import Any

import torch
import torch.nn.functional as F
from torch.utils.data import default_collate


class ImageTransform:
    """uint8 `[B, C, H, W]` → normalised float32. With `augment`: random crop after padding, and horizontal flip.

    A whole batch at a time, in a few tensor ops instead of a Python loop over images (benchmarks/parity.py
    times the data wait). Augment only the training split: validation must see the images as they are.
    """

    def __init__(
        self,
        mean: tuple[float, ...] = (0.5, 0.5, 0.5),
        std: tuple[float, ...] = (0.5, 0.5, 0.5),
        augment: bool = False,
        crop_padding: int = 2,
    ) -> None:
        self.mean = torch.tensor(mean).view(1, -1, 1, 1)
        self.std = torch.tensor(std).view(1, -1, 1, 1)
        self.augment = augment
        self.crop_padding = crop_padding

    def __call__(self, images: torch.Tensor) -> torch.Tensor:
        x = images.float().div_(255)
        if self.augment:
            x = self._random_crop(x)
            flip = torch.rand(len(x), 1, 1, 1) < 0.5
            x = torch.where(flip, x.flip(-1), x)
        return (x - self.mean) / self.std

    def _random_crop(self, x: torch.Tensor) -> torch.Tensor:
        """Each image shifted by its own offset, up to `crop_padding` pixels, the border reflected."""
        p = self.crop_padding
        if p == 0:
            return x
        b, c, h, w = x.shape
        padded = F.pad(x, (p, p, p, p), mode="reflect")
        top, left = torch.randint(0, 2 * p + 1, (2, b, 1, 1, 1))
        rows = (top + torch.arange(h).view(1, 1, h, 1)).expand(b, c, h, w + 2 * p)
        cols = (left + torch.arange(w).view(1, 1, 1, w)).expand(b, c, h, w)
        return padded.gather(2, rows).gather(3, cols)


class ImageCollate:
    """`(uint8 image, label)` pairs → `(float images [B, C, H, W], labels [B])`, transformed as one batch."""

    def __init__(self, transform: ImageTransform) -> None:
        self.transform = transform

    def __call__(self, samples: list[tuple[torch.Tensor, Any]]) -> tuple[torch.Tensor, torch.Tensor]:
        images, labels = default_collate(samples)
        return self.transform(images), labels
