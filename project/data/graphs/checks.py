"""Checks that turn a broken graph into an error naming the graph and the problem."""

import torch
from runkit import DataError
from torch_geometric.data import Data


def check_graph(data: Data, where: str, num_classes: int | None = None) -> None:
    """Raise `ValueError` for what would otherwise fail later, deep inside a scatter, or silently."""
    if data.num_nodes is None or data.num_nodes == 0:
        raise DataError(f"{where}: the graph has no nodes")
    edge_index = data.edge_index
    if edge_index.dtype != torch.long:
        raise DataError(f"{where}: edge_index must be int64 (torch.long), got {edge_index.dtype}")
    if edge_index.dim() != 2 or edge_index.shape[0] != 2:
        raise DataError(f"{where}: edge_index must have shape [2, num_edges], got {list(edge_index.shape)}")
    if edge_index.numel() and (edge_index.min() < 0 or edge_index.max() >= data.num_nodes):
        raise DataError(
            f"{where}: edge_index holds node ids from {int(edge_index.min())} to {int(edge_index.max())}, "
            f"but the graph has {data.num_nodes} nodes (ids 0..{data.num_nodes - 1})"
        )
    if data.x is not None and not torch.isfinite(data.x).all():
        rows = (~torch.isfinite(data.x)).any(dim=1).nonzero().flatten()
        raise DataError(f"{where}: NaN or inf in the node features of {len(rows)} node(s), first node {int(rows[0])}")
    y = data.y
    if num_classes is not None and y is not None and y.numel() and (y.min() < 0 or y.max() >= num_classes):
        bad = int(y[(y < 0) | (y >= num_classes)][0])
        raise DataError(f"{where}: label {bad} is out of range for {num_classes} classes (0..{num_classes - 1})")
