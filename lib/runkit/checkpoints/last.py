"""`--ckpt_path last` across runs: the newest complete `last.ckpt` of the run that was interrupted."""

import logging
from pathlib import Path
from typing import Any

from runkit.checkpoints.io import CheckpointError, check_complete, find_last, newest_complete
from runkit.trackers.stacking import first_logger

log = logging.getLogger(__name__)


def resolve_last(config: Any) -> str | None:
    """The newest `last.ckpt` under logs/NAME/version_*/, with the first logger pinned to that run's folder.

    Lightning looks for `last` only in the new run's own, empty, checkpoint folder. This finds the run
    that was interrupted, pins the logger to its version (so its logs continue), and skips a `last.ckpt`
    that was cut short for the newest complete checkpoint beside it. Nothing there: a fresh start, so the
    same command serves the first launch and every requeue.
    """
    logger = first_logger(config.trainer.get("logger"))  # the one that names the run folder
    init_args = getattr(logger, "init_args", None) if logger else None
    if init_args is None or not init_args.get("save_dir"):
        return "last"  # no run folders: Lightning's own resolution in default_root_dir
    root = Path(init_args.save_dir) / (init_args.get("name") or "lightning_logs")
    version = init_args.get("version")
    if version is not None:  # the logger names its version: look in that run only
        last = find_last(root, f"version_{version}" if isinstance(version, int) else str(version))
    else:
        last = find_last(root)
    if last is None:
        log.info(f"--ckpt_path last: no checkpoint under {root}, starting a new run")
        return None
    folder = last.parent.parent.name
    number = folder.removeprefix("version_")
    init_args.version = int(number) if number.isdigit() and folder.startswith("version_") else folder
    try:
        check_complete(last)
    except CheckpointError as err:
        fallback = newest_complete(last.parent)
        if fallback is None:
            raise
        log.warning(f"{err}\nResuming from {fallback} instead, the newest complete checkpoint there.")
        return str(fallback)
    log.info(f"--ckpt_path last: resuming {last}")
    return str(last)
