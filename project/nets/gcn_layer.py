"""A graph convolution written out: H' = D^-1/2 (A + I) D^-1/2 H W, on an edge list, never a dense N×N.

This file is the template's lesson in message passing; `torch_geometric.nn.GCNConv` does the same
(a test holds the two equal) and is what the GCN uses by default.
"""

import torch
from torch import nn


def gcn_norm(
    edge_index: torch.Tensor, edge_weight: torch.Tensor | None, num_nodes: int, add_self_loops: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Edges with self-loops and their symmetric normalisation weight w_ij / sqrt(deg_i * deg_j).

    As PyG's `gcn_norm`: an existing self-loop keeps its weight and every other node gets one of
    weight 1; duplicate edges are not merged, so each one counts (in the degree and in the sum).
    """
    src, dst = edge_index
    weight = torch.ones(src.numel(), device=src.device) if edge_weight is None else edge_weight
    if add_self_loops:
        is_loop = src == dst
        loop_weight = torch.ones(num_nodes, dtype=weight.dtype, device=weight.device)
        loop_weight[src[is_loop]] = weight[is_loop]
        nodes = torch.arange(num_nodes, device=src.device)
        src, dst = torch.cat([src[~is_loop], nodes]), torch.cat([dst[~is_loop], nodes])
        weight = torch.cat([weight[~is_loop], loop_weight])
    degree = torch.zeros(num_nodes, dtype=weight.dtype, device=weight.device).index_add_(0, dst, weight)
    inv_sqrt = degree.pow(-0.5)
    inv_sqrt = inv_sqrt.masked_fill(torch.isinf(inv_sqrt), 0.0)  # an isolated node: 1/sqrt(0) is 0, not inf
    return torch.stack([src, dst]), inv_sqrt[src] * weight * inv_sqrt[dst]


class GCNLayer(nn.Module):
    """Node features `[N, in]` and edges `[2, E]` (source → target) → `[N, out]`."""

    def __init__(self, in_channels: int, out_channels: int, add_self_loops: bool = True, bias: bool = True) -> None:
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels)) if bias else None
        self.add_self_loops = add_self_loops
        nn.init.xavier_uniform_(self.lin.weight)

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, edge_weight: torch.Tensor | None = None
    ) -> torch.Tensor:
        (src, dst), norm = gcn_norm(edge_index, edge_weight, x.shape[0], self.add_self_loops)
        h = self.lin(x)  # transform first: fewer channels to move along the edges when out < in
        messages = norm.unsqueeze(-1) * h[src]  # one message per edge: [E, out]
        out = torch.zeros_like(h).index_add_(0, dst, messages)  # each target sums its incoming messages
        return out + self.bias if self.bias is not None else out
