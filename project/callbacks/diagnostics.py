"""A callback that catches the classic training mistakes while the run starts, and says how to fix them.

Checks run at fit start, on the first batches, or once after a few steps, so a normal step pays only
for one finiteness test (of the gradients' sum plus the loss): benchmarks/switches.py measures the cost.
"""

import logging
import time
from dataclasses import dataclass
from typing import Any

import torch
from lightning.pytorch import Callback, LightningModule, Trainer
from torch.utils.data import DataLoader

from project.callbacks import training_checks as checks
from project.callbacks.training_checks import NAN_FIXES, TrainingProblem

log = logging.getLogger(__name__)

# The checks, in the order a run meets them; the doctor prints one verdict row each.
CHECKS = {
    "parameters": "every layer registered and in the optimizer",
    "splits": "training and validation data kept apart, validation not shuffled",
    "labels": "label shape and class ids match the logits",
    "logits": "the network outputs logits, not probabilities",
    "finite": "no NaN or inf in inputs, loss or gradients",
    "gradients": "every trainable parameter gets a gradient",
    "eval mode": "no module left in train mode during validation",
    "graph kept": "no autograd graph kept across steps, memory steady",
    "data speed": "the model does not wait for data",
}


@dataclass
class Finding:
    check: str
    level: str  # "warning" or "error"
    message: str


class Diagnostics(Callback):
    """Warns about (or stops on) the mistakes in `CHECKS`, each with the likely cause and the fix.

    Args:
        check_batches: how many first training batches get the label and logit checks.
        finite_check_every: after the first `check_batches` steps, test the loss and gradients for
            NaN/inf every this many steps: one sum and one scalar read. None: every step on the CPU, and
            every `log_every_n_steps` on a GPU, where the read waits for all queued kernels and so stops
            the CPU running ahead (14 % of a small CNN's bf16 epoch on an H200, benchmarks/ablation.py).
            A NaN caught late is still reported, as weights already non-finite; set 1 to name its batch.
        starvation_steps: after this many training steps, judge the time spent waiting for data.
        starvation_fraction: warn when waiting takes more than this fraction of step time.
        leak_step: the step at which attributes holding autograd graphs are looked for.
    """

    def __init__(
        self,
        check_batches: int = 2,
        finite_check_every: int | None = None,
        starvation_steps: int = 30,
        starvation_fraction: float = 0.3,
        leak_step: int = 10,
    ) -> None:
        self.check_batches = check_batches
        self.finite_check_every = finite_check_every
        self.starvation_steps = starvation_steps
        self.starvation_fraction = starvation_fraction
        self.leak_step = leak_step
        self.findings: list[Finding] = []
        self.checked: set[str] = set()
        self._reset_run()

    def _reset_run(self) -> None:
        self._steps = 0
        self._batch: Any = None
        self._batch_idx = 0
        self._hook: Any = None
        self._wait = self._compute = 0.0
        self._timed = 0
        self._batch_start: float | None = None
        self._last_end: float | None = None
        self._memory: list[int] = []
        self._loss = torch.zeros(())
        self._trainable: list[torch.nn.Parameter] = []
        self._scaled = False
        self._val_checked = 0
        self._val_batches_seen = 0

    # ---- reporting -------------------------------------------------------------------------------

    def _warn(self, trainer: Trainer, check: str, message: str) -> None:
        if any(f.check == check and f.message == message for f in self.findings):
            return  # once per run
        self.findings.append(Finding(check, "warning", message))
        if trainer.is_global_zero:
            log.warning("Diagnostics [%s]: %s", check, message)

    def _stop(self, check: str, message: str) -> None:
        self.findings.append(Finding(check, "error", message))
        raise TrainingProblem(f"[{check}] {message}")

    # ---- at the start --------------------------------------------------------------------------

    def on_fit_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        self._reset_run()
        self._trainable = [p for p in pl_module.parameters() if p.requires_grad]  # walking modules per step costs
        self._scaled = getattr(trainer.precision_plugin, "scaler", None) is not None
        self._finite_every = self.finite_check_every or (
            1 if pl_module.device.type == "cpu" else max(trainer.log_every_n_steps, 1)
        )
        self.checked.add("parameters")
        for where in checks.unregistered_modules(pl_module):
            self._warn(
                trainer,
                "parameters",
                f"layers kept in {where}: their parameters are not registered, so the optimizer never updates "
                "them and .to(device) never moves them. Use nn.ModuleList / nn.ModuleDict.",
            )
        self._check_optimized(trainer, pl_module, "at the start")

    def _check_optimized(self, trainer: Trainer, pl_module: LightningModule, when: str) -> None:
        missing = checks.parameters_outside(pl_module, trainer.optimizers)
        if missing:
            self._warn(
                trainer,
                "parameters",
                f"{len(missing)} trainable parameter(s) are in no optimizer group {when} (first: {missing[0]}): they "
                "never train. Likely a layer created in forward() or after configure_optimizers; create every "
                "layer in __init__.",
            )

    def on_train_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        train, val = trainer.train_dataloader, trainer.val_dataloaders
        if not isinstance(train, DataLoader) or not isinstance(val, DataLoader):
            return
        self.checked.add("splits")
        if getattr(trainer.datamodule, "splits_by_mask", False) and train.dataset is val.dataset:
            pass  # node-level tasks: one graph, split by masks
        elif (shared := checks.shared_samples(train, val)) is not None:
            self._warn(
                trainer,
                "splits",
                f"{shared}: validation then measures memorisation, not generalisation. Split the data once, "
                "before building the loaders, and give each loader its own part.",
            )
        if checks.shuffles(val):
            self._warn(
                trainer,
                "splits",
                "the validation loader shuffles: metrics do not change, but order-dependent outputs "
                "(predictions, logged examples) differ between runs. Build it with shuffle=False.",
            )

    # ---- every training batch ------------------------------------------------------------------

    def on_train_batch_start(self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int) -> None:
        now = time.perf_counter()
        if self._last_end is not None and batch_idx > 0 and 3 <= self._steps < self.starvation_steps:
            self._wait += now - self._last_end
            self._timed += 1
        self._batch_start = now
        self._batch, self._batch_idx = batch, batch_idx
        if self._steps < self.check_batches:
            self._check_first_batch(trainer, pl_module, batch, batch_idx)

    def _check_first_batch(
        self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int, stage: str = "training"
    ) -> None:
        self.checked.update(("labels", "logits", "finite"))
        bad = checks.non_finite(batch)
        if bad:
            self._stop("finite", f"{stage} batch {batch_idx} holds NaN or inf in {', '.join(bad)}. {NAN_FIXES}")
        _, target, _ = pl_module.unpack(batch)
        num_classes = pl_module.hparams.get("num_classes", None)

        def check_output(_module: Any, _args: Any, logits: torch.Tensor) -> None:
            self._remove_hook()
            try:
                if num_classes is not None:
                    checks.check_targets(logits, target, num_classes)
            except TrainingProblem as problem:
                self._stop("labels", f"{stage} batch {batch_idx}: {problem}")
            if (message := checks.looks_like_probabilities(logits)) is not None:
                self._warn(trainer, "logits", message)

        # Runs on the model's output, before the loss turns a mistake into a cryptic error.
        self._hook = pl_module.register_forward_hook(check_output)

    def _remove_hook(self) -> None:
        if self._hook is not None:
            self._hook.remove()
            self._hook = None

    def on_before_backward(self, trainer: Trainer, pl_module: LightningModule, loss: torch.Tensor) -> None:
        self._loss = loss.detach()  # tested with the gradients, in one device sync per step

    def _explain_non_finite_loss(self, pl_module: LightningModule, loss: torch.Tensor) -> None:
        where = f"the loss of training batch {self._batch_idx} (step {self._steps}) is {loss.item()}"
        bad_inputs = checks.non_finite(self._batch)
        if bad_inputs:
            self._stop("finite", f"{where}: its inputs hold NaN or inf in {', '.join(bad_inputs)}. {NAN_FIXES}")
        bad_weights = checks.non_finite(dict(pl_module.named_parameters()), "parameter")
        if bad_weights:
            self._stop(
                "finite",
                f"{where}: the weights are already non-finite ({bad_weights[0]}), so an earlier update diverged. "
                f"{NAN_FIXES}",
            )
        inputs, _, _ = pl_module.unpack(self._batch)
        module = checks.first_non_finite_module(pl_module, inputs)
        origin = (
            f"the first module whose output was non-finite is {module}"
            if module
            else "every module's output was finite, so the loss computation itself produced it"
        )
        self._stop("finite", f"{where}; {origin}. {NAN_FIXES}")

    def on_after_backward(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if self._steps != 0:
            return
        self.checked.add("gradients")
        unreached = checks.parameters_without_grad(pl_module)
        if unreached:
            self._warn(
                trainer,
                "gradients",
                f"{len(unreached)} trainable parameter(s) got no gradient in the first backward "
                f"(first: {unreached[0]}): they are not used by forward(), or their path is detached "
                "(.detach(), .item(), .numpy()). Remove them or freeze them (requires_grad_(False)).",
            )
        self._check_optimized(trainer, pl_module, "after the first step")

    def on_before_optimizer_step(self, trainer: Trainer, pl_module: LightningModule, optimizer: Any) -> None:
        if self._steps >= self.check_batches and self._steps % self._finite_every:
            return
        # A NaN loss makes NaN gradients, so one test covers both; the loss only says which came first.
        # With fp16's GradScaler, inf gradients are routine (the scaler skips that step): only the loss counts.
        # Summed, not normed: any NaN or inf makes the sum non-finite too, at half the cost of a norm here.
        grads = [p.grad.sum() for p in self._trainable if p.grad is not None]
        total = self._loss.float() if self._scaled or not grads else torch.stack(grads).sum() + self._loss
        if torch.isfinite(total):
            return
        if not torch.isfinite(self._loss):
            self._explain_non_finite_loss(pl_module, self._loss)
        names = checks.non_finite({n: p.grad for n, p in pl_module.named_parameters() if p.grad is not None}, "grad")
        self._stop(
            "finite",
            f"the gradients of training batch {self._batch_idx} (step {self._steps}) are non-finite, "
            f"first in {names[0] if names else 'the gradient norm'}, though the loss was finite. {NAN_FIXES}",
        )

    def on_train_batch_end(
        self, trainer: Trainer, pl_module: LightningModule, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        now = time.perf_counter()
        self._remove_hook()
        if self._batch_start is not None and 3 <= self._steps < self.starvation_steps and batch_idx > 0:
            self._compute += now - self._batch_start
        self._last_end = now
        self._batch = None  # do not keep the batch alive between steps
        self._steps += 1
        if self._steps == self.starvation_steps:
            self._judge_data_speed(trainer)
        if self._steps == self.leak_step:
            self._check_kept_graphs(trainer, pl_module)
        if pl_module.device.type == "cuda" and self.leak_step <= self._steps < self.leak_step + 10:
            self._memory.append(torch.cuda.memory_allocated(pl_module.device))
            if len(self._memory) == 10 and checks.memory_grows(self._memory):
                growth = (self._memory[-1] - self._memory[0]) / 2**20
                self._warn(
                    trainer,
                    "graph kept",
                    f"allocated GPU memory grew at every one of 10 steps ({growth:.0f} MiB in all): something keeps "
                    "tensors from each step. Store loss.detach() or loss.item(), not the loss itself.",
                )

    def on_train_epoch_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if self._steps < self.starvation_steps and self._timed >= 5:
            self._judge_data_speed(trainer)  # an epoch shorter than the window: judge what was seen
            self._timed = 0

    def _judge_data_speed(self, trainer: Trainer) -> None:
        if self._timed < 5:
            return
        self.checked.add("data speed")
        fraction = self._wait / max(self._wait + self._compute, 1e-9)
        if fraction > self.starvation_fraction:
            loader = trainer.train_dataloader
            workers = getattr(loader, "num_workers", "?")
            self._warn(
                trainer,
                "data speed",
                f"{fraction:.0%} of each training step is spent waiting for the next batch "
                f"(num_workers={workers}): the model is starved. Raise --data.num_workers, or cache the "
                "preprocessing (decode, resize, tokenize once in prepare_data).",
            )

    def _check_kept_graphs(self, trainer: Trainer, pl_module: LightningModule) -> None:
        self.checked.add("graph kept")
        kept = checks.tensors_holding_graph(pl_module)
        if kept:
            self._warn(
                trainer,
                "graph kept",
                f"{', '.join(kept)} keep(s) tensors with their autograd graph across steps: each holds its step's "
                "activations, so memory grows until it runs out. Store loss.detach() or loss.item() instead.",
            )

    # ---- validation ----------------------------------------------------------------------------

    def on_validation_batch_start(
        self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None:
        # The sanity check meets the first batch before training does.
        self._val_batches_seen += 1
        if self._val_batches_seen == 1:
            self._check_first_batch(trainer, pl_module, batch, batch_idx, stage="validation")

    def on_validation_batch_end(
        self,
        trainer: Trainer,
        pl_module: LightningModule,
        outputs: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        self._remove_hook()
        if self._val_checked >= 2:
            return
        self._val_checked += 1
        self.checked.add("eval mode")
        training = [name or "the LightningModule" for name, m in pl_module.named_modules() if m.training]
        if training:
            self._val_checked = 2
            self._warn(
                trainer,
                "eval mode",
                f"{len(training)} module(s) are in train mode during validation (first: {training[0]}): dropout "
                "stays on and BatchNorm uses batch statistics, so validation metrics are noisy and wrong. Lightning "
                "calls eval() before validation: do not call .train() in a validation hook.",
            )
