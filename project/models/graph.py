"""The GCN family: graph-level batches are PyG `Batch`es; node-level ones are one graph with masks; link-level
ones are pairs of nodes beside the graph around them."""

from collections.abc import Sequence
from typing import ClassVar

import torch
from lightning.pytorch.utilities import rank_zero_warn
from runkit import ConfigError, LinkPrediction, Task, TaskModule, offers
from torch import nn
from torch_geometric.data import Batch, Data

_FEATURE_LINK = {"num_features": ("net.init_args.in_channels",)}
# Graph level: the edges' feature width too (molecules' bonds, TU edge labels), read by the bond-aware convs.
_EDGE_LINK = {"num_edge_features": ("net.init_args.edge_dim",)}


def traceable(net: nn.Module, encoder: nn.Module | None) -> nn.Module:
    """`net` if torch.export can trace it; GATConv cannot be."""
    if getattr(encoder, "conv", None) == "gat":
        raise ConfigError(
            "conv gat cannot be exported to ONNX: PyG's GATConv first removes the graph's self-loops with a mask, "
            "and how many edges remain depends on edge_index's values, which torch.export cannot trace. Export "
            "the weights only (--format safetensors), or train with another conv (gcn, native, gin, sage)."
        )
    return net


class GraphModel(TaskModule):
    """One prediction per graph, pooled with `batch.batch`; logged per graph (`batch.num_graphs`)."""

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {**TaskModule.data_links, **_FEATURE_LINK, **_EDGE_LINK}
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {
        "x": {0: "nodes"},
        "edge_index": {1: "edges"},
        "batch": {0: "nodes"},
        "edge_attr": {0: "edges"},  # only for a network that reads edge features
    }

    def setup(self, stage: str) -> None:
        super().setup(stage)
        datamodule = getattr(self.trainer, "datamodule", None)
        reads_edges = getattr(getattr(self.net, "features", None), "reads_edges", True)
        if stage == "fit" and getattr(datamodule, "num_edge_features", 0) and not reads_edges:
            rank_zero_warn(
                f"the graphs' edges carry {datamodule.num_edge_features} features (bond types, edge labels) and "
                f"conv {self.net.features.conv} ignores them: --model.net.conv gine (or nnconv) reads them"
            )

    def exportable_net(self) -> nn.Module:
        return traceable(self.net, getattr(self.net, "features", None))

    def unpack(self, batch: Batch) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, int]:
        inputs = (batch.x, batch.edge_index, batch.batch)
        if getattr(getattr(self.net, "features", None), "reads_edges", False):
            inputs += (batch.get("edge_attr"),)
        return inputs, batch.get("y"), batch.num_graphs


class NodeModel(TaskModule):
    """One prediction per node; only the nodes of the running stage are scored.

    Full-batch: the whole graph every step, scored on `train_mask`, `val_mask` or `test_mask`.
    Neighbour mini-batches: the first `batch.batch_size` nodes are the seeds, the rest only context.
    """

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {**TaskModule.data_links, **_FEATURE_LINK}
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"x": {0: "nodes"}, "edge_index": {1: "edges"}}

    def exportable_net(self) -> nn.Module:
        return traceable(self.net, getattr(self.net, "features", None))

    def unpack(self, batch: Data) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, int]:
        return (batch.x, batch.edge_index), batch.y, batch.num_nodes  # every node: `outputs` keeps the stage's

    def outputs(self, batch: Data) -> tuple[torch.Tensor, torch.Tensor, int]:
        output, target, batch_size = super().outputs(batch)
        rows = self.scored_rows(batch)
        return (output, target, batch_size) if rows is None else (output[rows], target[rows], int(rows.sum()))

    def scored_rows(self, batch: Data) -> torch.Tensor | None:
        """The nodes the running stage scores (its mask, or a neighbour sample's seeds); None: all (predict)."""
        if hasattr(batch, "batch_size"):  # a neighbour sample: seeds first
            return torch.arange(batch.num_nodes, device=batch.y.device) < batch.batch_size
        if self.trainer.predicting:
            return None
        if self.trainer.training:
            return batch.train_mask
        return batch.test_mask if self.trainer.testing else batch.val_mask  # validation and sanity check


class LinkModel(TaskModule):
    """A score per pair of nodes (runkit/tasks/link.py); a batch is pairs and the graph around them
    (project/data/graphs/link_batches.py). `predict` writes each row's `top_k` best-scored pairs: for a file
    of pairs, each pair; for query nodes, their most likely new links (pairs the graph has are masked out).
    """

    default_task: ClassVar[type[Task]] = LinkPrediction
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        "num_outputs": ("num_outputs",),
        "num_features": ("net.init_args.in_channels",),
        "num_nodes": ("net.init_args.num_nodes",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {
        "x": {0: "nodes"},
        "edge_index": {1: "edges"},
        "pairs": {1: "pairs", 2: "candidates"},
        "n_id": {0: "nodes"},
        "edge_weight": {0: "edges"},  # only for a weighted graph
    }

    def setup(self, stage: str) -> None:
        super().setup(stage)
        graph = offers(self.trainer.datamodule).graph
        if stage != "fit" or graph is None or getattr(self.net.features, "embedding", None) is not None:
            return
        if bool((graph.x == graph.x[:1]).all()):
            rank_zero_warn(
                "every node has the same features (none were given) and the network learns no node embedding: the "
                "GCN then tells nodes apart by structure alone, and a dot product of look-alike embeddings "
                "ranks poorly. Give --model.net.embedding_dim 32 (or node features: --data.features_path)."
            )

    def exportable_net(self) -> nn.Module:
        return traceable(self.net, getattr(getattr(self.net, "features", None), "gcn", None))

    def unpack(self, batch: Data) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, int]:
        inputs = (batch.x, batch.edge_index, batch.pairs, batch.n_id, batch.get("edge_weight"))
        return inputs, batch.get("y"), batch.pairs.shape[1]

    def predict_step(self, batch: Data, batch_idx: int) -> dict[str, torch.Tensor]:
        scores = self(*self.unpack(batch)[0])
        if "known" in batch:
            scores = scores.masked_fill(batch.known, float("-inf"))
        k = min(int(batch.top_k), scores.shape[1]) if "top_k" in batch else scores.shape[1]
        best, column = scores.topk(k, dim=1)
        src, dst = (batch.n_id[side.gather(1, column)] for side in batch.pairs)
        return {"src": src, "dst": dst, **self.task.predict(best)}

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        # The user's own node ids, not the numbers they were given.
        return self.task.prediction_table(predictions, self.trainer.datamodule.node_names)
