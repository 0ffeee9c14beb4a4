import os
from pathlib import Path

import lightning.pytorch as L
import numpy as np
import pytest
import torch
from PIL import Image
from runkit import DataError, EpochRandomSampler
from torch.utils.data import Dataset

from project.data.images import ImageFolderDataModule, ShapesDataModule
from project.data.images.shapes import SHAPES, generate_shapes
from project.data.images.transforms import ImageTransform


def test_shapes_are_deterministic_balanced_and_seeded():
    images, labels = generate_shapes(40, image_size=24, seed=3)
    again, labels_again = generate_shapes(40, image_size=24, seed=3)
    other, _ = generate_shapes(40, image_size=24, seed=4)
    assert images.shape == (40, 3, 24, 24) and images.dtype == torch.uint8
    assert torch.equal(images, again) and torch.equal(labels, labels_again)
    assert not torch.equal(images, other)
    assert labels.bincount().tolist() == [10] * len(SHAPES)


def test_colour_carries_no_label_information():
    images, labels = generate_shapes(2000, image_size=16, seed=0)
    mean_colour = images.float().mean(dim=(2, 3))  # [N, 3]
    per_class = torch.stack([mean_colour[labels == c].mean(0) for c in range(len(SHAPES))])
    # Class means differ by the shapes' areas only, a few grey levels; colour itself is uniform.
    assert (per_class.max(0).values - per_class.min(0).values).max() < 15


def test_prepare_data_caches_once(tmp_path):
    dm = ShapesDataModule(data_dir=str(tmp_path / "shapes"), num_train=64, num_val=32, num_test=32, batch_size=16)
    dm.prepare_data()
    stamp = os.stat(dm.cache_path).st_mtime_ns
    dm.prepare_data()
    assert os.stat(dm.cache_path).st_mtime_ns == stamp
    assert [p.name for p in (tmp_path / "shapes").iterdir()] == [dm.cache_path.name]  # no temp file left
    dm.setup("fit")
    assert (len(dm.train_set), len(dm.val_set), len(dm.test_set)) == (64, 32, 32)
    changed = ShapesDataModule(data_dir=str(tmp_path / "shapes"), num_train=64, num_val=32, num_test=32, seed=1)
    assert changed.cache_path != dm.cache_path


def test_augmentation_on_training_split_only(tmp_path):
    dm = ShapesDataModule(data_dir=str(tmp_path), num_train=32, num_val=32, num_test=32, batch_size=8)
    dm.prepare_data()
    dm.setup("fit")
    train_views, _ = dm.collate_for(train=True)([dm.train_set[0]] * 8)  # one image 8 times, in one batch
    val_views, _ = dm.collate_for(train=False)([dm.val_set[0]] * 8)
    assert not all(torch.equal(train_views[0], v) for v in train_views[1:])
    assert all(torch.equal(val_views[0], v) for v in val_views[1:])
    assert val_views.mean().abs() < 1  # normalised around 0


def centroids(views: torch.Tensor) -> torch.Tensor:
    """`[N, 2]`: each view's centre of brightness (row, column), in pixels."""
    mass = views.sum(dim=1)  # [N, H, W]
    rows, cols = torch.arange(mass.shape[1]).float(), torch.arange(mass.shape[2]).float()
    total = mass.sum(dim=(1, 2))
    return torch.stack([(mass.sum(2) * rows).sum(1) / total, (mass.sum(1) * cols).sum(1) / total], dim=1)


def test_augmentation_moves_within_an_eighth_of_the_side_and_never_mirrors_by_default():
    torch.manual_seed(0)
    image = torch.zeros(1, 3, 32, 32, dtype=torch.uint8)
    image[..., 14:18, 14:18] = 255  # a dot at the centre: a move is its centroid's move
    plain = ImageTransform(mean=(0, 0, 0), std=(1, 1, 1), augment=True, scale=0.0)
    moved = centroids(plain(image.expand(256, -1, -1, -1).clone())) - 15.5
    assert moved.abs().max() <= 0.125 * 32 + 0.5  # 4 px at 32 px, with the bilinear's half pixel
    assert moved.abs().max() > 2.5 and moved.std(dim=0).min() > 1  # and it does move, both ways

    marked = torch.zeros(1, 3, 32, 32, dtype=torch.uint8)
    marked[..., 8:24, 4:7] = 255  # a bar in the left quarter: a 2 or a 7 is not itself mirrored
    default = ImageTransform(mean=(0, 0, 0), std=(1, 1, 1), augment=True)(marked.expand(256, -1, -1, -1).clone())
    assert (centroids(default)[:, 1] < 16).all()
    flipped = ImageTransform(mean=(0, 0, 0), std=(1, 1, 1), augment=True, flip=True)(
        marked.expand(256, -1, -1, -1).clone()
    )
    assert 0.3 < (centroids(flipped)[:, 1] > 16).float().mean() < 0.7  # asked for: about half mirrored


def test_augmentation_scales_within_its_bound():
    torch.manual_seed(0)
    image = torch.zeros(1, 1, 64, 64, dtype=torch.uint8)
    image[..., 16:48, 16:48] = 255  # a square half the side: its area follows the zoom squared
    views = ImageTransform(mean=(0,), std=(1,), augment=True, translate=0.0, scale=0.1)(
        image.expand(256, -1, -1, -1).clone()
    )
    area = views.sum(dim=(1, 2, 3)) / (32 * 32)
    assert area.min() >= 0.9**2 - 0.02 and area.max() <= 1.1**2 + 0.02
    assert area.min() < 0.9 and area.max() > 1.1  # both ways


def test_loaders_shuffle_and_drop_last_for_training_only(tmp_path):
    dm = ShapesDataModule(data_dir=str(tmp_path), num_train=70, num_val=30, num_test=30, batch_size=16)
    dm.prepare_data()
    dm.setup("fit")
    train, val = dm.train_dataloader(), dm.val_dataloader()
    assert isinstance(train.sampler, EpochRandomSampler) and train.drop_last
    assert isinstance(val.sampler, torch.utils.data.SequentialSampler) and not val.drop_last
    assert len(train) == 4 and len(val) == 2
    assert not train.pin_memory  # no trainer on a GPU
    images, labels = next(iter(train))
    assert images.shape == (16, 3, 32, 32) and images.dtype == torch.float32 and labels.dtype == torch.int64


def test_workers_persist_when_used(tmp_path):
    dm = ShapesDataModule(data_dir=str(tmp_path), num_train=32, num_val=16, num_test=16, batch_size=8, num_workers=2)
    dm.prepare_data()
    dm.setup("fit")
    assert dm.train_dataloader().persistent_workers


def test_a_batch_larger_than_the_training_set_is_capped_at_it_and_said(tmp_path, caplog):
    dm = ShapesDataModule(data_dir=str(tmp_path), num_train=10, num_val=10, num_test=10, batch_size=16)
    dm.prepare_data()
    dm.setup("fit")
    with caplog.at_level("WARNING", logger="runkit.data.base"):
        batches = list(dm.train_dataloader())
    assert [len(labels) for _, labels in batches] == [10]  # drop_last would have left none of 16
    assert "data.batch_size=16 is more than the 10 training samples: batches of 10" in caplog.text


def test_unwritable_data_dir_names_the_field(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    dm = ShapesDataModule(data_dir=str(blocker / "shapes"), num_train=8, num_val=8, num_test=8)
    with pytest.raises(DataError, match=r"data.data_dir=.*a-file/shapes.*cannot be written"):
        dm.prepare_data()
    assert blocker.read_text() == "not a folder"


# ---- a folder of real images ------------------------------------------------------------------


def write_image_folder(root: Path, per_class: int = 12, size: int = 20) -> None:
    """circle/ and square/ PNGs cut from the generated shapes, with a couple of odd sizes."""
    images, labels = generate_shapes(per_class * 4, image_size=size, seed=0)
    for name, label in (("circle", 0), ("square", 1)):
        (root / name).mkdir(parents=True)
        for i, image in enumerate(images[labels == label][:per_class]):
            picture = Image.fromarray(image.permute(1, 2, 0).numpy())
            if i == 0:
                picture = picture.resize((size * 2, size))  # not square: cropped, not squashed
            picture.save(root / name / f"{i:03d}.png")


def test_image_folder_reads_classes_and_splits_by_seed(tmp_path):
    write_image_folder(tmp_path / "train")
    dm = ImageFolderDataModule(root=str(tmp_path / "train"), image_size=16, val_fraction=0.25, batch_size=4)
    assert dm.class_names == ["circle", "square"] and dm.num_classes == 2
    dm.setup("fit")
    assert (len(dm.train_set), len(dm.val_set)) == (18, 6)
    again = ImageFolderDataModule(root=str(tmp_path / "train"), image_size=16, val_fraction=0.25)
    again.setup("fit")
    assert again.val_set.samples == dm.val_set.samples
    images, labels = next(iter(dm.val_dataloader()))
    assert images.shape == (4, 3, 16, 16)
    for (path, label), got in zip(dm.val_set.samples[:4], labels.tolist(), strict=True):
        assert label == got == dm.class_names.index(path.parent.name)


def test_image_folder_pixels_match_the_file(tmp_path):
    write_image_folder(tmp_path / "train", size=16)
    dm = ImageFolderDataModule(root=str(tmp_path / "train"), image_size=16, val_root=str(tmp_path / "train"))
    dm.setup("fit")
    image = dm.collate_for(train=False)([dm.val_set[1]])[0][0]
    path = dm.val_set.samples[1][0]
    expected = torch.from_numpy(np.array(Image.open(path).convert("RGB"))).permute(2, 0, 1) / 255
    assert torch.allclose(image, (expected - 0.5) / 0.5, atol=1e-6)


def test_empty_image_folder_is_named(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"'.*empty' has no class sub-folders"):
        ImageFolderDataModule(root=str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ImageFolderDataModule(root=str(tmp_path / "missing"))


def test_class_folder_without_images_is_named(tmp_path):
    write_image_folder(tmp_path / "train")
    (tmp_path / "train" / "triangle").mkdir()
    (tmp_path / "train" / "triangle" / "notes.txt").write_text("todo")
    with pytest.raises(ValueError, match=r"class folder '.*triangle' has no images"):
        ImageFolderDataModule(root=str(tmp_path / "train"))


def test_files_that_are_not_images_are_counted_in_a_warning(tmp_path):
    write_image_folder(tmp_path / "train")
    (tmp_path / "train" / "circle" / "labels.csv").write_text("a,b")
    with pytest.warns(UserWarning, match=r"skipped 1 file\(s\) that are not images.*labels.csv"):
        dm = ImageFolderDataModule(root=str(tmp_path / "train"))
    assert len(dm._samples) == 24


def test_a_broken_image_names_its_file(tmp_path):
    write_image_folder(tmp_path / "train")
    broken = tmp_path / "train" / "square" / "999.png"
    broken.write_bytes(b"this is not a png")
    dm = ImageFolderDataModule(root=str(tmp_path / "train"), val_root=str(tmp_path / "train"))
    dm.setup("fit")
    index = [path for path, _ in dm.val_set.samples].index(broken)
    with pytest.raises(ValueError, match=r"999.png: not a readable image"):
        dm.val_set[index]
    assert broken.read_bytes() == b"this is not a png"


def test_validation_folder_with_an_unknown_class_is_refused(tmp_path):
    write_image_folder(tmp_path / "train")
    write_image_folder(tmp_path / "val")
    (tmp_path / "val" / "circle").rename(tmp_path / "val" / "hexagon")
    dm = ImageFolderDataModule(root=str(tmp_path / "train"), val_root=str(tmp_path / "val"))
    with pytest.raises(ValueError, match=r"\['hexagon'\] do not exist in the training folder"):
        dm.setup("fit")


class Indexed(Dataset):
    """The training set's images with their index as the label, to follow one sample across epochs."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        return self.dataset[i][0], i


def augmented_epochs(seed: int, epochs: int = 2) -> list[dict[int, torch.Tensor]]:
    L.seed_everything(seed, workers=True)  # what `seed_everything: 42` in the config does
    data = ShapesDataModule(data_dir="data", num_train=64, num_val=16, num_test=16, batch_size=16, num_workers=2)
    data.prepare_data()
    data.setup("fit")
    loader = data._loader(Indexed(data.train_set), train=True)  # the real loader: workers, shuffling
    seen = []
    for _ in range(epochs):
        seen.append({int(i): image for images, index in loader for i, image in zip(index, images, strict=True)})
    return seen


def test_augmentations_change_every_epoch_and_repeat_with_the_seed():
    first, second = augmented_epochs(seed=3)
    changed = sum(not torch.equal(first[i], second[i]) for i in first)
    assert changed > 0.6 * len(first)  # crop offset and flip: most samples differ from one epoch to the next
    again, _ = augmented_epochs(seed=3)
    assert all(torch.equal(first[i], again[i]) for i in first)  # and the seed repeats them
