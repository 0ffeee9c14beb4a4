"""`python -m project.lr_find --model NAME [fit args]`: an LR range test with Lightning's Tuner.

The learning rate grows exponentially from `--min_lr` to `--max_lr` over `--num_training` steps while the
loss is recorded; the suggestion is the LR where the loss falls fastest per decade. The plot is saved beside the
run's logs as `lr_find.png`, and the fit command that uses the suggestion is printed.
"""

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from project.cli import compose
from project.compat import steepest_fall, unbias

LR_FLAG = "--model.optimizer.init_args.lr"


def main(args: Sequence[str] | None = None) -> float | None:
    parser = argparse.ArgumentParser(prog="python -m project.lr_find", add_help=False)
    parser.add_argument("--min_lr", type=float, default=1e-6)
    parser.add_argument("--max_lr", type=float, default=1.0)
    parser.add_argument("--num_training", type=int, default=100, help="steps of the range test")
    ours, fit_args = parser.parse_known_args(sys.argv[1:] if args is None else args)

    from lightning.pytorch.tuner import Tuner

    cli = compose(fit_args)
    cli.trainer.fit_loop.max_epochs = 10**6  # the range test runs num_training steps, however short an epoch is
    result = Tuner(cli.trainer).lr_find(
        cli.model,
        datamodule=cli.datamodule,
        min_lr=ours.min_lr,
        max_lr=ours.max_lr,
        num_training=ours.num_training,
        update_attr=False,  # the optimizer is config (model.optimizer), not a model attribute
    )
    if result is None:  # fast_dev_run: Lightning skips the search
        return None
    losses = unbias(result.results["loss"])
    result.results["loss"] = losses
    lr = steepest_fall(result.results["lr"], losses)
    out = Path(cli.trainer.log_dir or ".") / "lr_find.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    figure = result.plot()
    if lr is not None:
        figure.axes[0].axvline(lr, color="red", linestyle="--", label=f"suggested {lr:.3g}")
        figure.axes[0].legend()
    figure.savefig(out, dpi=100)
    print(f"\nLR range test: {len(result.results['lr'])} steps from {ours.min_lr:g} to {ours.max_lr:g}.")
    print(f"  loss vs LR plot: {out}")
    if lr is None:
        print(
            "  no suggestion: the loss did not fall clearly during the sweep. Raise --num_training (a model that "
            "learns slowly needs more steps at each LR), or narrow --min_lr/--max_lr around the default LR."
        )
        return None
    command = shlex.join(["python", "-m", "project.fit", *_without(fit_args, LR_FLAG), LR_FLAG, f"{lr:.3g}"])
    print(f"  suggested LR:    {lr:.3g} (steepest fall of the loss)\n  train with it:   {command}")
    return lr


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
