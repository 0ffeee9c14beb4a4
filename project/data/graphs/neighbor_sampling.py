"""Neighbour sampling for node-level tasks and link prediction on graphs too large for one full-batch step.

PyG's `NeighborLoader` does this, but needs `pyg-lib` or `torch-sparse`, which have no wheels for
current torch on PyPI. This is the same idea in plain torch, with the same batch layout: the seed
nodes come first, `batch.batch_size` of them, and only they are scored.
"""

import torch
from torch_geometric.data import Data


class NeighborSampler:
    """Collate function: seed node ids `[B]` → the sampled subgraph around them, as a `Data`.

    Per hop, each frontier node keeps up to `num_neighbors[hop]` of its in-neighbours (the nodes
    whose messages it receives), drawn uniformly without replacement; -1 keeps all of them.
    """

    def __init__(self, graph: Data, num_neighbors: list[int]) -> None:
        self.graph, self.num_neighbors = graph, num_neighbors
        src, dst = graph.edge_index
        order = torch.argsort(dst, stable=True)
        self.sources = src[order]  # in-neighbours of node v: sources[rowptr[v] : rowptr[v + 1]]
        self.edge_ids = order  # the position in graph.edge_index of each of them
        self.rowptr = torch.zeros(graph.num_nodes + 1, dtype=torch.long)
        self.rowptr[1:] = torch.bincount(dst, minlength=graph.num_nodes).cumsum(0)

    def __call__(self, seeds: list[torch.Tensor] | torch.Tensor) -> Data:
        seeds = (seeds if isinstance(seeds, torch.Tensor) else torch.stack(seeds)).flatten()  # a DataLoader's list
        local = torch.full((self.graph.num_nodes,), -1, dtype=torch.long)
        local[seeds] = torch.arange(len(seeds))
        nodes, frontier, edges, e_ids = [seeds], seeds, [], []
        for k in self.num_neighbors:
            src, dst, e_id = self._sample(frontier, k)
            edges.append(torch.stack([src, dst]))
            e_ids.append(e_id)
            new = src[local[src] < 0].unique()
            local[new] = torch.arange(new.numel()) + sum(len(n) for n in nodes)
            nodes.append(new)
            frontier = new
        n_id = torch.cat(nodes)
        edge_index = local[torch.cat(edges, dim=1)]
        g = self.graph
        y = g.y[n_id] if g.y is not None else None
        e_id = torch.cat(e_ids)  # each sampled edge's position in the graph's edge_index (for its weight)
        return Data(x=g.x[n_id], y=y, edge_index=edge_index, n_id=n_id, e_id=e_id, batch_size=len(seeds))

    def _sample(self, frontier: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        start, count = self.rowptr[frontier], self.rowptr[frontier + 1] - self.rowptr[frontier]
        owner = torch.repeat_interleave(torch.arange(len(frontier)), count)
        first = torch.repeat_interleave(count.cumsum(0) - count, count)
        position = start[owner] + torch.arange(owner.numel()) - first  # every candidate edge
        if k >= 0:
            # A random key per candidate; within each owner, keep the k smallest: uniform, no repeats.
            by_key = torch.argsort(torch.rand(owner.numel()))
            grouped = by_key[torch.argsort(owner[by_key], stable=True)]
            rank = torch.arange(owner.numel()) - first
            keep = grouped[rank < k]
            owner, position = owner[keep], position[keep]
        return self.sources[position], frontier[owner], self.edge_ids[position]
