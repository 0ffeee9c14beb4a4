import math

import pytest
import torch
from runkit import ConfigError
from torch_geometric.data import Data

from project.data.graphs import GraphClassificationDataModule
from project.data.graphs.checks import check_graph
from project.data.graphs.features import with_node_features
from project.data.graphs.files import load_planetoid
from project.data.graphs.node_level import NodeClassificationDataModule
from project.data.graphs.synthetic import FAMILIES, structure_graphs


def test_structure_graphs_are_seeded_balanced_and_varied():
    graphs = structure_graphs(200, seed=0)
    again = structure_graphs(200, seed=0)
    assert all(torch.equal(a.edge_index, b.edge_index) for a, b in zip(graphs, again, strict=True))
    labels = torch.cat([g.y for g in graphs])
    assert labels.bincount().tolist() == [50] * len(FAMILIES)
    sizes = [g.num_nodes for g in graphs]
    assert min(sizes) <= 25 and max(sizes) >= 75
    for c in range(len(FAMILIES)):  # about the same mean degree in every class: density tells nothing
        degree = [g.num_edges / g.num_nodes for g, y in zip(graphs, labels, strict=True) if y == c]
        assert 3.0 < sum(degree) / len(degree) < 4.5
    assert all(torch.equal(g.x, torch.ones(g.num_nodes, 1)) for g in graphs)


def test_graph_datamodule_batches_block_diagonally():
    dm = GraphClassificationDataModule(num_graphs=100, batch_size=16)
    assert (dm.num_classes, dm.num_features) == (4, 1 + 11)  # a constant, then one-hot degree 0..10
    dm.setup("fit")
    assert (len(dm.train_set), len(dm.val_set), len(dm.test_set)) == (80, 10, 10)
    batch = next(iter(dm.train_dataloader()))
    assert batch.num_graphs == 16 and batch.y.shape == (16,)
    assert torch.equal(batch.batch[batch.edge_index[0]], batch.batch[batch.edge_index[1]])


# ---- TU files on disk --------------------------------------------------------------------------


def write_tu(root, name: str = "TOY") -> None:
    """Six graphs in TU text format: triangles (label 1) and 3-node paths (label 2), node labels 1..2."""
    raw = root / name / "raw"
    raw.mkdir(parents=True)
    edges, indicator, node_labels = [], [], []
    for g in range(6):
        a = 3 * g + 1  # TU node ids are 1-based and global
        pairs = [(a, a + 1), (a + 1, a + 2)] + ([(a, a + 2)] if g % 2 == 0 else [])
        edges += [p for pair in pairs for p in (pair, pair[::-1])]
        indicator += [g + 1] * 3
        node_labels += [1, 2, 1]
    (raw / f"{name}_A.txt").write_text("".join(f"{i}, {j}\n" for i, j in edges))
    (raw / f"{name}_graph_indicator.txt").write_text("".join(f"{g}\n" for g in indicator))
    (raw / f"{name}_graph_labels.txt").write_text("".join(f"{1 if g % 2 == 0 else 2}\n" for g in range(6)))
    (raw / f"{name}_node_labels.txt").write_text("".join(f"{n}\n" for n in node_labels))


def test_reads_a_tu_dataset_from_disk(tmp_path):
    write_tu(tmp_path)
    dm = GraphClassificationDataModule(
        source="tu", name="TOY", data_dir=str(tmp_path), batch_size=2, node_features=["given"]
    )
    assert dm.num_classes == 2 and dm.num_features == 2  # node labels one-hot
    assert len(dm.graphs) == 6
    triangles = [g for g in dm.graphs if g.num_edges == 6]
    assert len(triangles) == 3 and all(int(g.y) == 0 for g in triangles)  # labels 1, 2 mapped to 0, 1


def test_missing_tu_files_are_named_and_nothing_is_created(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"missing MUTAG_A.txt, MUTAG_graph_indicator.txt.*MUTAG/raw/"):
        GraphClassificationDataModule(source="tu", name="MUTAG", data_dir=str(tmp_path / "tu"))
    assert not (tmp_path / "tu").exists()


def test_missing_planetoid_files_are_named_and_nothing_is_created(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"missing ind.cora.x, ind.cora.tx.*Cora/raw/ \(nothing can be"):
        load_planetoid(str(tmp_path / "planetoid"), "Cora")
    assert not (tmp_path / "planetoid").exists()


# ---- bad graphs --------------------------------------------------------------------------------


def good_graph() -> Data:
    return Data(x=torch.randn(4, 2), edge_index=torch.tensor([[0, 1, 2], [1, 2, 3]]), y=torch.tensor([1]))


def features_with_nan() -> torch.Tensor:
    x = torch.randn(4, 2)
    x[2, 1] = float("nan")
    return x


BROKEN = {
    "edge out of range": ({"edge_index": torch.tensor([[0, 1], [1, 7]])}, r"node ids from 0 to 7.*4 nodes"),
    "float edges": ({"edge_index": torch.tensor([[0.0, 1.0], [1.0, 2.0]])}, r"must be int64"),
    "flat edges": ({"edge_index": torch.tensor([0, 1, 2])}, r"shape \[2, num_edges\], got \[3\]"),
    "NaN feature": ({"x": features_with_nan()}, r"NaN or inf in the node features of 1 node\(s\), first node 2"),
    "label out of range": ({"y": torch.tensor([5])}, r"label 5 is out of range for 3 classes"),
    "no nodes": ({"x": torch.zeros(0, 2), "edge_index": torch.zeros(2, 0, dtype=torch.long)}, r"has no nodes"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_graphs_are_named(case):
    changes, message = BROKEN[case]
    graph = good_graph()
    for key, value in changes.items():
        graph[key] = value
    with pytest.raises(ValueError, match="graph 7: .*" + message):
        check_graph(graph, "graph 7", num_classes=3)


def test_datamodule_checks_every_graph_at_setup():
    dm = GraphClassificationDataModule(num_graphs=20)
    dm.graphs[13].x[0, 0] = float("inf")
    with pytest.raises(ValueError, match="graph 13: NaN or inf"):
        dm.setup("fit")


# ---- node level ---------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["karate", "sbm"])
def test_node_masks_are_disjoint_and_seeded(source):
    dm = NodeClassificationDataModule(source=source, sbm_nodes=400)
    g = dm.graph
    masks = torch.stack([g.train_mask, g.val_mask, g.test_mask]).int()
    assert masks.sum(0).max() == 1 and masks.sum() > 0.5 * g.num_nodes
    again = NodeClassificationDataModule(source=source, sbm_nodes=400).graph
    assert torch.equal(again.val_mask, g.val_mask) and torch.equal(again.edge_index, g.edge_index)
    if source == "karate":
        assert g.train_mask.sum() == 4 and dm.num_classes == 4 and g.num_nodes == 34
    else:
        assert g.train_mask.sum() == 20 * 4


def test_full_batch_refuses_ddp_clearly():
    from types import SimpleNamespace

    dm = NodeClassificationDataModule(source="karate")
    dm.trainer = SimpleNamespace(world_size=2)
    with pytest.raises(ConfigError, match="loader 'full' trains on the whole graph in one process"):
        dm.setup("fit")


def test_neighbor_sampling_puts_seeds_first_and_caps_the_fan_in():
    from project.data.graphs.neighbor_sampling import NeighborSampler
    from project.data.graphs.synthetic import community_graph

    graph = community_graph(500, p_in=0.05)
    original = set(map(tuple, graph.edge_index.t().tolist()))
    seeds = torch.tensor([7, 3, 99, 250])
    torch.manual_seed(0)
    batch = NeighborSampler(graph, [4, 2])(seeds)
    assert batch.batch_size == 4 and torch.equal(batch.n_id[:4], seeds)
    assert torch.equal(batch.x, graph.x[batch.n_id]) and torch.equal(batch.y, graph.y[batch.n_id])
    global_edges = batch.n_id[batch.edge_index]
    assert set(map(tuple, global_edges.t().tolist())) <= original  # only real edges
    into_seeds = batch.edge_index[1][batch.edge_index[1] < 4]
    assert torch.bincount(into_seeds, minlength=4).max() <= 4
    assert len(set(batch.n_id.tolist())) == batch.num_nodes  # each node once

    everything = NeighborSampler(graph, [-1])(seeds)
    for i, seed in enumerate(seeds.tolist()):
        in_degree = int((graph.edge_index[1] == seed).sum())
        assert int((everything.edge_index[1] == i).sum()) == in_degree


def test_neighbor_loader_batches_seed_nodes():
    dm = NodeClassificationDataModule(source="sbm", sbm_nodes=400, loader="neighbor", batch_size=16)
    dm.setup("fit")
    batch = next(iter(dm.val_dataloader()))
    assert batch.batch_size == 16 and bool(dm.graph.val_mask[batch.n_id[:16]].all())


def test_node_features_put_the_chosen_parts_side_by_side():
    # A star: the hub has degree 3, the leaves 1; the data gives 2 features per node.
    star = Data(x=torch.randn(4, 2), edge_index=torch.tensor([[0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0]]))
    out = with_node_features(star, ["given", "degree", "degree_profile"], max_degree=2)
    assert out.x.shape == (4, 2 + 3 + 5)
    torch.testing.assert_close(out.x[:, :2], star.x)
    # One-hot degree, the hub's 3 capped into the last slot (max_degree 2).
    assert out.x[:, 2:5].tolist() == [[0, 0, 1], [0, 1, 0], [0, 1, 0], [0, 1, 0]]
    assert out.x[0, 5] == pytest.approx(math.log1p(3))  # the profile starts with the degree, log(1 + ·)
    assert star.x.shape == (4, 2)  # the dataset's own graph is left as it was
    no_features = Data(edge_index=star.edge_index, num_nodes=4)
    assert with_node_features(no_features, ["given"], 2).x.tolist() == [[1.0]] * 4


def test_tu_set_without_node_features_gets_degree_by_default(tmp_path):
    write_tu(tmp_path)
    for file in (tmp_path / "TOY" / "raw").glob("TOY_node_labels.txt"):
        file.unlink()
    dm = GraphClassificationDataModule(source="tu", name="TOY", data_dir=str(tmp_path), max_degree=4)
    assert dm.num_features == 1 + 5  # a constant, then one-hot degree 0..4
    with pytest.raises(ValueError, match="node_features is empty"):
        GraphClassificationDataModule(source="tu", name="TOY", data_dir=str(tmp_path), node_features=[])
