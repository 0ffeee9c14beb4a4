"""Multilabel image data: generated images holding several shapes, and your images with a CSV of label sets."""

import csv
from pathlib import Path

import torch
from runkit import DataError, MissingDataError, seeded_split
from torch.utils.data import TensorDataset

from project.data.images.datamodules import ImageDataModule, ShapesDataModule
from project.data.images.folder import IMAGE_SUFFIXES, ImageFolderDataset, Sample
from project.data.images.shapes import generate_shape_sets
from project.data.images.transforms import SCALE, TRANSLATE


class ShapeSetsDataModule(ShapesDataModule):
    """Generated images holding one to `max_shapes` different shapes; the labels are which shapes are present
    (`generate_shape_sets`). Targets are float rows `[4]` of 0/1, one column per shape.

    Args:
        max_shapes: at most this many shapes per image (1..4, one per quarter).
        Others: as `ShapesDataModule`.
    """

    folds_refused = "its label statistics are read from the training tensors; repeat it over seeds instead"

    cache_name = "shape-sets"

    def __init__(
        self,
        data_dir: str = "data/shapes",
        num_train: int = 4000,
        num_val: int = 1000,
        num_test: int = 1000,
        image_size: int = 32,
        noise: float = 0.1,
        max_shapes: int = 3,
        seed: int = 0,
        augment: bool = True,
        translate: float = TRANSLATE,
        scale: float = SCALE,
        flip: bool = False,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        super().__init__(
            data_dir=data_dir, num_train=num_train, num_val=num_val, num_test=num_test, image_size=image_size,
            noise=noise, seed=seed, augment=augment, translate=translate, scale=scale, flip=flip,
            batch_size=batch_size, num_workers=num_workers,
        )  # fmt: skip
        self.save_hyperparameters()
        if not 1 <= max_shapes <= 4:
            raise DataError(f"data.max_shapes must be 1..4 (one shape per quarter of the image), got {max_shapes}")
        self.max_shapes = max_shapes

    @property
    def cache_path(self) -> Path:
        path = super().cache_path
        return path.with_name(f"{path.stem}-{self.max_shapes}.pt")

    def generate(self) -> tuple[torch.Tensor, torch.Tensor]:
        return generate_shape_sets(sum(self.sizes), self.image_size, self.seed, self.noise, self.max_shapes)

    def train_targets(self) -> torch.Tensor:
        self.setup()
        assert isinstance(self.train_set, TensorDataset)
        return self.train_set.tensors[1]


class ImageLabelsDataModule(ImageDataModule):
    """Images in `root`, their labels in a CSV: a file name column and a labels column, several labels in one
    field split by `label_separator` (`img_001.jpg,cat dog`); an empty field is an image with no label.

    Args:
        root: the folder the file names are relative to.
        labels_csv: the training images and their labels.
        labels: the declared label set, in column order; by default the sorted labels of `labels_csv`. A label
            outside a declared set stops naming its file and line.
        label_separator: what splits the labels of one field.
        filename_field, labels_field: the CSV's column names.
        val_csv, test_csv: their own files; by default validation is a seeded `val_fraction` of `labels_csv`,
            and the test split is the validation split.
        image_size, mean, std, augment, translate, scale, flip: as `ImageFolderDataModule`.
    """

    folds_refused = "its label statistics are read from the training samples; repeat it over seeds instead"

    def __init__(
        self,
        root: str,
        labels_csv: str,
        labels: list[str] | None = None,
        label_separator: str = " ",
        filename_field: str = "filename",
        labels_field: str = "labels",
        val_csv: str | None = None,
        test_csv: str | None = None,
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
        self.root = Path(root)
        if not self.root.is_dir():
            raise MissingDataError(f"data.root: image folder {str(self.root)!r} does not exist")
        self.fields = (filename_field, labels_field, label_separator)
        # Read at init: the model needs the label count (linked) before setup().
        rows = read_label_sets(Path(labels_csv), self.root, *self.fields)
        self.class_names = (
            list(labels) if labels is not None else sorted({name for _, names, _ in rows for name in names})
        )
        if not self.class_names:
            raise DataError(f"{labels_csv}: no labels at all; declare them with data.labels")
        self.num_classes = len(self.class_names)
        self._train = self._samples(rows, labels_csv)
        self.val_fraction, self.seed, self.image_size = val_fraction, seed, image_size
        self.csvs = (val_csv, test_csv)

    def _samples(self, rows: list[tuple[Path, list[str], int]], source: str) -> list[Sample]:
        index = {name: i for i, name in enumerate(self.class_names)}
        samples = []
        for path, names, line in rows:
            target = torch.zeros(len(index))
            for name in names:
                if name not in index:
                    known = ", ".join(self.class_names)
                    raise DataError(
                        f"{source}, line {line}: label {name!r} is not in the label set ({known}); "
                        "declare it in data.labels, or fix the row"
                    )
                target[index[name]] = 1.0
            samples.append((path, target))
        return samples

    @property
    def has_test_split(self) -> bool:
        return self.csvs[1] is not None  # without test_csv, the test split is the validation split

    def setup(self, stage: str | None = None) -> None:
        if self.train_set is not None:
            return
        val_csv, test_csv = self.csvs
        train = self._train
        if val_csv is None:
            val_ids, train_ids = seeded_split(len(train), [self.val_fraction], self.seed)
            val, train = [train[i] for i in val_ids], [train[i] for i in train_ids]
        else:
            val = self._samples(read_label_sets(Path(val_csv), self.root, *self.fields), val_csv)
        test = self._samples(read_label_sets(Path(test_csv), self.root, *self.fields), test_csv) if test_csv else val
        self.train_set = ImageFolderDataset(train, self.image_size)
        self.val_set = ImageFolderDataset(val, self.image_size)
        self.test_set = ImageFolderDataset(test, self.image_size)
        self.predict_set = self.test_set

    def train_targets(self) -> torch.Tensor:
        self.setup()
        assert isinstance(self.train_set, ImageFolderDataset)
        return torch.stack([target for _, target in self.train_set.samples])


def read_label_sets(
    path: Path, root: Path, filename_field: str, labels_field: str, separator: str
) -> list[tuple[Path, list[str], int]]:
    """`(image path, label names, CSV line)` per row; a missing column, image or field stops naming the line."""
    if not path.is_file():
        raise MissingDataError(f"labels file {str(path)!r} does not exist")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        for field in (filename_field, labels_field):
            if field not in columns:
                raise DataError(
                    f"{path}, line 1: no column {field!r} (columns: {', '.join(columns)}); "
                    "set data.filename_field / data.labels_field"
                )
        rows = []
        for row in reader:
            line = reader.line_num
            if None in row or any(value is None for value in row.values()):
                raise DataError(f"{path}, line {line}: {len(columns)} fields expected (columns: {', '.join(columns)})")
            name = row[filename_field].strip()
            image = root / name
            if not name or not image.is_file():
                raise DataError(f"{path}, line {line}: image {name!r} not found in {root}/")
            if image.suffix.lower() not in IMAGE_SUFFIXES:
                raise DataError(f"{path}, line {line}: {name!r} is not an image by its suffix")
            labels = [label.strip() for label in row[labels_field].split(separator) if label.strip()]
            rows.append((image, labels, line))
    if not rows:
        raise DataError(f"{path}: no rows under the header")
    return rows
