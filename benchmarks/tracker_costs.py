"""What each tracker (configs/loggers/) costs per training step, beside TensorBoard alone, measured side by side.

    .venv/bin/python -m benchmarks.tracker_costs            # the table in benchmarks/README.md
    .venv/bin/python -m benchmarks.tracker_costs --quick    # a smoke run

The family's default run (fewer epochs), once per logger stack and logging interval, in rounds that take
the stacks in turn (so a slow spell of the machine hits every stack alike). Per step: the median training
epoch after the first, over the epoch's steps. Start: the fit's wall time outside the training epochs
(opening the store, starting W&B's service, the best checkpoint uploaded as MLflow's artifact).
"""

import argparse
import os
import statistics
import tempfile
import time
from collections import defaultdict

from benchmarks.parity import QUICK, SIZES, silenced
from benchmarks.switches import TrainClock
from project.cli import build
from project.registry import CONFIG_DIR

LOGGERS = CONFIG_DIR / "loggers"
STACKS = {
    "TensorBoard alone": [],
    "+ CSV": ["csv.yaml"],
    "+ MLflow (SQLite)": ["mlflow.yaml"],
    "+ W&B offline": ["wandb_offline.yaml"],
    "+ all three": ["csv.yaml", "mlflow.yaml", "wandb_offline.yaml"],
}


def run(family: str, sizes: list[str], stack: list[str], every: int, epochs: int) -> tuple[float, float, int]:
    """(median seconds per training epoch after the first, seconds outside the training epochs, steps per epoch)."""
    configs = [f"--config={LOGGERS / name}" for name in stack]
    args = [*sizes, *configs, f"--trainer.max_epochs={epochs}", f"--trainer.log_every_n_steps={every}"]
    started = time.perf_counter()
    with silenced():
        cli = build(family, *args, "--trainer.enable_progress_bar=false", "--early_stopping.patience=null")
        clock = TrainClock()
        cli.trainer.callbacks.append(clock)
        cli.trainer.fit(cli.model, cli.datamodule)
        finish_wandb()
    wall = time.perf_counter() - started
    return (
        statistics.median(clock.durations[1:] or clock.durations),
        wall - sum(clock.durations),
        cli.trainer.num_training_batches,
    )


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
    start_s: dict[tuple[str, int], list[float]] = defaultdict(list)
    steps = 0
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the runs write logs/ and data/ here
        build(args.family, *sizes)  # the data made once, before any timing
        for _ in range(rounds):
            for every in intervals:
                for name, stack in STACKS.items():
                    epoch, start, steps = run(args.family, sizes, stack, every, epochs)
                    epoch_s[name, every].append(epoch)
                    start_s[name, every].append(start)
    print(f"{args.family}, {steps} steps an epoch, median of {rounds} rounds\n")
    print("| loggers | logged every | ms per step | vs TensorBoard alone | start, s |")
    print("|---|---|---|---|---|")
    for every in intervals:
        alone = statistics.median(epoch_s["TensorBoard alone", every]) / steps
        for name in STACKS:
            per_step = statistics.median(epoch_s[name, every]) / steps
            extra = (
                f"{(per_step - alone) * 1e3:+.2f} ms ({per_step / alone:.2f}x)" if name != "TensorBoard alone" else "-"
            )
            start = statistics.median(start_s[name, every])
            print(f"| {name} | {every} steps | {per_step * 1e3:.2f} | {extra} | {start:.1f} |")


if __name__ == "__main__":
    main()
