"""Image DataModules: generated shapes (the offline default) and a folder of real images."""

import hashlib
from pathlib import Path

import torch
from runkit import BaseDataModule, ensure_writable_dir, loader_generator, seeded_split, write_atomically
from torch.utils.data import DataLoader, Subset, TensorDataset

from project.data.images.folder import ImageFolderDataset, scan_image_folder
from project.data.images.shapes import SHAPES, generate_shapes
from project.data.images.transforms import SCALE, TRANSLATE, ImageCollate, ImageTransform


class ImageDataModule(BaseDataModule):
    """What the image DataModules share: training batches augmented, except under `overfit_batches`.

    `--trainer.overfit_batches N` (presets/overfit.yaml) means N fixed batches to memorise; random moves
    would make them new batches every epoch, so they are left out there.
    """

    request_reader = "project.serving.images.ImageReader"  # how `project.serve` reads its requests

    def __init__(
        self,
        batch_size: int,
        num_workers: int,
        augment: bool,
        mean: tuple[float, float, float] = (0.5, 0.5, 0.5),
        std: tuple[float, float, float] = (0.5, 0.5, 0.5),
        translate: float = TRANSLATE,
        scale: float = SCALE,
        flip: bool = False,
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        moves = {"translate": translate, "scale": scale, "flip": flip}
        self.train_collate = ImageCollate(ImageTransform(mean, std, augment=augment, **moves))
        self.eval_collate = ImageCollate(ImageTransform(mean, std))

    def collate_for(self, train: bool) -> ImageCollate:
        fixed = self.trainer is not None and bool(self.trainer.overfit_batches)
        return self.train_collate if train and not fixed else self.eval_collate

    def statistics_batches(self, samples: int) -> DataLoader:
        """`samples` training images spread evenly over the split (every class), as they are, without moves: what
        BatchNorm's statistics are recomputed from before each validation (models/image.py). A fixed set, read
        in order: no random draw, so resuming and DDP (every process the same images) are unaffected."""
        count = min(samples, len(self.train_set))
        index = torch.linspace(0, len(self.train_set) - 1, count).round().long().unique().tolist()
        subset = Subset(self.train_set, index)
        # Its own generator: making an iterator draws a seed from it, which from the global one would move
        # the augmentation's draws, and the run would no longer match one without the recomputation.
        return DataLoader(subset, self.batch_size, collate_fn=self.eval_collate, generator=loader_generator())


class ShapesDataModule(ImageDataModule):
    """Generated shapes (circle, square, triangle, cross), made once in `prepare_data` and cached in `data_dir`.

    Args:
        data_dir: where the cache file goes; generated again only when the settings change.
        num_train, num_val, num_test: split sizes, drawn from one generated set.
        augment, translate, scale, flip: training images moved by up to `translate` of the side, scaled within
            1 ± `scale`, mirrored only with `flip` (`ImageTransform`, which says why); never validation's.
    """

    def __init__(
        self,
        data_dir: str = "data/shapes",
        num_train: int = 4000,
        num_val: int = 1000,
        num_test: int = 1000,
        image_size: int = 32,
        noise: float = 0.1,
        seed: int = 0,
        augment: bool = True,
        translate: float = TRANSLATE,
        scale: float = SCALE,
        flip: bool = False,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        super().__init__(
            batch_size=batch_size, num_workers=num_workers, augment=augment, translate=translate, scale=scale, flip=flip
        )
        self.save_hyperparameters()
        self.data_dir = Path(data_dir)
        self.sizes = (num_train, num_val, num_test)
        self.image_size, self.noise, self.seed = image_size, noise, seed
        self.num_classes = len(SHAPES)
        self.class_names = list(SHAPES)

    cache_name = "shapes"

    @property
    def cache_path(self) -> Path:
        key = f"{self.sizes}-{self.image_size}-{self.noise}-{self.seed}"
        return self.data_dir / f"{self.cache_name}-{hashlib.sha1(key.encode()).hexdigest()[:10]}.pt"

    def generate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The whole set: images uint8 `[N, 3, S, S]` and their labels."""
        return generate_shapes(sum(self.sizes), self.image_size, self.seed, self.noise)

    def prepare_data(self) -> None:
        # Rank 0 only under DDP; the other ranks read the cache in setup().
        if self.cache_path.exists():
            return
        ensure_writable_dir(self.data_dir)
        images, labels = self.generate()
        # A crash mid-write leaves no half cache, and runs that generate the same cache at once (a sweep's
        # workers) each replace it whole.
        write_atomically(self.cache_path, lambda partial: torch.save({"images": images, "labels": labels}, partial))

    def setup(self, stage: str | None = None) -> None:
        if self.train_set is not None:
            return
        data = torch.load(self.cache_path, weights_only=True)
        images, labels = data["images"], data["labels"]
        a, b, _ = self.sizes
        # uint8 samples; the loaders' collate normalises (and for training augments) each batch at once.
        self.train_set = TensorDataset(images[:a], labels[:a])
        self.val_set = TensorDataset(images[a : a + b], labels[a : a + b])
        self.test_set = TensorDataset(images[a + b :], labels[a + b :])
        self.predict_set = self.test_set


class ImageFolderDataModule(ImageDataModule):
    """Images in `root/<class>/*.png|jpg|…`. Validation comes from `val_root`, or a seeded split of `root`.

    Args:
        root: training images, one sub-folder per class (sorted names give the class ids).
        val_root, test_root: optional folders with the same class names.
        val_fraction: share of `root` held out for validation when `val_root` is not given.
        mean, std: per-channel normalisation of images scaled to [0, 1].
        augment, translate, scale, flip: as `ShapesDataModule`. Turn `flip` on for natural photos (animals,
            scenes), where a mirrored image is the same class; never for digits, letters or text.
    """

    def __init__(
        self,
        root: str,
        val_root: str | None = None,
        test_root: str | None = None,
        val_fraction: float = 0.2,
        seed: int = 0,
        image_size: int = 64,
        mean: tuple[float, float, float] = (0.5, 0.5, 0.5),
        std: tuple[float, float, float] = (0.5, 0.5, 0.5),
        augment: bool = True,
        translate: float = TRANSLATE,
        scale: float = SCALE,
        flip: bool = False,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        moves = {"translate": translate, "scale": scale, "flip": flip}
        super().__init__(batch_size=batch_size, num_workers=num_workers, augment=augment, mean=mean, std=std, **moves)
        self.save_hyperparameters()
        self.roots = (root, val_root, test_root)
        self.val_fraction, self.seed, self.image_size = val_fraction, seed, image_size
        # Scanning is a directory listing: cheap, and the model needs num_classes before setup().
        self.class_names, self._samples = scan_image_folder(root)
        self.num_classes = len(self.class_names)

    @property
    def has_test_split(self) -> bool:
        return self.roots[2] is not None  # without test_root, the test split is the validation split

    def setup(self, stage: str | None = None) -> None:
        if self.train_set is not None:
            return
        _, val_root, test_root = self.roots
        train = self._samples
        if val_root is None:
            val_ids, train_ids = seeded_split(len(train), [self.val_fraction], self.seed)
            val, train = [train[i] for i in val_ids], [train[i] for i in train_ids]
        else:
            val = scan_image_folder(val_root, self.class_names)[1]
        test = scan_image_folder(test_root, self.class_names)[1] if test_root else val
        # uint8 samples, decoded and resized; the loaders' collate normalises (and augments) each batch.
        self.train_set = ImageFolderDataset(train, self.image_size)
        self.val_set = ImageFolderDataset(val, self.image_size)
        self.test_set = ImageFolderDataset(test, self.image_size)
        self.predict_set = self.test_set
