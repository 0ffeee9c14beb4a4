"""Checks on the loaders: training and validation kept apart, and the model not waiting for data."""

import time

from lightning.pytorch import LightningModule, Trainer
from torch.utils.data import DataLoader

from runkit import offers
from runkit.callbacks import training_checks as checks
from runkit.callbacks.checks.base import Check, Report


class Splits(Check):
    """Training and validation apart; validation not shuffled."""

    def on_train_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        train, val = trainer.train_dataloader, trainer.val_dataloaders
        if not isinstance(train, DataLoader) or not isinstance(val, DataLoader):
            report.skip("splits", "the training or validation loader is not a DataLoader")
            return
        report.checked.add("splits")
        data = offers(trainer.datamodule)
        if data.split_check == "own":  # link prediction: the links held out of the graph
            if (overlap := data.split_overlap()) is not None:
                report.warn("splits", overlap)
        elif data.split_check == "masks" and train.dataset is val.dataset:
            pass  # node-level tasks: one graph, split by masks
        elif (overlap := checks.overlapping_steps(train.dataset, val.dataset)) is not None:
            report.warn("splits", f"{overlap}.")
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


class Targets(Check):
    """The training split's targets as a whole suit the task: not constant, scaled for the loss, every label
    seen (the task's `check_targets`). Needs the DataModule's `train_targets()`."""

    def on_fit_start(self, report: Report, trainer: Trainer, model: LightningModule) -> None:
        task = getattr(model, "task", None)  # any LightningModule may be checked; the template's have a task
        targets = offers(trainer.datamodule).train_targets() if task is not None else None
        if task is None or targets is None:
            name = type(trainer.datamodule).__name__
            report.skip("targets", "the model has no task" if task is None else f"{name} offers no train_targets()")
            return
        report.checked.add("targets")
        for message in task.check_targets(targets):
            report.warn("targets", message)


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
            report.skip("data speed", f"{self.timed} steps timed, fewer than the {self.min_timed} a verdict needs")
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
