"""Each family's defaults as they were before the real-data tuning and as they are now, side by side: on the data
they generate, and on data nobody here made (tests/real_data.py writes it).

    .venv/bin/python -m benchmarks.defaults            # the table in benchmarks/README.md
    .venv/bin/python -m benchmarks.defaults --quick    # a smoke run: the CNN, two epochs each

"Before" is today's code with the old defaults put back by command-line overrides: a fixed number of
epochs without early stopping, a warm-up of fixed steps, the three-stage CNN, the GCN on a constant
node feature, the LSTM's Adam with the weight decay it inherited. On the real sets a third variant,
"ceiling ×2", doubles `max_epochs`: the cosine, tied to `max_epochs`, then decays half as fast, and
early stopping acts while the LR is still high; it tells whether the ceiling's value matters. Runs
alternate (before, now, before, now...) so that a busy machine slows them alike.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import yaml
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from tests.real_data import best_val_acc, cycle_graphs, digit_scans, short_reviews

OFF = ["--early_stopping.patience", "null"]
BEFORE = {
    "cnn": [*OFF, "--trainer.max_epochs", "6", "--model.scheduler.init_args.warmup_steps", "50",
            "--model.net", "project.nets.cnn.SimpleCNN", "--model.net.init_args.depth", "3"],
    "lstm": [*OFF, "--trainer.max_epochs", "3", "--model.scheduler.init_args.warmup_steps", "30",
             "--model.optimizer.init_args.weight_decay", "0.01"],
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
    digit_scans(cwd / "digits")
    short_reviews(cwd / "reviews.csv", count=2000)
    short_reviews(cwd / "reviews600.csv", count=600)
    cycle_graphs(cwd / "tu")


def max_epochs(family: str) -> int:
    config = Path(__file__).resolve().parents[1] / "configs" / f"{family}.yaml"
    return yaml.safe_load(config.read_text())["trainer"]["max_epochs"]


def epoch_seconds(log_dir: Path) -> float:
    """Median time between validations, from TensorBoard's wall times: the epochs alone, without the
    start-up, data generation or the first epoch's warm-up that the wall time of a short run is mostly."""
    events = EventAccumulator(str(log_dir))
    events.Reload()
    times = [event.wall_time for event in events.Scalars("val/acc")]
    return statistics.median(b - a for a, b in pairwise(times)) if len(times) > 1 else float("nan")


def fit(family: str, extra: list[str], cwd: str) -> tuple[float, int, float, float]:
    """(wall seconds, epochs run, best val/acc, seconds per epoch) of one `project.fit` in a subprocess."""
    command = [sys.executable, "-m", "project.fit", "--model", family, *extra, "--trainer.enable_progress_bar", "false"]
    start = time.perf_counter()
    out = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - start
    best = best_val_acc(out)
    epochs = re.search(r"(?:after epoch|ran all) (\d+)", out)
    log_dir = Path(cwd) / re.search(r"logs and config: (\S+)", out).group(1)
    return seconds, int(epochs.group(1)) if epochs else 0, best, epoch_seconds(log_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the CNN only, two epochs each")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    cases = {"cnn": ("cnn", [])} if args.quick else {f: (f, []) for f in BEFORE}
    if not args.quick:
        cases |= REAL
    repeats = 1 if args.quick else args.repeats
    columns = ["data", "defaults", "wall s", "epochs", "s / epoch", "best val/acc", "wall vs before", "epoch vs before"]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    with tempfile.TemporaryDirectory() as cwd:
        if not args.quick:
            write_real_data(Path(cwd))
        for case, (family, data) in cases.items():
            variants = {"before": [*data, *BEFORE[family]], "now": data}
            if case in REAL:
                variants["ceiling ×2"] = [*data, "--trainer.max_epochs", str(2 * max_epochs(family))]
            if args.quick:
                variants = {name: [*extra, "--trainer.max_epochs", "2"] for name, extra in variants.items()}
            runs: dict[str, list[tuple[float, int, float, float]]] = {name: [] for name in variants}
            for _ in range(repeats):
                for name, extra in variants.items():
                    runs[name].append(fit(family, [*extra, "--trainer.logger.init_args.save_dir", "logs"], cwd))
            base, base_epoch = (statistics.median(r[i] for r in runs["before"]) for i in (0, 3))
            for name, results in runs.items():
                seconds, epochs, _, per_epoch = (statistics.median(r[i] for r in results) for i in range(4))
                best = ", ".join(f"{r[2]:.3f}" for r in results)
                row = [case, name, f"{seconds:.1f}", f"{epochs:g}", f"{per_epoch:.2f}", best]
                print("| " + " | ".join([*row, f"{seconds / base:.2f}×", f"{per_epoch / base_epoch:.2f}×"]) + " |")
    print(f"\n{os.cpu_count()} CPUs, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
