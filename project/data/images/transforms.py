"""Image transforms on uint8 batches `[B, C, H, W]`, written with torch ops (no torchvision)."""

from typing import Any

import torch
import torch.nn.functional as F
from torch.utils.data import default_collate

TRANSLATE, SCALE = 0.125, 0.1  # the training moves' defaults, for every image DataModule: up to an eighth, ±10 %


class ImageTransform:
    """uint8 `[B, C, H, W]` → normalised float32. With `augment`: each image moved by up to `translate` of its
    side and scaled by up to `scale` either way (one resampling of the whole batch), and mirrored left-right
    only with `flip`.

    Moves and scale are what every image kind tolerates: an object is the same object a few pixels over or a
    little larger. Mirroring is not: a mirrored 2, 7 or letter is no longer one (flip natural photos, of animals
    or scenes, where left and right mean nothing); rotations likewise turn a 6 into a 9, so there are none.
    A whole batch at a time, in a few tensor ops instead of a Python loop over images (benchmarks/parity.py
    times the data wait). Augment only the training split: validation must see the images as they are.
    """

    def __init__(
        self,
        mean: tuple[float, ...] = (0.5, 0.5, 0.5),
        std: tuple[float, ...] = (0.5, 0.5, 0.5),
        augment: bool = False,
        translate: float = TRANSLATE,
        scale: float = SCALE,
        flip: bool = False,
    ) -> None:
        self.mean = torch.tensor(mean).view(1, -1, 1, 1)
        self.std = torch.tensor(std).view(1, -1, 1, 1)
        self.augment, self.translate, self.scale, self.flip = augment, translate, scale, flip

    def __call__(self, images: torch.Tensor) -> torch.Tensor:
        x = images.float().div_(255)
        if self.augment:
            x = self._move_and_scale(x)
            if self.flip:
                mirrored = torch.rand(len(x), 1, 1, 1) < 0.5
                x = torch.where(mirrored, x.flip(-1), x)
        return (x - self.mean) / self.std

    def _move_and_scale(self, x: torch.Tensor) -> torch.Tensor:
        """Each image shifted by its own offset, up to `translate` of the side each way, and enlarged or
        shrunk by its own factor within 1 ± `scale`; the border reflected, so no black frame is learned."""
        if not self.translate and not self.scale:
            return x
        b = len(x)
        zoom = 1 + (torch.rand(b) * 2 - 1) * self.scale  # above 1: the object looks larger
        shift = (torch.rand(b, 2) * 2 - 1) * self.translate * 2  # the grid spans [-1, 1]: a side is 2
        theta = torch.zeros(b, 2, 3)
        theta[:, 0, 0] = theta[:, 1, 1] = 1 / zoom
        theta[:, :, 2] = shift
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)


class ImageCollate:
    """`(uint8 image, label)` pairs → `(float images [B, C, H, W], labels [B])`, transformed as one batch."""

    def __init__(self, transform: ImageTransform) -> None:
        self.transform = transform

    def __call__(self, samples: list[tuple[torch.Tensor, Any]]) -> tuple[torch.Tensor, torch.Tensor]:
        images, labels = default_collate(samples)
        return self.transform(images), labels
