"""Real graph datasets read from disk with PyG's readers, never downloaded.

PyG downloads whatever raw file is missing; here there is no network. So check the files first,
and fail naming each missing file and the folder it goes in, before PyG creates any folder.
"""

import math
from pathlib import Path
from typing import Literal

from runkit import DataError, MissingDataError
from torch_geometric.datasets import Planetoid, TUDataset

PLANETOID_PARTS = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def _require(folder: Path, processed: Path, files: list[str], where_from: str) -> None:
    if processed.is_dir() and any(processed.iterdir()):
        return  # PyG reads its processed cache and needs no raw file
    missing = [name for name in files if not (folder / name).is_file()]
    if missing:
        raise MissingDataError(
            f"missing {', '.join(missing)} in {folder}/ (nothing can be downloaded here): "
            f"copy the raw files there, from {where_from}"
        )


def load_tu(
    data_dir: str, name: str, targets: Literal["graph_labels", "graph_attributes"] = "graph_labels"
) -> TUDataset:
    """`data_dir/<name>/raw/<name>_A.txt, _graph_indicator.txt`, and the targets: `_graph_labels.txt` (a class
    per graph) or `_graph_attributes.txt` (real values per graph, comma-separated), + optional node files.

    Continuous node attributes (`_node_attributes.txt`) become features too, beside one-hot node labels; edge
    labels (`_edge_labels.txt`, one-hot) and attributes (`_edge_attributes.txt`) become `edge_attr`, what the
    bond-aware convs (gine, nnconv) read.
    PyG reads `_graph_attributes.txt` in place of the labels whenever it is there.
    """
    root = Path(data_dir) / name
    files = [f"{name}_{part}.txt" for part in ("A", "graph_indicator", targets)]
    _require(root / "raw", root / "processed", files, "https://chrsmrrs.github.io/datasets/ (TU format)")
    if not (root / "processed").is_dir():
        check_tu_files(root / "raw", name, targets)
    return TUDataset(data_dir, name, use_node_attr=True, use_edge_attr=True)


def check_tu_files(raw: Path, name: str, targets: str = "graph_labels") -> None:
    """The checks PyG's reader skips: a line cut short, a node id past the last node, a target file whose rows
    are not one per graph or not numbers. Named by file and line, before PyG turns them into a silently
    dropped edge, a shifted target or an IndexError deep in its processing."""
    nodes = _integers(raw / f"{name}_graph_indicator.txt", per_line=1)
    graphs = max((ids[0] for _, ids in nodes), default=0)
    if targets == "graph_attributes":
        path = raw / f"{name}_graph_attributes.txt"
        rows = _numbers(path)
        if len(rows) != graphs:
            raise DataError(
                f"{path}: {len(rows)} rows, but {name}_graph_indicator.txt numbers {graphs} graphs: one row per graph"
            )
    for number, (source, target) in _integers(raw / f"{name}_A.txt", per_line=2):
        for node in (source, target):
            if not 1 <= node <= len(nodes):
                raise DataError(
                    f"{raw / f'{name}_A.txt'}, line {number}: node {node}, but {name}_graph_indicator.txt lists "
                    f"{len(nodes)} nodes (ids 1..{len(nodes)})"
                )


def _integers(path: Path, per_line: int) -> list[tuple[int, tuple[int, ...]]]:
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != per_line or not all(field.lstrip("-").isdigit() for field in fields):
            raise DataError(f"{path}, line {number}: expected {per_line} comma-separated integer(s), got {line!r}")
        rows.append((number, tuple(int(field) for field in fields)))
    return rows


def _numbers(path: Path) -> list[list[float]]:
    """Comma-separated real values, the same count on every line."""
    rows: list[list[float]] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = [field.strip() for field in line.split(",")]
        try:
            values = [float(field) for field in fields]
        except ValueError:
            bad = next(field for field in fields if not _is_number(field))
            raise DataError(f"{path}, line {number}: {bad!r} is not a number (got {line!r})") from None
        if not all(math.isfinite(v) for v in values):
            raise DataError(f"{path}, line {number}: NaN or inf in {line!r}")
        if rows and len(values) != len(rows[0]):
            raise DataError(f"{path}, line {number}: {len(values)} values, line 1 has {len(rows[0])}")
        rows.append(values)
    return rows


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def load_planetoid(data_dir: str, name: str) -> Planetoid:
    """`data_dir/<name>/raw/ind.<name lower>.{x,tx,allx,y,ty,ally,graph,test.index}`."""
    root = Path(data_dir) / name
    files = [f"ind.{name.lower()}.{part}" for part in PLANETOID_PARTS]
    _require(root / "raw", root / "processed", files, "the Planetoid repository (kimiyoung/planetoid, data/)")
    return Planetoid(data_dir, name)
