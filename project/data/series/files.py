"""Read a time series from a CSV: a time column, value columns, optional known covariate columns.

Every problem names the file, the line and the column: a value that is not a number, an empty one (unless
`missing` fills it), timestamps out of order or repeated.
"""

import csv
import logging
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import torch

from project.data.values import read_number
from project.errors import DataError, MissingDataError

log = logging.getLogger(__name__)

Missing = Literal["error", "interpolate", "ffill"]
EMPTY = "fill or drop the row (a series needs every step), or let --data.missing interpolate or ffill fill it"


@dataclass(frozen=True)
class Series:
    times: list[str]  # as written in the file
    values: torch.Tensor  # [T, C] float
    covariates: torch.Tensor  # [T, K] float, K = 0 without covariates
    lines: list[int]  # the file line of each step

    def __len__(self) -> int:
        return len(self.times)


def read_series(
    path: str | Path, time_field: str, value_fields: list[str], covariate_fields: list[str], missing: Missing = "error"
) -> Series:
    """The series in `path`, checked: sorted strictly increasing times, a number in every value and covariate;
    empty cells refused, or filled by `missing` (`fill_gaps`)."""
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
                    math.nan
                    if missing != "error" and not (row.get(field) or "").strip()
                    else read_number(row.get(field), path, line, field, empty=EMPTY)
                    for field in [*value_fields, *covariate_fields]
                ]
            )
            times.append(stamp)
            lines.append(line)
    if not rows:
        raise DataError(f"{path}: no rows under the header")
    table = torch.tensor(rows, dtype=torch.float32)
    if missing != "error":
        table = fill_gaps(table, [*value_fields, *covariate_fields], lines, path, missing)
    return Series(times, table[:, : len(value_fields)], table[:, len(value_fields) :], lines)


def fill_gaps(table: torch.Tensor, fields: list[str], lines: list[int], path: Path, how: Missing) -> torch.Tensor:
    """Each column's empty cells (NaN) filled: `interpolate` draws a line between the values either side (by
    step, not by time: the rows are the steps) and carries the last value over a gap at the end; `ffill`
    carries the last value forward. A gap before a column's first value has nothing to fill from: refused."""
    filled = table.clone()
    for column, field in enumerate(fields):
        gaps = torch.isnan(filled[:, column]).nonzero().flatten()
        if not len(gaps):
            continue
        known = (~torch.isnan(filled[:, column])).nonzero().flatten()
        if not len(known) or gaps[0] < known[0]:
            raise DataError(
                f"{path}, line {lines[int(gaps[0])]}: {field} is empty and no earlier value fills it "
                f"(data.missing={how}): give it a value, or drop the rows before its first value"
            )
        values = filled[:, column]
        after = torch.searchsorted(known, gaps)  # the first known step after each gap step
        before, next_known = known[after - 1], known[after.clamp(max=len(known) - 1)]
        fill = values[before]
        if how == "interpolate":
            inside = after < len(known)  # a gap at the end has no value after it: carried forward
            share = (gaps - before).double() / (next_known - before).clamp(min=1).double()
            line = values[before] + share.float() * (values[next_known] - values[before])
            fill = torch.where(inside, line, fill)
        filled[gaps, column] = fill
        log.warning(
            "%s: %d empty %s cells filled (%s), the first at line %d", path, len(gaps), field, how, lines[int(gaps[0])]
        )
    return filled


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
