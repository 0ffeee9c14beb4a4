"""Every checkpoint names the tracker runs it belongs to, so a resume continues them (runkit/trackers/reattach.py)."""

from typing import Any

from lightning.pytorch import Callback, LightningModule, Trainer

from runkit.trackers.reattach import CHECKPOINT_KEY, saved_runs


class TrackerRuns(Callback):
    """`checkpoint["tracker_runs"]`: the MLflow run id, the W&B run id, of the trackers this fit logs to."""

    def on_save_checkpoint(self, trainer: Trainer, pl_module: LightningModule, checkpoint: dict[str, Any]) -> None:
        if runs := saved_runs(trainer.loggers):
            checkpoint[CHECKPOINT_KEY] = runs
