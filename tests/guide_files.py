"""The files the README and the guides name in their commands (`reviews.csv`, `train.conll`, `path/to/train`...),
written small, so tests/test_commands.py can run each command exactly as the page shows it.

Template-only (parts.yaml): the guides are. Each writer takes the path the command names and the model it trains
(`new.csv` is a molecule file for the GCN and a sequence file for the LSTM)."""

import csv
import datetime
import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tests.real_data import cycle_graphs, digit_scans, fertility_panel, les_miserables, short_reviews

Writer = Callable[[Path, str], None]


def image_folder(path: Path, model: str) -> None:
    from tests.cnn.test_data import write_image_folder

    write_image_folder(path, per_class=12, size=20)


def tagged_images(path: Path, model: str) -> None:
    """`images/` beside `labels.csv`, `filename,labels` with labels joined by `|` (the guide's separator)."""
    from tests.cnn.test_multilabel import write_tagged_images

    rows = [(f"img{i}.png", ["cat", "dog", "cat|dog", "dog"][i % 4]) for i in range(16)]
    write_tagged_images(path.parent / "images", rows, csv_name=path.name)
    (path.parent / "images" / path.name).rename(path)


def reviews(path: Path, model: str) -> None:
    short_reviews(path, count={"reviews.csv": 200}.get(path.name, 60), seed=len(path.name))


def conll(path: Path, model: str) -> None:
    """CoNLL-2003's columns: token, part of speech, chunk, entity tag (the 4th: `--data.tag_column 3`)."""
    from project.data.text.tagged_synthetic import generate_tagged

    sentences = generate_tagged(60, seed=len(path.name))
    path.write_text("\n\n".join("\n".join(f"{w} NN I-NP {t}" for w, t in zip(*s, strict=True)) for s in sentences))


def sequences(count: int, seed: int) -> list[tuple[np.ndarray, str]]:
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(int(rng.integers(5, 20)), 2)).round(3), ["walk", "run"][k % 2]) for k in range(count)]


def ts(path: Path, model: str) -> None:
    from tests.lstm.test_sequences import ts_file

    ts_file(path, sequences(40, len(path.name)))


def sequence_table(path: Path, model: str) -> None:
    """`id,t,ax,ay,activity`, a row per step; `new.csv` (what `predict` reads) without the label."""
    rows = [["id", "t", "ax", "ay", "activity"]]
    for k, (values, label) in enumerate(sequences(40, len(path.name))):
        rows += [[f"s{k}", t, *v, label] for t, v in enumerate(values.tolist())]
    if path.name == "new.csv":
        rows = [row[:-1] for row in rows[:30]]
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)


def molecules(path: Path, model: str) -> None:
    """SMILES with a made-up solubility (`molecules.csv`), an activity class (`molecules.sdf`), or none (`new.csv`)."""
    from rdkit import Chem

    from tests.gcn.test_molecules import chains

    rows = chains(80, seed=1)
    if path.suffix == ".sdf":
        writer = Chem.SDWriter(str(path))
        for smiles, doubles, _ in rows:
            mol = Chem.MolFromSmiles(smiles)
            mol.SetProp("activity", ["low", "high"][doubles > 1])
            writer.write(mol)
        writer.close()
    elif path.name == "new.csv":
        path.write_text("smiles\n" + "".join(f"{s}\n" for s, _, _ in rows[:5]))
    else:
        path.write_text("smiles,solubility\n" + "".join(f"{s},{-0.5 * d + 0.1 * a}\n" for s, d, a in rows))


def links(path: Path, model: str) -> None:
    """Les Misérables' characters (`edges.csv`), a feature per character (`nodes.csv`), pairs to score of the
    generated graph whose nodes are numbers (`pairs.csv`: `predict` reads the checkpoint's own graph)."""
    if path.name == "pairs.csv":
        path.write_text("src,dst\n0,17\n3,5\n")
        return
    les_miserables(path.parent / "edges.csv")
    with (path.parent / "edges.csv").open() as handle:
        names = sorted({name for row in list(csv.reader(handle))[1:] for name in row[:2]})
    (path.parent / "nodes.csv").write_text(
        "node,f1,f2\n" + "".join(f"{n},{len(n)},{i % 3}\n" for i, n in enumerate(names))
    )


def hourly_load(path: Path, model: str) -> None:
    """`time,load,holiday` hourly over 60 days (`load.csv`), its last 4 days (`recent.csv`), and the next day's
    times and holiday flags (`next_day.csv`)."""
    hours = np.arange(24 * 64)
    holiday = ((hours // 24) % 7 == 6).astype(int)
    load = 100 + 10 * np.sin(2 * np.pi * hours / 24) - 15 * holiday + np.random.default_rng(0).normal(0, 1, len(hours))
    start = datetime.datetime(2026, 1, 1)
    stamps = [(start + datetime.timedelta(hours=int(h))).isoformat(sep=" ", timespec="minutes") for h in hours]
    table = [[str(t), f"{v:.2f}", h] for t, v, h in zip(stamps, load, holiday, strict=True)]
    parts = {"load.csv": (table[: 24 * 60], 3), "recent.csv": (table[24 * 56 : 24 * 60], 3)}
    parts["next_day.csv"] = ([[row[0], row[2]] for row in table[24 * 60 : 24 * 61]], 2)
    for name, (rows, width) in parts.items():
        with (path.parent / name).open("w", newline="") as handle:
            csv.writer(handle).writerows([["time", "load", "holiday"][:: 1 if width == 3 else 2], *rows])


def store_sales(path: Path, model: str) -> None:
    """`store,time,value`: three stores' daily sales over a year."""
    rng = np.random.default_rng(0)
    days = np.datetime64("2025-01-01") + np.arange(365)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["store", "time", "value"])
        for store in ("north", "south", "west"):
            weekly = 10 * (np.arange(365) % 7 >= 5)
            for day, value in zip(days, 50 + weekly + rng.normal(0, 2, 365), strict=True):
                writer.writerow([store, str(day), f"{value:.2f}"])


def yearly_series(path: Path, model: str) -> None:
    """`series,year,value`: 30 short yearly series of 15 to 44 years (the shortest skipped by `split: horizons`)."""
    rng = np.random.default_rng(0)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["series", "year", "value"])
        for index in range(30):
            length, level, trend = 15 + index, rng.uniform(50, 90), rng.normal()
            for t in range(length):
                writer.writerow([f"s{index}", 2020 - length + 1 + t, f"{level + trend * t + rng.normal():.3f}"])


def tu_regression(folder: Path, name: str) -> None:
    """A TU set whose `NAME_graph_attributes.txt` holds each graph's target: the share of its nodes labelled 0."""
    cycle_graphs(folder, name, count=80)
    raw = folder / name / "raw"
    labels = [int(v) for v in (raw / f"{name}_node_labels.txt").read_text().split()]
    graphs = [int(v) for v in (raw / f"{name}_graph_indicator.txt").read_text().split()]
    shares = [np.mean([lab == 0 for lab, g in zip(labels, graphs, strict=True) if g == k]) for k in range(1, 81)]
    (raw / f"{name}_graph_attributes.txt").write_text("".join(f"{v:.4f}\n" for v in shares))


WRITERS: dict[str, Writer] = {
    "path/to/train": image_folder,
    "digits": lambda path, model: digit_scans(path) and None,
    "images/": lambda path, model: None,  # written with labels.csv
    "labels.csv": tagged_images,
    "reviews.csv": reviews,
    "lines.txt": lambda path, model: path.write_text("a wonderful film\nthe plot was dreadful\n") and None,
    "train.conll": conll,
    "dev.conll": conll,
    "test.conll": conll,
    "new.conll": lambda path, model: path.write_text("n1\nsaid\n\nw3\nw4\n") and None,
    "train.ts": ts,
    "test.ts": ts,
    "Gestures_TRAIN.ts": ts,
    "Gestures_TEST.ts": ts,
    "molecules.csv": molecules,
    "molecules.sdf": molecules,
    "edges.csv": links,
    "nodes.csv": links,
    "pairs.csv": links,
    "load.csv": hourly_load,
    "recent.csv": hourly_load,
    "next_day.csv": hourly_load,
    "sales.csv": store_sales,
    "fertility.csv": lambda path, model: fertility_panel(path) and None,
    "yearly.csv": yearly_series,
}
BY_MODEL: dict[tuple[str, str], Writer] = {  # a name two pages use for different files
    ("lstm", "val.csv"): reviews,
    ("lstm", "test.csv"): reviews,
    ("lstm_sequences", "train.csv"): sequence_table,
    ("lstm_sequences", "test.csv"): sequence_table,
    ("lstm_sequences", "new.csv"): sequence_table,
    ("gcn_regression", "new.csv"): molecules,
}
DATA_DIRS = {
    "MUTAG": lambda folder: cycle_graphs(folder, "MUTAG", count=80),
    "NAME": lambda f: tu_regression(f, "NAME"),
}


def write_for(words: list[str], folder: Path, model: str) -> None:
    """Write into `folder` every file the command `words` names that a writer knows; a TU set under `data_dir`."""
    for option, value in itertools.pairwise(words):
        if option == "--data.data_dir" and (name := words[words.index("--data.name") + 1]) in DATA_DIRS:
            DATA_DIRS[name](folder / value)
        if not option.startswith("--data.") or option == "--data.data_dir":
            continue
        writer = BY_MODEL.get((model, value)) or WRITERS.get(value)
        if writer is not None:
            (folder / value).parent.mkdir(parents=True, exist_ok=True)
            writer(folder / value, model)
