"""LightningCLI with `--model NAME`: the name selects `configs/NAME.yaml`; everything else is LightningCLI's."""

import logging
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from jsonargparse import Namespace
from lightning.pytorch import LightningDataModule, LightningModule, Trainer
from lightning.pytorch.cli import LightningArgumentParser, SaveConfigCallback

from project.callbacks.early_stopping import EarlyStop, stop_summary
from project.callbacks.log_file import log_to_console
from project.checkpoint_io import CheckpointError, check_complete, find_last, newest_complete, read_checkpoint
from project.compat import CheckpointCheckingCLI
from project.model_flag import data_links_for, expand_model_flag
from project.registry import describe_models
from project.run_loggers import check_loggers, first_logger, pin_run_dir, stack_loggers
from project.trackers.reattach import reattach

log = logging.getLogger(__name__)


class ProjectCLI(CheckpointCheckingCLI):
    """LightningCLI that links what the data decides into the model, restores data state, and reports.

    Args:
        data_links: DataModule attribute -> the model's init arguments it fills in when both are
            instantiated (`TaskModule.data_links`: the class count, the vocabulary size...).
    """

    def __init__(
        self,
        *args: Any,
        data_links: dict[str, tuple[str, ...]] | None = None,
        instantiate: bool = True,
        **kwargs: Any,
    ) -> None:
        self.data_links = data_links or {}
        self.instantiate = instantiate
        self.checkpoint: dict[str, Any] | None = None  # `--ckpt_path`, read once (memory-mapped) and checked
        super().__init__(*args, **kwargs)

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        # Its own config section (`early_stopping:`), so that a family's config sets its patience alone.
        parser.add_lightning_class_args(EarlyStop, "early_stopping")
        parser.add_argument(
            "--run_dir",
            type=str | None,
            default=None,
            help="the run's folder (save_dir/name/version of the first logger; stacked loggers follow it)",
        )
        parser.add_argument(
            "--test_after_fit",
            type=bool,
            default=True,
            help="fit: end by testing the best checkpoint on the test split, where the data has one of its own",
        )
        for source, targets in self.data_links.items():
            for target in targets:
                parser.link_arguments(f"data.{source}", f"model.init_args.{target}", apply_on="instantiate")

    def check_ckpt_path(self) -> None:
        """Check `--ckpt_path` before Lightning reads the model's hyperparameters from it.

        Resolves `last` across runs, names a cut-short or unsafe file (instead of a traceback from deep in
        unpickling), and refuses a checkpoint of another model class (Lightning would silently build
        that class with this run's data).
        """
        subcommand = self.config.get("subcommand")
        config = self.config.get(subcommand) if subcommand else None
        if config and config.get("run_dir") and config.get("trainer"):
            pin_run_dir(config.trainer, Path(config.run_dir))
        if config and config.get("ckpt_path") == "last":
            config.ckpt_path = resolve_last(config)
        ckpt_path = config.get("ckpt_path") if config else None
        if ckpt_path and ckpt_path not in ("last", "best", "hpc"):
            self.checkpoint = saved = read_checkpoint(ckpt_path, mmap=True)  # mmap: only the small parts are read
            trained = saved.get("hyper_parameters", {}).get("_class_path")
            wanted = config.get("model", {}).get("class_path") if config.get("model") else None
            if trained and wanted and trained != wanted:
                raise CheckpointError(
                    f"{ckpt_path} holds a {trained.rsplit('.', 1)[-1]} ({trained}), but this command builds "
                    f"{wanted}: pass the --model of that family, or the checkpoint of this one"
                )

    def before_instantiate_classes(self) -> None:
        """With `--ckpt_path`, build the DataModule from the state the checkpoint saved.

        Lightning restores DataModule state (e.g. the vocabulary) only after the model exists, too late
        for a model whose shape depends on it. A DataModule opts in with a `state_dict()` whose keys are
        init arguments.
        """
        if not self.instantiate:
            return  # `parse()`: the config as given (it may be saved, e.g. a sweep's best.yaml)
        config = self.config.get(self.subcommand) if self.subcommand else self.config  # run=False: no subcommand
        if config and config.get("trainer"):
            use_tqdm_progress_bar(config.trainer)
            stack_loggers(config.trainer)
            check_loggers(config.trainer)
        if self.checkpoint is not None and config.get("trainer"):
            for line in reattach(config.trainer, self.checkpoint):
                log.info(f"continuing the tracker run of the checkpoint: {line}")
        if self.checkpoint is None or not config.get("data"):
            return
        state = self.checkpoint.get(config.data.class_path.rsplit(".", 1)[-1], {})
        for key, value in state.items():
            config.data.init_args[key] = value

    def instantiate_classes(self) -> None:
        if self.instantiate:  # `parse()`: the config alone, checked, nothing built
            super().instantiate_classes()

    def after_fit(self) -> None:
        ckpt = self.trainer.checkpoint_callback
        last = ckpt.last_model_path if ckpt is not None else None  # Trainer.test's restore of the best clears it
        tested = self._test_best() if self.config.get(self.subcommand, {}).get("test_after_fit") else None
        summary = fit_summary(self.trainer, tested, last)  # on every rank: trainer.log_dir is a collective under DDP
        if self.trainer.is_global_zero:
            print(summary)

    def _test_best(self) -> dict[str, float] | None:
        """The test split's metrics at the best checkpoint (at the last weights without one), on every rank as
        `Trainer.test` runs under DDP; None where the data has no test split of its own, or nothing was fitted."""
        trainer, datamodule = self.trainer, self.datamodule
        if trainer.fast_dev_run or trainer.interrupted or not getattr(datamodule, "has_test_split", False):
            return None
        ckpt = trainer.checkpoint_callback
        best = ckpt.best_model_path if ckpt is not None and ckpt.best_model_path else None
        results = trainer.test(self.model, datamodule=datamodule, ckpt_path=best, verbose=False)
        return {k: float(v) for k, v in (results[0] if results else {}).items()}


class SaveConfigToRunFolder(SaveConfigCallback):
    """Saves the resolved config.yaml in the run's log folder. Without a logger there is no run folder,
    and Lightning's callback would write into the working directory (and refuse the next run there).
    A resumed run continues in its old folder: its config goes beside the first as config-resumed-N.yaml."""

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if trainer.logger is None:
            return
        if self.config.get("ckpt_path") and stage == "fit":
            folder = Path(trainer.log_dir or ".")  # a collective under DDP: every rank asks
            taken = {p.name for p in folder.glob("config*.yaml")} if trainer.is_global_zero else set()
            count = trainer.strategy.broadcast(len(taken))
            self.config_filename = "config.yaml" if count == 0 else f"config-resumed-{count}.yaml"
        super().setup(trainer, pl_module, stage)


def fit_summary(trainer: Trainer, tested: dict[str, float] | None = None, last: str | None = None) -> str:
    """Where a fit went: best metric, the test split's at the best checkpoint, checkpoints (`last`: the last
    checkpoint's path, where a test after the fit cleared the callback's), logs, how to look."""
    if trainer.fast_dev_run:
        return "\nfast_dev_run finished: the code path works. Nothing was logged or saved."
    lines = ["", "Fit finished."]
    ckpt = trainer.checkpoint_callback
    if ckpt is not None and ckpt.best_model_score is not None:
        lines.append(f"  best {ckpt.monitor}: {ckpt.best_model_score.item():.4f}")
    if tested:
        shown = ", ".join(f"{name} {value:.4f}" for name, value in tested.items() if not name.endswith("/loss"))
        lines.append(f"  test, at the best checkpoint: {shown}")
    if ckpt is not None:
        lines.append(f"  best checkpoint: {ckpt.best_model_path or '(none)'}")
        lines.append(f"  last checkpoint: {(last if last is not None else ckpt.last_model_path) or '(none)'}")
    if stopped := stop_summary(trainer):
        lines.append(stopped)
    if trainer.log_dir:
        lines.append(f"  logs and config: {trainer.log_dir}")
        lines.append(f"  TensorBoard:     tensorboard --logdir {trainer.log_dir}")
    return "\n".join(lines)


def use_tqdm_progress_bar(trainer: Any) -> None:
    """Lightning's default bar is Rich's when `rich` is installed; TQDM's redraws cost less, about what no
    bar costs (benchmarks/callback_costs.py measures it). Added only when the run shows a bar and names
    none of its own, so `--trainer.enable_progress_bar false` and a configured RichProgressBar both still work."""
    if trainer.get("enable_progress_bar") is False:
        return
    callbacks = trainer.get("callbacks") or []
    if any("ProgressBar" in str(getattr(c, "class_path", "")) for c in callbacks):
        return
    bar = Namespace(class_path="lightning.pytorch.callbacks.TQDMProgressBar", init_args=Namespace())
    trainer.callbacks = [*callbacks, bar]


def resolve_last(config: Any) -> str | None:
    """`--ckpt_path last` across runs: the newest `last.ckpt` under logs/NAME/version_*/, and that run's folder.

    Lightning looks for `last` only in the new run's own, empty, checkpoint folder. This finds the run
    that was interrupted, pins the logger to its version (so its logs continue), and skips a `last.ckpt`
    that was cut short for the newest complete checkpoint beside it. Nothing there: a fresh start, so the
    same command serves the first launch and every requeue.
    """
    logger = first_logger(config.trainer.get("logger"))  # the one that names the run folder
    init_args = getattr(logger, "init_args", None) if logger else None
    if init_args is None or not init_args.get("save_dir"):
        return "last"  # no run folders: Lightning's own resolution in default_root_dir
    root = Path(init_args.save_dir) / (init_args.get("name") or "lightning_logs")
    version = init_args.get("version")
    if version is not None:  # the logger names its version: look in that run only
        last = find_last(root, f"version_{version}" if isinstance(version, int) else str(version))
    else:
        last = find_last(root)
    if last is None:
        log.info(f"--ckpt_path last: no checkpoint under {root}, starting a new run")
        return None
    folder = last.parent.parent.name
    number = folder.removeprefix("version_")
    init_args.version = int(number) if number.isdigit() and folder.startswith("version_") else folder
    try:
        check_complete(last)
    except CheckpointError as err:
        fallback = newest_complete(last.parent)
        if fallback is None:
            raise
        log.warning(f"{err}\nResuming from {fallback} instead, the newest complete checkpoint there.")
        return str(fallback)
    log.info(f"--ckpt_path last: resuming {last}")
    return str(last)


def main(args: Sequence[str] | None = None, subcommand: str | None = None) -> ProjectCLI:
    """`python -m project SUBCOMMAND --model NAME ...`; `subcommand` fixes it (the `project.fit` short form)."""
    args = list(sys.argv[1:] if args is None else args)
    if subcommand is not None:
        args.insert(0, subcommand)
    if "-h" in args or "--help" in args:
        print(describe_models() + "\n")
    try:
        return _make_cli(args, run=True)
    finally:
        # Lightning leaves the DDP process group open; gloo's threads then abort the exit (SIGABRT).
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def build(model: str, *args: str) -> ProjectCLI:
    """Instantiate a model family's config without running it: `cli.model`, `cli.datamodule`, `cli.trainer`.

    For notebooks and tests: `build("cnn", "--trainer.max_epochs", "2")` composes exactly what
    `python -m project.fit --model cnn --trainer.max_epochs 2` would train.
    """
    return compose(["--model", model, *args])


def compose(args: Sequence[str]) -> ProjectCLI:
    """`build` for a whole command line, as `python -m project.fit` takes it (`--model NAME` among the args)."""
    return _make_cli(list(args), run=False)


def parse(args: Sequence[str]) -> ProjectCLI:
    """Parse a `project.fit` command line strictly, building nothing: `cli.config`, and `cli.parser` to parse
    more. A bad key or value raises `argparse.ArgumentError` instead of exiting (what `project.sweep` checks
    its search space with)."""
    return _make_cli(list(args), run=False, instantiate=False)


def _make_cli(args: list[str], run: bool, instantiate: bool = True) -> ProjectCLI:
    args = expand_model_flag(args)
    log_to_console()
    logging.getLogger("lightning.pytorch.utilities.rank_zero").addFilter(_drop_tips)
    # We pass `args` on purpose (after expanding --model); Lightning warns whenever sys.argv is also set.
    warnings.filterwarnings("ignore", message="LightningCLI's args parameter is intended")
    # A stacked CSV logger writes into the run folder the first logger made; it deletes nothing there.
    warnings.filterwarnings("ignore", message="Experiment logs directory .* exists and is not empty")
    return ProjectCLI(
        LightningModule,
        LightningDataModule,
        subclass_mode_model=True,
        subclass_mode_data=True,
        args=args,
        data_links=data_links_for(args),
        run=run,
        instantiate=instantiate,
        # One place for the optimizer: model.optimizer. LightningCLI's own --optimizer would bypass our schedule.
        auto_configure_optimizers=False,
        save_config_callback=SaveConfigToRunFolder,
        parser_kwargs={
            "prog": "python -m project",
            "allow_abbrev": False,
            **({} if instantiate else {"exit_on_error": False}),
        },
    )


def _drop_tips(record: logging.LogRecord) -> bool:
    # Lightning 2.6 advertises its cloud services at every start; keep the console for the run.
    return not record.getMessage().startswith("💡 Tip")
