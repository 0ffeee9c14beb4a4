"""Transfer on real data: a network trained on some classes of real images, fine-tuned on a few images of other
classes (`--model.init_from`), against the same network trained on those few from scratch.

    .venv/bin/python -m benchmarks.transfer                      # the default network
    .venv/bin/python -m benchmarks.transfer --per_class 10 --extra "--model.net project.nets.resnet.ResNet"

The images are scikit-learn's digit scans pasted small (a quarter of the side) at random places on 96 px, the
board's `digits_96_quarter` (benchmarks/board_data.py): the source run learns the digits 0-4 from all their training
scans; the target runs see `per_class` training scans of each of 5-9 and are scored on every test scan of 5-9.
Four ways to train the target, each `python -m project.fit --model cnn` with only its data arguments and:
scratch (nothing but `--data.batch_size 16`, as every target run), init_from (the source's network, a new head,
everything trains), frozen (the head only) and unfreeze (the head alone for `--unfreeze` epochs, then the
features at a tenth of the learning rate).
"""

import argparse
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.board_data import digits_split
from benchmarks.real_data import fit, tested_metrics

SOURCE, TARGET = ("0", "1", "2", "3", "4"), ("5", "6", "7", "8", "9")
# 100 training images are two batches of 64: an epoch of two steps, and early stopping's 5 epochs would be 10 steps.
TARGET_ARGS = ["--data.batch_size", "16"]


def subset(split: Path, root: Path, classes: tuple[str, ...], per_class: int | None, seed: int) -> Path:
    """`root/{train,val,test}/<class>` for `classes` of `split`, the training images cut to `per_class` each."""
    rng = np.random.default_rng(seed)
    for part in ("train", "val", "test"):
        for name in classes:
            images = sorted((split / part / name).iterdir())
            if part == "train" and per_class is not None:
                images = [images[i] for i in sorted(rng.choice(len(images), per_class, replace=False))]
            (root / part / name).mkdir(parents=True)
            for image in images:
                shutil.copy(image, root / part / name / image.name)
    return root


def data_args(root: Path) -> list[str]:
    return [
        "--data", "project.data.images.ImageFolderDataModule", "--data.root", str(root / "train"),
        "--data.val_root", str(root / "val"), "--data.test_root", str(root / "test"), "--data.image_size", "96",
    ]  # fmt: skip


def best_checkpoint(folder: Path) -> Path:
    """The monitored best of the one run under `folder` (ModelCheckpoint's `epochNN-acc0.9870.ckpt`)."""
    found = [p for p in folder.glob("logs/*/version_0/checkpoints/*.ckpt") if "last" not in p.name]
    if len(found) != 1:
        raise RuntimeError(f"expected one best checkpoint under {folder}, found {[p.name for p in found]}")
    return found[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per_class", type=int, default=20, help="training scans of each target class")
    parser.add_argument("--unfreeze", type=int, default=5, help="epochs of the head alone before the features train")
    parser.add_argument("--extra", default="", help="arguments added to every run (the network, its options)")
    args = parser.parse_args(argv)
    extra = shlex.split(args.extra)
    ways = {
        "scratch": [],
        "init_from": ["--model.init_from", "{source}"],
        "frozen": ["--model.init_from", "{source}", "--model.freeze_features", "true"],
        "unfreeze": ["--model.init_from", "{source}", "--model.freeze_features", "true",
                     "--model.unfreeze_at_epoch", str(args.unfreeze), "--model.features_lr", "0.1"],
    }  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        split = digits_split(root / "digits", canvas=96, side=24)
        source_data = subset(split, root / "source", SOURCE, None, seed=0)
        target_data = subset(split, root / "target", TARGET, args.per_class, seed=0)
        (root / "runs" / "source").mkdir(parents=True)
        out, seconds, peak = fit("cnn", [*data_args(source_data), *extra], root / "runs" / "source")
        source = best_checkpoint(root / "runs" / "source")
        rows.append(("source: 0-4, all training scans", tested_metrics(out)["test/acc"], seconds, peak))
        print(f"source: test/acc {rows[-1][1]:.4f}", file=sys.stderr, flush=True)
        for way, way_args in ways.items():
            folder = root / "runs" / way
            folder.mkdir()
            filled = [a.format(source=source) for a in way_args]
            out, seconds, peak = fit("cnn", [*data_args(target_data), *TARGET_ARGS, *extra, *filled], folder)
            rows.append((f"target: 5-9, {args.per_class} per class, {way}", tested_metrics(out)["test/acc"], seconds,
                         peak))  # fmt: skip
            print(f"{way}: test/acc {rows[-1][1]:.4f}", file=sys.stderr, flush=True)
    print("| run | extra arguments | test/acc | wall s | peak MB |\n|---|---|---|---|---|")
    for (name, acc, seconds, peak), way_args in zip(rows, [[], *ways.values()], strict=True):
        shown = " ".join(a.format(source="SOURCE.ckpt") for a in way_args) or "-"
        print(f"| {name} | `{shown}` | {acc:.3f} | {seconds:.0f} | {peak:.0f} |")
    print(f"\n{os.cpu_count()} CPUs, python {sys.version.split()[0]}" + (f", --extra {args.extra!r}" if extra else ""))


if __name__ == "__main__":
    main()
