"""Our GCNLayer against PyG's GCNConv, and block-diagonal batching that keeps graphs apart."""

import pytest
import torch
from torch_geometric.data import Batch, Data
from torch_geometric.nn import GCNConv

from project.nets.gcn import GCN
from project.nets.gcn_layer import GCNLayer


def awkward_graph(seed: int, num_nodes: int = 30) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random edges among the first nodes only (the last 4 are isolated), duplicates, self-loops, weights."""
    gen = torch.Generator().manual_seed(seed)
    edges = torch.randint(0, num_nodes - 4, (2, 80), generator=gen)
    edges = torch.cat([edges, edges[:, :10], torch.tensor([[2, 5], [2, 5]])], dim=1)
    weights = torch.rand(edges.shape[1], generator=gen) + 0.1
    x = torch.randn(num_nodes, 6, generator=gen)
    return x, edges, weights


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_native_layer_equals_pyg_outputs_and_gradients(seed, weighted):
    x, edges, weights = awkward_graph(seed)
    ours, theirs = GCNLayer(6, 5), GCNConv(6, 5)
    with torch.no_grad():
        theirs.lin.weight.copy_(ours.lin.weight)
        ours.bias.normal_()
        theirs.bias.copy_(ours.bias)
    w = weights if weighted else None
    x_ours, x_theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    out_ours, out_theirs = ours(x_ours, edges, w), theirs(x_theirs, edges, w)
    torch.testing.assert_close(out_ours, out_theirs, atol=1e-5, rtol=1e-5)
    probe = torch.randn_like(out_ours)
    (out_ours * probe).sum().backward()
    (out_theirs * probe).sum().backward()
    torch.testing.assert_close(x_ours.grad, x_theirs.grad, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ours.lin.weight.grad, theirs.lin.weight.grad, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ours.bias.grad, theirs.bias.grad, atol=1e-5, rtol=1e-5)


def test_isolated_nodes_without_self_loops_get_zero_not_nan():
    x, edges, _ = awkward_graph(0)
    edges = edges[:, edges[0] != edges[1]]  # no self-loops at all: isolated nodes have degree 0
    layer = GCNLayer(6, 5, add_self_loops=False)
    out = layer(x, edges)
    assert torch.isfinite(out).all()
    torch.testing.assert_close(out[-4:], layer.bias.expand(4, -1))  # nothing arrives: only the bias
    reference = GCNConv(6, 5, add_self_loops=False)
    with torch.no_grad():
        reference.lin.weight.copy_(layer.lin.weight)
    torch.testing.assert_close(out, reference(x, edges), atol=1e-5, rtol=1e-5)


def small_graphs() -> list[Data]:
    gen = torch.Generator().manual_seed(0)
    graphs = []
    for n in (3, 11, 6, 25):
        edges = torch.randint(0, n, (2, 2 * n), generator=gen)
        graphs.append(Data(x=torch.randn(n, 4, generator=gen), edge_index=edges))
    return graphs


@pytest.mark.parametrize("conv", ["gcn", "native", "gin", "sage", "gat"])
@pytest.mark.parametrize("readout", ["mean", "sum", "max"])
def test_each_graph_of_a_batch_gives_what_it_gives_alone(conv, readout):
    torch.manual_seed(0)
    net = GCN(num_outputs=3, in_channels=4, hidden_channels=8, conv=conv, readout=readout, residual=True).eval()
    graphs = small_graphs()
    batch = Batch.from_data_list(graphs)
    with torch.no_grad():
        batched = net(batch.x, batch.edge_index, batch.batch)
        for i, g in enumerate(graphs):
            torch.testing.assert_close(batched[i], net(g.x, g.edge_index)[0], atol=1e-5, rtol=1e-5)


def test_the_batch_adjacency_is_block_diagonal():
    batch = Batch.from_data_list(small_graphs())
    src, dst = batch.edge_index
    assert torch.equal(batch.batch[src], batch.batch[dst])  # no edge joins two graphs
    sizes = torch.bincount(batch.batch).tolist()
    assert sizes == [3, 11, 6, 25]
    starts = torch.tensor([0, 3, 14, 20])
    for i, g in enumerate(small_graphs()):  # each graph's edges, shifted by its offset
        mine = batch.edge_index[:, batch.batch[src] == i] - starts[i]
        assert torch.equal(mine, g.edge_index)


def test_changing_one_graph_changes_no_other():
    torch.manual_seed(0)
    net = GCN(num_outputs=3, in_channels=4, hidden_channels=8, readout="mean").eval()
    graphs = small_graphs()
    before = Batch.from_data_list(graphs)
    graphs[1].x = torch.randn_like(graphs[1].x) * 10
    after = Batch.from_data_list(graphs)
    with torch.no_grad():
        out_before = net(before.x, before.edge_index, before.batch)
        out_after = net(after.x, after.edge_index, after.batch)
    others = [0, 2, 3]
    assert torch.equal(out_before[others], out_after[others])
    assert not torch.allclose(out_before[1], out_after[1])


def test_node_level_gives_one_output_per_node():
    net = GCN(num_outputs=3, in_channels=4, readout=None)
    g = small_graphs()[3]
    assert net(g.x, g.edge_index).shape == (25, 3)


def test_gat_refuses_a_width_its_heads_do_not_divide():
    with pytest.raises(ValueError, match="divide into 4 heads"):
        GCN(num_outputs=2, in_channels=4, hidden_channels=10, conv="gat")


def test_gin_sees_degrees_on_constant_features():
    # A star and a path of 4 nodes, every node carrying the same 1: only the degrees differ. GIN sums its
    # neighbours, so the star's hub sums three and the pooled outputs differ.
    star = torch.tensor([[0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0]])
    path = torch.tensor([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
    x = torch.ones(4, 1)
    torch.manual_seed(0)
    gin = GCN(num_outputs=2, in_channels=1, hidden_channels=8, conv="gin", readout="sum").eval()
    with torch.no_grad():
        assert not torch.allclose(gin(x, star), gin(x, path), atol=1e-4)
