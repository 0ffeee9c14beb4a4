"""Where the template's defaults spend time beyond a bare Trainer: each callback's hooks, per epoch.

    .venv/bin/python -m benchmarks.callback_costs            # the README's table
    .venv/bin/python -m benchmarks.callback_costs --quick    # a smoke run

One default run per family (as `python -m project.fit` builds it, fewer epochs) under Lightning's simple
profiler, which times every callback hook. Reported per callback: its hooks' time per epoch, and as a
share of the epoch; "dispatch" is the hooks a callback does not override, which Lightning still calls
(each call costs a profiler context and a lookup). Epoch-end work (checkpoints, the confusion-matrix
image) counts in its epoch. A profile, not a ratio: noise cannot hide a cost here, and
benchmarks/parity.py measures the total side by side.
"""

import os
import re
import statistics
import tempfile
from collections import defaultdict

from lightning.pytorch.profilers import PassThroughProfiler, SimpleProfiler

from benchmarks.parity import QUICK, SIZES, epoch_parser, silenced
from benchmarks.switches import TrainClock
from project.cli import build


class HookTimer(SimpleProfiler, PassThroughProfiler):
    """Lightning's simple profiler, passing for "no profiler": WeightHistograms stays silent under a profiler,
    and here its cost is wanted in the table."""


def costs(family: str, sizes: list[str], epochs: int) -> tuple[float, dict[str, float], float]:
    """(seconds per epoch, seconds per epoch inside each callback's own hooks, seconds per epoch of dispatch)."""
    with silenced():
        profiler = "--trainer.profiler=benchmarks.callback_costs.HookTimer"
        cli = build(family, *sizes, f"--trainer.max_epochs={epochs}", profiler)
        overridden = {type(c).__name__: _overridden_hooks(c) for c in cli.trainer.callbacks}
        clock = TrainClock()
        cli.trainer.callbacks.append(clock)
        cli.trainer.fit(cli.model, cli.datamodule)
    own: dict[str, float] = defaultdict(float)
    dispatch = 0.0
    for action, durations in cli.trainer.profiler.recorded_durations.items():
        found = re.match(r"\[Callback\](\w+)[^.]*\.(\w+)$", action)
        if not found or found.group(1) in ("TrainClock", "ModelSummary"):
            continue
        name, hook = found.groups()
        if hook in ("setup", "on_fit_start", "on_fit_end", "teardown", "on_sanity_check_start", "on_sanity_check_end"):
            continue  # once per run: start-up, which benchmarks/startup.py measures
        if hook in overridden.get(name, set()):
            own[name] += sum(durations) / epochs
        else:
            dispatch += sum(durations) / epochs
    return statistics.median(clock.durations), dict(own), dispatch


def _overridden_hooks(callback: object) -> set[str]:
    from lightning.pytorch import Callback

    return {
        name
        for name in dir(Callback)
        if name.startswith("on_") and getattr(type(callback), name, None) is not getattr(Callback, name)
    }


def main() -> None:
    parser = epoch_parser(__doc__.splitlines()[0], reps=None, epochs=4)
    args = parser.parse_args()
    epochs = 2 if args.quick else args.epochs
    print("| family | callback | ms per epoch | share of the epoch |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the runs write logs/ and data/ here
        for family in args.families:
            sizes = (QUICK if args.quick else SIZES)[family]
            costs(family, sizes, 1)  # warm-up: caches, imports, data generation
            epoch, own, dispatch = costs(family, sizes, epochs)
            rows = [*sorted(own.items(), key=lambda item: -item[1]), ("dispatch (hooks not overridden)", dispatch)]
            for name, seconds in rows:
                print(f"| {family} | {name} | {seconds * 1000:.1f} | {seconds / epoch:.1%} |")
            total = sum(own.values()) + dispatch
            print(f"| {family} | **all callbacks** | {total * 1000:.1f} | {total / epoch:.1%} |")


if __name__ == "__main__":
    main()
