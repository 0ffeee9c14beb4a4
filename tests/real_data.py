"""Data of the kinds users bring, written as files in the formats they would use; none of it from this
project's generators. Each set is hard in the way the generated defaults are not."""

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
        Image.fromarray((image * 255 / 16).astype(np.uint8)).save(folder / f"{i:04d}.png")
    return root


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
    networkx): 77 nodes named by character, 254 links weighted by how often they meet. An edge-list CSV
    `src,dst,weight`, as a user would write one."""
    import networkx  # torch's own dependency

    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["src", "dst", "weight"])
        for a, b, data in networkx.les_miserables_graph().edges(data=True):
            writer.writerow([a, b, data["weight"]])
    return path


def best_val_acc(stdout: str) -> float:
    """The best `val/acc` that `project.fit`'s summary printed."""
    return float(re.search(r"best val/acc: ([\d.]+)", stdout).group(1))
