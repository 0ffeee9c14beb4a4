"""Node classification data: one graph, train/val/test node masks, full-batch or neighbour batches."""

from typing import Literal

import torch
from runkit import BaseDataModule, ConfigError, loader_generator
from torch.utils.data import DataLoader, Sampler
from torch_geometric.data import Data
from torch_geometric.datasets import KarateClub
from torchdata.stateful_dataloader import StatefulDataLoader

from project.data.graphs.checks import check_graph
from project.data.graphs.files import load_planetoid
from project.data.graphs.neighbor_sampling import NeighborSampler
from project.data.graphs.synthetic import community_graph


def _the_graph(items: list[Data]) -> Data:
    return items[0]


class NodeClassificationDataModule(BaseDataModule):
    """One graph, as whole-graph batches or as sampled neighbourhoods of `batch_size` seed nodes.

    `loader: full` gives the whole graph as every batch (one step per epoch, one process).
    `loader: neighbor` samples `num_neighbors[hop]` in-neighbours per node and hop around each batch
    of seed nodes (one hop per GCN layer); only the seeds are scored. It runs under DDP: the seeds
    are what Lightning's distributed sampler shares out.

    Args:
        source: `karate` (Zachary's karate club, shipped inside PyG), `sbm` (a generated community
            graph), or `planetoid` (Cora, CiteSeer, PubMed read from `data_dir/<name>/raw/`).
        val_fraction, test_fraction: for graphs without their own masks (karate, sbm); by `seed`.
        train_per_class: labelled training nodes per class for sbm (semi-supervised, as Planetoid).
        sbm_nodes, sbm_communities, sbm_p_in, sbm_p_out, sbm_noise: the generated graph.
        batch_size: seed nodes per neighbour batch (unused by `full`).
    """

    request_reader = "project.serving.graphs.NodeReader"  # how `project.serve` reads its requests

    folds_refused = "its splits are masks over one graph; repeat it over seeds instead"

    # Training and validation share the one graph and differ by mask: not a leak (see Diagnostics).
    split_check = "masks"

    def __init__(
        self,
        source: Literal["karate", "sbm", "planetoid"] = "sbm",
        name: str = "Cora",
        data_dir: str = "data/planetoid",
        loader: Literal["full", "neighbor"] = "full",
        num_neighbors: tuple[int, ...] = (10, 10),
        val_fraction: float = 0.2,
        test_fraction: float = 0.4,
        train_per_class: int = 20,
        sbm_nodes: int = 2000,
        sbm_communities: int = 4,
        sbm_p_in: float = 0.01,
        sbm_p_out: float = 0.002,
        sbm_noise: float = 2.0,
        seed: int = 0,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        self.save_hyperparameters()
        if source == "planetoid":
            graph = load_planetoid(data_dir, name)[0]
        elif source == "karate":
            graph = _with_split(KarateClub()[0], None, val_fraction, test_fraction, seed)
        else:
            graph = community_graph(sbm_nodes, sbm_communities, sbm_p_in, sbm_p_out, noise=sbm_noise, seed=seed)
            graph = _with_split(graph, train_per_class, val_fraction, test_fraction, seed)
        self.graph, self.loader, self.source = graph, loader, source
        if loader == "neighbor":
            self.collate_fn = NeighborSampler(graph, list(num_neighbors))
        self.num_classes = int(graph.y.max()) + 1
        self.num_features = graph.num_node_features
        self.class_names = [str(c) for c in range(self.num_classes)]

    def setup(self, stage: str | None = None) -> None:
        if self.trainer is not None and self.trainer.world_size > 1 and self.loader == "full":
            raise ConfigError(
                "loader 'full' trains on the whole graph in one process; with DDP every process would "
                "repeat the same step. Run it on one device (--trainer.devices 1)."
            )
        g = self.graph
        check_graph(g, f"{self.source} graph", self.num_classes)
        if self.loader == "full":
            self.train_set = self.val_set = self.test_set = self.predict_set = [g]
        else:  # the datasets are seed node ids; the sampler builds each batch's subgraph
            self.train_set, self.val_set, self.test_set = (
                m.nonzero().flatten() for m in (g.train_mask, g.val_mask, g.test_mask)
            )
            self.predict_set = torch.arange(g.num_nodes)

    def train_dataloader(self) -> DataLoader:
        if self.loader == "neighbor":
            return super().train_dataloader()
        return self._loader(self._require(self.train_set, "train"), train=True)  # one graph: no drop_last

    def _loader(self, dataset, train: bool, batch_sampler: Sampler[list[int]] | None = None) -> DataLoader:
        if self.loader == "neighbor":
            return super()._loader(dataset, train, batch_sampler)
        return StatefulDataLoader(dataset, batch_size=1, collate_fn=_the_graph, generator=loader_generator())


def _with_split(graph: Data, train_per_class: int | None, val_fraction: float, test_fraction: float, seed: int) -> Data:
    """Seeded masks. With `train_per_class`, that many training nodes per class, val and test from the rest.

    Without it (karate), PyG's own `train_mask` is kept and the other nodes split into val and test.
    """
    gen = torch.Generator().manual_seed(seed)
    n = graph.num_nodes
    if train_per_class is None:
        train = graph.train_mask.clone()
    else:
        train = torch.zeros(n, dtype=torch.bool)
        for c in graph.y.unique():
            members = (graph.y == c).nonzero().flatten()
            train[members[torch.randperm(len(members), generator=gen)[:train_per_class]]] = True
    rest = (~train).nonzero().flatten()
    rest = rest[torch.randperm(len(rest), generator=gen)]
    if train_per_class is None:  # karate: the fractions share out what is not training
        total = val_fraction + test_fraction
        n_val = round(len(rest) * val_fraction / total)
        n_test = len(rest) - n_val
    else:
        n_val, n_test = round(val_fraction * n), round(test_fraction * n)
    graph.train_mask = train
    graph.val_mask = torch.zeros(n, dtype=torch.bool).index_fill_(0, rest[:n_val], True)
    graph.test_mask = torch.zeros(n, dtype=torch.bool).index_fill_(0, rest[n_val : n_val + n_test], True)
    return graph


# part: regression
class NodeRegressionDataModule(NodeClassificationDataModule):
    """One graph, a real value per node (`y` `[nodes, 1]`), with the node-level loaders and masks.

    The generated community graph's target is each node's neighbourhood: the mean, over its neighbours,
    of a fixed hidden score of their features (`score_dim` random directions, summed). A node's own
    features say nothing of it; one round of message passing does. The masks are the classification
    graph's (`train_per_class` labelled nodes per community), so the target is known on few nodes.
    Your own node targets: subclass and set `graph.y` (float, `[nodes, targets]`) in `__init__`.
    """

    def __init__(
        self,
        loader: Literal["full", "neighbor"] = "full",
        num_neighbors: tuple[int, ...] = (10, 10),
        val_fraction: float = 0.2,
        test_fraction: float = 0.4,
        train_per_class: int = 100,
        sbm_nodes: int = 2000,
        sbm_communities: int = 4,
        sbm_p_in: float = 0.01,
        sbm_p_out: float = 0.002,
        sbm_noise: float = 2.0,
        seed: int = 0,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        super().__init__(
            source="sbm", loader=loader, num_neighbors=num_neighbors, val_fraction=val_fraction,
            test_fraction=test_fraction, train_per_class=train_per_class, sbm_nodes=sbm_nodes,
            sbm_communities=sbm_communities, sbm_p_in=sbm_p_in, sbm_p_out=sbm_p_out, sbm_noise=sbm_noise, seed=seed,
            batch_size=batch_size, num_workers=num_workers,
        )  # fmt: skip
        self.save_hyperparameters()  # this class's arguments, not the classification module's it passed on
        graph = self.graph
        direction = torch.randn(graph.num_node_features, generator=torch.Generator().manual_seed(seed + 1))
        score = graph.x @ direction / graph.num_node_features**0.5
        source, target = graph.edge_index
        total = torch.zeros(graph.num_nodes).index_add_(0, target, score[source])
        count = torch.zeros(graph.num_nodes).index_add_(0, target, torch.ones(len(source)))
        graph.y = (total / count.clamp(min=1)).unsqueeze(1)  # isolated nodes: 0
        self.num_classes = None
        self.class_names = None

    @property
    def num_outputs(self) -> int:
        return 1

    @property
    def output_names(self) -> list[str]:
        return ["neighbour_score"]

    def train_targets(self) -> torch.Tensor:
        return self.graph.y[self.graph.train_mask]
