"""Where link prediction's graph comes from: generated, shipped with PyG, Planetoid files, or a user's CSVs.

Each source gives the node features, the links (one row per link: `[2, E]`) and the node names; a user's
files may also give their own validation and test links (`LinkGraph.given_split`).
"""

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch
from runkit import ConfigError, DataError, EdgeList, read_edge_list, read_node_features
from torch_geometric.datasets import KarateClub

from project.data.graphs.files import load_planetoid
from project.data.graphs.link_pairs import canonical_edges
from project.data.graphs.synthetic import community_graph


@dataclass
class LinkGraph:
    x: torch.Tensor  # [N, F]
    links: torch.Tensor  # [2, E], one row per link
    names: list[str]
    weights: torch.Tensor | None = None  # [E], a weight per link, for the messages (None: all 1)
    # The user's validation and test links, when their files give them (then `links` are the training links).
    given_split: dict[str, torch.Tensor] = field(default_factory=dict)
    # A file line per link of each given part, to name them in messages.
    lines: dict[str, list[int]] = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return len(self.names)


def generated_graph(nodes: int, communities: int, p_in: float, p_out: float, noise: float, seed: int) -> LinkGraph:
    """The stochastic block model's graph: links are dense within a community and rare across, and a node's
    features are its community's centre plus noise, so one round of messages denoises them."""
    graph = community_graph(nodes, communities, p_in, p_out, noise=noise, seed=seed)
    return _from_pyg(graph.x, graph.edge_index, graph.num_nodes)


def karate_graph() -> LinkGraph:
    graph = KarateClub()[0]  # ships inside PyG: 34 members, 78 friendships, one-hot identity features
    return _from_pyg(graph.x, graph.edge_index, graph.num_nodes)


def planetoid_graph(data_dir: str, name: str) -> LinkGraph:
    graph = load_planetoid(data_dir, name)[0]
    return _from_pyg(graph.x, graph.edge_index, graph.num_nodes)


def _from_pyg(x: torch.Tensor, edge_index: torch.Tensor, num_nodes: int) -> LinkGraph:
    kept, _, _ = canonical_edges(edge_index, num_nodes, undirected=True)  # PyG lists each link both ways
    return LinkGraph(x=x, links=edge_index[:, kept], names=[str(i) for i in range(num_nodes)])


def csv_graph(
    train_path: str | None,
    features_path: str | None,
    val_path: str | None,
    test_path: str | None,
    undirected: bool,
) -> LinkGraph:
    """The user's edge list (`src,dst[,weight]`), optional node features, optional validation and test links.

    Self-loops are dropped and repeated links merged (on an undirected graph `a,b` and `b,a` are one link;
    the first row's weight is kept), each with a warning that counts them and names the first line. The
    training links' weights scale their messages (gcn convs); held-out links carry none. Nodes are numbered
    in order of first appearance over the files; without features every node gets a constant 1 (learned embeddings:
    `--model.net.embedding_dim`).
    """
    if train_path is None:
        raise ConfigError("data.source csv reads data.train_path: pass --data.train_path edges.csv (src,dst[,weight])")
    if test_path is not None and val_path is None:
        raise ConfigError("data.test_path needs data.val_path too: give both parts of your split")
    parts = {"train": read_edge_list(train_path)}
    if val_path is not None:
        parts["val"] = read_edge_list(val_path)
    if test_path is not None:
        parts["test"] = read_edge_list(test_path)
    index: dict[str, int] = {}
    for part, edges in parts.items():
        for name in (n for pair in zip(edges.src, edges.dst, strict=True) for n in pair):
            index.setdefault(name, len(index))
        if part == "train":
            trained = len(index)
    if len(index) > trained:
        first = list(index)[trained]
        warnings.warn(
            f"{len(index) - trained} node(s) of the validation or test links are in no training link (e.g. "
            f"{first!r}): no message reaches them and their embedding, if any, is never trained, so their links "
            "are scored from their features alone",
            stacklevel=2,
        )
    links, lines, kept = {}, {}, {}
    for part, edges in parts.items():
        links[part], lines[part], kept[part] = _indexed(edges, index, undirected)
    x = torch.ones(len(index), 1) if features_path is None else read_node_features(features_path, index)
    given = {part: t for part, t in links.items() if part != "train"}
    train = parts["train"]
    weights = torch.tensor(train.weight)[kept["train"]] if train.weighted else None
    return LinkGraph(x=x, links=links["train"], names=list(index), weights=weights, given_split=given, lines=lines)


def _indexed(edges: EdgeList, index: dict[str, int], undirected: bool) -> tuple[torch.Tensor, list[int], torch.Tensor]:
    """The file's links as node ids `[2, E]`, the line of each, and the rows kept (the policies applied)."""
    edge_index = torch.tensor([[index[s] for s in edges.src], [index[d] for d in edges.dst]], dtype=torch.long)
    kept, loops, duplicates = canonical_edges(edge_index, len(index), undirected)
    for mask, what, policy in (
        (loops, "self-loop(s)", "dropped: a node's link to itself is not predicted"),
        (duplicates, "repeated link(s)", "merged" + (" (undirected: a,b and b,a are one link)" if undirected else "")),
    ):
        if bool(mask.any()):
            first = edges.line[int(mask.nonzero()[0])]
            warnings.warn(f"{edges.path}: {int(mask.sum())} {what} (first at line {first}) {policy}", stacklevel=3)
    return edge_index[:, kept], [edges.line[i] for i in kept.tolist()], kept


def read_pairs(path: str, index: dict[str, int]) -> torch.Tensor:
    """Pairs to score for `predict`: a CSV `src,dst` of node names the graph has; `[2, P]`."""
    edges = read_edge_list(path)
    for names in (edges.src, edges.dst):
        for name, line in zip(names, edges.line, strict=True):
            if name not in index:
                raise DataError(f"{Path(path)}, line {line}: node {name!r} is not in the graph")
    return torch.tensor([[index[s] for s in edges.src], [index[d] for d in edges.dst]], dtype=torch.long)
