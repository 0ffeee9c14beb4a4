"""A user's graph as CSV files: an edge list `src,dst[,weight]` and, optionally, node features `node,f1,f2,...`.

Node ids are strings of any kind (numbers, names, URLs); they are numbered in order of first appearance
and the names kept, so predictions are written with the user's own ids. Every problem names the file and
the line; nothing is dropped without a warning that counts it.
"""

import csv
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from runkit import DataError, MissingDataError
from runkit.formats.values import read_number


@dataclass
class EdgeList:
    """Rows of an edge list as read: endpoint names, the weight (1 without a weight column), the line."""

    src: list[str]
    dst: list[str]
    weight: list[float]
    line: list[int]
    path: Path
    weighted: bool = False  # the file has a weight column


def _rows(path: Path, first: str, optional: tuple[str, ...] = ()) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the data rows (with their line numbers) of a CSV file, every row as long as the header."""
    if not path.is_file():
        raise MissingDataError(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        try:
            header = [name.strip() for name in next(reader)]
        except StopIteration:
            raise DataError(f"{path}: the file is empty") from None
        rows = [(reader.line_num, [field.strip() for field in row]) for row in reader if any(f.strip() for f in row)]
    if not header or header[0] != first:
        raise DataError(f"{path}, line 1: the header must start with {first!r}, got {','.join(header)!r}")
    for number, row in rows:
        if len(row) != len(header):
            raise DataError(
                f"{path}, line {number}: {len(row)} field(s), the header has {len(header)} ({','.join(header)})"
            )
        if (empty := next((header[i] for i, field in enumerate(row) if not field), None)) is not None:
            raise DataError(f"{path}, line {number}: the field {empty!r} is empty")
    return header, rows


def read_edge_list(path: str | Path) -> EdgeList:
    """`src,dst` or `src,dst,weight` with that header; a weight must be a finite number above 0."""
    path = Path(path)
    header, rows = _rows(path, "src")
    if header[:2] != ["src", "dst"] or header[2:] not in ([], ["weight"]):
        raise DataError(f"{path}, line 1: the header must be src,dst or src,dst,weight, got {','.join(header)!r}")
    edges = EdgeList([], [], [], [], path, weighted=len(header) == 3)
    for number, row in rows:
        weight = 1.0
        if len(row) == 3:
            weight = read_number(row[2], path, number)
            if weight <= 0:
                raise DataError(f"{path}, line {number}: weight {row[2]!r}, but an edge's weight must be above 0")
        edges.src.append(row[0])
        edges.dst.append(row[1])
        edges.weight.append(weight)
        edges.line.append(number)
    if not rows:
        raise DataError(f"{path}: no edges below the header")
    return edges


def read_node_features(path: str | Path, index: dict[str, int]) -> torch.Tensor:
    """`node,f1,f2,...`: a row of numbers per node of `index` (name -> id); `[len(index), features]`.

    A node no edge names cannot be linked to anything the model learns: its row is skipped with a warning
    that counts such rows. A node of the graph without a row is an error.
    """
    path = Path(path)
    header, rows = _rows(path, "node")
    if len(header) < 2:
        raise DataError(f"{path}, line 1: the header must be node,<feature>,..., got {','.join(header)!r}")
    x = torch.full((len(index), len(header) - 1), math.nan)
    seen = torch.zeros(len(index), dtype=torch.bool)
    unknown: list[int] = []
    for number, row in rows:
        node = index.get(row[0])
        if node is None:
            unknown.append(number)
            continue
        if seen[node]:
            raise DataError(f"{path}, line {number}: node {row[0]!r} has a row already")
        x[node] = torch.tensor([read_number(field, path, number) for field in row[1:]])
        seen[node] = True
    if unknown:
        warnings.warn(
            f"{path}: {len(unknown)} row(s) name nodes that no edge names (first at line {unknown[0]}); skipped",
            stacklevel=2,
        )
    if not bool(seen.all()):
        missing = [name for name, node in index.items() if not seen[node]]
        raise DataError(
            f"{path}: {len(missing)} node(s) of the edge list have no features (e.g. {missing[0]!r}): "
            "give every node a row, or leave data.features_path out"
        )
    return x
