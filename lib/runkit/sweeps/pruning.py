"""Optuna pruning for a trial that runs as its own `project.fit` process (`project.sweep` starts them)."""

from typing import Any

import lightning.pytorch as L


class OptunaPruning(L.Callback):
    """After each validation epoch, report `monitor` to the trial in the study's storage and stop the run when
    the study's pruner says it is unpromising.

    Optuna's `PyTorchLightningPruningCallback` raises `TrialPruned` inside `fit`: right where the trial is
    the function `study.optimize` calls, but here it would end the process as a crash, and under DDP it
    needs an RDB storage and a check after `fit`. This stops the Trainer as early stopping does instead: the
    verdict is taken on rank 0, broadcast to every rank, and left in the storage (`pruned_at_epoch`) for the
    sweep to record the trial as pruned. Through the storage and the pruner's public API only, so any
    storage Optuna opens by URL works, across processes and machines.

    Args:
        storage: the study's storage URL (`sqlite:///...`, `postgresql://...`).
        study: the study's name.
        trial: the trial's number in the study.
        monitor: the metric reported, e.g. `val/acc`.
        pruner: the sweep file's `pruner:` section (`runkit.sweeps.spec.make_pruner`).
    """

    def __init__(
        self, storage: str, study: str, trial: int, monitor: str, pruner: dict[str, Any] | None = None
    ) -> None:
        self.storage_url = storage
        self.study_name = study
        self.trial_number = trial
        self.monitor = monitor
        self.pruner_config = pruner or {"name": "none"}
        self._study: Any = None  # opened in `setup`, on rank 0 only
        self._storage: Any = None
        self._trial_id = -1

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if stage != "fit" or not trainer.is_global_zero:
            return
        import optuna

        from runkit.sweeps.spec import make_pruner, open_storage

        self._storage = storage = open_storage(self.storage_url)
        self._study = optuna.load_study(
            study_name=self.study_name, storage=storage, pruner=make_pruner(self.pruner_config)
        )
        study_id = storage.get_study_id_from_name(self.study_name)
        self._trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, self.trial_number)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.sanity_checking or trainer.fast_dev_run:
            return
        prune = False
        if trainer.is_global_zero and self._study is not None:
            prune = self._report(trainer)
        prune = trainer.strategy.broadcast(prune)
        if prune:
            trainer.should_stop = True

    def _report(self, trainer: L.Trainer) -> bool:
        value = trainer.callback_metrics.get(self.monitor)
        if value is None:
            return False  # the sweep checked the name before the first trial; a task may skip an epoch
        storage, epoch = self._storage, trainer.current_epoch
        frozen = storage.get_trial(self._trial_id)
        if epoch not in frozen.intermediate_values:  # a resumed run re-validates no reported epoch
            storage.set_trial_intermediate_value(self._trial_id, epoch, float(value))
            frozen = storage.get_trial(self._trial_id)
        if not self._study.pruner.prune(self._study, frozen):
            return False
        storage.set_trial_user_attr(self._trial_id, "pruned_at_epoch", epoch)
        return True
