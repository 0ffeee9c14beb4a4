"""SIGTERM and Ctrl-C during training: every process saves last.ckpt at the same step, then the run exits."""

import logging
import signal
from pathlib import Path
from types import FrameType
from typing import Any

import lightning.pytorch as L
import torch

log = logging.getLogger(__name__)

# The shell's convention, 128 + the signal's number: "stopped by a signal, resumable", never 0 ("finished").
EXIT_CODES = {signal.SIGTERM: 143, signal.SIGINT: 130}


class StoppedBySignal(SystemExit):
    """Ends the run after the checkpoint is written; Lightning tears down, Python exits with `code`."""


class GracefulStop(L.Callback):
    """SIGTERM (a scheduler, `kill`, preemption) or a first Ctrl-C: finish the step, save, exit 143 / 130.

    Lightning 2.6 handles SIGTERM too, but it stops without saving and exits 0, and a Ctrl-C lands
    wherever it lands. Here the handler only sets a flag. At the end of every training step the
    processes agree on it (one one-number all-reduce under DDP; nothing in a single process), so all
    of them save at the same step and no collective ever runs inside a signal handler. The checkpoint
    is taken where a step checkpoint is (at an epoch's last step: at the epoch's end, after its
    validation), so `--ckpt_path last` continues exactly. A second Ctrl-C interrupts at once.
    """

    def __init__(self) -> None:
        self._requested = 0
        self._signal: signal.Signals | None = None  # the one the processes agreed to stop on
        self._saved = False
        self._previous: dict[int, Any] = {}
        self.stopped: str | None = None  # how the run stopped, once a signal stopped it (the fit summary says it)

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._requested, self._signal, self._saved = 0, None, False
        # Replaces Lightning's SIGTERM handler for the training loop; the Trainer restores its own at teardown.
        self._previous = {signum: signal.signal(signum, self._request) for signum in EXIT_CODES}

    def on_train_batch_end(self, trainer: L.Trainer, *args: Any) -> None:
        requested = self._agreed(trainer)
        if not requested or self._signal is not None:
            return
        self._signal = signal.Signals(requested)
        if trainer.is_last_batch:
            return  # saved at the epoch's end (below): Lightning would resume a save here past the validation
        self._save(trainer)

    # Lightning logs a step's metrics after on_train_batch_end: the run exits at the next hook of the loop,
    # so no logger misses the step the save was at (the resumed run starts after it).
    def on_train_batch_start(self, trainer: L.Trainer, *args: Any) -> None:
        self._exit_if_saved()

    def on_validation_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._exit_if_saved()  # a mid-epoch validation (val_check_interval): the resumed run skips it too

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        # The stop came at the epoch's last batch: save at the epoch's end, after its validation and the
        # callbacks that react to it (checkpoints by metric, early stopping), so the resumed run starts the
        # next epoch with this one done.
        if self._signal is not None and not self._saved:
            self._save(trainer)

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._exit_if_saved()  # after the module logged the epoch's training metrics

    def _save(self, trainer: L.Trainer) -> None:
        ckpt = trainer.checkpoint_callback
        folder = Path(ckpt.dirpath) if ckpt is not None and ckpt.dirpath else Path(trainer.default_root_dir)
        path = folder / "last.ckpt"
        trainer.save_checkpoint(path)
        self._saved = True
        self.stopped = (
            f"stopped by {self._signal.name} at step {trainer.global_step} (epoch {trainer.current_epoch}), "
            f"saved {path.name}: resume with --ckpt_path last"
        )
        if trainer.is_global_zero:
            log.warning(
                f"{self._signal.name}: saved {path} at step {trainer.global_step}; resume with --ckpt_path last"
            )

    def _exit_if_saved(self) -> None:
        if self._saved:
            raise StoppedBySignal(EXIT_CODES[self._signal])

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._restore()
        self._exit_if_saved()  # the stop came at the run's last step: it is complete, but say how it ended

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        self._restore()

    def _request(self, signum: int, frame: FrameType | None) -> None:
        if self._requested == signal.SIGINT and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self._requested = signum
        log.warning(
            f"{signal.Signals(signum).name} received: stopping after this step with a checkpoint "
            "(Ctrl-C again to stop at once)"
        )

    def _agreed(self, trainer: L.Trainer) -> int:
        if trainer.world_size == 1 or not torch.distributed.is_initialized():
            return self._requested
        flag = torch.tensor([self._requested], device=trainer.strategy.root_device)
        torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
        return int(flag.item())

    def _restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}
