"""What every diagnostic check shares: the run's `Report` (findings, what was checked, the step in flight)
and `Check`, whose hooks a check overrides where it needs them."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from lightning.pytorch import LightningModule, Trainer

from runkit import TrainingProblem


@dataclass
class Finding:
    check: str
    level: str  # "warning" or "error"
    message: str


@dataclass
class Report:
    """What the checks found in one run, and the state of the step they share."""

    warn_to: Callable[[str, str], None]  # logs a warning (rank 0 only)
    findings: list[Finding] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)
    skipped: dict[str, str] = field(default_factory=dict)  # a check that could not run here -> why
    steps: int = 0  # training steps finished in this fit
    batch: Any = None  # the training batch in flight (dropped at its end: never kept alive between steps)
    batch_idx: int = 0

    def skip(self, check: str, why: str) -> None:
        """Say why `check` does not run on this model or data (the doctor shows it on its "not run" row)."""
        self.skipped.setdefault(check, why)

    def warn(self, check: str, message: str) -> None:
        if any(f.check == check and f.message == message for f in self.findings):
            return  # once per run
        self.findings.append(Finding(check, "warning", message))
        self.warn_to(check, message)

    def stop(self, check: str, message: str) -> None:
        self.findings.append(Finding(check, "error", message))
        raise TrainingProblem(f"[{check}] {message}")


class Check:
    """A hook a check does not need is a no-op; `reset` starts each fit afresh."""

    def reset(self) -> None:
        pass

    def on_fit_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        pass

    def on_train_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        pass

    def on_train_batch_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        pass

    def on_before_backward(self, report: Report, model: LightningModule, loss: torch.Tensor) -> None:
        pass

    def on_after_backward(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        pass

    def on_before_optimizer_step(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        pass

    def on_train_batch_end(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        pass

    def on_train_epoch_end(self, report: Report, trainer: Trainer) -> None:
        pass

    def on_validation_batch_start(self, report: Report, model: LightningModule, batch: Any, batch_idx: int) -> None:
        pass

    def on_validation_batch_end(self, report: Report, model: LightningModule) -> None:
        pass
