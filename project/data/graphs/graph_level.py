"""Graph-level data: many small graphs, batched block-diagonally by PyG; a class or real values per graph."""

from typing import Any, Literal

import torch
from runkit import BaseDataModule, DataError, seeded_split
from torch_geometric.data import Data
from torch_geometric.loader.dataloader import Collater

from project.data.graphs.checks import check_graph
from project.data.graphs.features import NodeFeature, with_node_features
from project.data.graphs.files import load_tu
from project.data.graphs.molecules import Invalid, MoleculeFiles, Split  # part: molecules
from project.data.graphs.synthetic import (
    FAMILIES,
    assortativity_graphs,  # part: regression
    structure_graphs,
)

# Where the graphs come from; the molecules part adds SMILES and SDF files (a scaffold without it keeps the first).
GraphSource = Literal["synthetic", "tu"]
GraphSource = Literal["synthetic", "tu", "smiles"]  # part: molecules


class GraphSetDataModule(BaseDataModule):
    """What graph classification and regression share: node features, checks, a seeded split, and batches
    that are PyG `Batch` objects: the graphs' nodes stacked, their edges offset so that no edge joins two graphs
    (one block-diagonal adjacency), and `batch.batch` naming each node's graph.
    """

    request_reader = "project.serving.graphs.graph_reader"  # how `project.serve` reads its requests

    num_classes: int | None = None
    multilabel = False  # several 0/1 labels per graph (-1: not known), not one class id

    def __init__(
        self,
        graphs: list[Data] | None,
        where: str,
        node_features: list[NodeFeature],
        max_degree: int,
        val_fraction: float,
        test_fraction: float,
        seed: int,
        batch_size: int,
        num_workers: int,
        molecules: MoleculeFiles | None = None,  # part: molecules
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        self.node_features, self.max_degree = list(node_features), max_degree
        self.molecules = molecules  # part: molecules
        self.fixed_test: list[Data] | None = None  # a test file of its own (molecules' test_path)
        self.predict_where: list[int] | None = None  # the predict file's line of each graph
        if graphs is not None and not graphs:
            raise DataError(f"{where}: the dataset has no graphs")
        self.graphs = [self.featurised(g) for g in graphs] if graphs is not None else None
        probe = self.graphs[0] if self.graphs is not None else None
        if molecules is not None:  # part: molecules
            probe = self.featurised(molecules.probe())  # part: molecules
        # Known at init (molecules: from a probe molecule, before any file is read): the CLI links them into the
        # model before setup().
        self.num_features = probe.num_node_features
        self.num_edge_features = probe.edge_attr.shape[1] if probe.get("edge_attr") is not None else 0
        self.fractions, self.seed = (val_fraction, test_fraction), seed
        self.collate_fn = Collater(None)

    def featurised(self, graph: Data) -> Data:
        graph = with_node_features(graph, self.node_features, self.max_degree)
        if graph.get("edge_attr") is not None:
            graph.edge_attr = graph.edge_attr.float()
        return graph

    def setup(self, stage: str | None = None) -> None:
        if stage == "predict" and self.molecules is not None:  # part: molecules
            self.predict_set, self.predict_where = self.molecules.read_predict()  # part: molecules
            self.predict_set = [self.featurised(g) for g in self.predict_set]  # part: molecules
            return  # part: molecules
        if self.train_set is None:
            self.build_splits()

    def build_splits(self) -> None:
        if self.graphs is None:  # part: molecules
            graphs, test = self.molecules.read_splits()  # part: molecules
            self.graphs = [self.featurised(g) for g in graphs]  # part: molecules
            self.fixed_test = [self.featurised(g) for g in test] if test is not None else None  # part: molecules
        for i, graph in enumerate(self.graphs + (self.fixed_test or [])):
            check_graph(graph, f"graph {i}", None if self.multilabel else self.num_classes)
            if graph.num_node_features != self.num_features:
                raise DataError(f"graph {i}: {graph.num_node_features} node features, graph 0 has {self.num_features}")
        val, test, train = self.split_ids()
        self.val_set, self.test_set, self.train_set = ([self.graphs[i] for i in ids] for ids in (val, test, train))
        if self.fixed_test is not None:
            self.test_set = self.fixed_test
        self.predict_set = self.test_set

    def train_dataloader(self) -> Any:
        # Written here, not in setup: by now the run folder is the logger's (under DDP too), not one made early.
        if self.molecules is not None and self.trainer is not None:  # part: molecules
            self.molecules.save_split(self.trainer)  # part: molecules
        return super().train_dataloader()

    def split_ids(self) -> list[list[int]]:
        """`[val, test, train]` indices into `self.graphs`."""
        if self.molecules is not None:  # part: molecules
            return self.molecules.split_ids(self.fixed_test is not None, self.fractions, self.seed)  # part: molecules
        return seeded_split(len(self.graphs), self.fractions, self.seed)

    def predict_lines(self) -> list[int] | None:
        return self.predict_where if self.trainer is None or self.trainer.predicting else None

    def state_dict(self) -> dict[str, Any]:
        """For molecules, what `predict` needs beside the checkpoint's weights: the keys are init arguments, which
        the CLI passes back when it builds from a checkpoint, so the training file is not read again."""
        state: dict[str, Any] = {}
        if self.molecules is not None:  # part: molecules
            state = {
                **self.molecules.state(),
                "node_features": self.node_features,
                "max_degree": self.max_degree,
            }  # part: molecules
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("labels", self.class_names) != self.class_names:
            raise DataError(f"the checkpoint's labels {state['labels']} differ from this data's {self.class_names}")

    def train_targets(self) -> torch.Tensor:
        """Every training graph's target, stacked: for the task's statistics and checks."""
        self.setup()
        return torch.cat([graph.y for graph in self.train_set])


class GraphClassificationDataModule(GraphSetDataModule):
    """A class per graph.

    Args:
        source: `synthetic` (generated offline, see `structure_graphs`), `tu`: a TUDataset (MUTAG, PROTEINS...)
            read from `data_dir/<name>/raw/`, its edge labels and attributes as edge features, or `smiles`:
            molecules (the `molecules` extra; `train_path`... below, and `molecules.py`).
        num_graphs, min_nodes, max_nodes: the generated set's shape (its nodes carry no features).
        node_features: what each node carries, side by side (see `features.py`): `given` (the data's own,
            a constant where there are none), `constant`, `degree` (one-hot up to `max_degree`),
            `degree_profile`. The default adds degree to what the data gives: a GCN cannot see it otherwise.
        val_fraction, test_fraction: held out by `seed` (molecules: by `split`).
        train_path, test_path, predict_path, smiles_field, split, invalid: the `smiles` source's files (`molecules.py`).
        label_field: the `smiles` source's class column (an SDF property); `labels`: given by the CLI from a
            checkpoint, leave it unset.
        label_fields: instead, several 0/1 columns, one label each, for the multilabel task
            (`--model.task runkit.tasks.Multilabel`); an empty cell is a label not known (Tox21-style data),
            which neither the loss nor a metric counts.
    """

    def __init__(
        self,
        source: GraphSource = "synthetic",
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
        train_path: str | None = None,  # part: molecules
        test_path: str | None = None,  # part: molecules
        predict_path: str | None = None,  # part: molecules
        smiles_field: str = "smiles",  # part: molecules
        label_field: str = "label",  # part: molecules
        split: Split = "random",  # part: molecules
        invalid: Invalid = "error",  # part: molecules
        labels: list[str] | None = None,  # part: molecules
        label_fields: list[str] | None = None,  # part: molecules
    ) -> None:
        graphs: list[Data] | None = None
        if source == "synthetic":
            graphs = structure_graphs(num_graphs, min_nodes, max_nodes, seed=seed)
            self.class_names = list(FAMILIES)
        elif source == "tu":
            dataset = load_tu(data_dir, name)
            graphs = list(dataset)
            self.class_names = [str(c) for c in range(dataset.num_classes)]
        molecules = None  # part: molecules
        if source == "smiles":  # part: molecules
            kind, fields = ("labels", label_fields) if label_fields else ("classes", [label_field])  # part: molecules
            where_from = (train_path, test_path, predict_path, smiles_field)  # part: molecules
            molecules = MoleculeFiles(*where_from, fields, kind, split, invalid, names=labels)  # part: molecules
            self.class_names, self.multilabel = molecules.names, kind == "labels"  # part: molecules
        self.num_classes = len(self.class_names)
        where = f"{source} {name}" if source == "tu" else source
        super().__init__(
            graphs=graphs, where=where, node_features=node_features, max_degree=max_degree,
            val_fraction=val_fraction, test_fraction=test_fraction, seed=seed, batch_size=batch_size,
            num_workers=num_workers,
            molecules=molecules,  # part: molecules
        )  # fmt: skip
        self.save_hyperparameters(ignore=["labels"])


# part: regression
class GraphRegressionDataModule(GraphSetDataModule):
    """Real values per graph, `y` of shape `[1, num_targets]` each (a batch: `[graphs, num_targets]`).

    Args:
        source: `synthetic`: generated graphs whose target is their degree assortativity (see
            `assortativity_graphs`: the degrees alone do not tell it); `tu`: a TUDataset whose
            `<name>_graph_attributes.txt` holds the targets (one line per graph, comma-separated values),
            read from `data_dir/<name>/raw/`; `smiles`: molecules, their `target_fields` the targets.
        target_names: a name per target column, for predictions.tsv and the pictures.
        target_fields: the `smiles` source's target columns (SDF properties), one or several.
        Others: as `GraphClassificationDataModule`.
    """

    def __init__(
        self,
        source: GraphSource = "synthetic",
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
        train_path: str | None = None,  # part: molecules
        test_path: str | None = None,  # part: molecules
        predict_path: str | None = None,  # part: molecules
        smiles_field: str = "smiles",  # part: molecules
        target_fields: list[str] | None = None,  # part: molecules
        split: Split = "random",  # part: molecules
        invalid: Invalid = "error",  # part: molecules
    ) -> None:
        graphs: list[Data] | None = None
        if source == "synthetic":
            graphs = assortativity_graphs(num_graphs, min_nodes, max_nodes, seed=seed)
            names = ["assortativity"]
        elif source == "tu":
            graphs = [as_regression(g) for g in load_tu(data_dir, name, targets="graph_attributes")]
            names = [f"y{i}" for i in range(graphs[0].y.shape[1])] if graphs else []
        molecules = None  # part: molecules
        if source == "smiles":  # part: molecules
            if not target_fields:  # part: molecules
                raise DataError("source smiles: name the target columns, --data.target_fields '[y]'")  # part: molecules
            where_from = (train_path, test_path, predict_path, smiles_field)  # part: molecules
            molecules = MoleculeFiles(*where_from, target_fields, "values", split, invalid)  # part: molecules
            names = molecules.names  # part: molecules
        where = f"{source} {name}" if source == "tu" else source
        super().__init__(
            graphs=graphs, where=where, node_features=node_features, max_degree=max_degree,
            val_fraction=val_fraction, test_fraction=test_fraction, seed=seed, batch_size=batch_size,
            num_workers=num_workers,
            molecules=molecules,  # part: molecules
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
