"""The GCN family: graph-level batches are PyG `Batch`es; node-level ones are one graph with masks."""

from typing import ClassVar

import torch
from torch_geometric.data import Batch, Data

from project.models.base import TaskModule

_FEATURE_LINK = {"num_features": ("net.init_args.in_channels",)}


class GraphModel(TaskModule):
    """One prediction per graph, pooled with `batch.batch`; logged per graph (`batch.num_graphs`)."""

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {**TaskModule.data_links, **_FEATURE_LINK}

    def unpack(self, batch: Batch) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, int]:
        return (batch.x, batch.edge_index, batch.batch), batch.y, batch.num_graphs


class NodeModel(TaskModule):
    """One prediction per node; only the nodes of the running stage are scored.

    Full-batch: the whole graph every step, scored on `train_mask`, `val_mask` or `test_mask`.
    Neighbour mini-batches: the first `batch.batch_size` nodes are the seeds, the rest only context.
    """

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {**TaskModule.data_links, **_FEATURE_LINK}

    def unpack(self, batch: Data) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, int]:
        scored = self.scored_rows(batch)
        return (batch.x, batch.edge_index), batch.y, int(scored.sum()) if scored is not None else batch.num_nodes

    def scored_rows(self, batch: Data) -> torch.Tensor | None:
        if hasattr(batch, "batch_size"):  # a neighbour sample: seeds first
            return torch.arange(batch.num_nodes, device=batch.y.device) < batch.batch_size
        if self.trainer.predicting:
            return None
        if self.trainer.training:
            return batch.train_mask
        return batch.test_mask if self.trainer.testing else batch.val_mask  # validation and sanity check
