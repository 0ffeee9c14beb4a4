"""Link prediction's batches: pairs to score, and the graph around them that messages pass over.

A batch is a `Data` with `pairs` `[2, P, C]` (local node indices: row p holds the true link and its C - 1
negatives, all from the same source node), `y` `[P, C]` (1 for the link, 0 for the negatives), `x`,
`edge_index` and `n_id` (each local node's id in the whole graph). Full-batch, the graph is the whole
training graph; sampled, it is the neighbourhood of the pairs' endpoints (`NeighborSampler`).
"""

from collections.abc import Sequence

import torch
from runkit import EpochOrder, EpochRandomSampler
from torch.utils.data import Dataset
from torch_geometric.data import Data

from project.data.graphs.link_pairs import EdgeSet, EpochNegatives
from project.data.graphs.neighbor_sampling import NeighborSampler

CANDIDATE_PAIRS = 2**22  # pairs scored per top-K batch: queries x all nodes, bounded in memory


class EpochTagged(Sequence[tuple[int, int]]):
    """An epoch's order whose items are `(epoch, index)`, made as they are read (not a list of 10^7 tuples)."""

    def __init__(self, epoch: int, order: list[int]) -> None:
        self.epoch, self.order = epoch, order

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, i: int) -> tuple[int, int]:
        return self.epoch, self.order[i]


class EpochTaggedSampler(EpochRandomSampler):
    """`EpochRandomSampler` whose items are `(epoch, index)`: the collate, in whichever worker process it runs,
    then draws that epoch's training negatives."""

    def __iter__(self) -> EpochOrder[tuple[int, int]]:
        return EpochOrder(lambda epoch: EpochTagged(epoch, self._order(epoch)), self)


class PairSet(Dataset):
    """A split's pairs by position; the loader passes the sampler's items through to `collate`, which builds
    each batch (the base DataModule's loaders use a dataset's own `collate`)."""

    def __init__(self, size: int, collate: "PairBatches | CandidateBatches") -> None:
        self.size, self.collate = size, collate

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, item: int | tuple[int, int]) -> int | tuple[int, int]:
        return item


class MessageGraph:
    """The graph a batch's pairs are scored over: all of it, or the sampled neighbourhood of their endpoints."""

    def __init__(
        self,
        x: torch.Tensor,
        edge_index: torch.Tensor,
        edge_weight: torch.Tensor | None,
        sampler: NeighborSampler | None,
    ) -> None:
        self.x, self.edge_index, self.edge_weight, self.sampler = x, edge_index, edge_weight, sampler

    def around(self, pairs: torch.Tensor, **attributes: torch.Tensor) -> Data:
        if self.sampler is None:
            if self.edge_weight is not None:
                attributes["edge_weight"] = self.edge_weight
            n_id = torch.arange(len(self.x))
            return Data(x=self.x, edge_index=self.edge_index, n_id=n_id, pairs=pairs, **attributes)
        nodes, local = torch.unique(pairs, return_inverse=True)
        sub = self.sampler(nodes)  # the seeds come first, in order: node nodes[i] is local node i
        if self.edge_weight is not None:
            attributes["edge_weight"] = self.edge_weight[sub.e_id]
        return Data(x=sub.x, edge_index=sub.edge_index, n_id=sub.n_id, pairs=local, **attributes)


class PairBatches:
    """Collate: positions of positive links `[2, P]` → a batch of those links beside their negatives.

    `negatives` is fixed per link (validation, test: `[P, C - 1]`) or `EpochNegatives` (training). Items
    tagged with their epoch take that epoch's; untagged ones (a loader Lightning rebuilt with its own
    sampler, as `overfit_batches` does) take epoch 0's, fixed.
    """

    def __init__(
        self, graph: MessageGraph, positives: torch.Tensor, negatives: torch.Tensor | EpochNegatives, targets: bool
    ) -> None:
        self.graph, self.positives, self.negatives, self.targets = graph, positives, negatives, targets

    def __call__(self, items: Sequence[int | tuple[int, int]]) -> Data:
        tagged = isinstance(items[0], tuple)
        ids = torch.tensor([item[1] for item in items] if tagged else list(items))
        negatives = self.negatives
        if isinstance(negatives, EpochNegatives):
            negatives = negatives(items[0][0] if tagged else 0)
        src, dst = self.positives[:, ids]
        columns = torch.cat([dst.unsqueeze(1), negatives[ids]], dim=1)
        pairs = torch.stack([src.unsqueeze(1).expand_as(columns), columns])
        if not self.targets:
            return self.graph.around(pairs)
        y = torch.zeros(columns.shape)
        y[:, 0] = 1.0
        return self.graph.around(pairs, y=y)


class CandidateBatches:
    """Collate for top-K: positions of query nodes → each query paired with every node, and a mask `known`
    `[Q, N]` of the pairs not to recommend (links the graph has, and the node itself)."""

    def __init__(self, graph: MessageGraph, queries: torch.Tensor, known: EdgeSet, top_k: int) -> None:
        self.graph, self.queries, self.known, self.top_k = graph, queries, known, top_k

    def __call__(self, items: Sequence[int]) -> Data:
        src = self.queries[torch.tensor(list(items))]
        num_nodes = self.known.num_nodes
        sources = src.unsqueeze(1).expand(-1, num_nodes)
        candidates = torch.arange(num_nodes).expand(len(src), -1)
        known = self.known.contains(sources, candidates) | (sources == candidates)
        return self.graph.around(torch.stack([sources, candidates]), known=known, top_k=torch.tensor(self.top_k))

    @staticmethod
    def queries_per_batch(num_nodes: int, batch_size: int) -> int:
        return max(1, min(batch_size, CANDIDATE_PAIRS // num_nodes))
