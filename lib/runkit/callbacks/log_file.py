"""Where log messages go: the console, and `train.log` in the run folder; with timestamps, from rank 0 only."""

import logging
import sys
from pathlib import Path

from lightning.pytorch import Callback, LightningModule, Trainer
from lightning.pytorch.utilities import rank_zero_only

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
OURS = ("runkit", "project")  # the library's messages and the project's (`logging.getLogger(__name__)`)
LOGGERS = (*OURS, "lightning.pytorch")  # and Lightning's (its rank_zero_info messages included)


class CurrentStderrHandler(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is when a message comes: pytest and Jupyter swap it, and a handler
    holding the first one would write to a closed stream."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def log_to_console(level: str = "INFO") -> None:
    """runkit's and the project's messages on stderr, timestamped; Lightning has its own."""
    for name in OURS:
        logger = logging.getLogger(name)
        if any(getattr(h, "_project_console", False) for h in logger.handlers):
            continue
        handler = CurrentStderrHandler()
        handler.setFormatter(logging.Formatter(FORMAT, datefmt="%H:%M:%S"))
        handler.addFilter(lambda record: rank_zero_only.rank == 0)  # one copy under DDP
        handler._project_console = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(level)


class LogFile(Callback):
    """Writes the run's log messages to `<run folder>/<filename>` as well as to the console.

    Nothing is written without a logger (there is no run folder) or on ranks other than 0.
    """

    def __init__(self, filename: str = "train.log", level: str = "INFO") -> None:
        self.filename = filename
        self.level = level
        self._handler: logging.Handler | None = None

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if trainer.logger is None or self._handler is not None:
            return
        log_dir = trainer.log_dir  # a collective under DDP: every rank asks, rank 0 writes
        if not trainer.is_global_zero or log_dir is None:
            return
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        self._handler = logging.FileHandler(Path(log_dir) / self.filename, encoding="utf-8")
        self._handler.setFormatter(logging.Formatter(FORMAT))
        self._handler.setLevel(self.level)
        for name in LOGGERS:
            logger = logging.getLogger(name)
            if logger.level == logging.NOTSET or logger.level > self._handler.level:
                logger.setLevel(self.level)
            logger.addHandler(self._handler)

    def teardown(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if self._handler is None:
            return
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(self._handler)
        self._handler.close()
        self._handler = None
