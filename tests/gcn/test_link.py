"""Link prediction (`--model gcn_link`): what it learns and needs messages for, the leak it catches, and predictions
with the user's own node ids. (The task's loss and ranks: runkit's own tests.)"""

import csv
import math

import pytest
import torch
from runkit import DataError

from project.cli import build
from tests.conftest import TINY

SMALL_GRAPH = ["--data.sbm_nodes=400", "--data.sbm_communities=4"]


def test_untrained_scores_start_near_ln2_and_every_metric_is_logged_per_stage():
    cli = build("gcn_link", *TINY, *SMALL_GRAPH, "--trainer.max_epochs=2")
    cli.datamodule.setup("fit")
    batch = next(iter(cli.datamodule.train_dataloader()))
    output, target, _ = cli.model.outputs(batch)
    assert 0.5 * math.log(2) < cli.model.task.loss(output, target).item() < 2 * math.log(2)
    cli.trainer.fit(cli.model, cli.datamodule)
    logged = cli.trainer.logged_metrics
    assert {"val/auroc", "val/ap", "val/mrr", "val/hits_at_k", "train/auroc", "val/auroc_best"} <= set(logged)
    assert "train/hits_at_k" not in logged  # one negative per training link: a rank among one says little
    tested = cli.trainer.test(cli.model, cli.datamodule, verbose=False)[0]
    assert {"test/auroc", "test/ap", "test/mrr", "test/hits_at_k"} <= set(tested)
    assert cli.trainer.checkpoint_callback.monitor == "val/auroc"


@pytest.mark.slow
def test_the_default_learns_links_and_without_messages_it_cannot():
    scores = {}
    for messages in (True, False):
        cli = build("gcn_link", *TINY)
        if not messages:  # the same network on the node features alone
            cli.datamodule.message_graph = torch.zeros(2, 0, dtype=torch.long)
        cli.trainer.fit(cli.model, cli.datamodule)
        scores[messages] = cli.trainer.validate(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]
    # Measured: val/auroc 0.96, hits_at_k 0.96 with messages; 0.81 and 0.43 without.
    assert scores[True]["val/auroc"] >= 0.90 and scores[True]["val/hits_at_k"] >= 0.85
    assert scores[False]["val/auroc"] <= 0.86 and scores[False]["val/hits_at_k"] <= 0.6


def test_sampled_batches_of_links_train_and_a_leaky_split_is_reported(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("src,dst\n" + "".join(f"n{i},n{(i + k) % 60}\n" for i in range(60) for k in (1, 2, 3)))
    val = tmp_path / "val.csv"
    val.write_text("src,dst\nn0,n1\nn0,n30\nn5,n40\n")  # n0,n1 is a training link
    cli = build(
        "gcn_link", *TINY, "--data.source=csv", f"--data.train_path={train}", f"--data.val_path={val}",
        "--data.loader=neighbor", "--data.batch_size=32", "--model.net.embedding_dim=8", "--trainer.max_epochs=1",
    )  # fmt: skip
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.global_step == 180 // 32
    diagnostics = next(c for c in cli.trainer.callbacks if type(c).__name__ == "Diagnostics")
    (finding,) = [f for f in diagnostics.findings if f.check == "splits"]
    assert "1 of the 3 val links, first at line 2 are also training links" in finding.message


def test_predict_writes_scores_and_new_links_with_the_users_node_ids(tmp_path):
    names = [f"user-{i}" for i in range(400)]
    template = build("gcn_link", *TINY, *SMALL_GRAPH).datamodule
    links = torch.cat(list(template.links.values()), dim=1)
    edges = tmp_path / "edges.csv"
    edges.write_text("src,dst\n" + "".join(f"{names[a]},{names[b]}\n" for a, b in links.t().tolist()))
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("src,dst\nuser-3,user-7\nuser-3,user-390\n")
    data = ["--data.source=csv", f"--data.train_path={edges}", "--data.features_path=null"]
    cli = build("gcn_link", *TINY, *data, "--model.net.embedding_dim=16", "--trainer.max_epochs=3")
    cli.trainer.fit(cli.model, cli.datamodule)
    checkpoint = cli.trainer.checkpoint_callback.last_model_path

    queries = ["--data.predict_nodes=[user-3, user-10]", "--data.top_k=5"]
    tables = []
    for extra in ([f"--data.predict_path={pairs}"], queries):
        predictor = build("gcn_link", *TINY, *data, "--model.net.embedding_dim=16", *extra)
        predictor.trainer.predict(predictor.model, predictor.datamodule, ckpt_path=checkpoint)
        with open(f"{predictor.trainer.log_dir}/predictions.tsv") as handle:
            tables.append(list(csv.DictReader(handle, delimiter="\t")))
    scored, table = tables
    assert [(r["src"], r["dst"]) for r in scored] == [("user-3", "user-7"), ("user-3", "user-390")]
    assert set(table[0]) == {"index", "src", "dst", "probability"} and len(table) == 10
    assert all(0 <= float(row["probability"]) <= 1 for row in scored + table)
    known = {(names[a], names[b]) for a, b in links.t().tolist()}
    known |= {(b, a) for a, b in known}
    assert not any((r["src"], r["dst"]) in known or r["src"] == r["dst"] for r in table)  # new links only
    for query in ("user-3", "user-10"):
        scores = [float(r["probability"]) for r in table if r["src"] == query]
        assert len(scores) == 5 and scores == sorted(scores, reverse=True)

    other = tmp_path / "other.csv"
    other.write_text("src,dst\nx,y\ny,z\nz,w\nw,v\n")
    stranger = build("gcn_link", *TINY, "--data.source=csv", f"--data.train_path={other}", "--data.val_fraction=0.25")
    with pytest.raises(DataError, match="the checkpoint's graph has 400 nodes"):
        stranger.datamodule.load_state_dict(torch.load(checkpoint, weights_only=False)["LinkPredictionDataModule"])


def test_dot_and_mlp_decoders_are_symmetric_and_bilinear_can_tell_direction():
    from project.nets.gcn_link import make_decoder

    a, b = torch.randn(5, 8), torch.randn(5, 8)
    for kind in ("dot", "mlp"):
        decoder = make_decoder(kind, 8)
        torch.testing.assert_close(decoder(a, b), decoder(b, a))
    bilinear = make_decoder("bilinear", 8)
    torch.testing.assert_close(bilinear(a, b), make_decoder("dot", 8)(a, b))  # it starts as the scaled dot
    with torch.no_grad():
        bilinear.weight.add_(torch.randn(8, 8))
    assert not torch.allclose(bilinear(a, b), bilinear(b, a))


def test_a_directed_graph_trains_with_the_bilinear_decoder(tmp_path):
    edges = tmp_path / "follows.csv"
    edges.write_text("src,dst\n" + "".join(f"u{i},u{(i + k) % 80}\n" for i in range(80) for k in (1, 2, 3)))
    cli = build(
        "gcn_link", *TINY, "--data.source=csv", f"--data.train_path={edges}", "--data.undirected=false",
        "--model.net.decoder=bilinear", "--model.net.embedding_dim=8", "--trainer.max_epochs=3",
    )  # fmt: skip
    assert cli.datamodule.message_graph.shape[1] == cli.datamodule.links["train"].shape[1]  # one way only
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.global_step == 3 and "val/auroc" in cli.trainer.logged_metrics
