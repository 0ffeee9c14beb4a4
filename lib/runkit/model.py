"""The training system shared by the LSTM, CNN and GCN families, for every task (runkit/tasks/)."""

import contextlib
import pickle
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import lightning.pytorch as L
import torch
from lightning.pytorch.cli import OptimizerCallable
from lightning.pytorch.utilities import rank_zero_info
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler
from torchmetrics import MaxMetric, Metric, MetricCollection, MinMetric

from runkit import CheckpointError, ConfigError, UnsafePickle, load_plain_data, offers
from runkit.compat import instantiated_by_cli, logs_this_step
from runkit.tasks import Multiclass, Task

# Called as scheduler(optimizer, total_steps): `WarmupCosineLR` and any class with that signature.
SchedulerCallable = Callable[[Optimizer, int], LRScheduler]


class TaskModule(L.LightningModule, ABC):
    """The task's loss and metrics per stage, the best monitored value, a configurable optimizer and schedule.

    A subclass only says how its batch is unpacked (`unpack`). The network is injected: any `nn.Module`
    with `features` and `head` that maps the unpacked inputs to outputs `[rows, num_outputs]`; the task
    (multiclass by default) says what those outputs mean.

    Args:
        net: the network; it ends in raw outputs (no softmax or sigmoid: the task's loss applies its own).
        num_outputs: the network's output width (classes, labels, targets); linked from the DataModule by the CLI.
        task: a task of runkit/tasks/ with its own options: multiclass (`default_task` unless a family says
            otherwise), multilabel, regression, link prediction.
        optimizer: e.g. `torch.optim.AdamW`; it receives only trainable parameters.
        scheduler: called as `scheduler(optimizer, total_steps)` and stepped every optimizer step.
        freeze_features: train the head only (fine-tuning). Frozen BatchNorm layers stay in eval
            mode, so their running statistics are not overwritten by the new data either.
        init_from: a checkpoint of another run whose network's weights this one starts from (transfer): every
            weight before the head must match by name and shape; the head is taken where its shape matches
            (the same number of outputs) and starts anew where it does not. A resumed run does not read it.
        unfreeze_at_epoch: with freeze_features, the epoch from which the features train too (gradual
            unfreezing: the new head settles first, so its early gradients do not scramble what was learnt).
        features_lr: the features' learning rate as a share of the optimizer's (0.1: the pretrained part moves
            ten times slower than the new head); the schedule scales both alike.
        compile_net: compile the network with `torch.compile` (in place: checkpoints keep their
            keys). Off by default: on the CPU only the CNN gained (benchmarks/compile.py).
    """

    # DataModule attribute -> the init arguments it fills in; the CLI links them at instantiation.
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {"num_outputs": ("num_outputs", "net.init_args.num_outputs")}
    # The task when the config names none; `monitor: auto` reads its metric before anything is built.
    default_task: ClassVar[type[Task]] = Multiclass

    def __init__(
        self,
        net: nn.Module,
        num_outputs: int,
        task: Task | None = None,
        optimizer: OptimizerCallable = torch.optim.AdamW,
        scheduler: SchedulerCallable | None = None,
        freeze_features: bool = False,
        compile_net: bool = False,
        init_from: str | None = None,
        unfreeze_at_epoch: int | None = None,
        features_lr: float = 1.0,
    ) -> None:
        super().__init__()
        if unfreeze_at_epoch is not None and (not freeze_features or unfreeze_at_epoch < 1):
            raise ConfigError(
                f"unfreeze_at_epoch {unfreeze_at_epoch} unfreezes what freeze_features froze: set "
                "--model.freeze_features true too, and an epoch >= 1"
            )
        if features_lr <= 0:
            raise ConfigError(f"features_lr is a share of the optimizer's learning rate, > 0: got {features_lr}")
        # Under LightningCLI this records the config (class paths), not the objects, so
        # `load_from_checkpoint(path)` alone rebuilds the network. Built in code, the objects are left
        # out: a class or a function in the checkpoint would make it unloadable with weights_only=True.
        self.save_hyperparameters(ignore=None if instantiated_by_cli() else ["net", "task", "optimizer", "scheduler"])
        self.net = net
        self.task = task if task is not None else self.default_task()
        self.task.bind(num_outputs)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.init_from = init_from
        self.unfreeze_at_epoch = unfreeze_at_epoch
        self.features_lr = features_lr
        if compile_net:
            self.net.compile()
        self.features_frozen = False
        if freeze_features:
            self.freeze_net_features(True)

        metrics = self.task.metrics()
        self.train_metrics = self.task.train_metrics().clone(prefix="train/")
        self.val_metrics = metrics.clone(prefix="val/")
        self.test_metrics = metrics.clone(prefix="test/")
        # The best monitored value so far (`val/acc_best`, `val/mae_best`...), for the progress bar and HParams.
        self.val_best = MaxMetric() if self.task.mode == "max" else MinMetric()

    @abstractmethod
    def unpack(self, batch: Any) -> tuple[tuple[Any, ...], torch.Tensor, int]:
        """Split a batch into (network inputs, targets, batch size for logging): one target row per output row."""

    def outputs(self, batch: Any) -> tuple[torch.Tensor, torch.Tensor, int]:
        """The network's outputs and their targets, and the batch size (a family that scores some rows only, the
        nodes of a stage, keeps those here)."""
        inputs, target, batch_size = self.unpack(batch)
        return self(*inputs), target, batch_size

    def forward(self, *inputs: Any) -> torch.Tensor:
        return self.net(*inputs)

    def train(self, mode: bool = True) -> "TaskModule":
        super().train(mode)
        if self.features_frozen:
            # A caller's model.train() must not wake the frozen part's BatchNorm and Dropout.
            self.net.features.eval()
        return self

    def freeze_net_features(self, frozen: bool) -> None:
        """Freeze the network's features (no gradients; BatchNorm and Dropout in eval mode) or let them train.
        Lightning keeps each submodule's mode across its loops, so setting it once holds."""
        self.features_frozen = frozen
        self.net.features.requires_grad_(not frozen)
        self.net.features.train(self.training and not frozen)

    def on_fit_start(self) -> None:
        if self.unfreeze_at_epoch is not None and self.trainer.world_size > 1:
            raise ConfigError(
                "--model.unfreeze_at_epoch under DDP: DDP synchronises only the parameters that train when it starts, "
                "so features unfrozen later would drift apart on each process. Fine-tune everything from the start "
                "(--model.init_from without freeze_features), or unfreeze in a second run that starts from the first "
                "one's checkpoint (--model.init_from)"
            )
        # Here, not in setup(): only now does the trainer know whether this run resumes (its own weights win).
        if self.init_from is not None and self.trainer.ckpt_path is None:
            load_net_weights(self.net, self.init_from)

    def setup(self, stage: str) -> None:
        # What the task learns from the training targets (standardisation, label weights), before the first
        # step; a resumed run then loads the same values from its checkpoint.
        datamodule = self.trainer.datamodule
        if stage == "fit" and self.task.needs_train_targets:
            targets = offers(datamodule).train_targets()
            if targets is None:
                raise ConfigError(
                    f"the {self.task.name} task learns from the training targets (standardize / pos_weight), and "
                    f"{type(datamodule).__name__} offers no train_targets(): add it, or turn that option off"
                )
            self.task.fit_statistics(targets)

    def on_train_epoch_start(self) -> None:
        self.task.prepare_metrics(self.train_metrics)
        # `>=`, not `==`: a run resumed after the epoch still trains its features.
        if self.features_frozen and self.unfreeze_at_epoch is not None and self.current_epoch >= self.unfreeze_at_epoch:
            self.freeze_net_features(False)
            rank_zero_info(
                f"epoch {self.current_epoch}: the features train from now on, at {self.features_lr:g}x the head's "
                "learning rate"
            )

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        # The best so far, which a resumed run goes on from (a metric's state is not in the state dict).
        if self.val_best.update_called:
            checkpoint["val_best"] = self.val_best.compute().item()

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        if "val_best" in checkpoint:
            self.val_best.reset()
            self.val_best.update(torch.tensor(checkpoint["val_best"]))
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

    def _evaluation_step(
        self, batch: Any, metrics: Metric | MetricCollection, stage: str
    ) -> tuple[torch.Tensor, torch.Tensor, int]:
        """A validation or test step: the training step's loss and metrics, and what the task observes of the
        outputs; the outputs are the step's result (a family may score more beside them: the forecaster)."""
        output, target, batch_size = self.outputs(batch)
        loss = self.task.loss(output, target)
        metrics.update(self.task.scored(output.detach(), target), target)
        if stage == "val":
            self.task.observe(output.detach(), target)
        return loss, output.detach(), batch_size

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        """The pictures of the last validation epoch by TensorBoard tag (callbacks/task_figures.py): the task's,
        and a model's own where it overrides this (the forecaster's windows)."""
        return self.task.figures(names, draw)

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        output, target, batch_size = self.outputs(batch)  # the family's unpack, then its network (`self.net`)
        loss = self.task.loss(output, target)  # the task's: cross-entropy on logits for classes
        self.train_metrics.update(self.task.scored(output.detach(), target), target)
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
        self.task.prepare_metrics(self.val_metrics)
        self.task.reset_observed()

    def validation_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        loss, output, batch_size = self._evaluation_step(batch, self.val_metrics, "val")
        # sync_dist: the loss is a per-process mean; torchmetrics objects sync themselves in compute().
        self.log("val/loss", loss, prog_bar=True, batch_size=batch_size, sync_dist=True)
        return output

    def on_validation_epoch_end(self) -> None:
        values = self._log_epoch(self.val_metrics, prog_bar=True)
        if not self.trainer.sanity_checking:  # the untrained network's score is no best
            self.val_best(values[self.task.monitor])
        if self.val_best.update_called:
            self.log(f"{self.task.monitor}_best", self.val_best.compute(), prog_bar=True, sync_dist=True)
        if more := self.task.on_validation_epoch_end(values):
            self.log_dict(more, sync_dist=True)

    def on_test_epoch_start(self) -> None:
        self.task.prepare_metrics(self.test_metrics)

    def test_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        loss, output, batch_size = self._evaluation_step(batch, self.test_metrics, "test")
        self.log("test/loss", loss, batch_size=batch_size, sync_dist=True)
        return output

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
        output, _, _ = self.outputs(batch)
        return self.task.predict(output)

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        """What `predict` writes to predictions.tsv: the task's columns and rows, unless a family lays its
        predictions out itself (the forecaster: a row per step ahead; links: the user's node ids)."""
        return self.task.prediction_table(predictions, names)

    def against_baselines(self, tested: dict[str, float]) -> str | None:
        """One line for the fit summary on how the test scores compare with the baselines the model logs
        beside its own (the forecaster: MASE against ETS and the naive forecasts); None: it logs none."""
        return None

    def configure_optimizers(self) -> Any:
        # Trainable parameters only, except features that unfreeze later: they are in the optimizer from the
        # start (in their own group, at features_lr), and until then have no gradient, which it skips.
        later = self.unfreeze_at_epoch is not None
        features = {id(p) for p in self.net.features.parameters()} if later or self.features_lr != 1.0 else set()
        groups = [{"params": [p for p in self.parameters() if p.requires_grad and id(p) not in features]}]
        if features:
            groups.append({"params": [p for p in self.net.features.parameters() if p.requires_grad or later]})
        optimizer = self.optimizer([group for group in groups if group["params"]])
        if len(optimizer.param_groups) == 2:
            optimizer.param_groups[1]["lr"] *= self.features_lr
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


def load_net_weights(net: nn.Module, path: str) -> None:
    """`net`'s weights from another run's checkpoint (`init_from`): every weight before the head must fit by name
    and shape; the head is taken where its shape fits and starts anew where it does not (other classes)."""
    try:
        checkpoint = load_plain_data(Path(path))
    except UnsafePickle as unsafe:
        raise CheckpointError(
            f"--model.init_from {path}: refused, it holds Python objects other than plain data ({unsafe.culprit}), "
            "and unpickling them could run code"
        ) from None
    except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as error:
        raise CheckpointError(f"--model.init_from {path}: cannot be read ({error})") from None
    if not isinstance(checkpoint, dict) or not isinstance(checkpoint.get("state_dict"), dict):
        raise CheckpointError(f"--model.init_from {path}: not a run's checkpoint (no state_dict in it)")
    saved = {name[4:]: t for name, t in checkpoint["state_dict"].items() if name.startswith("net.")}
    own = net.state_dict()
    in_head = {id(t) for t in [*net.head.parameters(), *net.head.buffers()]}
    head = {name for name, t in [*net.named_parameters(), *net.named_buffers()] if id(t) in in_head}
    features = {name: t for name, t in saved.items() if name not in head}
    if problem := weights_mismatch(features, {name: t for name, t in own.items() if name not in head}):
        raise CheckpointError(
            f"--model.init_from {path}: its network does not fit this one before the head: {problem}. Start from a "
            "run of the same network (the same class and sizes); only the head may differ"
        )
    new_head = any(name not in saved or saved[name].shape != own[name].shape for name in head)
    net.load_state_dict(features if new_head else saved, strict=not new_head)
    rank_zero_info(
        f"started from {path}: {len(features)} weights of the features"
        + (", and a new head (its outputs differ)" if new_head else ", and its head (the same outputs)")
    )
