"""A callback that catches the classic training mistakes while the run starts, and says how to fix them.

Each mistake is one check object (callbacks/checks/); this callback keeps the run's report and the
step it is at, and hands each Lightning hook to the checks. Checks run at fit start, on the first
batches, or once after a few steps, so a normal step pays only for one finiteness test (of the
gradients' sum plus the loss): benchmarks/switches.py measures the cost.
"""

import logging
from typing import Any

import torch
from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.utilities import rank_zero_only

from runkit.callbacks.checks import (
    Check,
    DataSpeed,
    EvalMode,
    Finding,
    Finite,
    FirstBatches,
    Gradients,
    KeptGraphs,
    Parameters,
    ReceptiveField,
    Report,
    Splits,
    Targets,
)

__all__ = ["CHECKS", "Diagnostics", "Finding"]
log = logging.getLogger(__name__)

# The checks, in the order a run meets them; the doctor prints one verdict row each.
CHECKS = {
    "parameters": "every layer registered and in the optimizer",
    "receptive field": "a conv net's last layer sees at least half the image",
    "splits": "training and validation data kept apart, validation not shuffled",
    "targets": "the training targets suit the task: not constant, scaled, every label seen",
    "labels": "targets shaped and ranged for the task and the outputs",
    "logits": "the network outputs raw scores, not probabilities",
    "finite": "no NaN or inf in inputs, loss or gradients",
    "gradients": "every trainable parameter gets a gradient",
    "eval mode": "no module left in train mode during validation",
    "graph kept": "no autograd graph kept across steps, memory steady",
    "data speed": "the model does not wait for data",
}


class Diagnostics(Callback):
    """Warns about (or stops on) the mistakes in `CHECKS`, each with the likely cause and the fix.

    Args:
        check_batches: how many first training batches get the label and logit checks.
        finite_check_every: after the first `check_batches` steps, test the loss and gradients for
            NaN/inf every this many steps. None: every step on the CPU, every `log_every_n_steps` on a GPU
            (see `Finite`).
        starvation_steps: after this many training steps, judge the time spent waiting for data.
        starvation_fraction: warn when waiting takes more than this fraction of step time.
        leak_step: the step at which attributes holding autograd graphs are looked for.
        extra_checks: more `Check` objects, run after these.
    """

    def __init__(
        self,
        check_batches: int = 2,
        finite_check_every: int | None = None,
        starvation_steps: int = 30,
        starvation_fraction: float = 0.3,
        leak_step: int = 10,
        extra_checks: list[Check] | None = None,
    ) -> None:
        self.checks: list[Check] = [
            Parameters(),
            ReceptiveField(),
            Splits(),
            Targets(),
            FirstBatches(batches=check_batches),
            Finite(first_steps=check_batches, every=finite_check_every),
            Gradients(),
            KeptGraphs(at_step=leak_step),
            DataSpeed(judge_at=starvation_steps, max_waiting=starvation_fraction),
            EvalMode(),
            *(extra_checks or []),
        ]
        self.report = Report(warn_to=self._log_warning)

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings

    @property
    def checked(self) -> set[str]:
        return self.report.checked

    def _log_warning(self, check: str, message: str) -> None:
        if rank_zero_only.rank == 0:  # one copy under DDP
            log.warning("Diagnostics [%s]: %s", check, message)

    def on_fit_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        self.report.steps, self.report.batch = 0, None
        for check in self.checks:
            check.reset()
        for check in self.checks:
            check.on_fit_start(self.report, trainer, pl_module)

    def on_train_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        for check in self.checks:
            check.on_train_start(self.report, trainer, pl_module)

    def on_train_batch_start(self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int) -> None:
        self.report.batch, self.report.batch_idx = batch, batch_idx
        for check in self.checks:
            check.on_train_batch_start(self.report, trainer, pl_module)

    def on_before_backward(self, trainer: Trainer, pl_module: LightningModule, loss: torch.Tensor) -> None:
        for check in self.checks:
            check.on_before_backward(self.report, pl_module, loss)

    def on_after_backward(self, trainer: Trainer, pl_module: LightningModule) -> None:
        for check in self.checks:
            check.on_after_backward(self.report, trainer, pl_module)

    def on_before_optimizer_step(self, trainer: Trainer, pl_module: LightningModule, optimizer: Any) -> None:
        for check in self.checks:
            check.on_before_optimizer_step(self.report, trainer, pl_module)

    def on_train_batch_end(
        self, trainer: Trainer, pl_module: LightningModule, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        self.report.steps += 1  # the checks see the count including this step
        for check in self.checks:
            check.on_train_batch_end(self.report, trainer, pl_module)
        self.report.batch = None  # do not keep the batch alive between steps

    def on_train_epoch_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        for check in self.checks:
            check.on_train_epoch_end(self.report, trainer)

    def on_validation_batch_start(
        self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None:
        for check in self.checks:
            check.on_validation_batch_start(self.report, pl_module, batch, batch_idx)

    def on_validation_batch_end(
        self,
        trainer: Trainer,
        pl_module: LightningModule,
        outputs: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        for check in self.checks:
            check.on_validation_batch_end(self.report, pl_module)
