"""Each family's defaults as they were before issue 15 and as they are now, side by side: on the data
they generate, and on data nobody here made (tests/real_data.py writes it).

    .venv/bin/python -m benchmarks.defaults            # both tables in benchmarks/README.md
    .venv/bin/python -m benchmarks.defaults --quick    # a smoke run: the CNN, one epoch each

"Before" is today's code with the old defaults put back by command-line overrides: a fixed number of
epochs without early stopping, a warm-up of fixed steps, the three-stage CNN, the GCN on a constant
node feature. Runs alternate (before, now, before, now...) so that a busy machine slows both alike.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OFF = ["--early_stopping.patience", "null"]
BEFORE = {
    "cnn": [*OFF, "--trainer.max_epochs", "6", "--model.scheduler.init_args.warmup_steps", "50",
            "--model.net.init_args.depth", "3"],
    "lstm": [*OFF, "--trainer.max_epochs", "3", "--model.scheduler.init_args.warmup_steps", "30"],
    "gcn": [*OFF, "--trainer.max_epochs", "30", "--model.scheduler.init_args.warmup_steps", "50",
            "--data.node_features", "[given]"],
}  # fmt: skip


REAL = {
    "cnn: digit scans": ("cnn", ["--data", "project.data.images.ImageFolderDataModule", "--data.root", "digits",
                                 "--data.image_size", "32"]),
    "lstm: 2,000 reviews": ("lstm", ["--data.train_path", "reviews.csv", "--data.text_field", "review",
                                     "--data.label_field", "sentiment"]),
    "lstm: 600 reviews": ("lstm", ["--data.train_path", "reviews600.csv", "--data.text_field", "review",
                                   "--data.label_field", "sentiment"]),
    "gcn: cycles (TU)": ("gcn", ["--data.source", "tu", "--data.name", "CYCLES", "--data.data_dir", "tu"]),
}  # fmt: skip


def write_real_data(cwd: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.real_data import cycle_graphs, digit_scans, short_reviews

    digit_scans(cwd / "digits")
    short_reviews(cwd / "reviews.csv", count=2000)
    short_reviews(cwd / "reviews600.csv", count=600)
    cycle_graphs(cwd / "tu")


def fit(family: str, extra: list[str], cwd: str) -> tuple[float, int, float]:
    """(wall seconds, epochs run, best val/acc) of one `project.fit` in a subprocess."""
    command = [sys.executable, "-m", "project.fit", "--model", family, *extra, "--trainer.enable_progress_bar", "false"]
    start = time.perf_counter()
    out = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - start
    best = float(re.search(r"best val/acc: ([\d.]+)", out).group(1))
    epochs = re.search(r"(?:after epoch|ran all) (\d+)", out)
    return seconds, int(epochs.group(1)) if epochs else 0, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the CNN only, one epoch each")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    cases = {"cnn": ("cnn", [])} if args.quick else {f: (f, []) for f in BEFORE}
    if not args.quick:
        cases |= REAL
    repeats = 1 if args.quick else args.repeats
    print("| data | defaults | wall s (median) | epochs | s / epoch | best val/acc | wall vs before |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as cwd:
        if not args.quick:
            write_real_data(Path(cwd))
        for case, (family, data) in cases.items():
            variants = {"before": [*data, *BEFORE[family]], "now": data}
            if args.quick:
                variants = {name: [*extra, "--trainer.max_epochs", "1"] for name, extra in variants.items()}
            runs: dict[str, list[tuple[float, int, float]]] = {name: [] for name in variants}
            for _ in range(repeats):
                for name, extra in variants.items():
                    runs[name].append(fit(family, [*extra, "--trainer.logger.init_args.save_dir", "logs"], cwd))
            base = statistics.median(r[0] for r in runs["before"])
            for name, results in runs.items():
                seconds = statistics.median(r[0] for r in results)
                epochs = statistics.median(r[1] for r in results)
                best = ", ".join(f"{r[2]:.3f}" for r in results)
                row = [case, name, f"{seconds:.1f}", f"{epochs:g}", f"{seconds / max(epochs, 1):.2f}", best]
                print("| " + " | ".join([*row, f"{seconds / base:.2f}×"]) + " |")
    print(f"\n{os.cpu_count()} CPUs, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
