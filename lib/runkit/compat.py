"""Every workaround of Lightning (2.6) behaviour, private or public-named, and the only module that reaches
inside it. Each names the behaviour it works around and why no public API gives it; tests/test_compat.py
checks each behaviour is still there and fails with the name of the one a Lightning upgrade changed.

`PRIVATE_NAMES` lists every private Lightning name used here; a test checks that no other module of
the package touches a private Lightning name.
"""

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.cli import LightningCLI, SaveConfigCallback

PRIVATE_NAMES = (
    "ModelCheckpoint._should_save_on_train_epoch_end",
    "ModelCheckpoint._should_skip_saving_checkpoint",
    "ModelCheckpoint._save_last_checkpoint",
    "ModelCheckpoint._monitor_candidates",
    "LightningCLI._parse_ckpt_path",
    "lightning.pytorch.core.mixins.hparams_mixin._given_hyperparameters",
    "_FitLoop._combined_loader_states_to_load",
    "_FitLoop._load_combined_loader_states",
    "_FitLoop._data_fetcher",
    "_ExperimentWriter.metrics_keys",
)


class CheckpointCheckingCLI(LightningCLI):
    """LightningCLI with a hook, `before_ckpt_path_read`, between parsing and LightningCLI's own read of `--ckpt_path`.

    LightningCLI 2.6 reads the checkpoint's hyperparameters with `torch.load` in the private
    `_parse_ckpt_path`, before any public hook (`before_instantiate_classes` comes after). A cut-short
    file then fails deep in unpickling, and a checkpoint of another model class silently rebuilds that
    class. Overriding the private method is the only way in.
    """

    def before_ckpt_path_read(self) -> None:
        """Resolve and check `--ckpt_path` in `self.config`; raise to refuse it."""

    def _parse_ckpt_path(self) -> None:
        self.before_ckpt_path_read()
        super()._parse_ckpt_path()


class LastAfterEveryEpoch(ModelCheckpoint):
    """ModelCheckpoint whose `save_last` writes `last.ckpt` at the end of every epoch, as before Lightning 2.6.

    Lightning 2.6 writes `last.ckpt` at an epoch's end only when a top-k checkpoint was saved at the same
    step: with `save_top_k: 1`, an epoch that does not improve the monitored metric leaves `last.ckpt`
    at the best epoch, and `--ckpt_path last` would then resume from there, losing the epochs after it.
    After Lightning's own epoch-end save, this saves `last.ckpt` if nothing was saved at this step.
    """

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        super().on_train_epoch_end(trainer, pl_module)
        if self._should_save_on_train_epoch_end(trainer):
            self._save_last_if_missed(trainer)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        super().on_validation_end(trainer, pl_module)
        if not self._should_save_on_train_epoch_end(trainer):
            self._save_last_if_missed(trainer)

    def _save_last_if_missed(self, trainer: L.Trainer) -> None:
        # Skipped under fast_dev_run, outside fit, in the sanity check, and when this step was saved already.
        if self.save_last and not self._should_skip_saving_checkpoint(trainer):
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        # Lightning 2.6's on_train_end writes last.ckpt even under fast_dev_run; with the logger disabled it
        # lands in ./checkpoints/ of whatever folder the command ran in.
        if not trainer.fast_dev_run:
            super().on_train_end(trainer, pl_module)


class SaveConfigToRunFolder(SaveConfigCallback):
    """Saves the resolved config.yaml in the run's log folder, and only where there is one.

    Without a logger Lightning's callback writes into the working directory (and refuses the next run
    there). A resumed run continues in its old folder: its config goes beside the first as
    config-resumed-N.yaml, where Lightning would refuse to overwrite it. A validate or test run's file leaves out
    their `verbose`, so any command takes it back with `--config`.
    """

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if trainer.logger is None:
            return
        if self.config.get("ckpt_path") and stage == "fit":
            folder = Path(trainer.log_dir or ".")  # a collective under DDP: every rank asks
            taken = {p.name for p in folder.glob("config*.yaml")} if trainer.is_global_zero else set()
            count = trainer.strategy.broadcast(len(taken))
            self.config_filename = "config.yaml" if count == 0 else f"config-resumed-{count}.yaml"
        if "verbose" in self.config:  # validate's and test's own option: `fit --config` of the file would refuse it
            self.config = self.config.clone()
            del self.config["verbose"]
        super().setup(trainer, pl_module, stage)


# Lightning 2.6 advertises its cloud services at every start, and ends a fit with its own line for why it
# stopped (`max_epochs=2 reached`) even where early stopping stopped it: the fit summary says it once.
QUIETED = ("💡 Tip", "`Trainer.fit` stopped:")


def quiet_lightning_console() -> None:
    """Drop Lightning's console messages in `QUIETED` (once per process)."""
    logger = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    if not any(getattr(f, "_project_quiet", False) for f in logger.filters):
        logger.addFilter(_QuietFilter())


class _QuietFilter(logging.Filter):
    _project_quiet = True

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(QUIETED)


def close_process_group() -> None:
    """Lightning leaves the DDP process group open after a run; gloo's threads then abort the exit (SIGABRT)."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


def instantiated_by_cli() -> bool:
    """True while LightningCLI instantiates a LightningModule (inside `save_hyperparameters`' context).

    Under LightningCLI, `save_hyperparameters` records the config (class paths), so a checkpoint
    rebuilds the network alone; built in code, the objects must be left out of it. Lightning marks the
    CLI's instantiation only with the private context variable `_given_hyperparameters`.
    """
    from lightning.pytorch.core.mixins.hparams_mixin import _given_hyperparameters

    return _given_hyperparameters.get() is not None


def load_pending_loader_state(trainer: L.Trainer) -> bool:
    """Give the training loader the position saved in the checkpoint, if Lightning left it pending.

    Lightning-AI/pytorch-lightning#20550 (open in 2.6): when `configure_optimizers` calls
    `trainer.estimated_stepping_batches` (our schedulers do), the loader is built before the checkpoint
    is read and never given its saved state, so a mid-epoch resume would replay the epoch from its
    start. The state is still pending in the fit loop: load it and make the loader's iterator anew.
    Returns whether there was one.
    """
    loop: Any = trainer.fit_loop
    if not loop._combined_loader_states_to_load:
        return False
    loop._load_combined_loader_states()
    iter(loop._data_fetcher)
    return True


def logs_this_step(trainer: L.Trainer) -> bool:
    """Whether the logger writes on the coming training step: public API only, as Lightning decides it
    (every `log_every_n_steps` optimizer steps, and on the last step before a stop)."""
    every = trainer.log_every_n_steps
    if trainer.fast_dev_run:
        return True
    return every > 0 and ((trainer.global_step + 1) % every == 0 or trainer.should_stop)


def continue_csv_columns(writer: Any, columns: list[str]) -> None:
    """Make a CSVLogger's writer (`logger.experiment`) that writes into an existing `metrics.csv` keep its columns.

    Lightning's CSV writer (2.6) starts each process with no columns known: resumed, its first write
    rewrites the file's header with only the metrics it has seen (a row of the others then fails), or
    appends rows in a column order the header does not have. Its column list, `metrics_keys` on the private
    `_ExperimentWriter`, is the only way to tell it the file's.
    """
    writer.metrics_keys = sorted(set(writer.metrics_keys) | set(columns))


def unbias(losses: Sequence[float], beta: float = 0.98) -> list[float]:
    """Undo an off-by-one in Lightning 2.6's LR finder's smoothed loss, so the curve starts at the first batch's loss.

    Its moving average is divided by `1 - beta**(global_step + 1)` after `global_step` has counted the
    step already: the k-th point (from 0) is divided by `1 - beta**(k + 2)` instead of `1 - beta**(k + 1)`,
    which halves the first point and reads low for the first ~50.
    """
    return [value * (1 - beta ** (k + 2)) / (1 - beta ** (k + 1)) for k, value in enumerate(losses)]


def steepest_fall(lrs: Sequence[float], losses: Sequence[float], skip_begin: int = 10) -> float | None:
    """The LR where the smoothed loss falls fastest per decade, up to the loss minimum: the LR finder's suggestion.

    Lightning 2.6's own `suggestion()` differentiates with respect to the LR itself, which on the
    exponential sweep favours the smallest LRs (Lightning-AI/pytorch-lightning#21141); per decade is
    how the sweep is spaced and how the curve is plotted.
    """
    loss = torch.tensor(losses, dtype=torch.float64)
    log_lr = torch.tensor(lrs, dtype=torch.float64).log10()
    # Past the minimum the loss diverges; the first points are mostly the moving average warming up.
    finite = torch.isfinite(loss).nonzero().flatten()
    finite = finite[finite >= skip_begin]
    end = int(finite[loss[finite].argmin()]) + 1 if len(finite) else 0
    if end - skip_begin < 3 or not torch.isfinite(loss[skip_begin:end]).all():
        return None
    if loss[skip_begin:end].max() - loss[end - 1] < 0.05 * loss[skip_begin:end].max():
        return None  # a flat curve: no LR in the sweep made the loss fall
    slope = torch.gradient(loss[skip_begin:end], spacing=[log_lr[skip_begin:end]])[0]
    return float(lrs[skip_begin + int(slope.argmin())])
