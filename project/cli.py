"""LightningCLI with `--model NAME`: the name selects `configs/NAME.yaml`; everything else is LightningCLI's."""

import logging
import sys
import warnings
from collections.abc import Sequence

from lightning.pytorch import LightningDataModule, LightningModule
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI

from project.registry import MODELS, describe_models

SUBCOMMANDS = ("fit", "validate", "test", "predict")


class ProjectCLI(LightningCLI):
    """Links the DataModule's class count into the model and its network, and reports where a fit went."""

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        parser.link_arguments("data.num_classes", "model.init_args.num_classes", apply_on="instantiate")
        parser.link_arguments("data.num_classes", "model.init_args.net.init_args.num_classes", apply_on="instantiate")

    def after_fit(self) -> None:
        if self.trainer.is_global_zero:
            print(fit_summary(self.trainer))


def fit_summary(trainer) -> str:
    ckpt = trainer.checkpoint_callback
    lines = ["", "Fit finished."]
    if ckpt is not None and ckpt.best_model_score is not None:
        lines.append(f"  best {ckpt.monitor}: {ckpt.best_model_score.item():.4f}")
    if ckpt is not None:
        lines.append(f"  best checkpoint: {ckpt.best_model_path or '(none)'}")
        lines.append(f"  last checkpoint: {ckpt.last_model_path or '(none)'}")
    if trainer.log_dir:
        lines.append(f"  logs and config: {trainer.log_dir}")
        lines.append(f"  TensorBoard:     tensorboard --logdir {trainer.log_dir}")
    return "\n".join(lines)


def expand_model_flag(args: Sequence[str]) -> list[str]:
    """Replace `--model NAME` by `--config configs/NAME.yaml`, put first so later configs and flags override it.

    A value with a dot is a class path and goes to LightningCLI unchanged.
    """
    args = list(args)
    for i, arg in enumerate(args):
        if arg == "--model" and i + 1 < len(args):
            name, span = args[i + 1], 2
        elif arg.startswith("--model="):
            name, span = arg.split("=", 1)[1], 1
        else:
            continue
        if name in MODELS:
            del args[i : i + span]
            position = 1 if args and args[0] in SUBCOMMANDS else 0
            return [*args[:position], "--config", str(MODELS[name].path), *args[position:]]
        if "." not in name:
            print(f"error: unknown model {name!r}.\n{describe_models()}", file=sys.stderr)
            raise SystemExit(2)
        break
    return args


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
    return ProjectCLI(
        LightningModule,
        LightningDataModule,
        subclass_mode_model=True,
        subclass_mode_data=True,
        args=expand_model_flag(args),
        run=run,
        # One place for the optimizer: model.optimizer. LightningCLI's own --optimizer would bypass our schedule.
        auto_configure_optimizers=False,
        parser_kwargs={"prog": "python -m project", "allow_abbrev": False},
    )


def _drop_tips(record: logging.LogRecord) -> bool:
    # Lightning 2.6 advertises its cloud services at every start; keep the console for the run.
    return not record.getMessage().startswith("💡 Tip")
