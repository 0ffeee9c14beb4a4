"""`status.json` in the run folder: how the run is doing or how it ended, for `python -m project.runs`."""

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import lightning.pytorch as L

from runkit import write_atomically
from runkit.callbacks.early_stopping import how_it_ended
from runkit.callbacks.graceful_stop import StoppedBySignal

FILENAME = "status.json"


class RunStatus(L.Callback):
    """Writes `status.json` (rank 0): `running` when a fit starts, then `finished`, `early-stopped`, `stopped
    by a signal` (resumable) or `failed` with the error. A run killed outright stays `running`, with the pid
    and host that `project.runs` checks. A resumed run keeps its first start and counts its attempts."""

    def __init__(self) -> None:
        self.path: Path | None = None

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if stage != "fit" or trainer.logger is None or trainer.fast_dev_run:
            return
        log_dir = trainer.log_dir  # a collective under DDP: every rank asks, rank 0 writes
        if not trainer.is_global_zero or log_dir is None:
            return
        self.path = Path(log_dir) / FILENAME
        previous = read_status(self.path.parent)
        now = time.time()
        self._write(
            status="running",
            started=previous.get("started", now),
            updated=now,
            attempts=previous.get("attempts", 0) + 1,
            host=socket.gethostname(),
            pid=os.getpid(),
        )

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        # stopping_reason, not stopped_epoch: a stop after the first epoch is at epoch 0
        early = how_it_ended(trainer).early
        self._write(status="early-stopped" if early else "finished", epochs=trainer.current_epoch)

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        if isinstance(exception, StoppedBySignal | KeyboardInterrupt):
            self._write(status="stopped by a signal", epochs=trainer.current_epoch)
        else:
            self._write(status="failed", error=f"{type(exception).__name__}: {exception}"[:500])

    def _write(self, **fields: Any) -> None:
        if self.path is None:
            return
        text = json.dumps({**read_status(self.path.parent), **fields, "updated": time.time()}, indent=1)
        write_atomically(self.path, lambda partial: partial.write_text(text))


def read_status(folder: Path) -> dict[str, Any]:
    path = folder / FILENAME
    return json.loads(path.read_text()) if path.is_file() else {}


def alive(pid: Any) -> bool:
    """Whether a process with this pid exists on this machine."""
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's
    return True
