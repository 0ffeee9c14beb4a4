"""LightningCLI with `--model NAME`: the name selects `configs/NAME.yaml`; everything else is LightningCLI's."""

import importlib
import logging
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from lightning.pytorch import LightningDataModule, LightningModule, Trainer
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI

from project.registry import MODELS, describe_models

SUBCOMMANDS = ("fit", "validate", "test", "predict")


class ProjectCLI(LightningCLI):
    """Links the DataModule's class count into the model and its network, and reports where a fit went.

    `link_num_classes=False` for a LightningModule of your own that is not a `ClassificationModule`:
    it has no `num_classes` or `net` to link into.
    """

    def __init__(self, *args: Any, link_num_classes: bool = True, **kwargs: Any) -> None:
        self.link_num_classes = link_num_classes
        super().__init__(*args, **kwargs)

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        if self.link_num_classes:
            parser.link_arguments("data.num_classes", "model.init_args.num_classes", apply_on="instantiate")
            parser.link_arguments(
                "data.num_classes", "model.init_args.net.init_args.num_classes", apply_on="instantiate"
            )

    def after_fit(self) -> None:
        summary = fit_summary(self.trainer)  # on every rank: trainer.log_dir is a collective under DDP
        if self.trainer.is_global_zero:
            print(summary)


def fit_summary(trainer: Trainer) -> str:
    """Where a fit went: best metric, checkpoints, logs, and how to look at them."""
    if trainer.fast_dev_run:
        return "\nfast_dev_run finished: the code path works. Nothing was logged or saved."
    lines = ["", "Fit finished."]
    ckpt = trainer.checkpoint_callback
    if ckpt is not None:
        if ckpt.best_model_score is not None:
            lines.append(f"  best {ckpt.monitor}: {ckpt.best_model_score.item():.4f}")
        lines.append(f"  best checkpoint: {ckpt.best_model_path or '(none)'}")
        lines.append(f"  last checkpoint: {ckpt.last_model_path or '(none)'}")
    if trainer.log_dir:
        lines.append(f"  logs and config: {trainer.log_dir}")
        lines.append(f"  TensorBoard:     tensorboard --logdir {trainer.log_dir}")
    return "\n".join(lines)


def find_model_flag(args: Sequence[str]) -> tuple[str | None, int, int]:
    """The value of `--model VALUE` or `--model=VALUE`, its index and how many items it spans."""
    for i, arg in enumerate(args):
        if arg == "--model" and i + 1 < len(args):
            return args[i + 1], i, 2
        if arg.startswith("--model="):
            return arg.split("=", 1)[1], i, 1
    return None, 0, 0


def expand_model_flag(args: Sequence[str]) -> list[str]:
    """Replace `--model NAME` by `--config configs/NAME.yaml`, put first so later configs and flags override it.

    A value with a dot is a class path and goes to LightningCLI unchanged.
    """
    args = list(args)
    name, index, span = find_model_flag(args)
    if name is None or "." in name:
        return args
    if name not in MODELS:
        print(f"error: unknown model {name!r}.\n{describe_models()}", file=sys.stderr)
        raise SystemExit(2)
    del args[index : index + span]
    position = 1 if args and args[0] in SUBCOMMANDS else 0
    return [*args[:position], "--config", str(MODELS[name].path), *args[position:]]


def is_classification_module(args: Sequence[str]) -> bool:
    """False only when `--model` names a class path that is not a `ClassificationModule`."""
    name, _, _ = find_model_flag(args)
    if name is None or "." not in name:
        return True
    from project.models.classifier import ClassificationModule

    module, _, cls = name.rpartition(".")
    try:
        return issubclass(getattr(importlib.import_module(module), cls), ClassificationModule)
    except (ImportError, AttributeError):
        return True  # let LightningCLI report the bad class path


def main(args: Sequence[str] | None = None, subcommand: str | None = None) -> ProjectCLI:
    """`python -m project SUBCOMMAND --model NAME ...`; `subcommand` fixes it (the `project.fit` short form)."""
    args = list(sys.argv[1:] if args is None else args)
    if subcommand is not None:
        args.insert(0, subcommand)
    if "-h" in args or "--help" in args:
        print(describe_models() + "\n")
    return _make_cli(args, run=True)


def build(model: str, *args: str) -> ProjectCLI:
    """Instantiate a model family's config without running it: `cli.model`, `cli.datamodule`, `cli.trainer`.

    For notebooks and tests: `build("cnn", "--trainer.max_epochs", "2")` composes exactly what
    `python -m project.fit --model cnn --trainer.max_epochs 2` would train.
    """
    return _make_cli(["--model", model, *args], run=False)


def _make_cli(args: list[str], run: bool) -> ProjectCLI:
    logging.getLogger("lightning.pytorch.utilities.rank_zero").addFilter(_drop_tips)
    # We pass `args` on purpose (after expanding --model); Lightning warns whenever sys.argv is also set.
    warnings.filterwarnings("ignore", message="LightningCLI's args parameter is intended")
    # Lightning 2.6 on torch 2.13 warns about its own use of a torch API at every step; nothing for users to do.
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated")
    return ProjectCLI(
        LightningModule,
        LightningDataModule,
        subclass_mode_model=True,
        subclass_mode_data=True,
        args=expand_model_flag(args),
        link_num_classes=is_classification_module(args),
        run=run,
        # One place for the optimizer: model.optimizer. LightningCLI's own --optimizer would bypass our schedule.
        auto_configure_optimizers=False,
        parser_kwargs={"prog": "python -m project", "allow_abbrev": False},
    )


def _drop_tips(record: logging.LogRecord) -> bool:
    # Lightning 2.6 advertises its cloud services at every start; keep the console for the run.
    return not record.getMessage().startswith("💡 Tip")
