"""Lightning's CSV logger, made to survive a resume (configs/loggers/csv.yaml stacks it)."""

import csv
from pathlib import Path
from typing import Any

from lightning.pytorch.loggers import CSVLogger as LightningCSVLogger
from lightning.pytorch.utilities import rank_zero_only

from runkit.compat import continue_csv_columns


class CSVLogger(LightningCSVLogger):
    """`metrics.csv` in the run folder, which a resumed run (`--ckpt_path last`) continues: each step once.

    Lightning's writer (2.6) deletes an existing `metrics.csv` when it starts, and knows only the columns of
    what it logs itself. Here the file's rows and columns are read before it starts and written back; and at
    the first step the resumed run logs, the rows of that step and later go: a run killed after its last
    checkpoint had flushed them already, and logs them again from the checkpoint.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept: list[dict[str, str]] | None = None  # the existing file's rows, once read
        self._columns: list[str] = []
        self._trimmed = False

    @property
    def experiment(self) -> Any:
        if self._kept is not None or rank_zero_only.rank != 0:
            return super().experiment
        path = Path(self.log_dir) / "metrics.csv"
        self._kept, self._columns = read_rows(path)
        writer = super().experiment  # deletes the file
        if self._kept:
            write_rows(path, self._kept, self._columns)
            continue_csv_columns(writer, self._columns)
        return writer

    def log_metrics(self, metrics: dict[str, Any], step: int | None = None) -> None:
        if not self._trimmed and rank_zero_only.rank == 0:
            self._trimmed = True
            self.experiment  # noqa: B018 (reads the existing rows, if not yet)
            if self._kept and step is not None:
                kept = [row for row in self._kept if row.get("step") and int(row["step"]) < step]
                if len(kept) < len(self._kept):
                    write_rows(Path(self.log_dir) / "metrics.csv", kept, self._columns)
        super().log_metrics(metrics, step)


def read_rows(path: Path) -> tuple[list[dict[str, str]], list[str]]:
    if not path.is_file():
        return [], []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return list(reader), list(reader.fieldnames or [])


def write_rows(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
