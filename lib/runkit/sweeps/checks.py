"""What a sweep checks before its first trial: every searched value parses as the fit command's, and the
objective is a metric the model logs. Hours of trials never start on a misspelled key."""

import argparse
import re
from dataclasses import dataclass
from typing import Any

from runkit import ConfigError
from runkit.cli.registry import CommandLine
from runkit.sweeps.runs import key_args
from runkit.sweeps.spec import SweepSpec
from runkit.trackers.stacking import runs_root

REFUSED = ("--ckpt_path", "--run_dir")  # each run sets its own


@dataclass(frozen=True)
class Checked:
    """The checked sweep: the fit command line every trial shares, and the objective resolved."""

    base_args: list[str]
    objective: str
    mode: str  # max / min
    logs: str  # the run's log folder root: save_dir/name, where the sweeps' folders go
    config: Any  # the parsed base config
    folds_refused: str | None  # why the data cannot be cut into cross-validation folds, if it cannot


def check_sweep(commands: CommandLine, model: str, spec: SweepSpec, fit_args: list[str]) -> Checked:

    searched = {canonical(p.key) for p in spec.params}
    for arg in fit_args:
        flag = arg.split("=", 1)[0]
        if flag.startswith(REFUSED):
            raise ConfigError(f"{flag} is set by the sweep for each trial: leave it out of the command line")
        if canonical(flag.removeprefix("--")) in searched:
            raise ConfigError(f"{flag} is searched by {spec.path} (params); leave it out of the command line")
    base = ["--model", model, *key_args(spec.fixed), *fit_args]
    try:
        cli = commands.parse(base)
    except argparse.ArgumentError as err:
        raise ConfigError(
            f"the fit arguments do not parse ({spec.path} fixed, or the command line): {reason(err)}"
        ) from err
    for param in spec.params:
        for value in param.extremes():
            try:
                cli.parser.parse_args(commands.expand([*base, *key_args({param.key: value})]))
            except argparse.ArgumentError as err:
                raise ConfigError(
                    f"{spec.path}: params.{param.key} = {value!r} is refused by the fit command: {reason(err)}"
                ) from err
    built = commands.compose(base)
    task = built.model.task
    objective = task.monitor if spec.objective == "auto" else spec.objective
    logged = fit_metrics(built.model)
    if objective not in logged:
        raise ConfigError(
            f"{spec.path}: objective {objective!r} is not a metric --model {model} logs; it logs "
            f"{', '.join(logged)} (objective: auto is {task.monitor})"
        )
    if spec.direction != "auto":
        mode = "max" if spec.direction == "maximize" else "min"
    elif objective.removesuffix("_best") == task.monitor:
        mode = task.mode
    elif objective.endswith("/loss"):
        mode = "min"
    else:
        raise ConfigError(f"{spec.path}: say the direction (maximize or minimize) for objective {objective!r}")
    logs = str(runs_root(cli.config.trainer, model))
    refused = getattr(built.datamodule, "folds_refused", "it is not one of the template's DataModules")
    if spec.folds and refused:
        raise ConfigError(
            f"{spec.path}: folds: {type(built.datamodule).__name__} has no cross-validation folds: {refused}"
        )
    return Checked(base, objective, mode, logs, cli.config, refused)


def canonical(key: str) -> str:
    """A fit key without its `init_args` parts: `model.net.hidden_size` and `model.net.init_args.hidden_size`
    are the same key to the parser."""
    return ".".join(part for part in key.split(".") if part != "init_args")


def reason(err: argparse.ArgumentError) -> str:
    """The part of jsonargparse's nested message that says what is wrong."""
    text = str(err)
    for pattern in (
        r"Option '[^']+' is not accepted",
        r"unrecognized arguments: .*",
        r"Expected a <class '(?!NoneType)[^']+'>.*",
    ):
        if found := re.search(pattern, text):
            return found.group(0)
    return text.strip().splitlines()[-1] if text.strip() else "refused"


def fit_metrics(model: Any) -> list[str]:
    """The names a fit of a `TaskModule` logs at every epoch: what a sweep may optimise and early stopping may
    watch. (A task's `on_validation_epoch_end` may log more, known only once it has run.)"""
    return [
        "train/loss",
        *model.train_metrics.keys(),
        "val/loss",
        *model.val_metrics.keys(),
        f"{model.task.monitor}_best",
    ]
