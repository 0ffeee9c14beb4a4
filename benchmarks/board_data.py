"""The real-data board's image folders, series and graphs (benchmarks/real_data.py), written from files inside the
packages' wheels: nothing is downloaded. The sets the tests read too are in tests/real_data.py."""

import csv
from pathlib import Path

import numpy as np
from PIL import Image

from tests.real_data import scan_image, wheel_data


def digits_split(root: Path, canvas: int | None = None, side: int = 8, seed: int = 0, limit: int | None = None) -> Path:
    """scikit-learn's digit scans as `root/train`, `root/val`, `root/test` image folders (60/20/20, stratified by
    `seed`), so that the model and any baseline read the same split. With `canvas`, each scan is resized to
    `side` pixels and pasted at a random place on a black `canvas`-pixel square: a small object to find."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images, labels = digits.images, digits.target
    if limit is not None:  # a smaller set, every class kept (the board's --quick)
        images, labels = images[:limit], labels[:limit]
    index = np.arange(len(labels))
    train, rest = train_test_split(index, train_size=0.6, stratify=labels, random_state=seed)
    val, test = train_test_split(rest, train_size=0.5, stratify=labels[rest], random_state=seed)
    rng = np.random.default_rng(seed)
    for split, members in (("train", train), ("val", val), ("test", test)):
        for i in members:
            image = scan_image(images[i])
            if canvas is not None:
                scan = image.resize((side, side), Image.BILINEAR)
                image = Image.new("L", (canvas, canvas))
                image.paste(scan, tuple(int(v) for v in rng.integers(0, canvas - side + 1, size=2)))
            folder = root / split / str(labels[i])
            folder.mkdir(parents=True, exist_ok=True)
            image.save(folder / f"{i:04d}.png")
    return root


def skimage_data(name: str) -> Path:
    """A file of scikit-image's `data` folder."""
    return wheel_data("skimage", name, "pip install -e '.[board]'")


def faces_split(root: Path, seed: int = 0) -> Path:
    """scikit-image's 200 crops from Labeled Faces in the Wild (25×25 grey): 100 faces and 100 patches of the
    same photos' backgrounds, as `root/train`, `root/val`, `root/test` folders `face` and `background` (60/20/20,
    stratified by `seed`)."""
    from sklearn.model_selection import train_test_split

    images = np.load(skimage_data("lfw_subset.npy"))  # the first 100 faces, then 100 backgrounds, in [0, 1]
    labels = np.array(["face"] * 100 + ["background"] * 100)
    index = np.arange(len(labels))
    train, rest = train_test_split(index, train_size=0.6, stratify=labels, random_state=seed)
    val, test = train_test_split(rest, train_size=0.5, stratify=labels[rest], random_state=seed)
    for split, members in (("train", train), ("val", val), ("test", test)):
        for i in members:
            folder = root / split / labels[i]
            folder.mkdir(parents=True, exist_ok=True)
            Image.fromarray((images[i] * 255).round().astype(np.uint8)).save(folder / f"{i:03d}.png")
    return root


TEXTURES = ("brick", "grass", "gravel")


def texture_split(root: Path, side: int = 64, crops: tuple[int, int, int] = (120, 40, 40), seed: int = 0) -> Path:
    """scikit-image's three texture photos (brick, grass, gravel; 512×512 grey) cut into `side`-px crops at random
    places: `crops` per class for training from the top 60 % of each photo, for validation from the next 20 %,
    for test from the bottom 20 %. No pixel is in two splits, so a test crop was never seen in training."""
    rng = np.random.default_rng(seed)
    bands = {"train": (0.0, 0.6), "val": (0.6, 0.8), "test": (0.8, 1.0)}
    for name in TEXTURES:
        photo = np.asarray(Image.open(skimage_data(f"{name}.png")).convert("L"))
        height, width = photo.shape
        for (split, (top, bottom)), count in zip(bands.items(), crops, strict=True):
            first, last = round(top * height), round(bottom * height) - side
            folder = root / split / name
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(count):
                y, x = int(rng.integers(first, last + 1)), int(rng.integers(0, width - side + 1))
                Image.fromarray(photo[y : y + side, x : x + side]).save(folder / f"{i:03d}.png")
    return root


def statsmodels_series(name: str, path: Path) -> Path:
    """One of statsmodels' real series as the CSV a user would write, `time,value`, oldest first:

    - `co2`: weekly CO2 at Mauna Loa, 1958-2001 (2,284 weeks, a trend and a yearly season); its 59 missing
      weeks are filled here by linear interpolation, between the weeks either side;
    - `elec_equip`: monthly euro-area orders of electrical equipment, 1995-2016 (257 months, a yearly season);
    - `elnino`: monthly sea-surface temperature of the El Niño region, 1950-2010 (732 months);
    - `sunspots`: yearly sunspot numbers, 1700-2008 (309 years, a cycle of about 11);
    - `macrodata.unemp`, `macrodata.realgdp` (any column of `macrodata`): quarterly US unemployment rate and real
      GDP, 1959-2009 (203 quarters; seasonally adjusted).
    """
    import importlib

    module, _, column = name.partition(".")
    data = importlib.import_module(f"statsmodels.datasets.{module}").load_pandas().data
    if module == "macrodata":
        rows = [
            (f"{int(year)}-{3 * int(quarter) - 2:02d}-01", value)
            for year, quarter, value in zip(data["year"], data["quarter"], data[column], strict=True)
        ]
    elif name == "elnino":
        months = data.columns[1:]
        rows = [
            (f"{int(year)}-{m + 1:02d}-01", value)
            for year, values in zip(data["YEAR"], data[months].to_numpy(), strict=True)
            for m, value in enumerate(values)
        ]
    elif name == "sunspots":
        rows = [(str(int(y)), v) for y, v in zip(data["YEAR"], data["SUNACTIVITY"], strict=True)]
    else:  # a date index and one column
        column = data.iloc[:, 0].interpolate()
        rows = [(str(t.date()), v) for t, v in column.items()]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["time", "value"])
        writer.writerows((t, f"{v:.6g}") for t, v in rows)
    return path
