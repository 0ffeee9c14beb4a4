"""Image transforms on uint8 tensors `[C, H, W]`, written with torch ops (no torchvision)."""

import torch
import torch.nn.functional as F


class ImageTransform:
    """uint8 `[C, H, W]` → normalised float32. With `augment`: random crop after padding, and horizontal flip.

    Augment only the training split: validation must see the images as they are.
    """

    def __init__(
        self,
        mean: tuple[float, ...] = (0.5, 0.5, 0.5),
        std: tuple[float, ...] = (0.5, 0.5, 0.5),
        augment: bool = False,
        crop_padding: int = 2,
    ) -> None:
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)
        self.augment = augment
        self.crop_padding = crop_padding

    def __call__(self, image: torch.Tensor) -> torch.Tensor:
        x = image.float().div_(255)
        if self.augment:
            x = self._random_crop(x)
            if torch.rand(()) < 0.5:
                x = x.flip(-1)
        return (x - self.mean) / self.std

    def _random_crop(self, x: torch.Tensor) -> torch.Tensor:
        p = self.crop_padding
        if p == 0:
            return x
        _, h, w = x.shape
        padded = F.pad(x.unsqueeze(0), (p, p, p, p), mode="reflect").squeeze(0)
        top, left = torch.randint(0, 2 * p + 1, (2,)).tolist()
        return padded[:, top : top + h, left : left + w]
