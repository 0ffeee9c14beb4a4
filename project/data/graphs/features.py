"""What each node carries into the GNN when the data's own features say little or nothing.

A GCN normalises each message by the degrees at both ends, so on constant features every node of a
regular neighbourhood looks alike and node degree is all but hidden: structure the class depends on
(a cycle, a hub) cannot show. Degree as an explicit feature brings it back; the GIN paper gives
social-network TU sets (which have no node features) exactly this one-hot degree.
"""

from typing import Literal

import torch
import torch.nn.functional as F
from runkit import ConfigError
from torch_geometric.data import Data
from torch_geometric.transforms import LocalDegreeProfile
from torch_geometric.utils import degree

NodeFeature = Literal["given", "constant", "degree", "degree_profile"]


def node_degree(graph: Data) -> torch.Tensor:
    # Undirected graphs list each edge both ways, so the out-degree is the degree.
    return degree(graph.edge_index[0], graph.num_nodes, dtype=torch.long)


def with_node_features(graph: Data, parts: list[NodeFeature], max_degree: int) -> Data:
    """`graph` with `x` = the chosen parts side by side.

    given: the data's own features (a constant 1 per node where there are none). constant: a 1 per
    node. degree: one-hot degree, degrees above `max_degree` sharing the last slot. degree_profile:
    log(1 + ·) of PyG's LocalDegreeProfile (a node's degree and the min, max, mean and std of its
    neighbours'), which needs no cap.
    """
    if not parts:
        raise ConfigError("node_features is empty: name at least one of given, constant, degree, degree_profile")
    n = graph.num_nodes
    columns = []
    for part in parts:
        if part == "given":
            columns.append(graph.x.float() if graph.x is not None else torch.ones(n, 1))
        elif part == "constant":
            columns.append(torch.ones(n, 1))
        elif part == "degree":
            columns.append(F.one_hot(node_degree(graph).clamp(max=max_degree), max_degree + 1).float())
        elif part == "degree_profile":
            profile = LocalDegreeProfile()(Data(edge_index=graph.edge_index, num_nodes=n)).x
            columns.append(torch.log1p(profile))
        else:
            raise ConfigError(f"unknown node feature {part!r}: use given, constant, degree or degree_profile")
    graph = graph.clone()
    graph.x = torch.cat(columns, dim=1)
    return graph
