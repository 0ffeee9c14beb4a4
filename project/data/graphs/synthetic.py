"""Synthetic graphs whose labels come from structure, never from node features.

- `structure_graphs`: class = the family that generated the graph (random, preferential
  attachment, small world, grid), at equal sizes and mean degree. Node features are constant
  (or pure noise), so a model that ignores the edges sees the same input for every class.
- `community_graph`: one graph from a stochastic block model; node class = community, node
  features = the community's centre plus noise.
"""

from typing import Literal

import torch
from torch_geometric.data import Data
from torch_geometric.utils import stochastic_blockmodel_graph, to_undirected

FAMILIES = ("random", "preferential", "small_world", "grid")


def _random(n: int, gen: torch.Generator) -> list[tuple[int, int]]:
    # Erdős–Rényi with mean degree 4.
    upper = torch.triu(torch.rand(n, n, generator=gen) < 4 / (n - 1), diagonal=1)
    return [tuple(e) for e in upper.nonzero().tolist()]


def _preferential(n: int, gen: torch.Generator) -> list[tuple[int, int]]:
    # Barabási–Albert, 2 edges per new node: old nodes are picked in proportion to their degree (hubs).
    edges, ends = [(0, 1), (0, 2), (1, 2)], [0, 1, 0, 2, 1, 2]
    for node in range(3, n):
        targets: set[int] = set()
        while len(targets) < 2:
            targets.add(ends[int(torch.randint(len(ends), (1,), generator=gen))])
        for t in targets:
            edges.append((t, node))
            ends += [t, node]
    return edges


def _small_world(n: int, gen: torch.Generator) -> list[tuple[int, int]]:
    # Watts–Strogatz: a ring where each node knows its 2 nearest on each side, 10 % of edges rewired.
    edges = []
    for i in range(n):
        for step in (1, 2):
            j = (i + step) % n
            if float(torch.rand(1, generator=gen)) < 0.1:
                j = int(torch.randint(n, (1,), generator=gen))
            if j != i:
                edges.append((i, j))
    return edges


def _grid(n: int, gen: torch.Generator) -> list[tuple[int, int]]:
    rows = int(torch.randint(3, max(4, int(n**0.5) + 1), (1,), generator=gen))
    cols = max(n // rows, 2)
    return [(r * cols + c, r * cols + c + 1) for r in range(rows) for c in range(cols - 1)] + [
        (r * cols + c, (r + 1) * cols + c) for r in range(rows - 1) for c in range(cols)
    ]


_GENERATORS = {"random": _random, "preferential": _preferential, "small_world": _small_world, "grid": _grid}


def structure_graphs(
    num_graphs: int,
    min_nodes: int = 20,
    max_nodes: int = 80,
    features: Literal["constant", "random"] = "constant",
    seed: int = 0,
) -> list[Data]:
    """Graphs of four families with the same sizes and about the same mean degree (4); class = family.

    What differs is structure: how degrees spread (hubs or none), clustering, regularity. Node
    features are constant (or pure noise): a model that ignores the edges stays at chance.
    """
    gen = torch.Generator().manual_seed(seed)
    graphs = []
    for i in range(num_graphs):
        label = i % len(FAMILIES)
        n = int(torch.randint(min_nodes, max_nodes + 1, (1,), generator=gen))
        edges = _GENERATORS[FAMILIES[label]](n, gen)
        n = max(n, 1 + max(max(e) for e in edges))  # a grid rounds its size
        edge_index = to_undirected(torch.tensor(edges, dtype=torch.long).t(), num_nodes=n)
        x = torch.ones(n, 1) if features == "constant" else torch.randn(n, 8, generator=gen)
        graphs.append(Data(x=x, edge_index=edge_index, y=torch.tensor([label]), num_nodes=n))
    order = torch.randperm(num_graphs, generator=gen).tolist()
    return [graphs[i] for i in order]


def community_graph(
    num_nodes: int = 2000,
    num_communities: int = 4,
    p_in: float = 0.01,
    p_out: float = 0.002,
    num_features: int = 16,
    noise: float = 2.0,
    seed: int = 0,
) -> Data:
    """A stochastic block model graph of equal communities; `noise` blurs the features' centres."""
    gen = torch.Generator().manual_seed(seed)
    sizes = [num_nodes // num_communities] * num_communities
    sizes[-1] += num_nodes - sum(sizes)
    probs = torch.full((num_communities, num_communities), p_out).fill_diagonal_(p_in)
    with torch.random.fork_rng():  # PyG samples the edges from the global RNG: seed it, then restore it
        torch.manual_seed(seed)
        edge_index = stochastic_blockmodel_graph(sizes, probs)
    y = torch.repeat_interleave(torch.arange(num_communities), torch.tensor(sizes))
    centres = torch.randn(num_communities, num_features, generator=gen)
    x = centres[y] + noise * torch.randn(num_nodes, num_features, generator=gen)
    return Data(x=x, edge_index=edge_index, y=y)


# part: regression
def assortativity_graphs(num_graphs: int, min_nodes: int = 20, max_nodes: int = 80, seed: int = 0) -> list[Data]:
    """Graphs whose target is their degree assortativity: do hubs link to hubs (up to +1) or to leaves (down to -1)?

    Each graph starts from preferential attachment (hubs and leaves), then double-edge swaps rewire it: two
    edges (a, b), (c, d) become (a, d), (c, b) or (a, c), (b, d). A swap keeps every node's degree, so the
    degrees alone, and the graph's size, say nothing of the target: only how the edges join them. Each
    graph draws its own share of swaps that pair high with high degree (the rest pair high with low).
    `y` is `[1, 1]`: one target column per graph.
    """
    gen = torch.Generator().manual_seed(seed)
    graphs = []
    for _ in range(num_graphs):
        n = int(torch.randint(min_nodes, max_nodes + 1, (1,), generator=gen))
        edges = [tuple(sorted(e)) for e in _preferential(n, gen)]
        assortative = float(torch.rand(1, generator=gen))
        edges = _rewire(edges, n, 2 * len(edges), assortative, gen)
        edge_index = to_undirected(torch.tensor(edges, dtype=torch.long).t(), num_nodes=n)
        y = torch.tensor([[degree_assortativity(edge_index, n)]])
        graphs.append(Data(x=None, edge_index=edge_index, y=y, num_nodes=n))
    return graphs


# part: regression
def _rewire(
    edges: list[tuple[int, int]], n: int, swaps: int, assortative: float, gen: torch.Generator
) -> list[tuple[int, int]]:
    degree = [0] * n
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    present = set(edges)
    for _ in range(swaps):
        i, j = torch.randint(len(edges), (2,), generator=gen).tolist()
        ends = sorted({*edges[i], *edges[j]}, key=lambda v: degree[v])
        if i == j or len(ends) < 4:
            continue
        low, low2, high2, high = ends
        if float(torch.rand(1, generator=gen)) < assortative:
            new = [(high, high2), (low, low2)]  # alike with alike
        else:
            new = [(high, low), (high2, low2)]  # hubs with leaves
        new = [tuple(sorted(e)) for e in new]
        if any(e in present for e in new):
            continue
        present -= {edges[i], edges[j]}
        present |= set(new)
        edges[i], edges[j] = new
    return edges


# part: regression
def degree_assortativity(edge_index: torch.Tensor, num_nodes: int) -> float:
    """Pearson's correlation of the degrees at the two ends of each edge (both directions listed)."""
    degree = torch.bincount(edge_index[0], minlength=num_nodes).double()
    ends = degree[edge_index]
    centred = ends - ends.mean()
    spread = centred.pow(2).mean()
    return float((centred[0] * centred[1]).mean() / spread) if spread > 0 else 0.0
