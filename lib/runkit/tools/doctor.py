"""`python -m project.doctor --model NAME [fit args]`: a pre-flight check before a long run.

It builds exactly what `python -m project.fit` with the same arguments would, then shows one batch and
the targets (a label histogram, or their statistics), runs the first forward and backward pass with every
diagnostics check on, and tries to overfit two batches: a model that cannot is buggy, not under-trained.
It ends with a verdict table and exits 1 when anything is wrong, so CI can run it.
"""

import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import torch
from lightning.pytorch import Callback, LightningModule, Trainer

from runkit import TaskModule, TrainingProblem, offers
from runkit.callbacks.diagnostics import CHECKS, Diagnostics
from runkit.callbacks.training_checks import named_tensors
from runkit.tools.table import markdown

OVERFIT_BATCHES = 2
MIN_STEPS, MAX_STEPS = 30, 400  # at least enough for every check; at most a minute on a CPU
FALL = 0.5  # the overfit passes once the loss is below half its first value
HISTOGRAM_BATCHES = 50


class Probe(Callback):
    """Shows the data at the start and records the training loss of every step."""

    def __init__(self) -> None:
        self.losses: list[float] = []
        self.epoch_losses: list[float] = []  # the mean over each epoch's (fixed) batches
        self.batches = 0
        self.first_batch: Any = None  # the first batch and its scored targets, for the expected initial loss
        self.first_targets: torch.Tensor | None = None
        self._epoch_start = 0

    def on_train_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        loader = trainer.datamodule.train_dataloader()
        targets = []
        for seen, batch in enumerate(loader):
            if seen == 0:
                print(describe_batch(batch))
            targets.append(scored_targets(pl_module, batch))
            if seen + 1 == HISTOGRAM_BATCHES:
                break
        names = offers(trainer.datamodule).output_names
        # A tag per step: batches of other lengths, joined step by step.
        joined = (
            torch.cat(targets)
            if len({t.shape[1:] for t in targets}) == 1
            else torch.cat([t.flatten() for t in targets])
        )
        print(pl_module.task.describe_targets(joined, names, len(targets)))
        self.batches = int(trainer.num_training_batches)

    def on_train_batch_start(self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int) -> None:
        # The batch the first loss is taken on: with overfit_batches, Lightning's first batches, not the loader's
        # shuffled first (a naive forecast's loss differs from batch to batch more than the check allows).
        if self.first_batch is None:
            self.first_batch, self.first_targets = batch, scored_targets(pl_module, batch)

    def on_train_epoch_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        self._epoch_start = len(self.losses)

    def on_before_backward(self, trainer: Trainer, pl_module: LightningModule, loss: torch.Tensor) -> None:
        self.losses.append(loss.item())

    def on_train_epoch_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        epoch = self.losses[self._epoch_start :]
        self.epoch_losses.append(sum(epoch) / max(len(epoch), 1))
        if trainer.global_step >= MIN_STEPS and self.epoch_losses[-1] < FALL * self.epoch_losses[0]:
            trainer.should_stop = True


@runtime_checkable
class ScoresSomeRows(Protocol):
    """A model that scores some rows of a batch only (a node model: the nodes of the running stage)."""

    def scored_rows(self, batch: Any) -> torch.Tensor | None: ...


@runtime_checkable
class ExpectsItsInitialLoss(Protocol):
    """A model whose untrained loss is not its task's (the forecaster starts at a baseline, not at 0)."""

    def expected_initial_loss(self, batch: Any, target: torch.Tensor) -> tuple[float, str]: ...


def scored_targets(model: LightningModule, batch: Any) -> torch.Tensor:
    """The targets of `batch` that the loss scores (a node task scores some rows only)."""
    _, target, _ = model.unpack(batch)
    rows = model.scored_rows(batch) if isinstance(model, ScoresSomeRows) else None
    return target if rows is None else target[rows]


def expected_initial_loss(model: LightningModule, batch: Any, target: torch.Tensor) -> tuple[float, str]:
    """The loss an untrained model should show on `batch` (whose scored targets are `target`), and how that number
    comes about: the task's, for a network whose untrained output is about 0, unless the model says otherwise."""
    if isinstance(model, ExpectsItsInitialLoss):
        return model.expected_initial_loss(batch, target)
    return model.task.expected_initial_loss(target)


def describe_batch(batch: Any) -> str:
    lines = ["First training batch:"]
    for name, t in named_tensors(batch):
        line = f"  {name:<22} {str(t.dtype).removeprefix('torch.'):<8} {list(t.shape)!s:<18}"
        if t.numel() and (t.is_floating_point() or t.dtype in (torch.int64, torch.int32, torch.uint8)):
            values = t.float()
            line += f" min {values.min().item():.3g}  max {values.max().item():.3g}"
            if t.is_floating_point():
                line += f"  mean {values.mean().item():.3g}  std {values.std().item() if t.numel() > 1 else 0:.3g}"
        lines.append(line)
    return "\n".join(lines)


def overfit_trainer(configured: Trainer, callbacks: list[Callback]) -> Trainer:
    """One device, the configured precision and clipping, two fixed batches, no logs or checkpoints."""
    return Trainer(
        accelerator=configured.accelerator,
        devices=1,
        precision=configured.precision,
        gradient_clip_val=configured.gradient_clip_val,
        overfit_batches=OVERFIT_BATCHES,
        min_steps=MIN_STEPS,
        max_steps=MAX_STEPS,
        max_epochs=-1,
        check_val_every_n_epoch=10,
        num_sanity_val_steps=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=callbacks,
    )


def verdicts(
    diagnostics: Diagnostics, probe: Probe, model: TaskModule, problem: str | None
) -> list[tuple[str, str, str]]:
    rows = []
    for check, description in CHECKS.items():
        found = [f for f in diagnostics.findings if f.check == check]
        if found:
            rows.append((check, found[0].level.upper(), found[0].message))
        elif check in diagnostics.checked:
            rows.append((check, "ok", description))
        else:
            why = diagnostics.report.skipped.get(check, "does not apply to this model and data")
            rows.append((check, "not run", f"not checked: {why}"))
    if probe.losses and probe.first_targets is not None:
        first = probe.losses[0]
        expected, why = expected_initial_loss(model, probe.first_batch, probe.first_targets)
        sane = 0.5 * expected <= first <= 2 * expected
        rows.append(
            (
                "initial loss",
                "ok" if sane else "WARNING",
                f"{first:.3f} on the first batch; untrained, about {why} = {expected:.3f} is expected"
                + ("" if sane else ": check the output layer's initialisation and the loss"),
            )
        )
    if problem is None and probe.epoch_losses:
        start, end, steps = probe.epoch_losses[0], probe.epoch_losses[-1], len(probe.losses)
        fell = end < FALL * start
        rows.append(
            (
                "overfit",
                "ok" if fell else "ERROR",
                f"loss on {probe.batches} fixed batch(es) fell {start:.3f} -> {end:.3f} in {steps} steps"
                + ("" if fell else f": not below half in {MAX_STEPS} steps. Check the labels, the LR and the model"),
            )
        )
    if problem is not None:
        rows.append(("stopped", "ERROR", problem))
    return rows


def main(compose: Callable[[Sequence[str]], Any], args: Sequence[str] | None = None) -> int:
    """`compose`: what builds a command line's model, data and trainer (a project's `Commands.compose`)."""
    cli = compose(sys.argv[1:] if args is None else args)
    model, datamodule = cli.model, cli.datamodule
    model.scheduler = None  # a constant LR: the overfit tests the model and data, not the schedule
    diagnostics, probe = Diagnostics(starvation_steps=MIN_STEPS - 5, leak_step=10), Probe()
    trainer = overfit_trainer(cli.trainer, [diagnostics, probe])
    print(f"Doctor: {type(model).__name__} on {type(datamodule).__name__}; then overfitting {OVERFIT_BATCHES} batches.")
    problem = None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*overfit.*shuffling.*")
        try:
            trainer.fit(model, datamodule=datamodule)
        except TrainingProblem as err:
            problem = str(err)
    rows = verdicts(diagnostics, probe, model, problem)
    bad = [row for row in rows if row[1] not in ("ok", "not run")]
    print("\n" + markdown(["check", "verdict", "detail"], [list(row) for row in rows], pad=False))
    print(f"\nVerdict: {'healthy' if not bad else f'{len(bad)} problem(s), see the table'}.")
    return 1 if bad else 0
