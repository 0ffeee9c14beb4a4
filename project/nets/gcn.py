"""A GCN for graph-level (pooled per graph) and node-level (one prediction per node) classification."""

from itertools import pairwise
from typing import Any, Literal

import torch
from runkit import ConfigError
from torch import nn
from torch_geometric.nn import (
    GATConv,
    GCNConv,
    GINConv,
    GINEConv,
    NNConv,
    SAGEConv,
    global_add_pool,
    global_max_pool,
    global_mean_pool,
)

from project.nets.gcn_layer import GCNLayer
from project.nets.init import init_weights

Readout = Literal["mean", "sum", "max"]
Activation = Literal["relu", "gelu", "elu"]
Conv = Literal["gcn", "native", "gin", "sage", "gat", "gine", "nnconv"]
POOLS = {"mean": global_mean_pool, "sum": global_add_pool, "max": global_max_pool}
ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "elu": nn.ELU}


GAT_HEADS = 4
WEIGHTED = ("gcn", "native")  # the convs whose messages take an edge weight (GIN and SAGE's third argument is a size)
BOND_AWARE = ("gine", "nnconv")  # the convs whose messages read each edge's features (a molecule's bonds)
EDGE_NETWORK_WIDTH = 64  # nnconv: the hidden width of the network that turns an edge's features into a weight matrix


def make_conv(kind: Conv, in_channels: int, out_channels: int, edge_dim: int = 0) -> nn.Module:
    """One message-passing layer from PyG (or our GCNLayer), `[N, in] -> [N, out]`.

    gcn: the mean of neighbours normalised by both degrees; the default, cheap, strong when node
        features carry the signal (citation graphs). It all but hides degree: see `data/graphs/features.py`.
    native: our GCNLayer (gcn_layer.py), equal to gcn; written out to teach the propagation rule.
    gin: the sum of neighbours through an MLP, as expressive as the 1-WL test: tells apart structures
        that gcn sees alike (counts, cycles). The choice when the class lives in the structure.
    sage: the mean of neighbours beside the node's own features, each with its own weights: robust to
        degree spread, and the usual layer under neighbour sampling.
    gat: neighbours weighted by learned attention (4 heads): for neighbours that matter unequally;
        the costliest of the first five.
    gine: gin with each edge's features added to its message (Hu et al. 2020): the cheap way to let bond
        types matter; the molecules' default.
    nnconv: each edge's features turned into the weight matrix of its message by a small network (the MPNN
        of Gilmer et al. 2017, MoleculeNet's "MPNN"): the richest use of edge features, and the costliest
        (an `in x out` matrix per edge); for few edge types that change chemistry a lot.
    gine and nnconv need edge features (`edge_dim`, linked from the data); the others ignore them.
    """
    if kind in ("gcn", "native"):
        return GCNConv(in_channels, out_channels) if kind == "gcn" else GCNLayer(in_channels, out_channels)
    if kind == "gin":
        mlp = nn.Sequential(nn.Linear(in_channels, out_channels), nn.ReLU(), nn.Linear(out_channels, out_channels))
        return GINConv(mlp, train_eps=True)
    if kind == "sage":
        return SAGEConv(in_channels, out_channels)
    if kind in BOND_AWARE and edge_dim < 1:
        raise ConfigError(
            f"conv {kind} reads edge features, and the data has none: use molecules (--data.source smiles), TU "
            "files with edge labels or attributes, or another conv (gin, gcn, sage, gat)"
        )
    if kind == "gine":
        mlp = nn.Sequential(nn.Linear(in_channels, out_channels), nn.ReLU(), nn.Linear(out_channels, out_channels))
        return GINEConv(mlp, train_eps=True, edge_dim=edge_dim)
    if kind == "nnconv":
        width = EDGE_NETWORK_WIDTH
        weights = nn.Sequential(nn.Linear(edge_dim, width), nn.ReLU(), nn.Linear(width, in_channels * out_channels))
        return NNConv(in_channels, out_channels, weights, aggr="mean")
    if kind == "gat":
        if out_channels % GAT_HEADS:
            raise ConfigError(f"conv gat: hidden_channels ({out_channels}) must divide into {GAT_HEADS} heads")
        return GATConv(in_channels, out_channels // GAT_HEADS, heads=GAT_HEADS)
    raise ConfigError(f"unknown conv {kind!r}: use gcn, native, gin, sage, gat, gine or nnconv")


class GCNEncoder(nn.Module):
    """`(x [N, F], edge_index [2, E], batch [N])` → node embeddings `[N, H]`, or `[graphs, H]` with a readout.

    `batch` says which graph each node belongs to (PyG's block-diagonal batching); the readout pools
    per graph with it, so graphs of a batch never mix. `conv` picks the layer (`make_conv`). `edge_dim`:
    the width of the edges' features `edge_attr [E, edge_dim]` (linked from the data; 0: none), which the
    bond-aware convs read and the others ignore.
    """

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int = 64,
        num_layers: int = 3,
        dropout: float = 0.0,
        activation: Activation = "relu",
        residual: bool = False,
        conv: Conv = "gcn",
        readout: Readout | None = "mean",
        edge_dim: int = 0,
    ) -> None:
        super().__init__()
        dims = [in_channels] + [hidden_channels] * num_layers
        self.convs = nn.ModuleList(make_conv(conv, a, b, edge_dim) for a, b in pairwise(dims))
        self.activation = ACTIVATIONS[activation]()
        self.dropout = nn.Dropout(dropout)
        self.residual = residual
        self.pool = POOLS[readout] if readout else None
        self.out_dim = hidden_channels
        self.conv = conv
        self.reads_edges = conv in BOND_AWARE

    def forward(
        self,
        x: torch.Tensor,
        edge_index: torch.Tensor,
        batch: torch.Tensor | None = None,
        edge_weight: torch.Tensor | None = None,
        edge_attr: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """`edge_weight` `[E]` scales each message (gcn and native convs only); `edge_attr` `[E, edge_dim]` feeds
        the bond-aware convs."""
        if edge_weight is not None and self.conv not in WEIGHTED:
            raise ConfigError(
                f"conv {self.conv} takes no edge weights, and the graph has them: use conv gcn, or drop the weights"
            )
        if self.reads_edges and edge_attr is None:
            raise ConfigError(f"conv {self.conv} reads edge features, and the batch has none (edge_attr)")
        for conv in self.convs:
            if self.reads_edges:
                h = conv(x, edge_index, edge_attr)
            else:
                h = conv(x, edge_index) if edge_weight is None else conv(x, edge_index, edge_weight)
            h = self.dropout(self.activation(h))
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

    def __init__(self, num_outputs: int, in_channels: int, **encoder: Any) -> None:
        super().__init__()
        self.features = GCNEncoder(in_channels=in_channels, **encoder)
        self.head = nn.Linear(self.features.out_dim, num_outputs)
        self.head.apply(init_weights)

    def forward(
        self,
        x: torch.Tensor,
        edge_index: torch.Tensor,
        batch: torch.Tensor | None = None,
        edge_attr: torch.Tensor | None = None,
    ) -> torch.Tensor:
        return self.head(self.features(x, edge_index, batch, edge_attr=edge_attr))
