"""A resumed fit continues its tracker runs: each tracker's run id goes into every checkpoint, and a fit
started from a checkpoint hands it back to the same logger before the logger exists."""

from pathlib import Path
from typing import Any

from runkit.trackers.stacking import as_list

CHECKPOINT_KEY = "tracker_runs"  # {logger class path: {init argument: value}}


def saved_runs(loggers: list[Any]) -> dict[str, dict[str, str]]:
    """What each tracker that can continue a run needs for it (`resume_key`, `resume_value`)."""
    runs = {}
    for logger in loggers:
        key, value = getattr(logger, "resume_key", None), getattr(logger, "resume_value", None)
        if key and value:
            runs[f"{type(logger).__module__}.{type(logger).__qualname__}"] = {key: str(value)}
    return runs


def run_name(version: int | str | None) -> str | None:
    """A tracker run's name from the first logger's version: `version_3`, or a named version as it is."""
    return version if isinstance(version, str) else f"version_{version}" if version is not None else None


def run_folder(save_dir: str, name: str | None, version: int | str | None) -> tuple[Path, str | None]:
    """The run folder a tracker shares with the first logger (`logs/cnn/version_3`, TensorBoard's rule: no name is
    `lightning_logs`), and the tracker run's name."""
    run = run_name(version)
    return Path(save_dir) / (name or "lightning_logs") / (run or ""), run


def unlogged(metrics: dict[str, Any], step: int, logged: dict[str, int], prefix: str, join: str) -> dict[str, Any]:
    """The metrics of `step` that a continued tracker run does not hold yet: `logged` is each metric's last
    step in the run, keyed as the tracker stores it (with the logger's prefix)."""
    return {k: v for k, v in metrics.items() if step > logged.get(f"{prefix}{join}{k}" if prefix else k, -1)}


def reattach(trainer: Any, checkpoint: dict[str, Any]) -> list[str]:
    """Set the saved run ids on the parsed `trainer` config's loggers of the same class, unless the command
    line gave one; returns what was set, as `class: key=value`."""
    saved = checkpoint.get(CHECKPOINT_KEY) or {}
    done = []
    for logger in as_list(trainer.get("logger")):
        init_args = getattr(logger, "init_args", None)
        for key, value in saved.get(getattr(logger, "class_path", ""), {}).items():
            if init_args is not None and init_args.get(key) is None:
                init_args[key] = value
                done.append(f"{logger.class_path.rsplit('.', 1)[-1]}: {key}={value}")
    return done
