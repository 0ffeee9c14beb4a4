"""What each part of the defaults costs: the default run against the same run with one part taken out.

    .venv/bin/python -m benchmarks.ablation                                  # the README's table
    .venv/bin/python -m benchmarks.ablation --quick                          # a smoke run
    python -m benchmarks.ablation --accelerator gpu --bf16 --families cnn    # on a GPU

benchmarks/callback_costs.py times each callback's hooks, which cannot show a cost paid elsewhere: on a
GPU, a hook that reads a value waits for every kernel queued before it, and the wait lands in that hook
while the cost is the lost overlap of CPU and GPU. Taking a part out and timing whole epochs shows both.
Runs interleaved (parity.py's rounds); reported: the median epoch time (training + validation, after the
first) and each variant over the defaults, paired within rounds.
"""

import functools
import os
import statistics
import tempfile
from collections.abc import Callable

import lightning.pytorch as L
import torch
from torchmetrics import Metric

from benchmarks.parity import (
    ALL_EPOCHS,
    QUICK,
    SIZES,
    EpochClock,
    device_args,
    epoch_parser,
    interleaved,
    paired_ratio,
    silenced,
    steady_epoch,
)
from project.cli import build


def without(name: str) -> Callable[[L.Trainer, L.LightningModule], None]:
    def take_out(trainer: L.Trainer, module: L.LightningModule) -> None:
        trainer.callbacks = [c for c in trainer.callbacks if type(c).__name__ != name]

    return take_out


def no_logger(trainer: L.Trainer, module: L.LightningModule) -> None:
    trainer.loggers = []
    without("LearningRateMonitor")(trainer, module)  # it refuses to run without a logger


def no_metric_arg_checks(trainer: L.Trainer, module: L.LightningModule) -> None:
    for metric in module.modules():
        if isinstance(metric, Metric) and hasattr(metric, "validate_args"):
            metric.validate_args = False  # torchmetrics' per-update check of the targets' values


def finite_check_every_step(trainer: L.Trainer, module: L.LightningModule) -> None:
    for callback in trainer.callbacks:
        if hasattr(callback, "finite_check_every"):
            callback.finite_check_every = 1  # the CPU's default; on a GPU, one wait for the device per step


VARIANTS: dict[str, Callable[[L.Trainer, L.LightningModule], None] | None] = {
    "defaults": None,
    "- Diagnostics": without("Diagnostics"),
    "+ its NaN check every step": finite_check_every_step,
    "- metric argument checks": no_metric_arg_checks,
    "- WeightHistograms": without("WeightHistograms"),
    "- TaskFigures": without("TaskFigures"),
    "- progress bar": without("ProgressBar"),
    "- checkpoints": without("Checkpoint"),
    "- TensorBoard logger, LR monitor": no_logger,
}


def seconds_per_epoch(family: str, variant: str, sizes: list[str], epochs: int, gpu: bool, bf16: bool) -> float:
    with silenced():
        cli = build(family, *sizes, f"--trainer.max_epochs={epochs}", *ALL_EPOCHS, *device_args(gpu, bf16))
        if (change := VARIANTS[variant]) is not None:
            change(cli.trainer, cli.model)
        clock = EpochClock()
        cli.trainer.callbacks.append(clock)
        cli.trainer.fit(cli.model, cli.datamodule)
    return steady_epoch(clock)


def main() -> None:
    parser = epoch_parser(__doc__.splitlines()[0], reps=4, epochs=5)
    parser.add_argument("--accelerator", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--bf16", action="store_true", help="bf16 mixed precision")
    args = parser.parse_args()
    reps, epochs = (1, 2) if args.quick else (args.reps, args.epochs)
    gpu = args.accelerator == "gpu"
    where = torch.cuda.get_device_name() if gpu else f"CPU, {torch.get_num_threads()} threads"
    print(f"torch {torch.__version__}, {where}, {'bf16-mixed' if args.bf16 else 'float32'}\n")
    print("| family | variant | s/epoch | vs defaults |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the runs write logs/ and data/ here
        for family in args.families:
            sizes = (QUICK if args.quick else SIZES)[family]
            measure = functools.partial(seconds_per_epoch, family, sizes=sizes, epochs=epochs, gpu=gpu, bf16=args.bf16)
            measure("defaults", epochs=2)  # warm-up: caches, imports, data generation, kernels
            times = interleaved(list(VARIANTS), reps, measure)
            for variant in VARIANTS:
                ratio = paired_ratio(times, variant, "defaults")
                print(f"| {family} | {variant} | {statistics.median(times[variant]):.3f} | {ratio:.2f} |", flush=True)


if __name__ == "__main__":
    main()
