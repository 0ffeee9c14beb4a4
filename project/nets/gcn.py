"""A GCN for graph-level (pooled per graph) and node-level (one prediction per node) classification."""

from itertools import pairwise
from typing import Any, Literal

import torch
from torch import nn
from torch_geometric.nn import GCNConv, global_add_pool, global_max_pool, global_mean_pool

from project.nets.gcn_layer import GCNLayer
from project.nets.init import init_weights

Readout = Literal["mean", "sum", "max"]
Activation = Literal["relu", "gelu", "elu"]
Conv = Literal["pyg", "native"]  # PyG's GCNConv, or our GCNLayer (gcn_layer.py), equal to it
POOLS = {"mean": global_mean_pool, "sum": global_add_pool, "max": global_max_pool}
ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "elu": nn.ELU}


class GCNEncoder(nn.Module):
    """`(x [N, F], edge_index [2, E], batch [N])` → node embeddings `[N, H]`, or `[graphs, H]` with a readout.

    `batch` says which graph each node belongs to (PyG's block-diagonal batching); the readout pools
    per graph with it, so graphs of a batch never mix.
    """

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int = 64,
        num_layers: int = 3,
        dropout: float = 0.0,
        activation: Activation = "relu",
        residual: bool = False,
        conv: Conv = "pyg",
        readout: Readout | None = "mean",
    ) -> None:
        super().__init__()
        layer = GCNConv if conv == "pyg" else GCNLayer
        dims = [in_channels] + [hidden_channels] * num_layers
        self.convs = nn.ModuleList(layer(a, b) for a, b in pairwise(dims))
        self.activation = ACTIVATIONS[activation]()
        self.dropout = nn.Dropout(dropout)
        self.residual = residual
        self.pool = POOLS[readout] if readout else None
        self.out_dim = hidden_channels

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor | None = None) -> torch.Tensor:
        for conv in self.convs:
            h = self.dropout(self.activation(conv(x, edge_index)))
            # A residual needs equal widths: every layer but a first one that changes the width.
            x = x + h if self.residual and h.shape == x.shape else h
        if self.pool is None:
            return x
        if batch is None:  # one graph
            batch = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        return self.pool(x, batch)


class GCN(nn.Module):
    """`GCNEncoder` then a linear head: logits per graph (`readout` set) or per node (`readout: null`).

    Every other argument is the encoder's (`hidden_channels`, `num_layers`, `readout`, ...), passed on by
    name: the CLI and `--print_config` list them from `GCNEncoder`'s signature, so an option is added there once.
    """

    def __init__(self, num_classes: int, in_channels: int, **encoder: Any) -> None:
        super().__init__()
        self.features = GCNEncoder(in_channels=in_channels, **encoder)
        self.head = nn.Linear(self.features.out_dim, num_classes)
        self.head.apply(init_weights)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor | None = None) -> torch.Tensor:
        return self.head(self.features(x, edge_index, batch))
