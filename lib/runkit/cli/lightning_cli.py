"""LightningCLI with `--model NAME`, and a run's life in order: parse, prepare the run folder and the checkpoint,
resolve what the run watches, build, fit, test after the fit, summary."""

import logging
import shutil
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from lightning.pytorch import LightningDataModule, LightningModule
from lightning.pytorch.cli import LightningArgumentParser

from runkit import CheckpointError, offers, user_error
from runkit.callbacks.early_stopping import EarlyStop, how_it_ended
from runkit.callbacks.graceful_stop import StoppedBySignal
from runkit.callbacks.log_file import log_to_console
from runkit.checkpoints.io import read_checkpoint
from runkit.checkpoints.last import resolve_last
from runkit.cli.model_flag import data_links_for, expand_model_flag
from runkit.cli.monitor import resolve_monitor
from runkit.cli.parser_errors import ProjectArgumentParser
from runkit.cli.progress import choose_progress_bar
from runkit.cli.registry import Registry
from runkit.cli.summary import fit_summary
from runkit.compat import CheckpointCheckingCLI, SaveConfigToRunFolder, close_process_group, quiet_lightning_console
from runkit.trackers.reattach import reattach
from runkit.trackers.stacking import check_loggers, pin_run_dir, stack_loggers

log = logging.getLogger(__name__)


class RunCLI(CheckpointCheckingCLI):
    """LightningCLI that links what the data decides into the model, restores data state, and reports.

    Args:
        data_links: DataModule attribute -> the model's init arguments it fills in when both are
            instantiated (`TaskModule.data_links`: the class count, the vocabulary size...).
    """

    running: ClassVar["RunCLI | None"] = None  # the fit in progress in this process, for `main` to clean up

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
        self.new_run_folder: Path | None = None  # made by this fit: removed if the fit is refused before a step
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

    # 1. Parsed: the run folder and the checkpoint, before Lightning reads the model's hyperparameters from it.
    def before_ckpt_path_read(self) -> None:
        config = self._subcommand_config()
        if config is None:
            return
        pin_run_folder(config)
        self.checkpoint = check_checkpoint(config)

    # 2. What the run watches, its display, its loggers, and the data state a checkpoint holds; then it is built.
    def before_instantiate_classes(self) -> None:
        if not self.instantiate:
            return  # `parse()`: the config as given (it may be saved, e.g. a sweep's best.yaml)
        config = self.config.get(self.subcommand) if self.subcommand else self.config  # run=False: no subcommand
        resolve_monitor(config)
        if config.get("trainer"):
            choose_progress_bar(config.trainer)
            stack_loggers(config.trainer)
            check_loggers(config.trainer)
            if self.checkpoint is not None:
                for line in reattach(config.trainer, self.checkpoint):
                    log.info(f"continuing the tracker run of the checkpoint: {line}")
        if self.checkpoint is not None and config.get("data"):
            restore_data_state(config, self.checkpoint)

    def instantiate_classes(self) -> None:
        if self.instantiate:  # `parse()`: the config alone, checked, nothing built
            super().instantiate_classes()

    # 3. Fit, then test the best checkpoint and say how the fit ended.
    def before_fit(self) -> None:
        folder = Path(self.trainer.log_dir) if self.trainer.logger is not None and self.trainer.log_dir else None
        self.new_run_folder = folder if folder is not None and not folder.exists() else None
        RunCLI.running = self

    def after_fit(self) -> None:
        ckpt = self.trainer.checkpoint_callback
        last = ckpt.last_model_path if ckpt is not None else None  # Trainer.test's restore of the best clears it
        ended = how_it_ended(self.trainer)  # and brings back the best epoch's early-stopping state
        tested = self._test_best() if self.config.get(self.subcommand, {}).get("test_after_fit") else None
        summary = fit_summary(self.trainer, ended, tested, last)  # on every rank: log_dir is a collective under DDP
        if self.trainer.is_global_zero:
            print(summary)

    def say_how_it_ended(self) -> None:
        """The fit summary of a fit a signal stopped (no test after it: it is to be resumed)."""
        summary = fit_summary(self.trainer, how_it_ended(self.trainer))  # every rank: log_dir is a collective
        if self.trainer.is_global_zero:
            print(summary, flush=True)

    def discard_refused_run(self) -> None:
        """A fit refused before its first step (bad data, a bad value) leaves no run folder behind."""
        trainer = getattr(self, "trainer", None)
        folder = self.new_run_folder
        if trainer is None or folder is None or trainer.global_step > 0 or not trainer.is_global_zero:
            return
        for logger in trainer.loggers:
            logger.finalize("failed")
        shutil.rmtree(folder, ignore_errors=True)

    def _subcommand_config(self) -> Any:
        subcommand = self.config.get("subcommand")
        return self.config.get(subcommand) if subcommand else None

    def _test_best(self) -> dict[str, float] | None:
        """The test split's metrics at the best checkpoint (at the last weights without one), on every rank as
        `Trainer.test` runs under DDP; None where the data has no test split of its own, or nothing was fitted."""
        trainer, datamodule = self.trainer, self.datamodule
        if trainer.fast_dev_run or trainer.interrupted or not offers(datamodule).has_test_split:
            return None
        ckpt = trainer.checkpoint_callback
        best = ckpt.best_model_path if ckpt is not None and ckpt.best_model_path else None
        results = trainer.test(self.model, datamodule=datamodule, ckpt_path=best, verbose=False)
        return {k: float(v) for k, v in (results[0] if results else {}).items()}


def pin_run_folder(config: Any) -> None:
    """`--run_dir` pins the first logger's folder; `--ckpt_path last` finds the interrupted run and pins its."""
    if config.get("run_dir") and config.get("trainer"):
        pin_run_dir(config.trainer, Path(config.run_dir))
    if config.get("ckpt_path") == "last":
        config.ckpt_path = resolve_last(config)


def check_checkpoint(config: Any) -> dict[str, Any] | None:
    """`--ckpt_path`, read (memory-mapped: only the small parts are read) and checked: a cut-short or unsafe file
    is named instead of a traceback from deep in unpickling, and a checkpoint of another model class is refused
    (Lightning would silently build that class with this run's data)."""
    ckpt_path = config.get("ckpt_path")
    if not ckpt_path or ckpt_path in ("last", "best", "hpc"):
        return None
    saved = read_checkpoint(ckpt_path, mmap=True)
    trained = saved.get("hyper_parameters", {}).get("_class_path")
    wanted = config.get("model", {}).get("class_path") if config.get("model") else None
    if trained and wanted and trained != wanted:
        raise CheckpointError(
            f"{ckpt_path} holds a {trained.rsplit('.', 1)[-1]} ({trained}), but this command builds "
            f"{wanted}: pass the --model of that family, or the checkpoint of this one"
        )
    return saved


def restore_data_state(config: Any, checkpoint: dict[str, Any]) -> None:
    """With `--ckpt_path`, build the DataModule from the state the checkpoint saved.

    Lightning restores DataModule state (e.g. the vocabulary) only after the model exists, too late for a
    model whose shape depends on it. A DataModule opts in with a `state_dict()` whose keys are init arguments.
    """
    for key, value in checkpoint.get(config.data.class_path.rsplit(".", 1)[-1], {}).items():
        config.data.init_args[key] = value


class Commands:
    """The command line of a project with these model families: what its `cli.py` binds once."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def main(self, args: Sequence[str] | None = None, subcommand: str | None = None) -> RunCLI:
        """`python -m project SUBCOMMAND --model NAME ...`; `subcommand` fixes it (the `project.fit` short form)."""
        args = list(sys.argv[1:] if args is None else args)
        if subcommand is not None:
            args.insert(0, subcommand)
        if "-h" in args or "--help" in args:
            print(self.registry.describe() + "\n")
        try:
            return self._make_cli(args, run=True)
        except StoppedBySignal:
            if RunCLI.running is not None:  # a stop by a signal is told like any end of a fit, then exits 143 / 130
                RunCLI.running.say_how_it_ended()
            raise
        except Exception as err:
            if user_error(err) is not None and RunCLI.running is not None:
                RunCLI.running.discard_refused_run()
            raise
        finally:
            RunCLI.running = None
            close_process_group()

    def build(self, model: str, *args: str) -> RunCLI:
        """Instantiate a model family's config without running it: `cli.model`, `cli.datamodule`, `cli.trainer`.

        For notebooks and tests: `build("cnn", "--trainer.max_epochs", "2")` composes exactly what
        `python -m project.fit --model cnn --trainer.max_epochs 2` would train.
        """
        return self.compose(["--model", model, *args])

    def compose(self, args: Sequence[str]) -> RunCLI:
        """`build` for a whole command line, as `python -m project.fit` takes it (`--model NAME` among the args)."""
        return self._make_cli(list(args), run=False)

    def parse(self, args: Sequence[str]) -> RunCLI:
        """Parse a `project.fit` command line strictly, building nothing: `cli.config`, and `cli.parser` to parse
        more. A bad key or value raises `argparse.ArgumentError` instead of exiting (what `project.sweep` checks
        its search space with)."""
        return self._make_cli(list(args), run=False, instantiate=False)

    def doctor(self, args: Sequence[str] | None = None) -> int:
        """`python -m project.doctor --model NAME [fit args]`: a pre-flight check before a long run."""
        from runkit.tools import doctor

        return doctor.main(self.compose, args)

    def lr_find(self, args: Sequence[str] | None = None) -> int:
        """`python -m project.lr_find --model NAME [fit args]`: an LR range test with Lightning's Tuner."""
        from runkit.tools import lr_find

        return lr_find.main(self.compose, args, package=self.registry.package)

    def export(self, args: Sequence[str] | None = None) -> None:
        """`python -m project.export CHECKPOINT [OUT] [--format safetensors|onnx]`: a trained model out."""
        from runkit.tools import export

        export.main(None if args is None else list(args), package=self.registry.package)

    def runs(self, args: Sequence[str] | None = None) -> int:
        """`python -m project.runs [FOLDER ...] [--csv FILE]`: one row per run under the folders (default logs/)."""
        from runkit.tools import runs

        return runs.main(args, package=self.registry.package)

    def sweep(self, args: Sequence[str] | None = None) -> int:
        """`python -m project.sweep --model NAME [--sweep FILE] [options] [fit args]`: an Optuna study."""
        from runkit.sweeps import sweep_command

        return sweep_command.main(self, args)

    def repeat(self, args: Sequence[str] | None = None) -> int:
        """`python -m project.repeat --model NAME --seeds 5 | --folds 5 [fit args]`: several runs, mean ± std."""
        from runkit.sweeps import repeat_command

        return repeat_command.main(self, args)

    def serve(self, args: Sequence[str] | None = None) -> int:
        """`python -m project.serve CHECKPOINT`: a trained model behind an HTTP endpoint, on LitServe."""
        from runkit.serving import command

        return command.main(None if args is None else list(args), package=self.registry.package)

    def expand(self, args: Sequence[str]) -> list[str]:
        """The command line with `--model NAME` replaced by the family's config files."""
        return expand_model_flag(args, self.registry)

    def _make_cli(self, args: list[str], run: bool, instantiate: bool = True) -> RunCLI:
        args = self.expand(args)
        log_to_console()
        quiet_lightning_console()
        # We pass `args` on purpose (after expanding --model); Lightning warns whenever sys.argv is also set.
        warnings.filterwarnings("ignore", message="LightningCLI's args parameter is intended")
        # A stacked CSV logger writes into the run folder the first logger made; it deletes nothing there.
        warnings.filterwarnings("ignore", message="Experiment logs directory .* exists and is not empty")
        return RunCLI(
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
            parser_class=ProjectArgumentParser,
            parser_kwargs={
                "prog": self.registry.prog,
                "allow_abbrev": False,
                **({} if instantiate else {"exit_on_error": False}),
            },
        )


# What a saved run's config.yaml composes with: it names its classes, so no family is looked up (the tools that
# rebuild a checkpoint's model and data: export, serving).
SAVED_RUN = Commands(Registry(Path("configs"), {}))
