"""The training system shared by the LSTM, CNN and GCN classifiers."""

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import lightning.pytorch as L
import torch
import torch.nn.functional as F
from lightning.pytorch.cli import OptimizerCallable
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler
from torchmetrics import MaxMetric, Metric, MetricCollection
from torchmetrics.classification import MulticlassAccuracy, MulticlassConfusionMatrix, MulticlassF1Score

from project.checkpoint_io import CheckpointError
from project.compat import instantiated_by_cli, logs_this_step
from project.errors import ConfigError

IGNORE = -100  # a target that counts in neither the loss nor the metrics (cross_entropy's default)

# Called as scheduler(optimizer, total_steps): `WarmupCosineLR` and any class with that signature.
SchedulerCallable = Callable[[Optimizer, int], LRScheduler]


class ClassificationModule(L.LightningModule, ABC):
    """Cross-entropy on logits, accuracy and macro-F1 per stage, configurable optimizer and schedule.

    A subclass only says how its batch is unpacked (`unpack`). The network is injected: any
    `nn.Module` with `features` and `head` that maps the unpacked inputs to logits
    `[batch, num_classes]`.

    Args:
        net: the network; it must not end in softmax (the loss applies log-softmax itself).
        num_classes: number of classes; linked from the DataModule by the CLI.
        optimizer: e.g. `torch.optim.AdamW`; it receives only trainable parameters.
        scheduler: called as `scheduler(optimizer, total_steps)` and stepped every optimizer step.
        freeze_features: train the head only (fine-tuning). Frozen BatchNorm layers stay in eval
            mode, so their running statistics are not overwritten by the new data either.
        label_smoothing: passed to the cross-entropy.
        compile_net: compile the network with `torch.compile` (in place: checkpoints keep their
            keys). Off by default: on the CPU only the CNN gained (benchmarks/compile.py).
    """

    # DataModule attribute -> the init arguments it fills in; the CLI links them at instantiation.
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {"num_classes": ("num_classes", "net.init_args.num_classes")}

    def __init__(
        self,
        net: nn.Module,
        num_classes: int,
        optimizer: OptimizerCallable = torch.optim.AdamW,
        scheduler: SchedulerCallable | None = None,
        freeze_features: bool = False,
        label_smoothing: float = 0.0,
        compile_net: bool = False,
    ) -> None:
        super().__init__()
        # Under LightningCLI this records the config (class paths), not the objects, so
        # `load_from_checkpoint(path)` alone rebuilds the network. Built in code, the objects are left
        # out: a class or a function in the checkpoint would make it unloadable with weights_only=True.
        self.save_hyperparameters(ignore=None if instantiated_by_cli() else ["net", "optimizer", "scheduler"])
        self.net = net
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.freeze_features = freeze_features
        self.label_smoothing = label_smoothing
        if compile_net:
            self.net.compile()
        if freeze_features:
            self.net.features.requires_grad_(False)
            # Lightning keeps each submodule's mode across its loops, so setting it once holds.
            self.net.features.eval()

        # Targets of IGNORE are not scored: nodes outside the stage's mask, for instance.
        # validate_args off: torchmetrics' check calls torch.unique on the targets at every update, which on a
        # GPU waits for the device: one sync per metric per step (benchmarks/ablation.py measures it). The
        # labels are checked anyway: the loss, computed first, refuses an out-of-range class, and the
        # Diagnostics callback names it on the first batches.
        scoring = {"ignore_index": IGNORE, "validate_args": False}
        metrics = MetricCollection(
            {
                "acc": MulticlassAccuracy(num_classes, average="micro", **scoring),
                "f1": MulticlassF1Score(num_classes, average="macro", **scoring),
            }
        )
        self.train_metrics = metrics.clone(prefix="train/")
        self.val_metrics = metrics.clone(prefix="val/")
        self.test_metrics = metrics.clone(prefix="test/")
        self.val_acc_best = MaxMetric()
        # Drawn by the ConfusionMatrixImage callback; one bincount per validation batch.
        self.val_confusion = MulticlassConfusionMatrix(num_classes, **scoring)

    @abstractmethod
    def unpack(self, batch: Any) -> tuple[tuple[Any, ...], torch.Tensor, int]:
        """Split a batch into (network inputs, targets, batch size for logging).

        Targets hold one class id per row of the network's output, `IGNORE` where a row is not scored.
        """

    def forward(self, *inputs: Any) -> torch.Tensor:
        return self.net(*inputs)

    def train(self, mode: bool = True) -> "ClassificationModule":
        super().train(mode)
        if self.freeze_features:
            # A caller's model.train() must not wake the frozen part's BatchNorm and Dropout.
            self.net.features.eval()
        return self

    def on_train_start(self) -> None:
        # The sanity check ran validation already; its accuracy must not count as a best.
        self.val_acc_best.reset()

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        # `load_from_checkpoint` builds the network outside the CLI; keep its config in hparams anyway,
        # so the checkpoints of a reloaded model rebuild alone too.
        saved = checkpoint.get("hyper_parameters", {})
        if problem := weights_mismatch(checkpoint.get("state_dict", {}), self.state_dict()):
            source = "the checkpoint"
            with contextlib.suppress(RuntimeError):  # no trainer: load_from_checkpoint
                source = self.trainer.ckpt_path or source
            net = saved.get("net", {})
            trained_as = net.get("class_path", "another network") if isinstance(net, dict) else type(net).__name__
            raise CheckpointError(
                f"{source} does not fit this model ({type(self.net).__name__}): {problem}. It was trained as "
                f"{trained_as}: build the same model (the same --model and the data it was trained on, which fixes "
                "the vocabulary and the classes), or pick the checkpoint of this model."
            )
        if "net" not in self.hparams and "net" in saved:
            self.save_hyperparameters(dict(saved))

    def _shared_step(self, batch: Any, *metrics: Metric | MetricCollection) -> tuple[torch.Tensor, int]:
        inputs, target, batch_size = self.unpack(batch)
        logits = self(*inputs)
        loss = F.cross_entropy(logits, target, ignore_index=IGNORE, label_smoothing=self.label_smoothing)
        for metric in metrics:
            metric.update(logits.detach(), target)
        return loss, batch_size

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        loss, batch_size = self._shared_step(batch, self.train_metrics)
        # Only on the steps the logger writes (every log_every_n_steps): each self.log call is Python work
        # in Lightning's result collection, a visible share of a small model's step (benchmarks/parity.py).
        # Lightning's own LearningRateMonitor asks the same question. Under DDP, sync_dist logs the mean
        # over all processes, not rank 0's alone: one small all-reduce on those steps, on every rank alike.
        if logs_this_step(self.trainer):
            self.log("train/loss", loss, prog_bar=True, batch_size=batch_size, sync_dist=True)
        return loss

    def on_train_epoch_end(self) -> None:
        self._log_epoch(self.train_metrics)

    def on_validation_epoch_start(self) -> None:
        self.val_confusion.reset()

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        loss, batch_size = self._shared_step(batch, self.val_metrics, self.val_confusion)
        # sync_dist: the loss is a per-process mean; torchmetrics objects sync themselves in compute().
        self.log("val/loss", loss, prog_bar=True, batch_size=batch_size, sync_dist=True)

    def on_validation_epoch_end(self) -> None:
        values = self._log_epoch(self.val_metrics, prog_bar=True)
        self.val_acc_best(values["val/acc"])
        self.log("val/acc_best", self.val_acc_best.compute(), prog_bar=True, sync_dist=True)

    def test_step(self, batch: Any, batch_idx: int) -> None:
        loss, batch_size = self._shared_step(batch, self.test_metrics)
        self.log("test/loss", loss, batch_size=batch_size, sync_dist=True)

    def on_test_epoch_end(self) -> None:
        self._log_epoch(self.test_metrics)

    def _log_epoch(self, metrics: MetricCollection, prog_bar: bool = False) -> dict[str, torch.Tensor]:
        # Computed once per epoch and logged as values: logging the metric objects at every step costs
        # Lightning a device move per metric per step (benchmarks/parity.py).
        values = metrics.compute()  # synced across DDP processes already: sync_dist only averages equals
        self.log_dict(values, prog_bar=prog_bar, sync_dist=True)
        metrics.reset()
        return values

    def predict_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        inputs, _, _ = self.unpack(batch)
        probs = self(*inputs).softmax(dim=-1)
        confidence, pred = probs.max(dim=-1)
        return {"probs": probs, "pred": pred, "confidence": confidence}

    def configure_optimizers(self) -> Any:
        optimizer = self.optimizer([p for p in self.parameters() if p.requires_grad])
        if self.scheduler is None:
            return optimizer
        total_steps = self.trainer.estimated_stepping_batches
        if total_steps == float("inf"):
            raise ConfigError("the LR schedule needs a finite run: set trainer.max_epochs or trainer.max_steps")
        scheduler = self.scheduler(optimizer, int(total_steps))
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}


def weights_mismatch(saved: dict[str, torch.Tensor], own: dict[str, torch.Tensor]) -> str | None:
    """What keeps `saved` from loading into a model whose state is `own`, in a sentence; None if it fits."""
    missing = [k for k in own if k not in saved]
    unexpected = [k for k in saved if k not in own]
    shapes = [
        f"{k} is {tuple(saved[k].shape)} in the checkpoint, {tuple(own[k].shape)} here"
        for k in own
        if k in saved and saved[k].shape != own[k].shape
    ]
    problems = []
    if missing or unexpected:
        problems.append(
            f"{len(missing)} weights missing (e.g. {missing[:2]}), {len(unexpected)} unknown (e.g. {unexpected[:2]})"
        )
    if shapes:
        problems.append("; ".join(shapes[:3]))
    return ", and ".join(problems) or None
