"""A procedurally generated image task: which shape is in the picture?

Position, size, colours and noise are random and carry no label information, so only the shape
itself decides the class. Deterministic by seed; vectorised over the whole set.
"""

import torch

SHAPES = ("circle", "square", "triangle", "cross")


def generate_shapes(
    num_samples: int, image_size: int = 32, seed: int = 0, noise: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return images uint8 `[N, 3, S, S]` and labels int64 `[N]`, classes balanced and shuffled."""
    gen = torch.Generator().manual_seed(seed)
    n, s = num_samples, image_size
    labels = torch.arange(n) % len(SHAPES)
    labels = labels[torch.randperm(n, generator=gen)]

    def uniform(low: float, high: float) -> torch.Tensor:
        return low + (high - low) * torch.rand(n, 1, 1, generator=gen)

    radius = uniform(0.18, 0.32) * s
    cx = radius + uniform(0, 1) * (s - 2 * radius)
    cy = radius + uniform(0, 1) * (s - 2 * radius)
    ys, xs = torch.meshgrid(torch.arange(s) + 0.5, torch.arange(s) + 0.5, indexing="ij")
    dx, dy = (xs - cx).abs(), ys - cy

    circle = dx**2 + dy**2 <= radius**2
    square = (dx <= 0.8 * radius) & (dy.abs() <= 0.8 * radius)
    # Apex up, base at the bottom: the half-width grows from 0 at the apex to `radius` at the base.
    triangle = (dy.abs() <= radius) & (dx <= (dy + radius) / 2)
    arm = radius / 3
    cross = ((dx <= arm) & (dy.abs() <= radius)) | ((dy.abs() <= arm) & (dx <= radius))
    masks = torch.stack([circle, square, triangle, cross], dim=1)  # [N, classes, S, S]
    mask = masks[torch.arange(n), labels].unsqueeze(1)  # [N, 1, S, S]

    # Foreground and background colours at least 0.3 apart on average, so the shape stays visible.
    background = torch.rand(n, 3, 1, 1, generator=gen) * 0.5
    foreground = 0.3 + background + torch.rand(n, 3, 1, 1, generator=gen) * (0.7 - background)
    images = torch.where(mask, foreground, background)
    images = images + noise * torch.randn(n, 3, s, s, generator=gen)
    return (images.clamp(0, 1) * 255).round().to(torch.uint8), labels
