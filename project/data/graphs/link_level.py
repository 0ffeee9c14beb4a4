"""Link prediction data: one graph's links split into training, validation and test, with negative pairs."""

from typing import Any, Literal

import torch
from runkit import BaseDataModule, ConfigError, DataError, global_seed, seeded_split
from torch.utils.data import Dataset, Sampler
from torch_geometric.data import Data

from project.data.graphs.checks import check_graph
from project.data.graphs.link_batches import CandidateBatches, EpochTaggedSampler, MessageGraph, PairBatches, PairSet
from project.data.graphs.link_pairs import EdgeSet, EpochNegatives, corrupt_destinations, message_edges
from project.data.graphs.link_sources import (
    LinkGraph,
    csv_graph,
    generated_graph,
    karate_graph,
    planetoid_graph,
    read_pairs,
)
from project.data.graphs.neighbor_sampling import NeighborSampler


class LinkPredictionDataModule(BaseDataModule):
    """One graph's links: training links carry the messages and are the training positives; validation and
    test links are held out of that graph, and scored over it.

    Each training link is paired with `num_negatives` non-links drawn afresh every epoch; each validation and
    test link with `eval_negatives` fixed ones (by `seed`), so scores compare across epochs and runs.

    `loader: full` scores every training link in one step over the whole training graph (one process).
    `loader: neighbor` takes `batch_size` links per step and samples `num_neighbors[hop]` in-neighbours per
    hop around their endpoints (one hop per GCN layer); it runs under DDP, each process taking its share of
    the links.

    Args:
        source: `sbm` (a generated community graph), `karate` (ships inside PyG), `planetoid` (Cora, CiteSeer,
            PubMed read from `data_dir/<name>/raw/`) or `csv` (`train_path`, and `features_path` if any).
        train_path: CSV `src,dst[,weight]`; node ids of any kind. With `val_path` (and `test_path`)
            these are the training links and the split is yours; otherwise links are held out by `seed`.
        features_path: CSV `node,f1,f2,...`; without it every node has a constant feature.
        undirected: a link `a,b` is also `b,a`: both go with the same split, and messages pass both ways.
        val_fraction, test_fraction: the links held out, for graphs without a split of their own.
        num_negatives: non-links per training link each epoch. eval_negatives: per validation or test link.
        predict_path: CSV `src,dst` of pairs to score; or `predict_nodes`: node names whose `top_k` most
            likely new links (none the graph has) `predict` writes.
        sbm_nodes, sbm_communities, sbm_p_in, sbm_p_out, sbm_noise: the generated graph.
        batch_size: links per neighbour batch (unused by `full`).
    """

    request_reader = "project.serving.graphs.LinkReader"  # how `project.serve` reads its requests

    split_check = "own"  # the held-out links must not be in the graph messages pass over: split_overlap()

    folds_refused = "the message graph is built from the training links; repeat it over seeds (data.seed) instead"

    def __init__(
        self,
        source: Literal["sbm", "karate", "planetoid", "csv"] = "sbm",
        train_path: str | None = None,
        features_path: str | None = None,
        val_path: str | None = None,
        test_path: str | None = None,
        name: str = "Cora",
        data_dir: str = "data/planetoid",
        undirected: bool = True,
        loader: Literal["full", "neighbor"] = "full",
        num_neighbors: tuple[int, ...] = (10, 10),
        val_fraction: float = 0.1,
        test_fraction: float = 0.1,
        num_negatives: int = 1,
        eval_negatives: int = 100,
        predict_path: str | None = None,
        predict_nodes: list[str | int] | None = None,
        top_k: int = 10,
        sbm_nodes: int = 2000,
        sbm_communities: int = 20,
        sbm_p_in: float = 0.1,
        sbm_p_out: float = 0.0002,
        sbm_noise: float = 2.0,
        seed: int = 0,
        batch_size: int = 512,
        num_workers: int = 0,
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        self.save_hyperparameters()
        if num_negatives < 1 or eval_negatives < 1:
            raise ConfigError(
                "data.num_negatives and data.eval_negatives must be >= 1: a link is scored beside a non-link"
            )
        self.source, self.loader, self.undirected = source, loader, undirected
        self.graph = graph = self.read_graph()
        weights = graph.weights
        if graph.given_split:
            self.links = {"train": graph.links, **graph.given_split}
        else:
            parts = self._held_out(graph.links.shape[1], val_fraction, test_fraction, seed)
            self.links = {part: graph.links[:, ids] for part, ids in parts.items()}
            weights = weights[parts["train"]] if weights is not None else None
        self.message_graph, self.message_weight = message_edges(self.links["train"], undirected, weights)
        self.num_features = graph.x.shape[1]
        self.num_nodes = graph.num_nodes
        self.node_names = graph.names
        self.num_classes = None  # a score per pair, no classes

    def read_graph(self) -> LinkGraph:
        """The graph of `source`. Another source of your own: subclass and return a `LinkGraph` here."""
        hp = self.hparams
        if self.source == "csv":
            return csv_graph(hp.train_path, hp.features_path, hp.val_path, hp.test_path, self.undirected)
        if self.source == "planetoid":
            return planetoid_graph(hp.data_dir, hp.name)
        if self.source == "karate":
            return karate_graph()
        return generated_graph(hp.sbm_nodes, hp.sbm_communities, hp.sbm_p_in, hp.sbm_p_out, hp.sbm_noise, hp.seed)

    @property
    def num_outputs(self) -> int:
        return 1  # a score per pair

    @property
    def output_names(self) -> list[str] | None:
        return None

    @staticmethod
    def _held_out(total: int, val_fraction: float, test_fraction: float, seed: int) -> dict[str, torch.Tensor]:
        """Positions of the links each part takes, by `seed`."""
        val, test, train = seeded_split(total, [val_fraction, test_fraction], seed)
        if not train or val_fraction + test_fraction >= 1:
            raise ConfigError(
                f"data.val_fraction={val_fraction} and data.test_fraction={test_fraction} leave no training link "
                f"of the graph's {total}: lower them"
            )
        if not val:
            raise ConfigError(f"data.val_fraction={val_fraction} of {total} links holds out none: raise it")
        parts = {"train": torch.tensor(train), "val": torch.tensor(val)}
        if test:
            parts["test"] = torch.tensor(test)
        return parts

    def split_overlap(self) -> str | None:
        """Validation or test links that are also in the graph messages pass over (a leaky split), in a line."""
        passing = EdgeSet(self.message_graph, self.num_nodes)
        found = []
        for part in ("val", "test"):
            if part not in self.links:
                continue
            inside = passing.contains(*self.links[part])
            if bool(inside.any()):
                lines = self.graph.lines.get(part)
                where = f", first at line {lines[int(inside.nonzero()[0])]}" if lines else ""
                found.append(f"{int(inside.sum())} of the {inside.numel()} {part} links{where}")
        if not found:
            return None
        return (
            f"{' and '.join(found)} are also training links, in the graph messages pass over: the model sees the "
            "links it is scored on, and its scores measure that. Remove them from the training edge list."
        )

    def state_dict(self) -> dict[str, Any]:
        return {"node_names": self.node_names} if self.source == "csv" else {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        saved = state.get("node_names")
        if saved is not None and saved != self.node_names:
            raise DataError(
                f"the checkpoint's graph has {len(saved)} nodes, data.train_path ({self.hparams.train_path}) "
                f"{len(self.node_names)}, not the same ones in the same order: the node embeddings and ids would "
                "not match. Use the files the model was trained on."
            )

    def setup(self, stage: str | None = None) -> None:
        if self.trainer is not None and self.trainer.world_size > 1 and self.loader == "full":
            raise ConfigError(
                "loader 'full' scores every training link in one process; with DDP every process would "
                "repeat the same step. Use --data.loader neighbor, or one device (--trainer.devices 1)."
            )
        if self.train_set is None:  # once: every stage shares the sets, and the fixed negatives are the costly part
            self._build_pair_sets()
        if stage == "predict":
            self.predict_set = self._predict_set(self.scored_over, self.known_links)

    def _build_pair_sets(self) -> None:
        g, hp = self.graph, self.hparams
        check_graph(Data(x=g.x, edge_index=self.message_graph, num_nodes=g.num_nodes), f"{self.source} graph")
        sampler = None
        if self.loader == "neighbor":
            sampler = NeighborSampler(Data(x=g.x, edge_index=self.message_graph), list(hp.num_neighbors))
        # Public: the server scores requested pairs over the same graph, and leaves out the same known links.
        graph = self.scored_over = MessageGraph(g.x, self.message_graph, self.message_weight, sampler)
        every_link, _ = message_edges(torch.cat(list(self.links.values()), dim=1), self.undirected)
        self.known_links = EdgeSet(every_link, g.num_nodes)
        trained = EdgeSet(self.message_graph, g.num_nodes)
        train = self.links["train"]
        negatives = EpochNegatives(train[0], hp.num_negatives, g.num_nodes, trained, global_seed())
        self.train_set = PairSet(train.shape[1], PairBatches(graph, train, negatives, targets=True))
        generator = torch.Generator().manual_seed(hp.seed)
        for part in ("val", "test"):
            links = self.links.get(part, torch.empty(2, 0, dtype=torch.long))
            fixed = corrupt_destinations(links[0], hp.eval_negatives, g.num_nodes, self.known_links, generator)
            setattr(self, f"{part}_set", PairSet(links.shape[1], PairBatches(graph, links, fixed, targets=True)))

    def _predict_set(self, graph: MessageGraph, every_link: EdgeSet) -> Dataset:
        hp, index = self.hparams, {name: i for i, name in enumerate(self.node_names)}
        if hp.predict_path is not None:
            pairs = read_pairs(hp.predict_path, index)
            none = torch.empty(pairs.shape[1], 0, dtype=torch.long)  # each pair alone in its row
            return PairSet(pairs.shape[1], PairBatches(graph, pairs, none, targets=False))
        if hp.predict_nodes:
            nodes = [str(n) for n in hp.predict_nodes]  # ids are names: '[0, 17]' means the nodes named 0 and 17
            unknown = [n for n in nodes if n not in index]
            if unknown:
                raise DataError(f"data.predict_nodes: {unknown[:3]} not in the graph ({len(unknown)} unknown)")
            queries = torch.tensor([index[n] for n in nodes])
            whole = MessageGraph(graph.x, graph.edge_index, graph.edge_weight, None)  # every node is a candidate
            return PairSet(len(queries), CandidateBatches(whole, queries, every_link, hp.top_k))
        raise ConfigError(
            "predict needs pairs or nodes: --data.predict_path pairs.csv (src,dst), or --data.predict_nodes "
            "'[a, b]' for each node's --data.top_k most likely new links"
        )

    def batch_size_for(self, dataset: Dataset) -> int:
        if isinstance(getattr(dataset, "collate", None), CandidateBatches):
            return CandidateBatches.queries_per_batch(self.num_nodes, self.batch_size)
        return max(len(dataset), 1) if self.loader == "full" else self.batch_size

    def _sampler(self, dataset: Dataset, train: bool) -> Sampler[Any]:
        if train:
            world, rank = (self.trainer.world_size, self.trainer.global_rank) if self.trainer else (1, 0)
            return EpochTaggedSampler(dataset, num_replicas=world, rank=rank)
        return super()._sampler(dataset, train)
