"""The only module that reaches inside Lightning (2.6). Each workaround names the behaviour it needs and
why no public API gives it; tests/test_compat.py fails with the name of the one a Lightning upgrade broke.

`PRIVATE_NAMES` lists every private Lightning name used here; a test checks that no other module of
the package touches a private Lightning name.
"""

from typing import Any

import lightning.pytorch as L
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.cli import LightningCLI

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
    """LightningCLI with a hook, `check_ckpt_path`, between parsing and LightningCLI's own read of `--ckpt_path`.

    LightningCLI 2.6 reads the checkpoint's hyperparameters with `torch.load` in the private
    `_parse_ckpt_path`, before any public hook (`before_instantiate_classes` comes after). A cut-short
    file then fails deep in unpickling, and a checkpoint of another model class silently rebuilds that
    class. Overriding the private method is the only way in.
    """

    def check_ckpt_path(self) -> None:
        """Resolve and check `--ckpt_path` in `self.config`; raise to refuse it."""

    def _parse_ckpt_path(self) -> None:
        self.check_ckpt_path()
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
