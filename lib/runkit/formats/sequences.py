"""Read numeric sequences from a long table (CSV/TSV: a row per step), the UCR/UEA archive's `.ts` format, or
an `.npz` of ragged arrays. Every problem names the file and the line (or the array); nothing is modified.

Our own `.ts` reader rather than aeon's: aeon pins an older numpy through numba, and the format is a header of
`@` lines, then a line per sequence with its channels split by `:` and its steps by `,`, the label last.
"""

import csv
import io
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from runkit import DataError
from runkit.formats.text import _first, _read_utf8

SequenceMissing = Literal["refuse", "mean"]
FORMATS = (".csv", ".tsv", ".ts", ".npz")


@dataclass(frozen=True)
class NumericSequence:
    values: np.ndarray  # [steps, channels] float32; NaN where a value is missing
    label: str | None
    line: int  # the file's line where the sequence starts (.npz: its number, from 1)
    name: str  # its id in the file


@dataclass(frozen=True)
class SequenceFile:
    sequences: list[NumericSequence]
    channels: list[str]


def read_sequences(
    path: str | Path,
    sequence_field: str = "sequence",
    step_field: str | None = None,
    label_field: str | None = "label",
    value_fields: Sequence[str] | None = None,
    missing: SequenceMissing = "refuse",
) -> SequenceFile:
    """The sequences of `path` by its suffix. `label_field` None: no labels (prediction). `value_fields` None: every
    numeric column of a table but the id, step and label. `missing` refuse: an empty cell or `?` stops the read with
    its line; mean: kept as NaN, which the DataModule fills with the channel's training mean."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise DataError(f"{path}: unknown format {path.suffix!r}; use one of {', '.join(FORMATS)}")
    if suffix == ".npz":
        read = _read_npz(path, label_field is not None)
    elif suffix == ".ts":
        read = _read_ts(path, label_field is not None)
    else:
        delimiter = "," if suffix == ".csv" else "\t"
        read = _read_long(path, delimiter, sequence_field, step_field, label_field, value_fields)
    if not read.sequences:
        raise DataError(f"{path}: no sequences (a header alone?)")
    if missing == "refuse":
        for sequence in read.sequences:
            if np.isnan(sequence.values).any():
                step, channel = np.argwhere(np.isnan(sequence.values))[0]
                raise DataError(
                    f"{path}, line {sequence.line}: sequence {sequence.name!r} misses a value (channel "
                    f"{read.channels[channel]!r}, step {step + 1}); fill the gaps in the file, or set --data.missing "
                    "mean (each gap takes its channel's training mean)"
                )
    return read


def _number(cell: str) -> float:
    """A cell's value; empty or `?`: NaN (missing). Raises ValueError when it is no number."""
    cell = cell.strip()
    return math.nan if cell in ("", "?", "NaN", "nan") else float(cell)


def _read_long(
    path: Path,
    delimiter: str,
    sequence_field: str,
    step_field: str | None,
    label_field: str | None,
    value_fields: Sequence[str] | None,
) -> SequenceFile:
    reader = csv.reader(io.StringIO(_read_utf8(path), newline=""), delimiter=delimiter)
    header = [name.strip() for name in next(reader, [])]
    columns = {name: i for i, name in enumerate(header)}
    named = [sequence_field, *([step_field] if step_field else []), *([label_field] if label_field else [])]
    for field in [*named, *(value_fields or [])]:
        if field not in columns:
            raise DataError(
                f"{path}, line 1: no column {field!r} (columns: {', '.join(header)}); set data.sequence_field, "
                "data.step_field, data.label_field or data.value_fields"
            )
    rows, lines, start = [], [], reader.line_num + 1
    for values in reader:
        if values:
            if len(values) != len(header):
                raise DataError(f"{path}, line {start}: {len(values)} fields where the header has {len(header)}")
            rows.append(values)
            lines.append(start)
        start = reader.line_num + 1
    if value_fields is None:  # every other column whose cells are all numbers or empty
        value_fields = [name for name in header if name not in named and _numeric(rows, columns[name])]
        if not value_fields:
            raise DataError(f"{path}: no numeric column besides {', '.join(named)}; name them in data.value_fields")
    groups: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        groups.setdefault(row[columns[sequence_field]].strip(), []).append(index)
    sequences, empty = [], []
    for name, indices in groups.items():
        kept = []
        for index in indices:
            try:
                step = [_number(rows[index][columns[field]]) for field in value_fields]
            except ValueError:
                bad = next(f for f in value_fields if not _is_number(rows[index][columns[f]]))
                raise DataError(
                    f"{path}, line {lines[index]}: {rows[index][columns[bad]]!r} in column {bad!r} is no number"
                ) from None
            if not all(math.isnan(v) for v in step):
                kept.append((index, step))
            else:
                empty.append(lines[index])
        if not kept:
            raise DataError(
                f"{path}, line {lines[indices[0]]}: sequence {name!r} has no row with a value (its rows are at lines "
                f"{_first([lines[i] for i in indices])})"
            )
        if step_field:
            _check_steps(path, name, [(rows[i][columns[step_field]], lines[i]) for i, _ in kept])
        label = None
        if label_field:
            labels = [rows[i][columns[label_field]].strip() for i in indices]
            if len(set(labels)) > 1:
                other = next(i for i, label in zip(indices, labels, strict=True) if label != labels[0])
                raise DataError(
                    f"{path}, line {lines[other]}: sequence {name!r} changes its label (from {labels[0]!r} at line "
                    f"{lines[indices[0]]}); a sequence has one"
                )
            label = labels[0]
            if not label:
                raise DataError(f"{path}, line {lines[indices[0]]}: sequence {name!r} has an empty label")
        values = np.array([step for _, step in kept], dtype=np.float32)
        sequences.append(NumericSequence(values, label, lines[indices[0]], name))
    if empty:
        warnings.warn(
            f"{path}: skipped {len(empty)} row(s) without any value, at line(s) {_first(empty)}", stacklevel=3
        )
    return SequenceFile(sequences, list(value_fields))


def _is_number(cell: str) -> bool:
    try:
        _number(cell)
    except ValueError:
        return False
    return True


def _numeric(rows: list[list[str]], column: int) -> bool:
    return all(_is_number(row[column]) for row in rows)


def _check_steps(path: Path, name: str, steps: list[tuple[str, int]]) -> None:
    """A sequence's steps rise strictly in the file's order: a repeat or a step back is refused with its line."""
    previous: tuple[float, str, int] | None = None
    for cell, line in steps:
        try:
            step = float(cell)
        except ValueError:
            raise DataError(f"{path}, line {line}: step {cell!r} is no number") from None
        if previous is not None and step <= previous[0]:
            what = "repeats" if step == previous[0] else "comes before"
            raise DataError(
                f"{path}, line {line}: sequence {name!r}, step {cell.strip()} {what} step {previous[1].strip()} of "
                f"line {previous[2]}; sort the file by sequence and step, one row per step"
            )
        previous = (step, cell, line)


def _read_ts(path: Path, labelled: bool) -> SequenceFile:
    """The UCR/UEA `.ts` format (equal or unequal lengths, `?` for missing); time stamps are refused."""
    lines = _read_utf8(path).splitlines()
    header: dict[str, str] = {}
    classes: list[str] | None = None
    sequences: list[NumericSequence] = []
    width: int | None = None
    data = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not data:
            key, _, value = line.partition(" ")
            key = key.lower()
            header[key] = value.strip()
            if key == "@timestamps" and value.strip().lower() == "true":
                raise DataError(f"{path}, line {number}: time-stamped .ts files are not read; write a long CSV instead")
            if key == "@targetlabel" and value.strip().lower().startswith("true"):
                raise DataError(f"{path}, line {number}: a regression .ts file (@targetLabel); use a long CSV")
            if key == "@classlabel":
                flag, *names = value.split()
                classes = names if flag.lower() == "true" else None
            data = key == "@data"
            continue
        parts = line.split(":")
        label = None
        if classes is not None:
            label = parts.pop().strip()
            if labelled and label not in classes:
                raise DataError(f"{path}, line {number}: class {label!r} is not among @classLabel's {classes}")
        if width is None:
            width = len(parts)
            declared = header.get("@dimensions")
            if declared is not None and declared.isdigit() and int(declared) != width:
                raise DataError(f"{path}, line {number}: {width} channels where @dimensions says {declared}")
        if len(parts) != width:
            raise DataError(f"{path}, line {number}: {len(parts)} channels where the first sequence has {width}")
        try:
            channels = [[_number(v) for v in part.split(",")] for part in parts]
        except ValueError as error:
            raise DataError(f"{path}, line {number}: {error}") from None
        if len({len(c) for c in channels}) > 1:
            raise DataError(f"{path}, line {number}: its channels differ in length ({[len(c) for c in channels]})")
        values = np.array(channels, dtype=np.float32).T  # [steps, channels]
        sequences.append(NumericSequence(values, label if labelled else None, number, str(len(sequences) + 1)))
    if not data:
        raise DataError(f"{path}: no @data line: not a .ts file")
    if labelled and classes is None:
        raise DataError(f"{path}: @classLabel false, so the sequences have no labels to train on")
    return SequenceFile(sequences, [f"dim_{i}" for i in range(width or 0)])


def _read_npz(path: Path, labelled: bool) -> SequenceFile:
    """Ragged arrays: `values` [all steps, channels] (every sequence's steps one after the other), `lengths` [N],
    and `labels` [N] when labelled; `channels` [C] names them. Read without pickle (allow_pickle=False)."""
    try:
        arrays = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: not a readable .npz of plain arrays ({error})") from None
    needed = ["values", "lengths", *(["labels"] if labelled else [])]
    for name in needed:
        if name not in arrays:
            raise DataError(f"{path}: no array {name!r} (arrays: {', '.join(arrays.files)}); see docs/your-data.md")
    values, lengths = arrays["values"], arrays["lengths"]
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or lengths.ndim != 1:
        raise DataError(
            f"{path}: values must be [steps, channels] and lengths [sequences], got {values.shape}, {lengths.shape}"
        )
    if (lengths < 1).any() or int(lengths.sum()) != len(values):
        raise DataError(
            f"{path}: lengths must be >= 1 and add up to the {len(values)} rows of values "
            f"(they add up to {int(lengths.sum())})"
        )
    labels = arrays["labels"] if labelled else None
    if labels is not None and len(labels) != len(lengths):
        raise DataError(f"{path}: {len(labels)} labels for {len(lengths)} sequences")
    ends = np.cumsum(lengths)
    sequences = [
        NumericSequence(
            values[end - n : end].astype(np.float32), None if labels is None else str(labels[i]), i + 1, str(i + 1)
        )
        for i, (n, end) in enumerate(zip(lengths.tolist(), ends.tolist(), strict=True))
    ]
    channels = (
        [str(c) for c in arrays["channels"]] if "channels" in arrays else [f"dim_{i}" for i in range(values.shape[1])]
    )
    return SequenceFile(sequences, channels)
