"""Several loggers for one run (`trainer.logger` as a list, stacked with `configs/loggers/*.yaml`): the first
names the run folder, the others write into it, and a logger stacked twice is kept once."""

from pathlib import Path
from typing import Any

from runkit import ConfigError
from runkit.extras import import_object

FOLDER_KEYS = ("save_dir", "name", "version")


def first_logger(logger: Any) -> Any:
    """The logger that names the run folder: the only one, or the first of a list."""
    if isinstance(logger, list):
        return logger[0] if logger else None
    return logger


def as_list(logger: Any) -> list[Any]:
    """`trainer.logger` as a list: none, one, or the stacked ones."""
    if logger is None or logger is False or logger is True:
        return []
    return list(logger) if isinstance(logger, list) else [logger]


def check_loggers(trainer: Any) -> None:
    """Run each logger class's `check_config(init_args)` before any is built: its errors reach the user as they
    are (raised inside a logger's __init__, jsonargparse would fold them into a type error for the whole list)."""
    for logger in as_list(trainer.get("logger")):
        class_path, init_args = getattr(logger, "class_path", None), getattr(logger, "init_args", None)
        if not isinstance(class_path, str) or "." not in class_path:
            continue
        try:
            check = getattr(import_object(class_path), "check_config", None)
        except (ImportError, AttributeError):
            continue  # jsonargparse names a bad class path itself
        if check is not None:
            check(init_args)


def runs_root(trainer: Any, fallback: str) -> Path:
    """Where a config's runs go, `save_dir/name` of its first logger (logs/cnn), for the folders of sweeps and
    repeats beside them; `logs/<fallback>` without one."""
    init_args = getattr(first_logger(trainer.get("logger")), "init_args", None) or {}
    return Path(init_args.get("save_dir") or "logs") / (init_args.get("name") or fallback)


def pin_run_dir(trainer: Any, folder: Path) -> None:
    """`--run_dir logs/cnn/sweeps/S/trial_3`: the first logger's save_dir, name and version, from the folder."""
    logger = first_logger(trainer.get("logger"))
    init_args = getattr(logger, "init_args", None)
    if init_args is None or "save_dir" not in init_args:
        raise ConfigError(f"--run_dir {folder} needs a logger with a folder (TensorBoard, CSV) first in trainer.logger")
    init_args.save_dir, init_args.name, init_args.version = str(folder.parent.parent), folder.parent.name, folder.name


def stack_loggers(trainer: Any) -> None:
    """Align the stacked loggers of a parsed `trainer` config on the first one's folder, and drop repeats.

    With several loggers each would number its own `version_N` when it first writes, and the second would
    see the first's new folder and take the next number. So the version is fixed here, before any logger
    exists: the first logger's own, else the next free one under its folder (how TensorBoard numbers it).
    """
    loggers = trainer.get("logger")
    if not isinstance(loggers, list):
        return
    kept: list[Any] = []
    for logger in loggers:
        if not any(_same(logger, seen) for seen in kept):
            kept.append(logger)
    trainer.logger = kept
    first = getattr(kept[0], "init_args", None) if kept else None
    if len(kept) < 2 or first is None or not first.get("save_dir"):
        return
    if first.get("version") is None:
        first.version = next_version(Path(first.save_dir) / (first.get("name") or "lightning_logs"))
    for logger in kept[1:]:
        init_args = getattr(logger, "init_args", None)
        if init_args is not None:
            for key in FOLDER_KEYS:
                if key in init_args:
                    init_args[key] = first.get(key)


def next_version(root: Path) -> int:
    """TensorBoard's and CSV's rule: one more than the highest `version_N` under `root`, or 0."""
    numbers = [int(p.name.removeprefix("version_")) for p in root.glob("version_*") if p.name[8:].isdigit()]
    return max(numbers, default=-1) + 1


def _same(a: Any, b: Any) -> bool:
    return getattr(a, "class_path", a) == getattr(b, "class_path", b) and _args(a) == _args(b)


def _args(logger: Any) -> dict[str, Any]:
    init_args = getattr(logger, "init_args", None)
    return dict(vars(init_args)) if init_args is not None else {}
