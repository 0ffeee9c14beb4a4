"""Checks on what flows through a step: the first batches' labels and logits, and finite loss and gradients."""

from typing import Any

import torch
from lightning.pytorch import LightningModule, Trainer

from runkit import TrainingProblem
from runkit.callbacks import training_checks as checks
from runkit.callbacks.checks.base import Check, Report
from runkit.callbacks.training_checks import NAN_FIXES


class FirstBatches(Check):
    """The first batches' inputs finite, targets shaped and ranged for the outputs, outputs not already
    probabilities: the task's own checks (runkit/tasks/).

    They run on the network's output (a forward hook), before the loss turns a mistake into a cryptic
    error or, for a regression broadcast, into none at all. The sanity check meets the first validation
    batch before training does.
    """

    def __init__(self, batches: int = 2) -> None:
        self.batches = batches
        self.hook: Any = None
        self.val_seen = 0

    def reset(self) -> None:
        self.remove_hook()
        self.val_seen = 0

    def on_train_batch_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        if report.steps < self.batches:
            self.check(report, model, report.batch, report.batch_idx, "training")

    def on_validation_batch_start(self, report: Report, model: LightningModule, batch: Any, batch_idx: int) -> None:
        self.val_seen += 1
        if self.val_seen == 1:
            self.check(report, model, batch, batch_idx, "validation")

    def on_train_batch_end(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        self.remove_hook()

    def on_validation_batch_end(self, report: Report, model: LightningModule) -> None:
        self.remove_hook()

    def check(self, report: Report, model: LightningModule, batch: Any, batch_idx: int, stage: str) -> None:
        report.checked.update(("labels", "logits", "finite"))
        if bad := checks.non_finite(batch):
            report.stop("finite", f"{stage} batch {batch_idx} holds NaN or inf in {', '.join(bad)}. {NAN_FIXES}")
        _, target, _ = model.unpack(batch)
        task = getattr(model, "task", None)

        def check_output(_module: Any, _args: Any, output: torch.Tensor) -> None:
            self.remove_hook()
            if task is None:
                return
            try:
                task.check_batch(output, target)
            except TrainingProblem as problem:
                report.stop("labels", f"{stage} batch {batch_idx}: {problem}")
            if (message := task.check_outputs(output)) is not None:
                report.warn("logits", message)

        self.hook = model.register_forward_hook(check_output)

    def remove_hook(self) -> None:
        if self.hook is not None:
            self.hook.remove()
            self.hook = None


class Finite(Check):
    """Loss and gradients finite: one sum and one scalar read on the steps tested.

    Args:
        first_steps: steps tested one by one at the start.
        every: after those, test every this many steps. None: every step on the CPU, and every
            `log_every_n_steps` on a GPU, where the read waits for the queued kernels and stops the CPU
            running ahead (benchmarks/ablation.py measures it). A NaN caught late is still reported, as
            weights already non-finite; 1 names its batch.
    """

    def __init__(self, first_steps: int = 2, every: int | None = None) -> None:
        self.first_steps, self.every = first_steps, every
        self.loss = torch.zeros(())
        self.trainable: list[torch.nn.Parameter] = []
        self.scaled = False
        self.period = 1

    def on_fit_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        self.trainable = [p for p in model.parameters() if p.requires_grad]  # walking modules per step costs
        self.scaled = getattr(trainer.precision_plugin, "scaler", None) is not None
        self.period = self.every or (1 if model.device.type == "cpu" else max(trainer.log_every_n_steps, 1))

    def on_before_backward(self, report: Report, model: LightningModule, loss: torch.Tensor) -> None:
        self.loss = loss.detach()  # tested with the gradients, in one device sync per step

    def on_before_optimizer_step(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        if report.steps >= self.first_steps and report.steps % self.period:
            return
        # A NaN loss makes NaN gradients, so one test covers both; the loss only says which came first.
        # With fp16's GradScaler, inf gradients are routine (the scaler skips that step): only the loss counts.
        # Summed, not normed: any NaN or inf makes the sum non-finite too, at half the cost of a norm.
        grads = [p.grad.sum() for p in self.trainable if p.grad is not None]
        total = self.loss.float() if self.scaled or not grads else torch.stack(grads).sum() + self.loss
        if torch.isfinite(total):
            return
        if not torch.isfinite(self.loss):
            self.explain_loss(report, model)
        names = checks.non_finite({n: p.grad for n, p in model.named_parameters() if p.grad is not None}, "grad")
        report.stop(
            "finite",
            f"the gradients of training batch {report.batch_idx} (step {report.steps}) are non-finite, "
            f"first in {names[0] if names else 'the gradient norm'}, though the loss was finite. {NAN_FIXES}",
        )

    def explain_loss(self, report: Report, model: LightningModule) -> None:
        where = f"the loss of training batch {report.batch_idx} (step {report.steps}) is {self.loss.item()}"
        if bad_inputs := checks.non_finite(report.batch):
            report.stop("finite", f"{where}: its inputs hold NaN or inf in {', '.join(bad_inputs)}. {NAN_FIXES}")
        if bad_weights := checks.non_finite(dict(model.named_parameters()), "parameter"):
            report.stop(
                "finite",
                f"{where}: the weights are already non-finite ({bad_weights[0]}), so an earlier update diverged. "
                f"{NAN_FIXES}",
            )
        inputs, _, _ = model.unpack(report.batch)
        module = checks.first_non_finite_module(model, inputs)
        origin = (
            f"the first module whose output was non-finite is {module}"
            if module
            else "every module's output was finite, so the loss computation itself produced it"
        )
        report.stop("finite", f"{where}; {origin}. {NAN_FIXES}")
