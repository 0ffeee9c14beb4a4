"""`python -m project.lr_find --model NAME [fit args]`: an LR range test with Lightning's Tuner.

The learning rate grows exponentially from `--min_lr` to `--max_lr` over `--num_training` steps while the
loss is recorded; the suggestion is read off that curve by `--rule` (docs/diagnostics.md has what each rule
gave when trained with). The plot is saved beside the run's logs as `lr_find.png`, and the fit command that
uses the suggestion is printed. Exit status 0 when the test ran, whether or not it could suggest an LR.
"""

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from runkit.compat import steepest_fall, unbias

LR_FLAG = "--model.optimizer.init_args.lr"


@dataclass
class RangeTest:
    """The curve of one range test: each step's LR and the smoothed loss (unbiased), and where its plot goes."""

    lrs: list[float]
    losses: list[float]
    plot: Path
    result: object  # Lightning's `_LRFinder`, which draws the plot
    configured: float | None = None  # the LR the config trains at (its optimizer's first group)


def range_test(
    compose: Callable[[Sequence[str]], Any], fit_args: Sequence[str], min_lr: float, max_lr: float, num_training: int
) -> RangeTest | None:
    """Lightning's range test on the model and data `fit_args` compose; None under `fast_dev_run`."""
    from lightning.pytorch.tuner import Tuner

    cli = compose(fit_args)
    cli.trainer.fit_loop.max_epochs = 10**6  # the range test runs num_training steps, however short an epoch is
    result = Tuner(cli.trainer).lr_find(
        cli.model,
        datamodule=cli.datamodule,
        min_lr=min_lr,
        max_lr=max_lr,
        num_training=num_training,
        update_attr=False,  # the optimizer is config (model.optimizer), not a model attribute
    )
    if result is None:  # fast_dev_run: Lightning skips the search
        return None
    result.results["loss"] = unbias(result.results["loss"])
    plot = Path(cli.trainer.log_dir or ".") / "lr_find.png"
    configured = cli.model.optimizer([torch.nn.Parameter(torch.zeros(1))]).param_groups[0]["lr"]
    return RangeTest(list(result.results["lr"]), result.results["loss"], plot, result, float(configured))


def longest_fall(lrs: Sequence[float], losses: Sequence[float]) -> tuple[float, float, float] | None:
    """fastai's `valley`: the longest stretch over which the loss keeps falling (a longest decreasing
    subsequence): its first and last LR, and the LR halfway down it (by steps: by decades on the exponential
    sweep). As fastai, the first tenth of the steps (the moving average warming up) and the last five
    (divergence) are left out. None where nothing falls over three steps."""
    skip = len(losses) // 10
    lrs, losses = lrs[skip:-5], losses[skip:-5]
    n = len(losses)
    longest = [1] * n  # the longest decreasing subsequence ending at each point
    end = 0
    for i in range(1, n):
        for j in range(i):
            if losses[i] < losses[j] and longest[i] < longest[j] + 1:
                longest[i] = longest[j] + 1
        if longest[i] > longest[end]:
            end = i
    if longest[end] < 3:
        return None
    start = end - longest[end]
    third = (end - start) / 3
    return float(lrs[start]), float(lrs[end]), float(lrs[start + int(third) + int(third / 2)])


def valley(lrs: Sequence[float], losses: Sequence[float], configured: float | None = None) -> float | None:
    """fastai's `valley`: halfway down the longest fall of the loss (`longest_fall`)."""
    fall = longest_fall(lrs, losses)
    return fall[2] if fall else None


def on_the_fall(lrs: Sequence[float], losses: Sequence[float], configured: float | None = None) -> float | None:
    """The config's LR where it lies on the longest fall of the loss (the range test finds nothing wrong with
    it), else `valley`: a range test's point is not a tuned LR (docs/diagnostics.md), so it moves a config's
    LR only where the curve says that LR is off the fall (too low to learn, or past where the loss turns up)."""
    fall = longest_fall(lrs, losses)
    if fall is None:
        return None
    low, high, middle = fall
    return configured if configured is not None and low <= configured <= high else middle


def tenth_of_minimum(lrs: Sequence[float], losses: Sequence[float], configured: float | None = None) -> float | None:
    """A tenth of the LR where the smoothed loss is lowest (fastai's `minimum`): the curve turns up there."""
    skip_begin = 10
    loss = torch.tensor(losses[skip_begin:], dtype=torch.float64)
    if not len(loss) or not torch.isfinite(loss).any():
        return None
    return float(lrs[skip_begin + int(loss.nan_to_num(float("inf")).argmin())]) / 10


# Each reads (LRs, losses, the config's LR) and returns its suggestion, or None.
RULES: dict[str, Callable[[Sequence[float], Sequence[float], float | None], float | None]] = {
    "fall": on_the_fall,
    "valley": valley,
    "steepest": lambda lrs, losses, configured=None: steepest_fall(lrs, losses),
    "minimum": tenth_of_minimum,
}
RULE_WORDS = {
    "fall": "halfway down the longest fall of the loss",
    "valley": "halfway down the longest fall of the loss",
    "steepest": "steepest fall of the loss per decade",
    "minimum": "a tenth of the loss minimum's LR",
}
DEFAULT_RULE = "fall"


def main(compose: Callable[[Sequence[str]], Any], args: Sequence[str] | None = None, *, package: str) -> int:
    """`python -m PACKAGE.lr_find`, which `compose`s PACKAGE's runs."""
    parser = argparse.ArgumentParser(prog=f"python -m {package}.lr_find", add_help=False)
    parser.add_argument("--min_lr", type=float, default=1e-6)
    parser.add_argument("--max_lr", type=float, default=1.0)
    parser.add_argument("--num_training", type=int, default=100, help="steps of the range test")
    parser.add_argument("--rule", choices=sorted(RULES), default=DEFAULT_RULE, help="how the curve is read")
    ours, fit_args = parser.parse_known_args(sys.argv[1:] if args is None else args)
    test = range_test(compose, fit_args, ours.min_lr, ours.max_lr, ours.num_training)
    if test is None:
        print("LR range test skipped: fast_dev_run runs one batch.")
        return 0
    lr = RULES[ours.rule](test.lrs, test.losses, test.configured)
    test.plot.parent.mkdir(parents=True, exist_ok=True)
    figure = test.result.plot()
    if lr is not None:
        figure.axes[0].axvline(lr, color="red", linestyle="--", label=f"suggested {lr:.3g}")
        figure.axes[0].legend()
    figure.savefig(test.plot, dpi=100)
    print(f"\nLR range test: {len(test.lrs)} steps from {ours.min_lr:g} to {ours.max_lr:g}.")
    print(f"  loss vs LR plot: {test.plot}")
    if lr is None:
        print(
            "  no suggestion: the loss did not fall clearly during the sweep. Raise --num_training (a model that "
            "learns slowly needs more steps at each LR), or narrow --min_lr/--max_lr around the default LR."
        )
        return 0
    why = RULE_WORDS[ours.rule]
    if ours.rule == "fall" and lr == test.configured:
        low, high, _ = longest_fall(test.lrs, test.losses) or (lr, lr, lr)
        why = f"the config's: on the longest fall of the loss, {low:.2g} to {high:.2g}"
    command = shlex.join(["python", "-m", f"{package}.fit", *_without(fit_args, LR_FLAG), LR_FLAG, f"{lr:.3g}"])
    print(f"  suggested LR:    {lr:.3g} ({why})\n  train with it:   {command}")
    return 0


def _without(args: Sequence[str], flag: str) -> list[str]:
    """The command line without an earlier `flag VALUE` or `flag=VALUE`."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == flag:
            skip = True
        elif not arg.startswith(f"{flag}="):
            out.append(arg)
    return out
