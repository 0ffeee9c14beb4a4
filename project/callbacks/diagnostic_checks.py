"""The Diagnostics callback's checks: one small object per classic mistake, built on the pure functions
in training_checks.py, each with its thresholds named. A check sees the hooks it needs and reports
through `Report`; the callback (diagnostics.py) only dispatches, so a new check touches no other.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from lightning.pytorch import LightningModule, Trainer
from torch.utils.data import DataLoader

from project.callbacks import training_checks as checks
from project.callbacks.training_checks import NAN_FIXES, TrainingProblem


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
    steps: int = 0  # training steps finished in this fit
    batch: Any = None  # the training batch in flight (dropped at its end: never kept alive between steps)
    batch_idx: int = 0

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


class Parameters(Check):
    """Every layer registered, and every trainable parameter in an optimizer group (at the start and after
    the first step, when layers made lazily exist)."""

    def on_fit_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        report.checked.add("parameters")
        for where in checks.unregistered_modules(model):
            report.warn(
                "parameters",
                f"layers kept in {where}: their parameters are not registered, so the optimizer never updates "
                "them and .to(device) never moves them. Use nn.ModuleList / nn.ModuleDict.",
            )
        self.check_optimized(report, trainer, model, "at the start")

    def on_after_backward(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        if report.steps == 0:
            self.check_optimized(report, trainer, model, "after the first step")

    @staticmethod
    def check_optimized(report: Report, trainer: Trainer, model: LightningModule, when: str) -> None:
        missing = checks.parameters_outside(model, trainer.optimizers)
        if missing:
            report.warn(
                "parameters",
                f"{len(missing)} trainable parameter(s) are in no optimizer group {when} (first: {missing[0]}): they "
                "never train. Likely a layer created in forward() or after configure_optimizers; create every "
                "layer in __init__.",
            )


class Splits(Check):
    """Training and validation apart; validation not shuffled."""

    def on_train_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        train, val = trainer.train_dataloader, trainer.val_dataloaders
        if not isinstance(train, DataLoader) or not isinstance(val, DataLoader):
            return
        report.checked.add("splits")
        if getattr(trainer.datamodule, "splits_by_mask", False) and train.dataset is val.dataset:
            pass  # node-level tasks: one graph, split by masks
        elif (shared := checks.shared_samples(train, val)) is not None:
            report.warn(
                "splits",
                f"{shared}: validation then measures memorisation, not generalisation. Split the data once, "
                "before building the loaders, and give each loader its own part.",
            )
        if checks.shuffles(val):
            report.warn(
                "splits",
                "the validation loader shuffles: metrics do not change, but order-dependent outputs "
                "(predictions, logged examples) differ between runs. Build it with shuffle=False.",
            )


class FirstBatches(Check):
    """The first batches' inputs finite, labels shaped and ranged for the logits, logits not probabilities.

    The label and logit checks run on the network's output (a forward hook), before the loss turns a
    mistake into a cryptic error. The sanity check meets the first validation batch before training does.
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
        num_classes = model.hparams.get("num_classes", None)

        def check_output(_module: Any, _args: Any, logits: torch.Tensor) -> None:
            self.remove_hook()
            try:
                if num_classes is not None:
                    checks.check_targets(logits, target, num_classes)
            except TrainingProblem as problem:
                report.stop("labels", f"{stage} batch {batch_idx}: {problem}")
            if (message := checks.looks_like_probabilities(logits)) is not None:
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


class Gradients(Check):
    """Every trainable parameter gets a gradient in the first backward."""

    def on_after_backward(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        if report.steps != 0:
            return
        report.checked.add("gradients")
        if unreached := checks.parameters_without_grad(model):
            report.warn(
                "gradients",
                f"{len(unreached)} trainable parameter(s) got no gradient in the first backward "
                f"(first: {unreached[0]}): they are not used by forward(), or their path is detached "
                "(.detach(), .item(), .numpy()). Remove them or freeze them (requires_grad_(False)).",
            )


class KeptGraphs(Check):
    """No autograd graph kept across steps: model attributes at `at_step`, and on a GPU, allocated memory
    that grows at every one of `window` steps after it."""

    def __init__(self, at_step: int = 10, window: int = 10) -> None:
        self.at_step, self.window = at_step, window
        self.memory: list[int] = []

    def reset(self) -> None:
        self.memory = []

    def on_train_batch_end(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        if report.steps == self.at_step:
            report.checked.add("graph kept")
            if kept := checks.tensors_holding_graph(model):
                report.warn(
                    "graph kept",
                    f"{', '.join(kept)} keep(s) tensors with their autograd graph across steps: each holds its "
                    "step's activations, so memory grows until it runs out. Store loss.detach() or loss.item().",
                )
        if model.device.type == "cuda" and self.at_step <= report.steps < self.at_step + self.window:
            self.memory.append(torch.cuda.memory_allocated(model.device))
            if len(self.memory) == self.window and checks.memory_grows(self.memory):
                growth = (self.memory[-1] - self.memory[0]) / 2**20
                report.warn(
                    "graph kept",
                    f"allocated GPU memory grew at every one of {self.window} steps ({growth:.0f} MiB in all): "
                    "something keeps tensors from each step. Store loss.detach() or loss.item(), not the loss.",
                )


class DataSpeed(Check):
    """The model does not wait for data: time between steps against time in steps, over steps
    `skip_steps` to `judge_at` (the first steps pay one-time costs), judged once.

    Args:
        judge_at: the step at which to judge (or the end of a shorter first epoch).
        max_waiting: warn when waiting takes more than this fraction of the time.
        skip_steps: steps left out at the start; min_timed: steps needed for a verdict.
    """

    def __init__(self, judge_at: int = 30, max_waiting: float = 0.3, skip_steps: int = 3, min_timed: int = 5):
        self.judge_at, self.max_waiting, self.skip_steps, self.min_timed = judge_at, max_waiting, skip_steps, min_timed
        self.reset()

    def reset(self) -> None:
        self.wait = self.compute = 0.0
        self.timed = 0
        self.batch_start: float | None = None
        self.last_end: float | None = None

    def timed_step(self, report: Report, step: int) -> bool:
        return report.batch_idx > 0 and self.skip_steps <= step < self.judge_at

    def on_train_batch_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        now = time.perf_counter()
        if self.last_end is not None and self.timed_step(report, report.steps):
            self.wait += now - self.last_end
            self.timed += 1
        self.batch_start = now

    def on_train_batch_end(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        now = time.perf_counter()
        if self.batch_start is not None and self.timed_step(report, report.steps - 1):  # the step that ended
            self.compute += now - self.batch_start
        self.last_end = now
        if report.steps == self.judge_at:
            self.judge(report, trainer)

    def on_train_epoch_end(self, report: Report, trainer: Trainer) -> None:
        if report.steps < self.judge_at and self.timed >= self.min_timed:
            self.judge(report, trainer)  # an epoch shorter than the window: judge what was seen
            self.timed = 0

    def judge(self, report: Report, trainer: Trainer) -> None:
        if self.timed < self.min_timed:
            return
        report.checked.add("data speed")
        fraction = self.wait / max(self.wait + self.compute, 1e-9)
        if fraction > self.max_waiting:
            workers = getattr(trainer.train_dataloader, "num_workers", "?")
            report.warn(
                "data speed",
                f"{fraction:.0%} of each training step is spent waiting for the next batch "
                f"(num_workers={workers}): the model is starved. Raise --data.num_workers, or cache the "
                "preprocessing (decode, resize, tokenize once in prepare_data).",
            )


class EvalMode(Check):
    """No module in train mode during validation (looked at on the first `batches` validation batches)."""

    def __init__(self, batches: int = 2) -> None:
        self.batches = batches
        self.seen = 0

    def reset(self) -> None:
        self.seen = 0

    def on_validation_batch_end(self, report: Report, model: LightningModule) -> None:
        if self.seen >= self.batches:
            return
        self.seen += 1
        report.checked.add("eval mode")
        if training := [name or "the LightningModule" for name, m in model.named_modules() if m.training]:
            self.seen = self.batches
            report.warn(
                "eval mode",
                f"{len(training)} module(s) are in train mode during validation (first: {training[0]}): dropout "
                "stays on and BatchNorm uses batch statistics, so validation metrics are noisy and wrong. Lightning "
                "calls eval() before validation: do not call .train() in a validation hook.",
            )
