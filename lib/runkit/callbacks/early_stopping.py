"""Lightning's EarlyStopping on the task's metric, with a way to turn it off from a config; and how a fit ended."""

from dataclasses import dataclass
from typing import Literal

from lightning.pytorch import LightningModule, Trainer
from lightning.pytorch.callbacks import EarlyStopping
from lightning.pytorch.callbacks.early_stopping import EarlyStoppingReason

from runkit import ConfigError
from runkit.callbacks.graceful_stop import GracefulStop

AUTO = "auto"  # `monitor: auto`: the metric and direction of the model's task, filled in by the CLI (cli/monitor.py)


class EarlyStop(EarlyStopping):
    """Stops the fit when `monitor` has not improved by more than `min_delta` for `patience` validations.

    `monitor: auto` watches the task's metric (val/acc, val/f1_macro, val/mae) in its direction; `mode: null`
    takes the task's direction for any monitor. The CLI writes both into the config before this is built
    (runkit/cli/monitor.py), so the saved config.yaml shows what was watched. `patience: null` turns it off:
    the `overfit` preset, or a run meant to go the whole `max_epochs`. `min_delta` guards against noise: on a
    small validation set one sample is a visible change in accuracy. `stopping_threshold` stops at once past
    it; `auto` is the task's perfect score (an accuracy or F1 of 0.9999 leaves the best checkpoint nothing to
    gain; an error has none).
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
            mode=mode or "max",
            patience=patience or 0,
            min_delta=abs(min_delta),
            stopping_threshold=None if stopping_threshold == AUTO else stopping_threshold,
            check_on_train_epoch_end=False,  # after each validation, when the metric exists: patience counts those
        )
        self.enabled = patience is not None
        self.unresolved = monitor == AUTO or mode is None or stopping_threshold == AUTO

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if self.unresolved and self.enabled:
            raise ConfigError(
                "EarlyStop(monitor='auto', mode=None, stopping_threshold='auto') is resolved by the CLI from the "
                "model's task; built in code, pass them: EarlyStop(monitor=task.monitor, mode=task.mode, "
                "stopping_threshold=task.perfect)"
            )
        super().setup(trainer, pl_module, stage)

    def on_validation_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if self.enabled:
            super().on_validation_end(trainer, pl_module)


@dataclass(frozen=True)
class FitEnd:
    """How a fit ended: `early` (early stopping ended it), and the one line that says why; `signalled`: a signal
    stopped it, to be resumed."""

    early: bool
    line: str
    signalled: bool = False


def how_it_ended(trainer: Trainer) -> FitEnd:
    """The one reason the fit stopped, epochs numbered from 0 as the checkpoint files are (`epoch03-...`).

    Read before anything restores a checkpoint into the callbacks (testing the best one does, and would
    bring back its not-yet-stopped early stopping).
    """
    if signalled := [cb.stopped for cb in trainer.callbacks if isinstance(cb, GracefulStop) and cb.stopped]:
        return FitEnd(False, signalled[0], signalled=True)
    epochs = trainer.current_epoch  # epochs run: the last one's number is epochs - 1
    limit = f" of at most {trainer.max_epochs}" if (trainer.max_epochs or 0) > 0 else ""
    stoppers = [cb for cb in trainer.callbacks if isinstance(cb, EarlyStopping) and getattr(cb, "enabled", True)]
    stopped = [cb for cb in stoppers if cb.stopping_reason != EarlyStoppingReason.NOT_STOPPED]
    if stopped:
        cb = stopped[0]
        where = f"stopped early after epoch {cb.stopped_epoch} ({cb.stopped_epoch + 1} epochs{limit})"
        if cb.stopping_reason == EarlyStoppingReason.PATIENCE_EXHAUSTED:
            why = f"{cb.monitor} had not improved for {cb.wait_count} validations (best {cb.best_score.item():.4f})"
        elif cb.stopping_reason == EarlyStoppingReason.STOPPING_THRESHOLD:
            why = f"{cb.monitor} reached the stopping threshold {cb.stopping_threshold:g}"
        else:
            why = cb.stopping_reason_message or cb.stopping_reason.value
        return FitEnd(True, f"{where}: {why}")
    last = f"epoch {epochs - 1}" if epochs else "no epoch"
    if trainer.max_steps is not None and trainer.max_steps >= 0 and trainer.global_step >= trainer.max_steps:
        return FitEnd(False, f"stopped at trainer.max_steps={trainer.max_steps} reached, in epoch {epochs}")
    if (trainer.max_epochs or 0) > 0 and epochs >= trainer.max_epochs:
        note = " while still improving: more epochs may help" if any(cb.wait_count == 0 for cb in stoppers) else ""
        return FitEnd(False, f"ran all {trainer.max_epochs} epochs (0 to {epochs - 1}){note}")
    if trainer.should_stop:
        return FitEnd(False, f"stopped after {last}: a callback asked the trainer to stop")
    return FitEnd(False, f"ended after {last}")
