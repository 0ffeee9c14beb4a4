"""A GCN link predictor: node embeddings from `GCNEncoder`, then a decoder that scores pairs of them."""

from typing import Any, Literal

import torch
from runkit import ConfigError
from torch import nn

from project.nets.gcn import GCNEncoder
from project.nets.init import init_weights


class DotDecoder(nn.Module):
    """`z_src · z_dst / sqrt(H)`: symmetric, no weights of its own. The scaling keeps an untrained score near 0
    (the loss starts at ln 2) as attention's does."""

    def forward(self, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        return (src * dst).sum(dim=-1) / src.shape[-1] ** 0.5


class MLPDecoder(nn.Module):
    """An MLP on the elementwise product `z_src * z_dst`: still symmetric, but free to weigh each dimension and
    to learn that unlike nodes link (which a dot product cannot score high)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(channels, channels), nn.ReLU(), nn.Linear(channels, 1))
        self.mlp.apply(init_weights)

    def forward(self, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        return self.mlp(src * dst).squeeze(-1)


class BilinearDecoder(nn.Module):
    """`z_srcᵀ W z_dst`: asymmetric, so `a -> b` may score apart from `b -> a` (directed graphs). W starts at
    the identity over sqrt(H): the scaled dot product, which training may then bend."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.eye(channels) / channels**0.5)

    def forward(self, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        return ((src @ self.weight) * dst).sum(dim=-1)


Decoder = Literal["dot", "mlp", "bilinear"]


def make_decoder(kind: Decoder, channels: int) -> nn.Module:
    """Scores pairs of `channels`-wide embeddings: `(src [..., H], dst [..., H]) -> [...]`."""
    if kind == "dot":
        return DotDecoder()
    if kind == "mlp":
        return MLPDecoder(channels)
    if kind == "bilinear":
        return BilinearDecoder(channels)
    raise ConfigError(f"unknown decoder {kind!r}: use dot, mlp or bilinear")


class NodeEncoder(nn.Module):
    """`GCNEncoder` over the node features (beside a learned embedding per node when there is one: for graphs
    whose nodes have no features, or too few), then a linear map.

    The map matters: the encoder ends in a ReLU, and a dot product of two non-negative vectors is never
    negative, so no pair could score below probability 0.5 and the non-links' loss would stay above ln 2.
    """

    def __init__(self, gcn: GCNEncoder, embedding: nn.Embedding | None) -> None:
        super().__init__()
        self.gcn, self.embedding = gcn, embedding
        self.out_dim = gcn.out_dim
        self.project = nn.Linear(gcn.out_dim, gcn.out_dim)

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, n_id: torch.Tensor, edge_weight: torch.Tensor | None = None
    ) -> torch.Tensor:
        if self.embedding is not None:
            x = torch.cat([x, self.embedding(n_id)], dim=-1)
        return self.project(self.gcn(x, edge_index, edge_weight=edge_weight))


class GCNLinkPredictor(nn.Module):
    """`(x [N, F], edge_index [2, E], pairs [2, P, C], n_id [N], edge_weight [E])` → a logit per pair `[P, C]`.

    `edge_index` is the graph messages pass over (the training links only), `edge_weight` its links' weights
    if it has any; `pairs` indexes the nodes of this batch (`n_id` are their ids in the whole graph, for the
    embeddings). Every other argument is
    `GCNEncoder`'s (`hidden_channels`, `num_layers`, `conv`, ...), passed on by name.

    Args:
        in_channels, num_nodes: linked from the data.
        decoder: dot (default), mlp (`MLPDecoder`): both symmetric, for undirected graphs; bilinear
            (`BilinearDecoder`) for directed ones.
        embedding_dim: a learned embedding per node, concatenated to its features; 0: none.
    """

    def __init__(
        self,
        in_channels: int,
        num_nodes: int,
        decoder: Decoder = "dot",
        embedding_dim: int = 0,
        **encoder: Any,
    ) -> None:
        super().__init__()
        embedding = nn.Embedding(num_nodes, embedding_dim) if embedding_dim > 0 else None
        gcn = GCNEncoder(in_channels=in_channels + embedding_dim, readout=None, **encoder)
        self.features = NodeEncoder(gcn, embedding)
        self.head = make_decoder(decoder, self.features.out_dim)

    def forward(
        self,
        x: torch.Tensor,
        edge_index: torch.Tensor,
        pairs: torch.Tensor,
        n_id: torch.Tensor,
        edge_weight: torch.Tensor | None = None,
    ) -> torch.Tensor:
        z = self.features(x, edge_index, n_id, edge_weight)
        return self.head(z[pairs[0]], z[pairs[1]])
