"""Each validation epoch's metrics in a JSON file: how `project.sweep` and `project.repeat` read the result of a
fit they ran in another process, without parsing event files."""

import json
import math
from pathlib import Path
from typing import Any

import lightning.pytorch as L

from runkit import write_atomically


class EpochRecord(L.Callback):
    """Writes `{epoch: {metric: value}}` for every `val/` metric to `path` after each validation (rank 0).

    Keyed by epoch, so a run resumed after a kill that re-validates an epoch (exactly, from its checkpoint)
    overwrites that epoch with the same numbers instead of adding one. Written atomically: a reader never sees
    half a file.
    """

    def __init__(self, path: str) -> None:
        self.path = Path(path)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.sanity_checking or trainer.fast_dev_run or not trainer.is_global_zero:
            return
        epochs = read_epochs(self.path)
        epochs[trainer.current_epoch] = {
            name: float(value)
            for name, value in trainer.callback_metrics.items()
            if name.startswith("val/") and value.numel() == 1
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({str(k): v for k, v in sorted(epochs.items())}, indent=1)
        write_atomically(self.path, lambda partial: partial.write_text(text))


def read_epochs(path: Path) -> dict[int, dict[str, float]]:
    """The epochs an `EpochRecord` wrote; none if the run has not validated yet."""
    if not path.is_file():
        return {}
    return {int(epoch): values for epoch, values in json.loads(path.read_text()).items()}


def best_value(epochs: dict[int, dict[str, Any]], metric: str, mode: str) -> tuple[float, int] | None:
    """The best finite value of `metric` over the epochs and its epoch (mode `max` or `min`), or None."""
    seen = [(values[metric], epoch) for epoch, values in epochs.items() if math.isfinite(values.get(metric, math.nan))]
    if not seen:
        return None
    return max(seen) if mode == "max" else min(seen)
