"""Checks on the model itself: parameters registered and optimised, gradients reaching them, eval mode in
validation, no autograd graph kept across steps."""

import torch
from lightning.pytorch import LightningModule, Trainer
from torch import nn

from runkit import offers
from runkit.callbacks import training_checks as checks
from runkit.callbacks.checks.base import Check, Report
from runkit.receptive import receptive_fields


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


class ReceptiveField(Check):
    """A conv net whose last layer sees less than half the image, pooled globally: it can only count local
    textures. Judged from the DataModule's `image_size`; nets without convs or data without it are skipped."""

    def on_fit_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        size = offers(trainer.datamodule).image_size
        fields = receptive_fields(model)
        pooled = any(isinstance(m, nn.AdaptiveAvgPool2d | nn.AdaptiveMaxPool2d) for m in model.modules())
        if not size or not fields or not pooled:  # a flattening head sees the whole image anyway
            report.skip("receptive field", "the network is not a globally pooled conv net on images")
            return
        report.checked.add("receptive field")
        rf = fields[-1].receptive_field
        if rf < size / 2:
            report.warn(
                "receptive field",
                f"the last conv layer sees {rf}x{rf} pixels of {size}x{size} inputs: after global pooling the "
                "head can only count local textures, not recognise shapes larger than that. Add stages "
                "(SimpleCNN: depth auto, or more channels), strides or dilation until it covers at least half "
                "the image.",
            )
