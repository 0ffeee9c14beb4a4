"""Read a time series from a CSV: a time column, value columns, optional known covariate columns.

Every problem names the file, the line and the column: a value that is not a number or is empty,
timestamps out of order or repeated.
"""

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import torch

from project.data.values import read_number
from project.errors import DataError, MissingDataError

EMPTY = "fill or drop the row (a series needs every step)"


@dataclass(frozen=True)
class Series:
    times: list[str]  # as written in the file
    values: torch.Tensor  # [T, C] float
    covariates: torch.Tensor  # [T, K] float, K = 0 without covariates
    lines: list[int]  # the file line of each step

    def __len__(self) -> int:
        return len(self.times)


def read_series(path: str | Path, time_field: str, value_fields: list[str], covariate_fields: list[str]) -> Series:
    """The series in `path`, checked: sorted strictly increasing times, a number in every value and covariate."""
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        columns = [name.strip() for name in reader.fieldnames or []]
        reader.fieldnames = columns
        for field in [time_field, *value_fields, *covariate_fields]:
            if field not in columns:
                raise DataError(
                    f"{path}, line 1: no column {field!r} (columns: {', '.join(columns)}); "
                    "set data.time_field / data.value_fields / data.covariate_fields"
                )
        times, rows, lines = [], [], []
        previous: float | None = None
        for row in reader:
            line = reader.line_num
            stamp = (row[time_field] or "").strip()
            at = _time(stamp, path, line, time_field)
            if previous is not None and at <= previous:
                what = "repeats the previous timestamp" if at == previous else "is earlier than the previous one"
                raise DataError(f"{path}, line {line}: time {stamp!r} {what}: sort the rows by time, one per step")
            previous = at
            rows.append(
                [
                    read_number(
                        row.get(field), path, line, field, empty="fill or drop the row (a series needs every step)"
                    )
                    for field in [*value_fields, *covariate_fields]
                ]
            )
            times.append(stamp)
            lines.append(line)
    if not rows:
        raise DataError(f"{path}: no rows under the header")
    table = torch.tensor(rows, dtype=torch.float32)
    return Series(times, table[:, : len(value_fields)], table[:, len(value_fields) :], lines)


def _time(stamp: str, path: Path, line: int, field: str) -> float:
    """A timestamp as a number for ordering: ISO 8601 dates and times, or plain numbers (step indices)."""
    try:
        return float(stamp)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        raise DataError(
            f"{path}, line {line}: {field} {stamp!r} is neither a number nor an ISO date/time (2024-01-31 13:00)"
        ) from None
