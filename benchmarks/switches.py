"""What two switches of the defaults cost in training speed: the Diagnostics callback, and `deterministic`.

    .venv/bin/python -m benchmarks.switches            # the README's table
    .venv/bin/python -m benchmarks.switches --quick    # a smoke run

Each family's default run (as `python -m project.fit` builds it, fewer epochs) is timed with and without the
switch, interleaved off on on off ...; reported: the median training-epoch time after the first epoch, as
the ratio on/off. For Diagnostics, a second figure that noise cannot swamp: the share of training time
spent inside its hooks, as Lightning's simple profiler records it in the runs with it on.
"""

import functools
import itertools
import os
import statistics
import tempfile
import time

import lightning.pytorch as L
from runkit.callbacks.diagnostics import Diagnostics

from benchmarks.parity import QUICK, SIZES, epoch_parser, interleaved, paired_ratio, silenced
from project.cli import build


class TrainClock(L.Callback):
    """Wall time of each training epoch (validation excluded)."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self._start = 0.0

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._start = time.perf_counter()

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.durations.append(time.perf_counter() - self._start)


def run(
    family: str, switch: str, on: bool, sizes: list[str], epochs: int, profile: bool = False
) -> tuple[float, float]:
    """(median training-epoch seconds after the first, share of training time in Diagnostics' hooks if `profile`)."""
    args = [*sizes, f"--trainer.max_epochs={epochs}", "--trainer.enable_progress_bar=false"]
    if switch == "deterministic":
        args.append(f"--trainer.deterministic={str(on).lower()}")
    if profile:
        args.append("--trainer.profiler=simple")  # records each callback hook's time
    with silenced():
        cli = build(family, *args)
        if switch == "diagnostics" and not on:
            cli.trainer.callbacks = [c for c in cli.trainer.callbacks if not isinstance(c, Diagnostics)]
        clock = TrainClock()
        cli.trainer.callbacks.append(clock)
        cli.trainer.fit(cli.model, cli.datamodule)
    share = 0.0
    if profile:
        recorded = cli.trainer.profiler.recorded_durations
        inside = sum(sum(d) for action, d in recorded.items() if "Diagnostics" in action and "on_fit" not in action)
        share = inside / sum(clock.durations)
    return statistics.median(clock.durations[1:] or clock.durations), share


def seconds_per_epoch(family: str, switch: str, on: bool, sizes: list[str], epochs: int) -> float:
    return run(family, switch, on, sizes, epochs)[0]


def main() -> None:
    parser = epoch_parser(__doc__.splitlines()[0], reps=4, epochs=3)
    args = parser.parse_args()
    reps, epochs = (1, 2) if args.quick else (args.reps, args.epochs)
    print("| family | switch | off, s/epoch | on, s/epoch | on/off | time inside the hooks |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the runs write logs/ and data/ here
        for family, switch in itertools.product(args.families, ["diagnostics", "deterministic"]):
            sizes = (QUICK if args.quick else SIZES)[family]
            run(family, switch, False, sizes, 1)  # warm-up: caches, imports, data generation
            measure = functools.partial(seconds_per_epoch, family, switch, sizes=sizes, epochs=epochs)
            times = interleaved((False, True), reps, measure)
            off, on = statistics.median(times[False]), statistics.median(times[True])
            inside = "-"
            if switch == "diagnostics":  # a separate, profiled run: the profiler's own cost stays out of the ratio
                inside = f"{run(family, switch, True, sizes, epochs, profile=True)[1]:.2%}"
            ratio = paired_ratio(times, True, False)
            print(f"| {family} | {switch} | {off:.3f} | {on:.3f} | {ratio:.3f} | {inside} |")


if __name__ == "__main__":
    main()
