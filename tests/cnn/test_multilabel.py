"""Multilabel images (`--model cnn_multilabel`): generated shape sets, your images with a CSV of label sets,
predictions as label sets."""

from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from runkit import DataError
from runkit.testing.events import fitted_with_events

from project.cli import build
from project.data.images import ImageLabelsDataModule, ShapeSetsDataModule
from project.data.images.shapes import SHAPES, generate_shape_sets
from tests.conftest import SMALL, TINY, python


def test_shape_sets_hold_one_to_three_different_shapes_each_label_about_half_the_time():
    images, labels = generate_shape_sets(2000, 32, seed=0)
    assert images.shape == (2000, 3, 32, 32) and labels.shape == (2000, len(SHAPES))
    assert set(labels.sum(dim=1).tolist()) == {1.0, 2.0, 3.0}
    assert ((labels.mean(dim=0) - 0.5).abs() < 0.05).all()
    again, same = generate_shape_sets(2000, 32, seed=0)
    assert torch.equal(again, images) and torch.equal(same, labels)


def test_more_shapes_cover_more_pixels():
    # A shape drawn for every label: images with three labels differ from their background in more pixels.
    images, labels = generate_shape_sets(600, 32, seed=1, noise=0.0)
    corner = images[:, :, :1, :1]  # the top-left pixel is background unless a shape reaches the corner
    changed = (images.float() - corner.float()).abs().sum(dim=1).gt(30).float().mean(dim=(1, 2))
    by_count = [changed[labels.sum(dim=1) == k].mean() for k in (1, 2, 3)]
    assert by_count[0] < by_count[1] < by_count[2]


def test_the_data_module_gives_label_rows_and_its_training_targets(tmp_path):
    dm = ShapeSetsDataModule(data_dir=str(tmp_path), num_train=64, num_val=32, num_test=32, batch_size=16)
    dm.prepare_data()
    dm.setup("fit")
    images, targets = next(iter(dm.train_dataloader()))
    assert images.shape == (16, 3, 32, 32) and targets.shape == (16, 4) and targets.dtype == torch.float32
    assert dm.num_outputs == 4 and dm.output_names == list(SHAPES)
    assert dm.train_targets().shape == (64, 4)


def write_tagged_images(root: Path, rows: list[tuple[str, str]], csv_name: str = "labels.csv") -> Path:
    """PNG files for the rows' file names, and a CSV `filename,labels` of the rows."""
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, _ in rows:
        if name.endswith(".png") and not name.startswith("gone"):  # gone*.png: named, never written
            Image.fromarray(rng.integers(0, 255, (12, 12, 3), dtype=np.uint8)).save(root / name)
    path = root / csv_name
    path.write_text("filename,labels\n" + "".join(f"{name},{labels}\n" for name, labels in rows))
    return path


ROWS = [(f"img{i}.png", ["cat", "dog", "cat dog", ""][i % 4]) for i in range(12)]


def test_reads_images_with_a_csv_of_label_sets(tmp_path):
    csv_path = write_tagged_images(tmp_path / "images", ROWS)
    dm = ImageLabelsDataModule(root=str(tmp_path / "images"), labels_csv=str(csv_path), image_size=8, batch_size=4)
    assert dm.output_names == ["cat", "dog"] and dm.num_outputs == 2
    dm.setup("fit")
    targets = dm.train_targets()
    assert targets.shape == (len(dm.train_set), 2)
    by_name = {path.name: target.tolist() for path, target in dm.train_set.samples + dm.val_set.samples}
    assert by_name["img2.png"] == [1.0, 1.0] and by_name["img3.png"] == [0.0, 0.0] and by_name["img1.png"] == [0, 1]
    images, batch_targets = next(iter(dm.val_dataloader()))
    assert images.shape[1:] == (3, 8, 8) and batch_targets.shape[1] == 2


def test_a_declared_label_set_fixes_the_columns_and_a_separator_splits_the_field(tmp_path):
    rows = [(f"img{i}.png", "dog|cat") for i in range(4)]
    csv_path = write_tagged_images(tmp_path, rows)
    dm = ImageLabelsDataModule(
        root=str(tmp_path), labels_csv=str(csv_path), labels=["dog", "cat", "bird"], label_separator="|"
    )
    assert dm.output_names == ["dog", "cat", "bird"]
    assert dm._train[0][1].tolist() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("rows", "declared", "message"),
    [
        ([*ROWS[:3], ("gone.png", "cat")], None, r"labels.csv, line 5: image 'gone.png' not found in"),
        ([*ROWS[:5], ("img0.png", "cat bird")], ["cat", "dog"],
         r"labels.csv, line 7: label 'bird' is not in the label set \(cat, dog\)"),
        ([*ROWS[:2], ("notes.txt", "cat")], None, r"labels.csv, line 4: 'notes.txt' is not an image by its suffix"),
    ],
)  # fmt: skip
def test_bad_rows_are_named_with_their_line(tmp_path, rows, declared, message):
    csv_path = write_tagged_images(tmp_path, rows)
    (tmp_path / "notes.txt").write_text("not an image")
    with pytest.raises(DataError, match=message):
        ImageLabelsDataModule(root=str(tmp_path), labels_csv=str(csv_path), labels=declared)


def test_a_missing_column_or_field_is_named(tmp_path):
    csv_path = write_tagged_images(tmp_path, ROWS[:3])
    with pytest.raises(DataError, match=r"labels.csv, line 1: no column 'tags' \(columns: filename, labels\)"):
        ImageLabelsDataModule(root=str(tmp_path), labels_csv=str(csv_path), labels_field="tags")
    csv_path.write_text("filename,labels\nimg0.png,cat\nimg1.png\n")
    with pytest.raises(DataError, match=r"labels.csv, line 3: 2 fields expected"):
        ImageLabelsDataModule(root=str(tmp_path), labels_csv=str(csv_path))


@pytest.mark.parametrize("net", [[], ["--model.net=project.nets.resnet.ResNet"]], ids=["SimpleCNN", "ResNet"])
def test_predict_writes_label_sets_with_each_labels_probability(tmp_path, net):
    cli = build("cnn_multilabel", *TINY, *SMALL["cnn_multilabel"], *net, "--trainer.max_steps=2")
    cli.trainer.fit(cli.model, cli.datamodule)
    cli.trainer.predict(cli.model, cli.datamodule, return_predictions=False)
    lines = (Path(cli.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "index\tlabels\tp_circle\tp_square\tp_triangle\tp_cross"
    assert len(lines) == 1 + 1000  # the test split
    _, labels, *probs = lines[1].split("\t")
    chosen = [name for name, p in zip(SHAPES, map(float, probs), strict=True) if p >= 0.5]
    assert labels.split(",") == chosen or (labels == "" and not chosen)


def test_a_run_draws_f1_per_label_and_logs_its_hparams_metrics():
    cli, tags = fitted_with_events(
        build("cnn_multilabel", *TINY, "--data.num_train=128", "--data.num_val=64", "--trainer.max_epochs=1")
    )
    assert "val/f1_per_label" in tags["images"]
    assert "hp/val/f1_macro_best" in tags["scalars"]
    assert Path(cli.trainer.checkpoint_callback.best_model_path).name.startswith("epoch00-f1_macro")


def test_a_config_saved_before_the_tasks_moved_into_runkit_still_trains(tmp_path):
    """Beside this file: a cnn_multilabel run's config.yaml as project.fit saved it before runkit 0.2, naming
    `project.tasks.Multilabel`: it trains as it is, with one line saying where the task lives now."""
    saved = Path(__file__).with_name("multilabel_config_saved_by_runkit_0.1.yaml")
    assert "class_path: project.tasks.Multilabel" in saved.read_text()
    done = python("-m", "project.fit", f"--config={saved}", "--trainer.fast_dev_run=1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "project.tasks moved to runkit.tasks in runkit 0.2.0: read as runkit.tasks" in done.stderr
    assert "fast_dev_run finished" in done.stdout
