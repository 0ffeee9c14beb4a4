"""`monitor: auto`, resolved once: the task's metric, direction and perfect score, written into the parsed config
before any callback is built, so early stopping and the checkpoints agree and the saved config.yaml shows them."""

from typing import Any

from jsonargparse import Namespace
from lightning.pytorch.callbacks import ModelCheckpoint

from runkit import Multiclass, Task
from runkit.callbacks.early_stopping import AUTO
from runkit.extras import import_object


def task_class(model: Any) -> type[Task]:
    """The task class a `model:` config builds (parsed, or as its YAML file reads): its `task:`, else the model
    class's `default_task` (multiclass for a LightningModule that is not one of the template's)."""

    def get(node: Any, key: str) -> Any:
        return node.get(key) if isinstance(node, Namespace | dict) else None

    task_path, model_path = get(get(get(model, "init_args"), "task"), "class_path"), get(model, "class_path")
    if task_path:
        return import_object(task_path)
    return getattr(import_object(model_path), "default_task", Multiclass) if model_path else Multiclass


def resolve_monitor(config: Any) -> None:
    """Fill in `early_stopping` and every ModelCheckpoint's `monitor: auto` / `mode: null` from the task."""
    if not config.get("model"):
        return
    task = task_class(config.model)
    stopping = config.get("early_stopping")
    if stopping is not None:
        automatic = stopping.monitor == AUTO
        if automatic:
            stopping.monitor = task.monitor
        stopping.mode = stopping.mode or task.mode
        if stopping.stopping_threshold == AUTO:
            stopping.stopping_threshold = task.perfect if automatic else None
    for callback in config.get("trainer", Namespace()).get("callbacks") or []:
        init_args = getattr(callback, "init_args", None)
        if init_args is None or init_args.get("monitor") != AUTO:
            continue
        if not issubclass(import_object(callback.class_path), ModelCheckpoint):
            continue
        init_args.monitor, init_args.mode = task.monitor, task.mode
        if init_args.get("filename") is None:
            # auto_insert_metric_name is off: "val/acc=" in a file name would make a folder.
            init_args.filename = f"epoch{{epoch:02d}}-{task.monitor.rsplit('/', 1)[-1]}{{{task.monitor}:.4f}}"
