"""Link prediction's edge sets: one row per edge, the seeded split, and negative pairs (non-links).

The rule that keeps the task honest: a validation or test link is never in the graph that messages pass
over (the training links). Otherwise the GCN sees the very edge it is asked about and validation AUROC
reads near 1 while the model has learned nothing.

Negatives corrupt a positive's destination: `(src, k)` for a random node `k` that is not a link. PyG's
`negative_sampling` draws from the global RNG and may return fewer pairs than asked; these take a generator
and give exactly `r` per positive, so an epoch's negatives depend on the seed and the epoch alone: the same
after a resume, and the same shared out over any number of DDP processes.
"""

import torch
from torch_geometric.utils import to_undirected

MAX_ROUNDS = 100  # redraws for negatives that hit a link; a node linked to nearly every other keeps a few


class EdgeSet:
    """Directed pairs as sorted keys `src * num_nodes + dst`, to test many pairs for membership at once."""

    def __init__(self, edge_index: torch.Tensor, num_nodes: int) -> None:
        self.num_nodes = num_nodes
        self.keys = torch.unique(edge_index[0] * num_nodes + edge_index[1])  # sorted

    def __len__(self) -> int:
        return len(self.keys)

    def contains(self, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        """A bool per pair (any shape, `src` and `dst` alike)."""
        keys = src * self.num_nodes + dst
        if not len(self.keys):
            return torch.zeros_like(keys, dtype=torch.bool)
        at = torch.searchsorted(self.keys, keys).clamp(max=len(self.keys) - 1)
        return self.keys[at] == keys


def canonical_edges(edge_index: torch.Tensor, num_nodes: int, undirected: bool) -> tuple[torch.Tensor, ...]:
    """Which rows of `edge_index` `[2, E]` to keep: one per link, self-loops dropped.

    Undirected, `(a, b)` and `(b, a)` are one link (the first row kept); directed, only exact repeats merge.
    Returns the kept positions (in order), and masks `[E]` of the self-loops and of the duplicates dropped.
    """
    src, dst = edge_index
    loops = src == dst
    if undirected:
        src, dst = torch.minimum(src, dst), torch.maximum(src, dst)
    keys = (src * num_nodes + dst).masked_fill(loops, -1)
    unique, inverse = torch.unique(keys, return_inverse=True)
    positions = torch.arange(len(keys))
    first = torch.full((len(unique),), len(keys)).scatter_reduce(0, inverse, positions, "amin")
    kept = first[unique >= 0].sort().values
    duplicates = torch.ones(len(keys), dtype=torch.bool)
    duplicates[kept] = False
    return kept, loops, duplicates & ~loops


def message_edges(
    links: torch.Tensor, undirected: bool, weights: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The graph messages pass over, and its edges' weights: the training links, both ways when the graph is
    undirected (a link's weight on both)."""
    if not undirected:
        return links, weights
    if weights is None:
        return to_undirected(links), None
    return to_undirected(links, weights)


def corrupt_destinations(
    src: torch.Tensor, r: int, num_nodes: int, forbidden: EdgeSet, generator: torch.Generator
) -> torch.Tensor:
    """`[len(src), r]` destinations `k` such that `(src, k)` is neither in `forbidden` nor a self-loop."""
    dst = torch.randint(num_nodes, (len(src), r), generator=generator)
    source = src.unsqueeze(1).expand_as(dst)
    for _ in range(MAX_ROUNDS):
        bad = forbidden.contains(source, dst) | (dst == source)
        if not bool(bad.any()):
            break
        dst[bad] = torch.randint(num_nodes, (int(bad.sum()),), generator=generator)
    return dst


class EpochNegatives:
    """Training negatives, `r` per training link, drawn afresh each epoch from `seed` and the epoch alone.

    They avoid the training links only: the validation links are unknown to training (a validation link
    drawn as a training negative now and then is the price of not leaking them).
    """

    def __init__(self, src: torch.Tensor, r: int, num_nodes: int, forbidden: EdgeSet, seed: int) -> None:
        self.src, self.r, self.num_nodes, self.forbidden, self.seed = src, r, num_nodes, forbidden, seed
        self._epoch: int | None = None
        self._table = torch.empty(0, r, dtype=torch.long)

    def __call__(self, epoch: int) -> torch.Tensor:
        if epoch != self._epoch:
            generator = torch.Generator().manual_seed(self.seed * 100_003 + epoch)
            self._table = corrupt_destinations(self.src, self.r, self.num_nodes, self.forbidden, generator)
            self._epoch = epoch
        return self._table
