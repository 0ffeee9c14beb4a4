"""Graphs in requests: whole graphs (an edge list, with node and edge features where the model reads them), node
pairs or nodes of the graph a link model was trained on, nodes of a node-level graph (molecules: molecules.py).
Each becomes what the DataModule's predict set holds, through its own featuriser and its node names."""

from typing import Any, ClassVar

import torch
from runkit import BadRequest, ConfigError, Reader, known_fields, one_or_many, rows_of_numbers
from torch_geometric.data import Data

from project.data.graphs.link_batches import CandidateBatches, MessageGraph, PairBatches

MAX_NODES = 100_000  # a graph larger than this in one request is refused (413): it would stall the batch


def graph_reader(model: Any, datamodule: Any) -> Reader:
    """A graph-level model's reader: of molecules where it was trained on them, else of graphs."""
    if getattr(datamodule, "molecules", None) is not None:  # part: molecules
        from project.serving.molecules import MoleculeReader  # part: molecules

        return MoleculeReader(model, datamodule)  # part: molecules
    return GraphReader(model, datamodule)


class GraphReader(Reader):
    """`{"graph": {...}}` or `{"graphs": [...]}`, a graph being `{"edges": [[0, 1], [1, 0], ...], "num_nodes": 3}`
    (each undirected edge both ways, as in the training data; `num_nodes` defaults to the largest id + 1), with
    `"x": [[...], ...]` (a row per node) where the model reads the data's own node features (`given`) and
    `"edge_attr": [[...], ...]` (a row per edge) where it reads edge features."""

    fields: ClassVar[tuple[str, ...]] = ("graph", "graphs")

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        return [self.graph(value, field) for field, value in one_or_many(request, *self.fields)]

    def graph(self, value: Any, field: str) -> Data:
        value = (
            known_fields(value, ("edges", "num_nodes", "x", "edge_attr"), f"{field}.")
            if isinstance(value, dict)
            else value
        )
        if not isinstance(value, dict) or "edges" not in value:
            raise BadRequest(field, 'a graph: {"edges": [[0, 1], [1, 0]], "num_nodes": 2}')
        edges = value["edges"]
        if not isinstance(edges, list) or not all(isinstance(e, list) and len(e) == 2 for e in edges):
            raise BadRequest(f"{field}.edges", "a list of [source, target] node ids")
        if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for e in edges for i in e):
            raise BadRequest(f"{field}.edges", "node ids are integers from 0")
        largest = max((i for e in edges for i in e), default=-1)
        nodes = value.get("num_nodes", largest + 1)
        if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1 or nodes <= largest:
            raise BadRequest(f"{field}.num_nodes", f"an integer above every node id (the largest is {largest})")
        if nodes > MAX_NODES:
            raise BadRequest(f"{field}.num_nodes", f"at most {MAX_NODES:,} nodes a graph", status=413)
        graph = Data(edge_index=torch.tensor(edges, dtype=torch.long).reshape(-1, 2).t().contiguous(), num_nodes=nodes)
        given = "given" in self.datamodule.node_features
        if "x" in value:
            if not given:
                raise BadRequest(f"{field}.x", "this model reads no given node features (data.node_features)")
            width = self.datamodule.num_features - (self.featurised_width(graph) - 1)
            x = rows_of_numbers(value["x"], f"{field}.x", width)
            if len(x) != nodes:
                raise BadRequest(f"{field}.x", f"a row per node: {nodes} rows, got {len(x)}")
            graph.x = torch.tensor(x)
        elif given and self.featurised_width(graph) != self.datamodule.num_features:
            raise BadRequest(f"{field}.x", "this model reads the nodes' own features: give a row per node")
        width = self.datamodule.num_edge_features
        if width:
            if "edge_attr" not in value:
                raise BadRequest(f"{field}.edge_attr", f"this model reads edge features: a row of {width} per edge")
            attr = rows_of_numbers(value["edge_attr"], f"{field}.edge_attr", width) if edges else []
            if len(attr) != len(edges):
                raise BadRequest(f"{field}.edge_attr", f"a row per edge: {len(edges)} rows, got {len(attr)}")
            graph.edge_attr = torch.tensor(attr).reshape(-1, width)
        elif "edge_attr" in value:
            raise BadRequest(f"{field}.edge_attr", "this model reads no edge features")
        return self.datamodule.featurised(graph)

    def featurised_width(self, graph: Data) -> int:
        """The node feature width of `graph` as it is (without features: the constant that stands for them)."""
        return self.datamodule.featurised(graph).num_node_features


class LinkReader(Reader):
    """`{"pairs": [["a", "b"], ...]}`: the probability of each link, or `{"nodes": ["a", ...], "top_k": 10}`: each
    node's most likely new links (the graph's own excluded, as `predict` ranks them). Nodes by their names in the
    graph's files (generated graphs: "0", "1"...)."""

    fields: ClassVar[tuple[str, ...]] = ("pairs", "nodes", "top_k")

    def __init__(self, model: Any, datamodule: Any) -> None:
        super().__init__(model, datamodule)
        datamodule.setup("validate")  # the message graph and the links it holds, as `predict` has them
        self.index = {name: i for i, name in enumerate(datamodule.node_names)}
        graph = datamodule.scored_over
        self.pairs_graph = graph
        self.whole = MessageGraph(graph.x, graph.edge_index, graph.edge_weight, None)  # every node a candidate

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        if ("pairs" in request) == ("nodes" in request):
            raise BadRequest("pairs", 'give either "pairs" (links to score) or "nodes" (with "top_k")')
        if "pairs" in request:
            if "top_k" in request:
                raise BadRequest("top_k", 'goes with "nodes", not "pairs"')
            pairs = request["pairs"]
            if not isinstance(pairs, list) or not pairs:
                raise BadRequest("pairs", "a non-empty list of [source, target] node names")
            return [("pair", *self.nodes(pair, f"pairs[{i}]", 2)) for i, pair in enumerate(pairs)]
        k = request.get("top_k", self.datamodule.hparams.top_k)
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise BadRequest("top_k", f"a positive integer, got {k!r}")
        nodes = request["nodes"]
        if not isinstance(nodes, list) or not nodes:
            raise BadRequest("nodes", "a non-empty list of node names")
        return [("top", *self.nodes([node], f"nodes[{i}]", 1), k) for i, node in enumerate(nodes)]

    def nodes(self, names: Any, field: str, count: int) -> list[int]:
        if not isinstance(names, list) or len(names) != count:
            raise BadRequest(field, "[source, target]: two node names")
        ids = []
        for name in names:
            if isinstance(name, bool) or not isinstance(name, str | int):
                raise BadRequest(field, f"node names are strings (or integers), got {name!r}")
            if str(name) not in self.index:
                raise BadRequest(field, f"node {str(name)!r} is not in the graph", status=404)
            ids.append(self.index[str(name)])
        return ids

    def predict(self, samples: list[Any], device: str) -> list[dict[str, torch.Tensor]]:
        """Pairs, and each top-k query with its own k, batched by kind and k."""
        each: list[dict[str, torch.Tensor] | None] = [None] * len(samples)
        groups: dict[tuple, list[int]] = {}
        for i, sample in enumerate(samples):
            groups.setdefault(("pair",) if sample[0] == "pair" else ("top", sample[2]), []).append(i)
        for key, members in groups.items():
            if key[0] == "pair":
                pairs = torch.tensor([samples[i][1:] for i in members]).t()
                none = torch.empty(len(members), 0, dtype=torch.long)  # each pair alone in its row
                collate: Any = PairBatches(self.pairs_graph, pairs, none, targets=False)
                size = self.datamodule.batch_size
            else:
                queries = torch.tensor([samples[i][1] for i in members])
                collate = CandidateBatches(self.whole, queries, self.datamodule.known_links, key[1])
                size = CandidateBatches.queries_per_batch(self.datamodule.num_nodes, self.datamodule.batch_size)
            for at, predictions in zip(members, self.batched(range(len(members)), device, collate, size), strict=True):
                each[at] = predictions
        return each

    def table(self, sample: Any, predictions: dict[str, torch.Tensor]) -> tuple[list[str], list[list[str]]]:
        return self.model.task.prediction_table([predictions], self.datamodule.node_names)

    def many_rows(self, sample: Any) -> bool:
        return sample[0] == "top"


class NodeReader(Reader):
    """`{"node": 3}` or `{"nodes": [3, 17]}`: nodes of the graph the model was trained on, by index. The whole
    graph is predicted once, when the server starts (it does not change), as `predict` predicts it."""

    fields: ClassVar[tuple[str, ...]] = ("node", "nodes")

    def __init__(self, model: Any, datamodule: Any) -> None:
        super().__init__(model, datamodule)
        if datamodule.loader != "full":
            raise ConfigError(
                "project.serve answers node-level models trained with data.loader full: a neighbour-sampled model's "
                "answers depend on the samples drawn (serve it with --data.loader full)"
            )
        from lightning.fabric.utilities.apply_func import move_data_to_device

        datamodule.setup("predict")
        graph = move_data_to_device(next(iter(datamodule.predict_dataloader())), model.device)
        with torch.inference_mode():
            self.every_node = {key: value.cpu() for key, value in model.predict_step(graph, 0).items()}

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        count = self.datamodule.graph.num_nodes
        ids = []
        for field, node in one_or_many(request, *self.fields):
            if isinstance(node, bool) or not isinstance(node, int) or not 0 <= node < count:
                raise BadRequest(field, f"a node index from 0 to {count - 1}, got {node!r}", status=404)
            ids.append(node)
        return ids

    def predict(self, samples: list[Any], device: str) -> list[dict[str, torch.Tensor]]:
        return [{key: value[i : i + 1].cpu() for key, value in self.every_node.items()} for i in samples]
