"""Graph-level data: many small graphs, batched block-diagonally by PyG; a class or real values per graph."""

from typing import Literal

import torch
from torch_geometric.data import Data
from torch_geometric.loader.dataloader import Collater

from project.data.base import BaseDataModule, seeded_split
from project.data.graphs.checks import check_graph
from project.data.graphs.features import NodeFeature, with_node_features
from project.data.graphs.files import load_tu
from project.data.graphs.synthetic import (
    FAMILIES,
    assortativity_graphs,  # part: regression
    structure_graphs,
)
from project.errors import DataError


class GraphSetDataModule(BaseDataModule):
    """What graph classification and regression share: node features, checks, a seeded split, and batches
    that are PyG `Batch` objects: the graphs' nodes stacked, their edges offset so that no edge joins two graphs
    (one block-diagonal adjacency), and `batch.batch` naming each node's graph.
    """

    num_classes: int | None = None

    def __init__(
        self,
        graphs: list[Data],
        where: str,
        node_features: list[NodeFeature],
        max_degree: int,
        val_fraction: float,
        test_fraction: float,
        seed: int,
        batch_size: int,
        num_workers: int,
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        if not graphs:
            raise DataError(f"{where}: the dataset has no graphs")
        self.graphs = [with_node_features(g, list(node_features), max_degree) for g in graphs]
        # Known at init: the CLI links it into the model before setup().
        self.num_features = self.graphs[0].num_node_features
        self.fractions, self.seed = (val_fraction, test_fraction), seed
        self.collate_fn = Collater(None)

    def setup(self, stage: str | None = None) -> None:
        if self.train_set is not None:
            return
        for i, graph in enumerate(self.graphs):
            check_graph(graph, f"graph {i}", self.num_classes)
            if graph.num_node_features != self.num_features:
                raise DataError(f"graph {i}: {graph.num_node_features} node features, graph 0 has {self.num_features}")
        val, test, train = seeded_split(len(self.graphs), self.fractions, self.seed)
        self.val_set, self.test_set, self.train_set = ([self.graphs[i] for i in ids] for ids in (val, test, train))
        self.predict_set = self.test_set

    def train_targets(self) -> torch.Tensor:
        """Every training graph's target, stacked: for the task's statistics and checks."""
        self.setup()
        return torch.cat([graph.y for graph in self.train_set])


class GraphClassificationDataModule(GraphSetDataModule):
    """A class per graph.

    Args:
        source: `synthetic` (generated offline, see `structure_graphs`) or `tu`: a TUDataset
            (MUTAG, PROTEINS...) read from `data_dir/<name>/raw/`.
        num_graphs, min_nodes, max_nodes: the generated set's shape (its nodes carry no features).
        node_features: what each node carries, side by side (see `features.py`): `given` (the data's own,
            a constant where there are none), `constant`, `degree` (one-hot up to `max_degree`),
            `degree_profile`. The default adds degree to what the data gives: a GCN cannot see it otherwise.
        val_fraction, test_fraction: held out by `seed`.
    """

    def __init__(
        self,
        source: Literal["synthetic", "tu"] = "synthetic",
        name: str = "MUTAG",
        data_dir: str = "data/graphs",
        num_graphs: int = 2000,
        min_nodes: int = 20,
        max_nodes: int = 80,
        node_features: list[NodeFeature] = ["given", "degree"],  # noqa: B006 (the CLI shows it; never mutated)
        max_degree: int = 10,
        val_fraction: float = 0.1,
        test_fraction: float = 0.1,
        seed: int = 0,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        if source == "synthetic":
            graphs = structure_graphs(num_graphs, min_nodes, max_nodes, seed=seed)
            self.class_names = list(FAMILIES)
        else:
            dataset = load_tu(data_dir, name)
            graphs = list(dataset)
            self.class_names = [str(c) for c in range(dataset.num_classes)]
        self.num_classes = len(self.class_names)
        where = f"{source} {name}" if source == "tu" else source
        super().__init__(
            graphs=graphs, where=where, node_features=node_features, max_degree=max_degree,
            val_fraction=val_fraction, test_fraction=test_fraction, seed=seed, batch_size=batch_size,
            num_workers=num_workers,
        )  # fmt: skip
        self.save_hyperparameters()


# part: regression
class GraphRegressionDataModule(GraphSetDataModule):
    """Real values per graph, `y` of shape `[1, num_targets]` each (a batch: `[graphs, num_targets]`).

    Args:
        source: `synthetic`: generated graphs whose target is their degree assortativity (see
            `assortativity_graphs`: the degrees alone do not tell it); `tu`: a TUDataset whose
            `<name>_graph_attributes.txt` holds the targets (one line per graph, comma-separated values),
            read from `data_dir/<name>/raw/`.
        target_names: a name per target column, for predictions.tsv and the pictures.
        Others: as `GraphClassificationDataModule`.
    """

    def __init__(
        self,
        source: Literal["synthetic", "tu"] = "synthetic",
        name: str = "ZINC",
        data_dir: str = "data/graphs",
        num_graphs: int = 2000,
        min_nodes: int = 20,
        max_nodes: int = 80,
        node_features: list[NodeFeature] = ["given", "degree"],  # noqa: B006 (the CLI shows it; never mutated)
        max_degree: int = 10,
        target_names: list[str] | None = None,
        val_fraction: float = 0.1,
        test_fraction: float = 0.1,
        seed: int = 0,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        if source == "synthetic":
            graphs = assortativity_graphs(num_graphs, min_nodes, max_nodes, seed=seed)
            names = ["assortativity"]
        else:
            graphs = [as_regression(g) for g in load_tu(data_dir, name, targets="graph_attributes")]
            names = [f"y{i}" for i in range(graphs[0].y.shape[1])] if graphs else []
        where = f"{source} {name}" if source == "tu" else source
        super().__init__(
            graphs=graphs, where=where, node_features=node_features, max_degree=max_degree,
            val_fraction=val_fraction, test_fraction=test_fraction, seed=seed, batch_size=batch_size,
            num_workers=num_workers,
        )  # fmt: skip
        self.save_hyperparameters()
        if target_names is not None and len(target_names) != len(names):
            raise DataError(f"data.target_names names {len(target_names)} targets, the data has {len(names)}")
        self.target_names = list(target_names or names)

    @property
    def num_outputs(self) -> int:
        return len(self.target_names)

    @property
    def output_names(self) -> list[str]:
        return self.target_names


# part: regression
def as_regression(graph: Data) -> Data:
    """A TU graph's attributes as a float row `[1, num_targets]`."""
    graph = graph.clone()
    graph.y = graph.y.float().reshape(1, -1)
    return graph
