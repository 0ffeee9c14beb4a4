"""Lightning's W&B logger, offline by default, writing into the run folder, with a run that a resumed fit
continues (configs/loggers/wandb_offline.yaml stacks it); and a reader of an offline run's records."""

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lightning.pytorch.loggers import WandbLogger as LightningWandbLogger
from lightning.pytorch.utilities import rank_zero_only

from runkit.extras import require_extra
from runkit.trackers.reattach import run_folder, unlogged

STEP_KEY = "trainer/global_step"  # Lightning logs the step as this metric, W&B's x-axis for every other one


class WandbLogger(LightningWandbLogger):
    """W&B run `version_N` in project `name` (the family), its files in the run folder: `logs/cnn/version_3/wandb/`.

    Offline (the default) nothing leaves the machine; `wandb sync logs/cnn/version_3/wandb/offline-run-*`
    uploads it later. A fit resumed from a checkpoint gets the W&B run id the checkpoint saved (`id`, set by
    the CLI: runkit/trackers/reattach.py): it continues that run, in a new offline folder of the same id,
    and skips the steps the earlier folders already hold (an exact resume logs the same values again).

    Args:
        name, version, save_dir: set from the first logger's run folder (runkit/trackers/stacking.py).
        project: the W&B project; default: `name`.
        **kwargs: Lightning's WandbLogger's and `wandb.init`'s (entity, tags, group...).
    """

    resume_key = "id"

    def __init__(
        self,
        name: str | None = None,
        version: int | str | None = None,
        save_dir: str = "logs",
        project: str | None = None,
        id: str | None = None,
        offline: bool = True,
        prefix: str = "",
        **kwargs: Any,
    ) -> None:
        require_extra("wandb", extra="wandb")
        folder, run = run_folder(save_dir, name, version)
        self._earlier = logged_steps(folder / "wandb", id) if id is not None else {}
        folder.mkdir(parents=True, exist_ok=True)
        self._metric_prefix = prefix
        super().__init__(
            prefix=prefix,
            name=run,
            save_dir=str(folder),
            id=id or uuid.uuid4().hex[:8],  # W&B's form: 8 of [0-9a-z]
            offline=offline,
            project=project or name,
            **kwargs,
        )

    @staticmethod
    def check_config(init_args: Any) -> None:
        require_extra("wandb", extra="wandb")

    @property
    def resume_value(self) -> str | None:
        return self.version

    @rank_zero_only
    def log_metrics(self, metrics: Any, step: int | None = None) -> None:
        if self._earlier and step is not None:
            metrics = unlogged(metrics, step, self._earlier, self._metric_prefix, self.LOGGER_JOIN_CHAR)
            if not metrics:
                return
        super().log_metrics(metrics, step)


def logged_steps(wandb_dir: Path, run_id: str) -> dict[str, int]:
    """Per metric, the last `trainer/global_step` the offline folders of run `run_id` under `wandb_dir` hold."""
    last: dict[str, int] = {}
    # offline-run-<second>-<id>/, or offline-run-<second>-<id>-1/ where two starts fell in one second
    for run_file in sorted(wandb_dir.glob(f"offline-run-*/run-{run_id}.wandb")):
        for row in history(run_file):
            if STEP_KEY in row:
                for key in row:
                    last[key] = max(last.get(key, -1), int(row[STEP_KEY]))
    return last


def history(run_file: Path) -> list[dict[str, Any]]:
    """The rows `run.log` wrote to an offline run's `.wandb` file, each a dict of the logged values."""
    from wandb.proto import wandb_internal_pb2

    rows = []
    for data in records(run_file):
        record = wandb_internal_pb2.Record()
        record.ParseFromString(data)
        if record.WhichOneof("record_type") == "history":
            items = record.history.item
            rows.append({item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in items})
    return rows


BLOCK = 32768  # W&B's transaction log: LevelDB's log format, 32 KiB blocks, after a 7-byte header
HEADER = b":W&B"


def records(path: Path) -> Iterator[bytes]:
    """The records of a `.wandb` file: each a chunk with a 7-byte prefix (CRC, length, type: full, or the
    first, middle and last part of one split across blocks); a block's tail too short for a prefix is padding."""
    data = path.read_bytes()
    if not data.startswith(HEADER):
        raise ValueError(f"{path} is not a W&B run file (no {HEADER!r} header)")
    position, pending = 7, b""
    while position + 7 <= len(data):
        left = BLOCK - position % BLOCK
        if left < 7:
            position += left
            continue
        length, kind = int.from_bytes(data[position + 4 : position + 6], "little"), data[position + 6]
        chunk = data[position + 7 : position + 7 + length]
        position += 7 + length
        if kind == 0:  # zeros: the rest of a block the writer left
            position += BLOCK - position % BLOCK if position % BLOCK else 0
        elif kind == 1:
            yield chunk
        elif kind == 2:
            pending = chunk
        elif kind == 3:
            pending += chunk
        elif kind == 4:
            yield pending + chunk
