"""Read time series from a CSV: a time column, value columns, optional known covariate columns, and optionally a
series id column, for many series in one file.

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

from runkit import DataError, MissingDataError
from runkit.formats.values import read_number

log = logging.getLogger(__name__)

SeriesMissing = Literal["error", "interpolate", "ffill"]
EMPTY = "fill or drop the row (a series needs every step), or let --data.missing interpolate or ffill fill it"


@dataclass(frozen=True)
class Series:
    times: list[str]  # as written in the file
    values: torch.Tensor  # [T, C] float
    covariates: torch.Tensor  # [T, K] float, K = 0 without covariates
    lines: list[int]  # the file line of each step

    def __len__(self) -> int:
        return len(self.times)


def read_panel(
    path: str | Path,
    series_field: str | None,
    time_field: str,
    value_fields: list[str],
    covariate_fields: list[str],
    missing: SeriesMissing = "error",
) -> dict[str, Series]:
    """Every series in `path` by its id in `series_field` (in the order the ids first appear; the rows of one id
    need not be together), one series `""` without the field. Each is checked: strictly increasing times, a number
    in every value and covariate; empty cells refused, or filled by `missing` (`fill_gaps`)."""
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"{path}: no such file")
    fields = [*value_fields, *covariate_fields]
    grouped: dict[str, tuple[list[str], list[list[float]], list[int]]] = {}
    last: dict[str, float] = {}  # each series' latest time so far
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        columns = [name.strip() for name in reader.fieldnames or []]
        reader.fieldnames = columns
        for field in [*([series_field] if series_field else []), time_field, *fields]:
            if field not in columns:
                raise DataError(
                    f"{path}, line 1: no column {field!r} (columns: {', '.join(columns)}); set data.series_field / "
                    "data.time_field / data.value_fields / data.covariate_fields"
                )
        for row in reader:
            line = reader.line_num
            name = (row[series_field] or "").strip() if series_field else ""
            if series_field and not name:
                raise DataError(f"{path}, line {line}: {series_field} is empty: every row names its series")
            times, rows, lines = grouped.setdefault(name, ([], [], []))
            stamp = (row[time_field] or "").strip()
            at = _time(stamp, path, line, time_field)
            if name in last and at <= last[name]:
                what = "repeats the previous timestamp" if at == last[name] else "is earlier than the previous one"
                which, fix = (f" of series {name!r}", "by series and time") if series_field else ("", "by time")
                raise DataError(f"{path}, line {line}: time {stamp!r} {what}{which}: sort the rows {fix}, one per step")
            last[name] = at
            rows.append(
                [
                    math.nan
                    if missing != "error" and not (row.get(field) or "").strip()
                    else read_number(row.get(field), path, line, field, empty=EMPTY)
                    for field in fields
                ]
            )
            times.append(stamp)
            lines.append(line)
    if not grouped:
        raise DataError(f"{path}: no rows under the header")
    panel, filled = {}, {field: [0, math.inf] for field in fields}  # per column: cells filled, the first line
    for name, (times, rows, lines) in grouped.items():
        table = torch.tensor(rows, dtype=torch.float32)
        if missing != "error":
            table, gaps = fill_gaps(table, fields, lines, path, missing)
            for field, (count, first) in gaps.items():
                filled[field] = [filled[field][0] + count, min(filled[field][1], first)]
        panel[name] = Series(times, table[:, : len(value_fields)], table[:, len(value_fields) :], lines)
    for field, (count, first) in filled.items():
        if count:
            log.warning("%s: %d empty %s cells filled (%s), the first at line %d", path, count, field, missing, first)
    return panel


def fill_gaps(
    table: torch.Tensor, fields: list[str], lines: list[int], path: Path, how: SeriesMissing
) -> tuple[torch.Tensor, dict[str, tuple[int, int]]]:
    """Each column's empty cells (NaN) filled: `interpolate` draws a line between the values either side (by
    step, not by time: the rows are the steps) and carries the last value over a gap at the end; `ffill`
    carries the last value forward. A gap before a column's first value has nothing to fill from: refused.
    Also, per column that had gaps: how many cells were filled, and the line of the first."""
    filled, counts = table.clone(), {}
    for column, field in enumerate(fields):
        gaps = torch.isnan(filled[:, column]).nonzero().flatten()
        if not len(gaps):
            continue
        counts[field] = (len(gaps), lines[int(gaps[0])])
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
    return filled, counts


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
