"""The template against a hand-written loop: time per epoch on each family's default task.

    .venv/bin/python -m benchmarks.parity            # the README's table
    .venv/bin/python -m benchmarks.parity --quick    # a smoke run
    .venv/bin/python -m benchmarks.parity --threads 1 2          # at each intra-op thread count
    python -m benchmarks.parity --accelerator gpu --bf16         # on a GPU, bf16 mixed precision

(a) `raw_loop.raw_fit`: DataLoader, zero_grad, forward, loss, backward, clip, step, eval under no_grad.
(b) `Trainer.fit` with logger, checkpointing, progress bar and callbacks off (but BatchNorm's statistics
    recomputed before each validation, as in a and c).
(c) the template's defaults, as `python -m project.fit --model NAME` runs them.
Same model, data order, seed and steps; runs interleaved a b c c b a ...; reported: the median
epoch time (training + validation), epochs after the first, so fit's one-time start-up is left out
(benchmarks/startup.py measures that); the ratios are medians of the ratios within each round.
"""

import argparse
import contextlib
import functools
import itertools
import os
import statistics
import tempfile
from collections.abc import Callable, Sequence
from typing import TypeVar

import lightning.pytorch as L
import torch
from runkit.callbacks.precise_batchnorm import precise_batchnorm_images

from benchmarks.raw_loop import raw_fit, tick
from project.cli import build
from project.registry import REGISTRY

V = TypeVar("V")

# Every run goes its whole `max_epochs`: early stopping stays on (its cost is in b and c alike), but never stops.
# The GCN's default data is solved in one epoch (val/acc 1.0 past the 0.9999 threshold), and a run stopped there
# measured its first epoch and the fit's end, once-per-run work, against the raw loop's steady epochs.
ALL_EPOCHS = ["--early_stopping.stopping_threshold=null", "--early_stopping.patience=100000"]
BARE = [
    "--trainer.logger=false",
    "--trainer.enable_checkpointing=false",
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.num_sanity_val_steps=0",
    "--trainer.callbacks=[]",
    # but BatchNorm's statistics recomputed before each validation, where the defaults do (the CNN's): it changes
    # the arithmetic, not the engineering; for a network without BatchNorm it does nothing
    "--trainer.callbacks+=runkit.callbacks.precise_batchnorm.PreciseBatchNorm",
]
SIZES = {  # the default tasks; the LSTM's shortened to keep the whole run to minutes
    "cnn": [],  # part: cnn
    "lstm": ["--data.synthetic_samples=1500"],  # part: lstm
    "gcn": [],  # part: gcn
}
QUICK = {
    "cnn": ["--data.num_train=128", "--data.num_val=64"],  # part: cnn
    "lstm": ["--data.synthetic_samples=100", "--model.net.hidden_size=8"],  # part: lstm
    "gcn": ["--data.num_graphs=100"],  # part: gcn
}


@contextlib.contextmanager
def silenced():
    """Send the run's own output (progress bar, summaries) to /dev/null, so only the table prints."""
    saved = os.dup(1), os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1), os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1), os.dup2(saved[1], 2)


def interleaved(variants: Sequence[V], reps: int, measure: Callable[[V], float]) -> dict[V, list[float]]:
    """`reps` measurements of each variant, taken in rounds: a b c, then c b a, and so on.

    Whatever drifts over a run (heat, other load) then hits every variant alike, and the measurements
    of one round lie side by side in time.
    """
    times: dict[V, list[float]] = {v: [] for v in variants}
    for rep in range(reps):
        for variant in variants if rep % 2 == 0 else reversed(variants):
            times[variant].append(measure(variant))
    return times


def paired_ratio(times: dict[V, list[float]], variant: V, base: V) -> float:
    """The median over rounds of `variant / base` within each round.

    This machine's speed drifts by 10-20 % within minutes (a shared VM); a ratio taken inside a round
    cancels that, where the ratio of two medians mixes rounds taken at different speeds.
    """
    return statistics.median(x / y for x, y in zip(times[variant], times[base], strict=True))


def paired_difference(times: dict[V, list[float]], variant: V, base: V) -> float:
    """The median over rounds of `variant - base` within each round: Lightning's own parity test bounds this
    (0.05 s an epoch for its LSTM case)."""
    return statistics.median(x - y for x, y in zip(times[variant], times[base], strict=True))


class EpochClock(L.Callback):
    """Timestamps at each training epoch's start and at the end of fit, as `raw_fit(clock=...)` takes them."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        tick(self.times, pl_module.device)

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        tick(self.times, pl_module.device)


def epoch_parser(description: str, reps: int | None, epochs: int) -> argparse.ArgumentParser:
    """The options every per-epoch benchmark takes: `--quick` (tiny sizes, for the test suite), the families,
    the interleaved repetitions (`reps=None`: none) and the epochs of each run."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the test suite")
    parser.add_argument("--families", nargs="+", default=REGISTRY.families())
    if reps is not None:
        parser.add_argument("--reps", type=int, default=reps)
    parser.add_argument("--epochs", type=int, default=epochs)
    return parser


def device_args(gpu: bool, bf16: bool) -> list[str]:
    """The Trainer settings for one GPU and for bf16 mixed precision, as command-line arguments."""
    return [
        *(["--trainer.accelerator=gpu", "--trainer.devices=1"] if gpu else []),
        *(["--trainer.precision=bf16-mixed"] if bf16 else []),
    ]


def steady_epoch(clock: EpochClock) -> float:
    """Median epoch time (training + validation) after the first: the steady state, not fit's start-up."""
    durations = [end - start for start, end in itertools.pairwise(clock.times)]
    if len(durations) < 2:
        raise RuntimeError(f"the run trained {len(durations)} epoch(s): a steady epoch needs at least 2")
    return statistics.median(durations[1:])


def seconds_per_epoch(family: str, variant: str, sizes: list[str], epochs: int, gpu: bool, bf16: bool) -> float:
    args = [*sizes, f"--trainer.max_epochs={epochs}", *ALL_EPOCHS, *device_args(gpu, bf16)]
    with silenced():
        cli = build(family, *args, *(BARE if variant != "c" else []))
        clock = EpochClock()
        if variant == "a":
            device = "cuda" if gpu else "cpu"
            clip = cli.trainer.gradient_clip_val
            images = precise_batchnorm_images(cli.trainer)
            raw_fit(cli.model, cli.datamodule, epochs, clip, clock.times, device, bf16, batchnorm_images=images)
        else:
            cli.trainer.callbacks.append(clock)
            cli.trainer.fit(cli.model, cli.datamodule)
    return steady_epoch(clock)


def main() -> None:
    parser = epoch_parser(__doc__.splitlines()[0], reps=5, epochs=5)
    parser.add_argument("--threads", type=int, nargs="+", help="torch intra-op thread counts to compare")
    parser.add_argument("--accelerator", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--bf16", action="store_true", help="bf16 mixed precision in all three")
    args = parser.parse_args()
    reps, epochs = (1, 2) if args.quick else (args.reps, args.epochs)
    gpu = args.accelerator == "gpu"
    where = torch.cuda.get_device_name() if gpu else f"CPU, {os.cpu_count()} cores"
    print(f"torch {torch.__version__}, {where}, {'bf16-mixed' if args.bf16 else 'float32'}\n")
    print("| family | threads | (a) raw loop, s/epoch | (b) bare Trainer | (c) defaults | b/a | c/a | c/b | b − a, s |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # (c) writes logs/ and data/ here
        for family in args.families:
            for threads in args.threads or [torch.get_num_threads()]:
                torch.set_num_threads(threads)
                sizes = (QUICK if args.quick else SIZES)[family]
                measure = functools.partial(
                    seconds_per_epoch, family, sizes=sizes, epochs=epochs, gpu=gpu, bf16=args.bf16
                )
                measure("b", epochs=2)  # warm-up: caches, imports, data generation, kernels
                times = interleaved("abc", reps, measure)
                a, b, c = (statistics.median(times[v]) for v in "abc")
                b_a, c_a = paired_ratio(times, "b", "a"), paired_ratio(times, "c", "a")
                c_b, gap = paired_ratio(times, "c", "b"), paired_difference(times, "b", "a")
                ratios = f"{b_a:.2f} | {c_a:.2f} | {c_b:.2f}"
                print(f"| {family} | {threads} | {a:.3f} | {b:.3f} | {c:.3f} | {ratios} | {gap:+.3f} |", flush=True)


if __name__ == "__main__":
    main()
