"""Real images on disk, one sub-folder per class: `root/<class>/<image>.png`."""

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image, ImageOps, UnidentifiedImageError
from runkit import DataError, MissingDataError
from torch.utils.data import Dataset

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}

Sample = tuple[Path, Any]  # (image file, its target: a class id, or a row of 0/1 labels)


def scan_image_folder(root: str | Path, classes: list[str] | None = None) -> tuple[list[str], list[Sample]]:
    """List `(path, class id)` for every image under `root/<class>/`, classes sorted by name.

    Pass `classes` (from the training folder) when scanning a validation or test folder, so ids agree.
    Files that are not images by suffix are skipped with one warning that counts them.
    """
    root = Path(root)
    if not root.is_dir():
        raise MissingDataError(f"image folder {str(root)!r} does not exist: expected {root}/<class>/<image>.png")
    found = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not found:
        raise DataError(f"image folder {str(root)!r} has no class sub-folders: expected {root}/<class>/<image>.png")
    if classes is not None and (unknown := sorted(set(found) - set(classes))):
        raise DataError(f"{root}: class folders {unknown} do not exist in the training folder {classes}")
    classes = classes or found

    samples: list[Sample] = []
    skipped: list[Path] = []
    for name in found:
        files = sorted(p for p in (root / name).iterdir() if p.is_file() and not p.name.startswith("."))
        images = [p for p in files if p.suffix.lower() in IMAGE_SUFFIXES]
        skipped += [p for p in files if p.suffix.lower() not in IMAGE_SUFFIXES]
        if not images:
            raise DataError(f"class folder {str(root / name)!r} has no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        samples += [(p, classes.index(name)) for p in images]
    if skipped:
        warnings.warn(
            f"{root}: skipped {len(skipped)} file(s) that are not images by suffix, e.g. {skipped[0]}", stacklevel=2
        )
    return classes, samples


class ImageFolderDataset(Dataset):
    """Keeps only paths; each `__getitem__` opens one image, so memory does not grow with the dataset.

    Returns `(image uint8 [3, S, S], target)`; the loaders' collate normalises and augments whole batches.
    """

    def __init__(self, samples: list[Sample], image_size: int) -> None:
        self.samples = samples
        self.image_size = image_size

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, Any]:
        path, label = self.samples[index]
        try:
            with Image.open(path) as img:
                # Crop to a square around the centre, then resize: aspect ratio kept, nothing squashed.
                img = ImageOps.fit(img.convert("RGB"), (self.image_size, self.image_size))
                image = torch.from_numpy(np.array(img)).permute(2, 0, 1).contiguous()  # [3, S, S] uint8
        except (UnidentifiedImageError, OSError) as err:
            raise DataError(f"{path}: not a readable image ({err}); remove or replace the file") from err
        return image, label
