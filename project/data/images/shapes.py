"""Procedurally generated image tasks: which shape is in the picture (multiclass), and which shapes are
(multilabel).

Position, size, colours and noise are random and carry no label information, so only the shapes
themselves decide the labels. Deterministic by seed; vectorised over the whole set.
"""

import torch

SHAPES = ("circle", "square", "triangle", "cross")


def shape_masks(
    kinds: torch.Tensor, radius: torch.Tensor, cx: torch.Tensor, cy: torch.Tensor, size: int
) -> torch.Tensor:
    """Boolean masks `[N, S, S]`: shape `kinds[i]` (an index into SHAPES) of `radius[i]` centred at (cx, cy)."""
    ys, xs = torch.meshgrid(torch.arange(size) + 0.5, torch.arange(size) + 0.5, indexing="ij")
    radius, cx, cy = (t.view(-1, 1, 1) for t in (radius, cx, cy))
    dx, dy = (xs - cx).abs(), ys - cy
    circle = dx**2 + dy**2 <= radius**2
    square = (dx <= 0.8 * radius) & (dy.abs() <= 0.8 * radius)
    # Apex up, base at the bottom: the half-width grows from 0 at the apex to `radius` at the base.
    triangle = (dy.abs() <= radius) & (dx <= (dy + radius) / 2)
    arm = radius / 3
    cross = ((dx <= arm) & (dy.abs() <= radius)) | ((dy.abs() <= arm) & (dx <= radius))
    masks = torch.stack([circle, square, triangle, cross], dim=1)  # [N, shapes, S, S]
    return masks[torch.arange(len(kinds)), kinds]


def _colours(n: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Background and foreground colours `[N, 3, 1, 1]`, at least 0.3 apart on average: the shape stays visible."""
    background = torch.rand(n, 3, 1, 1, generator=gen) * 0.5
    foreground = 0.3 + background + torch.rand(n, 3, 1, 1, generator=gen) * (0.7 - background)
    return background, foreground


def _to_uint8(images: torch.Tensor, noise: float, gen: torch.Generator) -> torch.Tensor:
    images = images + noise * torch.randn(images.shape, generator=gen)
    return (images.clamp(0, 1) * 255).round().to(torch.uint8)


def generate_shapes(
    num_samples: int, image_size: int = 32, seed: int = 0, noise: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return images uint8 `[N, 3, S, S]` and labels int64 `[N]`, classes balanced and shuffled."""
    gen = torch.Generator().manual_seed(seed)
    n, s = num_samples, image_size
    labels = torch.arange(n) % len(SHAPES)
    labels = labels[torch.randperm(n, generator=gen)]

    def uniform(low: float, high: float) -> torch.Tensor:
        return low + (high - low) * torch.rand(n, generator=gen)

    radius = uniform(0.18, 0.32) * s
    cx = radius + uniform(0, 1) * (s - 2 * radius)
    cy = radius + uniform(0, 1) * (s - 2 * radius)
    mask = shape_masks(labels, radius, cx, cy, s).unsqueeze(1)  # [N, 1, S, S]
    background, foreground = _colours(n, gen)
    return _to_uint8(torch.where(mask, foreground, background), noise, gen), labels


def generate_shape_sets(
    num_samples: int, image_size: int = 32, seed: int = 0, noise: float = 0.1, max_shapes: int = 3
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return images uint8 `[N, 3, S, S]` holding 1 to `max_shapes` different shapes each, one per quarter of the
    image at most, and labels float `[N, 4]`: 1 where that shape is present.

    Each image draws how many shapes (uniformly), which (distinct) and which quarters they sit in; each shape
    has its own colour, size and place within its quarter. Every label is present in about half the images.
    """
    gen = torch.Generator().manual_seed(seed)
    n, s, cells = num_samples, image_size, 4
    count = torch.randint(1, max_shapes + 1, (n,), generator=gen)
    kinds = torch.rand(n, len(SHAPES), generator=gen).argsort(dim=1)  # a random order of the shapes per image
    places = torch.rand(n, cells, generator=gen).argsort(dim=1)  # and of the quarters
    background, _ = _colours(n, gen)
    images = background.expand(n, 3, s, s).clone()
    labels = torch.zeros(n, len(SHAPES))
    half = s / 2
    for slot in range(max_shapes):
        present = count > slot
        kind, cell = kinds[:, slot], places[:, slot]
        radius = (0.3 + 0.15 * torch.rand(n, generator=gen)) * half
        cx = (cell % 2) * half + radius + torch.rand(n, generator=gen) * (half - 2 * radius)
        cy = (cell // 2) * half + radius + torch.rand(n, generator=gen) * (half - 2 * radius)
        mask = (shape_masks(kind, radius, cx, cy, s) & present.view(-1, 1, 1)).unsqueeze(1)
        _, foreground = _colours(n, gen)
        images = torch.where(mask, foreground, images)
        labels[present, kind[present]] = 1.0
    return _to_uint8(images, noise, gen), labels
