"""Link prediction's data: held-out links never carry messages, negatives by seed and epoch, bad files named."""

import pytest
import torch
from runkit import ConfigError, DataError, MissingDataError

from project.data.graphs import LinkPredictionDataModule
from project.data.graphs.link_pairs import EdgeSet, canonical_edges

SMALL = {"sbm_nodes": 400, "sbm_communities": 4}


def graph_edges(batch) -> EdgeSet:
    """The links of a batch's message-passing graph, in the whole graph's node ids."""
    return EdgeSet(batch.n_id[batch.edge_index], int(batch.n_id.max()) + 1 + 10_000)


def holds(edges: EdgeSet, links: torch.Tensor) -> torch.Tensor:
    """Which links `[2, E]` the edge set has, either way round."""
    return edges.contains(links[0], links[1]) | edges.contains(links[1], links[0])


@pytest.mark.parametrize("loader", ["full", "neighbor"])
def test_held_out_links_are_never_in_the_graph_they_are_scored_over(loader):
    dm = LinkPredictionDataModule(**SMALL, loader=loader, num_neighbors=(-1, -1), batch_size=64)
    dm.setup("fit")
    links = dm.links
    total = sum(part.shape[1] for part in links.values())
    every = canonical_edges(torch.cat(list(links.values()), dim=1), dm.num_nodes, undirected=True)[0]
    assert len(every) == total  # the parts partition the links: none in two parts
    assert links["val"].shape[1] == round(0.1 * total) == links["test"].shape[1]
    passing = EdgeSet(dm.message_graph, dm.num_nodes)
    assert len(passing) == 2 * links["train"].shape[1]  # undirected: every training link both ways, only they
    for part, loader_of in (("val", dm.val_dataloader), ("test", dm.test_dataloader)):
        assert not holds(passing, links[part]).any()
        scored = 0
        for batch in loader_of():
            assert not holds(graph_edges(batch), links[part]).any(), f"a {part} link passes messages"
            positives = batch.n_id[batch.pairs[:, :, 0]]
            scored += positives.shape[1]
            assert holds(EdgeSet(links[part], 10_400), positives).all()  # column 0: the part's links
        assert scored == links[part].shape[1]
    train_batch = next(iter(dm.train_dataloader()))
    assert holds(passing, train_batch.n_id[train_batch.pairs[:, :, 0]]).all()


def test_negatives_are_non_links_fresh_each_epoch_fixed_for_validation_and_shared_out_by_rank():
    dm = LinkPredictionDataModule(**SMALL)
    dm.setup("fit")
    collate = dm.train_set.collate
    ids = list(range(dm.train_set.size))
    epoch0, again, epoch1 = (collate([(e, i) for i in ids]) for e in (0, 0, 1))
    negatives = epoch0.n_id[epoch0.pairs[:, :, 1]]
    assert not holds(EdgeSet(dm.message_graph, dm.num_nodes), negatives).any()
    assert (negatives[0] != negatives[1]).all()  # no self-loops
    assert torch.equal(epoch0.pairs, again.pairs) and not torch.equal(epoch0.pairs, epoch1.pairs)
    # Two ranks' batches of one epoch hold exactly the rows one process's batch of both has.
    half = [collate([(3, i) for i in ids[rank::2]]) for rank in (0, 1)]
    whole = collate([(3, i) for i in ids])
    rows = lambda b: {tuple(r) for r in b.n_id[b.pairs].permute(1, 0, 2).reshape(len(b.y), -1).tolist()}  # noqa: E731
    assert rows(half[0]) | rows(half[1]) == rows(whole)

    val = next(iter(dm.val_dataloader()))
    assert val.pairs.shape[2] == 101 and torch.equal(val.y[:, 0], torch.ones(len(val.y)))
    every_link = EdgeSet(torch.cat(list(dm.links.values()), dim=1), dm.num_nodes)
    assert not holds(every_link, val.n_id[val.pairs[:, :, 1:]].flatten(1)).any()  # not a link of any part
    other = LinkPredictionDataModule(**SMALL)
    other.setup("fit")
    assert torch.equal(next(iter(other.val_dataloader())).pairs, val.pairs)  # fixed by the seed


def write(path, text: str):
    path.write_text(text)
    return str(path)


def test_an_edge_list_with_names_is_mapped_and_its_policies_stated(tmp_path):
    edges = write(tmp_path / "edges.csv", "src,dst\nann,bob\nbob,ann\ncat,cat\nbob,cat\ndan,ann\nbob,cat\n")
    features = write(tmp_path / "nodes.csv", "node,a,b\nann,1,0\nbob,0,1\ncat,1,1\ndan,0,0\neve,5,5\n")
    with pytest.warns(UserWarning) as caught:
        dm = LinkPredictionDataModule(
            source="csv", train_path=edges, features_path=features, val_fraction=0.34, test_fraction=0.0
        )
    messages = " | ".join(str(w.message) for w in caught)
    assert "1 self-loop(s) (first at line 4) dropped" in messages
    assert "2 repeated link(s) (first at line 3) merged (undirected: a,b and b,a are one link)" in messages
    assert "1 row(s) name nodes that no edge names (first at line 6); skipped" in messages
    assert dm.node_names == ["ann", "bob", "cat", "dan"]
    assert sum(part.shape[1] for part in dm.links.values()) == 3  # ann-bob, bob-cat, dan-ann
    assert dm.graph.x.tolist() == [[1, 0], [0, 1], [1, 1], [0, 0]]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("src,dst\na,b\nc\n", r"edges.csv, line 3: 1 field\(s\), the header has 2 \(src,dst\)"),
        ("src,dst\na,b,c\n", r"edges.csv, line 2: 3 field\(s\), the header has 2"),
        ("src,dst,weight\na,b,heavy\n", r"edges.csv, line 2: 'heavy' is not a number"),
        ("src,dst,weight\na,b,0\n", r"edges.csv, line 2: weight '0', but an edge's weight must be above 0"),
        ("from,to\na,b\n", r"edges.csv, line 1: the header must start with 'src'"),
        ("src,dst\n,b\n", r"edges.csv, line 2: the field 'src' is empty"),
    ],
)
def test_a_bad_edge_list_is_named_by_file_and_line(tmp_path, text, problem):
    with pytest.raises(DataError, match=problem):
        LinkPredictionDataModule(source="csv", train_path=write(tmp_path / "edges.csv", text))


def test_nodes_without_features_and_splits_without_training_links_are_refused(tmp_path):
    edges = write(tmp_path / "edges.csv", "src,dst\na,b\nb,c\nc,d\n")
    features = write(tmp_path / "nodes.csv", "node,f\na,1\nb,2\n")
    with pytest.raises(DataError, match=r"nodes.csv: 2 node\(s\) of the edge list have no features \(e.g. 'c'\)"):
        LinkPredictionDataModule(source="csv", train_path=edges, features_path=features)
    with pytest.raises(ConfigError, match=r"val_fraction=0.5 and data.test_fraction=0.5 leave no training link"):
        LinkPredictionDataModule(**SMALL, val_fraction=0.5, test_fraction=0.5)
    with pytest.raises(ConfigError, match="reads data.train_path"):
        LinkPredictionDataModule(source="csv")


def test_a_leaky_user_split_is_caught_by_its_edge_sets(tmp_path):
    edges = write(tmp_path / "train.csv", "src,dst\na,b\nb,c\nc,d\nd,e\n")
    val = write(tmp_path / "val.csv", "src,dst\na,c\nc,b\nb,e\n")  # c,b is the training link b,c reversed
    leaky = LinkPredictionDataModule(source="csv", train_path=edges, val_path=val)
    assert leaky.split_overlap().startswith("1 of the 3 val links, first at line 3 are also training links")
    clean = write(tmp_path / "clean.csv", "src,dst\na,c\nb,e\n")
    assert LinkPredictionDataModule(source="csv", train_path=edges, val_path=clean).split_overlap() is None
    cold = write(tmp_path / "cold.csv", "src,dst\na,c\nb,zed\n")
    with pytest.warns(UserWarning, match=r"1 node\(s\) of the validation or test links are in no training link"):
        LinkPredictionDataModule(source="csv", train_path=edges, val_path=cold)
    directed = LinkPredictionDataModule(source="csv", train_path=edges, val_path=val, undirected=False)
    assert directed.split_overlap() is None  # directed, c -> b is another link than b -> c


def test_karate_ships_with_pyg_and_splits_its_78_friendships():
    dm = LinkPredictionDataModule(source="karate")
    assert dm.num_nodes == 34 and sum(p.shape[1] for p in dm.links.values()) == 78


@pytest.mark.parametrize("loader", ["full", "neighbor"])
def test_training_links_weights_go_with_their_messages_both_ways(tmp_path, loader):
    rows = [(f"n{i}", f"n{(i + k) % 30}", 1 + (i * 7 + k) % 5) for i in range(30) for k in (1, 2)]
    edges = write(tmp_path / "edges.csv", "src,dst,weight\n" + "".join(f"{a},{b},{w}\n" for a, b, w in rows))
    dm = LinkPredictionDataModule(source="csv", train_path=edges, loader=loader, num_neighbors=(-1, -1), batch_size=8)
    dm.setup("fit")
    weight = {(a, b): float(w) for a, b, w in rows} | {(b, a): float(w) for a, b, w in rows}
    batch = next(iter(dm.train_dataloader()))
    names = [dm.node_names[i] for i in batch.n_id.tolist()]
    seen = [(names[u], names[v]) for u, v in batch.edge_index.t().tolist()]
    assert len(seen) == len(batch.edge_weight) > 0
    assert batch.edge_weight.tolist() == [weight[pair] for pair in seen]  # each message with its link's weight
    with pytest.raises(ConfigError, match="conv sage takes no edge weights"):
        from project.nets.gcn_link import GCNLinkPredictor

        net = GCNLinkPredictor(dm.num_features, dm.num_nodes, conv="sage", hidden_channels=8)
        net(batch.x, batch.edge_index, batch.pairs, batch.n_id, batch.edge_weight)


def write_planetoid(raw, nodes: int = 600, features: int = 8) -> set[tuple[int, int]]:
    """Planetoid's eight raw files (pickled arrays, an adjacency dict, the test ids) for a ring with chords,
    as PyG's reader takes them; its links, one per pair. Planetoid wants 500 validation nodes after the
    training ones, hence the size."""
    import pickle

    import numpy as np

    rng = np.random.default_rng(0)
    x, labels = rng.normal(size=(nodes, features)), np.eye(3)[rng.integers(0, 3, nodes)]
    graph = {i: [(i + 1) % nodes, (i + 7) % nodes] for i in range(nodes)}
    raw.mkdir(parents=True)
    parts = {"x": x[:20], "tx": x[-2:], "allx": x[:-2], "y": labels[:20], "ty": labels[-2:], "ally": labels[:-2]}
    for name, value in [*parts.items(), ("graph", graph)]:
        (raw / f"ind.cora.{name}").write_bytes(pickle.dumps(value))
    (raw / "ind.cora.test.index").write_text(f"{nodes - 2}\n{nodes - 1}\n")
    return {tuple(sorted((a, b))) for a, ends in graph.items() for b in ends}


def test_planetoid_links_are_read_from_disk_and_missing_files_are_named(tmp_path):
    with pytest.raises(MissingDataError, match=r"missing ind.cora.x, .* in .*planetoid/Cora/raw/"):
        LinkPredictionDataModule(source="planetoid", name="Cora", data_dir=str(tmp_path / "planetoid"))
    assert not (tmp_path / "planetoid").exists()
    links = write_planetoid(tmp_path / "planetoid" / "Cora" / "raw")
    dm = LinkPredictionDataModule(source="planetoid", name="Cora", data_dir=str(tmp_path / "planetoid"))
    read = {tuple(sorted(pair)) for part in dm.links.values() for pair in part.t().tolist()}
    assert read == links and dm.num_features == 8 and dm.num_nodes == 600
