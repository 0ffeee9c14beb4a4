"""What each tracker (configs/loggers/) costs per training step, beside TensorBoard alone, measured side by side.

    .venv/bin/python -m benchmarks.tracker_costs            # the table in the template's benchmarks/README.md
    .venv/bin/python -m benchmarks.tracker_costs --quick    # a smoke run

The family's default run (fewer epochs), once per logger stack and logging interval, in rounds that take
the stacks in turn (so a slow spell of the machine hits every stack alike). Per step: the median training
epoch after the first, over the epoch's steps. Outside training: the fit's wall time before its first
training step and after its last (opening the store and the run, starting W&B's service, the sanity
check; the checkpoints uploaded as MLflow's artifacts at the end).
"""

import argparse
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import lightning.pytorch as L
import yaml

from benchmarks.parity import QUICK, SIZES, silenced
from benchmarks.switches import TrainClock
from project.cli import build
from project.registry import CONFIG_DIR

LOGGERS = CONFIG_DIR / "loggers"
ASYNC = "mlflow_async.yaml"  # mlflow.yaml with `synchronous: false`, written where the runs go
STACKS = {
    "TensorBoard alone": [],
    "+ CSV": ["csv.yaml"],
    "+ MLflow (SQLite)": ["mlflow.yaml"],
    "+ MLflow, synchronous: false": [ASYNC],
    "+ W&B offline": ["wandb_offline.yaml"],
    "+ all three": ["csv.yaml", "mlflow.yaml", "wandb_offline.yaml"],
}


class Ends(L.Callback):
    """When training starts and ends: trackers open their runs before (setup), upload after (finalize)."""

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.start = time.perf_counter()

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.end = time.perf_counter()


def run(family: str, sizes: list[str], stack: list[str], every: int, epochs: int) -> tuple[float, float, int]:
    """(median seconds per training epoch after the first, seconds outside training, steps per epoch)."""
    configs = [f"--config={name if name == ASYNC else LOGGERS / name}" for name in stack]
    args = [*sizes, *configs, f"--trainer.max_epochs={epochs}", f"--trainer.log_every_n_steps={every}"]
    with silenced():
        cli = build(family, *args, "--trainer.enable_progress_bar=false", "--early_stopping.patience=null")
        clock, ends = TrainClock(), Ends()
        cli.trainer.callbacks += [clock, ends]
        started = time.perf_counter()
        cli.trainer.fit(cli.model, cli.datamodule)
        finish_wandb()
    outside = (ends.start - started) + (time.perf_counter() - ends.end)
    return statistics.median(clock.durations[1:] or clock.durations), outside, cli.trainer.num_training_batches


def finish_wandb() -> None:
    """Lightning leaves the W&B run open; the next WandbLogger in this process would reuse it."""
    import wandb

    if wandb.run is not None:
        wandb.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the test suite")
    parser.add_argument("--family", default=next(iter(SIZES)))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sizes = QUICK[args.family] if args.quick else SIZES[args.family]
    epochs, rounds = (2, 1) if args.quick else (args.epochs, args.rounds)
    intervals = [25] if args.quick else [25, 1]
    os.environ["WANDB_SILENT"] = "true"
    epoch_s: dict[tuple[str, int], list[float]] = defaultdict(list)
    outside_s: dict[tuple[str, int], list[float]] = defaultdict(list)
    steps = 0
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the runs write logs/ and data/ here
        config = yaml.safe_load((LOGGERS / "mlflow.yaml").read_text())
        config["trainer"]["logger+"][0]["init_args"]["synchronous"] = False
        Path(ASYNC).write_text(yaml.safe_dump(config))
        build(args.family, *sizes)  # the data made once, before any timing
        for _ in range(rounds):
            for every in intervals:
                for name, stack in STACKS.items():
                    epoch, outside, steps = run(args.family, sizes, stack, every, epochs)
                    epoch_s[name, every].append(epoch)
                    outside_s[name, every].append(outside)
    print(f"{args.family}, {steps} steps an epoch, median of {rounds} rounds\n")
    print("| loggers | logged every | ms per step | vs TensorBoard alone | outside training, s |")
    print("|---|---|---|---|---|")
    for every in intervals:
        alone = statistics.median(epoch_s["TensorBoard alone", every]) / steps
        for name in STACKS:
            per_step = statistics.median(epoch_s[name, every]) / steps
            extra = (
                f"{(per_step - alone) * 1e3:+.2f} ms ({per_step / alone:.2f}x)" if name != "TensorBoard alone" else "-"
            )
            outside = statistics.median(outside_s[name, every])
            print(f"| {name} | {every} steps | {per_step * 1e3:.2f} | {extra} | {outside:.1f} |")


if __name__ == "__main__":
    main()
