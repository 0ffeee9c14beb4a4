"""Lightning's EarlyStopping on the task's metric, with a way to turn it off from a config."""

from typing import Literal

import torch
from lightning.pytorch import LightningModule, Trainer
from lightning.pytorch.callbacks import EarlyStopping
from lightning.pytorch.callbacks.early_stopping import EarlyStoppingReason

from project.callbacks.checkpoint import AUTO, task_monitor


class EarlyStop(EarlyStopping):
    """Stops the fit when `monitor` has not improved by more than `min_delta` for `patience` validations.

    `monitor: auto` watches the task's metric (val/acc, val/f1_macro, val/mae) in its direction; `mode: null`
    takes the task's direction for any monitor. `patience: null` turns it off: the `overfit` preset, or a run
    meant to go the whole `max_epochs`. `min_delta` guards against noise: on a small validation set one sample
    is a visible change in accuracy. `stopping_threshold` stops at once past it; `auto` is the task's perfect
    score (an accuracy or F1 of 0.9999 leaves the best checkpoint nothing to gain; an error has none).
    """

    def __init__(
        self,
        monitor: str = AUTO,
        mode: Literal["min", "max"] | None = None,
        patience: int | None = 5,
        min_delta: float = 0.0,
        stopping_threshold: float | Literal["auto"] | None = AUTO,
    ) -> None:
        super().__init__(
            monitor=monitor,
            mode=mode or "max",  # settled in setup() when left to the task
            patience=patience or 0,
            min_delta=min_delta,
            stopping_threshold=None,
            check_on_train_epoch_end=False,  # after each validation, when the metric exists: patience counts those
        )
        self.enabled = patience is not None
        self.given = (monitor, mode, abs(min_delta), stopping_threshold)

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        monitor, mode, min_delta, threshold = self.given
        task_metric, task_mode, perfect = task_monitor(pl_module)
        self.monitor = task_metric if monitor == AUTO else monitor
        self.mode = mode or task_mode
        self.stopping_threshold = (perfect if monitor == AUTO else None) if threshold == AUTO else threshold
        # What EarlyStopping's __init__ derives from the mode: the sign of min_delta and the worst score.
        self.min_delta = min_delta if self.mode == "max" else -min_delta
        self.best_score = torch.tensor(-torch.inf if self.mode == "max" else torch.inf)
        super().setup(trainer, pl_module, stage)

    def on_validation_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if self.enabled:
            super().on_validation_end(trainer, pl_module)


def stop_summary(trainer: Trainer) -> str | None:
    """One line for the fit summary: where the fit stopped and why."""
    stoppers = [cb for cb in trainer.callbacks if isinstance(cb, EarlyStopping) and getattr(cb, "enabled", True)]
    stopped = [cb for cb in stoppers if cb.stopping_reason != EarlyStoppingReason.NOT_STOPPED]  # epoch 0 counts
    if stopped:
        cb = stopped[0]
        if cb.stopping_reason != EarlyStoppingReason.PATIENCE_EXHAUSTED:
            return f"  stopped early after epoch {cb.stopped_epoch + 1}: {cb.stopping_reason_message}"
        return (
            f"  stopped early after epoch {cb.stopped_epoch + 1} of {trainer.max_epochs}: {cb.monitor} "
            f"had not improved for {cb.wait_count} validations (best {cb.best_score.item():.4f})"
        )
    if (trainer.max_epochs or 0) > 0 and trainer.current_epoch >= trainer.max_epochs:  # -1: no epoch limit
        note = " while still improving: more epochs may help" if any(cb.wait_count == 0 for cb in stoppers) else ""
        return f"  ran all {trainer.max_epochs} epochs{note}"
    return None
