"""Graph regression (`--model gcn_regression`): what it learns from structure, TU targets from disk, predictions
in the targets' units."""

from pathlib import Path

import pytest
import torch
from runkit import DataError
from runkit.testing.events import fitted_with_events
from runkit.tools.export import export, load_weights

from project import lr_find
from project.cli import build
from project.data.graphs import GraphRegressionDataModule
from project.data.graphs.features import with_node_features
from project.data.graphs.synthetic import degree_assortativity
from project.registry import CONFIG_DIR
from tests.conftest import TINY
from tests.gcn.test_data import write_tu


@pytest.mark.slow
def test_the_gcn_reads_assortativity_from_the_edges_and_a_model_without_them_cannot():
    r2 = {}
    for edges in (True, False):
        cli = build("gcn_regression", *TINY, "--data.num_graphs=1000", "--trainer.max_epochs=40")
        if not edges:
            data = cli.datamodule.hparams
            for graph in cli.datamodule.graphs:
                graph.edge_index = torch.zeros(2, 0, dtype=torch.long)  # an MLP on each node, then the mean
                graph.x = None  # degree features follow the edges: all 0 now
                graph.x = with_node_features(graph, data.node_features, data.max_degree).x
        cli.trainer.fit(cli.model, cli.datamodule)
        r2[edges] = cli.trainer.validate(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]["val/r2"]
    # Measured: 0.85 with edges (0.95 on the default 2,000 graphs), -0.01 without.
    assert r2[True] >= 0.80
    assert r2[False] <= 0.2


def test_the_generated_targets_are_not_told_by_degrees_or_size():
    dm = GraphRegressionDataModule(num_graphs=300, node_features=["degree"])
    y = torch.cat([g.y for g in dm.graphs]).flatten()
    sizes = torch.tensor([float(g.num_nodes) for g in dm.graphs])
    mean_degree = torch.tensor([g.num_edges / g.num_nodes for g in dm.graphs])
    assert y.std() > 0.1  # a spread to learn
    for feature in (sizes, mean_degree):
        assert abs(torch.corrcoef(torch.stack([y, feature]))[0, 1]) < 0.3
    graph = dm.graphs[0]
    assert float(graph.y) == pytest.approx(degree_assortativity(graph.edge_index, graph.num_nodes))


def write_targets(root, name: str = "TOY", rows: list[str] | None = None) -> None:
    """`write_tu`'s six graphs, with two real targets per graph: edges, and 10 x the graph's number."""
    write_tu(root, name)
    rows = rows if rows is not None else [f"{6 if g % 2 == 0 else 4}, {10.0 * g}" for g in range(6)]
    (root / name / "raw" / f"{name}_graph_attributes.txt").write_text("\n".join(rows) + "\n")


def test_reads_tu_graph_attributes_as_targets(tmp_path):
    write_targets(tmp_path)
    dm = GraphRegressionDataModule(source="tu", name="TOY", data_dir=str(tmp_path), batch_size=2)
    assert dm.num_outputs == 2 and dm.output_names == ["y0", "y1"]
    assert [g.y.tolist() for g in dm.graphs[:2]] == [[[6.0, 0.0]], [[4.0, 10.0]]]
    dm.setup("fit")
    batch = next(iter(dm.train_dataloader()))
    assert batch.y.shape == (2, 2) and batch.y.dtype == torch.float32


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["6, 0"] * 5, r"TOY_graph_attributes.txt: 5 rows, but TOY_graph_indicator.txt numbers 6 graphs"),
        (["6, 0"] * 3 + ["6, abc"] + ["6, 0"] * 2, r"TOY_graph_attributes.txt, line 4: 'abc' is not a number"),
        (["6, 0"] * 2 + ["6"] + ["6, 0"] * 3, r"TOY_graph_attributes.txt, line 3: 1 values, line 1 has 2"),
        (["6, 0"] * 5 + ["nan, 0"], r"TOY_graph_attributes.txt, line 6: NaN or inf"),
    ],
)
def test_a_bad_graph_attributes_file_is_named_with_its_line(tmp_path, rows, message):
    write_targets(tmp_path, rows=rows)
    with pytest.raises(DataError, match=message):
        GraphRegressionDataModule(source="tu", name="TOY", data_dir=str(tmp_path))
    assert not (tmp_path / "TOY" / "processed").exists()  # nothing written before the check


def test_predictions_come_back_in_the_targets_units_from_the_checkpoint(tmp_path):
    cli = build("gcn_regression", *TINY, "--data.num_graphs=200", "--trainer.max_epochs=2")
    cli.trainer.fit(cli.model, cli.datamodule)
    targets = cli.datamodule.train_targets()
    task = cli.model.task
    torch.testing.assert_close(task.mean, targets.mean(dim=0))
    torch.testing.assert_close(task.std, targets.std(dim=0))
    # A fresh process: the checkpoint alone carries the standardisation.
    loaded = type(cli.model).load_from_checkpoint(cli.trainer.checkpoint_callback.last_model_path)
    torch.testing.assert_close(loaded.task.mean, task.mean)
    batch = next(iter(cli.datamodule.val_dataloader()))
    loaded.eval()
    with torch.no_grad():
        raw = loaded.net(batch.x, batch.edge_index, batch.batch)
        values = loaded.predict_step(batch, 0)["value"]
    torch.testing.assert_close(values, raw * task.std + task.mean)


@pytest.mark.slow
def test_node_regression_reads_the_neighbours_and_a_node_alone_cannot():
    node_config = str(CONFIG_DIR / "gcn_node_regression.yaml")
    r2 = {}
    for edges in (True, False):
        cli = build("gcn_regression", *TINY, f"--config={node_config}")
        if not edges:
            cli.datamodule.graph.edge_index = torch.zeros(2, 0, dtype=torch.long)
        cli.trainer.fit(cli.model, cli.datamodule)
        r2[edges] = cli.trainer.validate(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]["val/r2"]
    # Measured: 0.81 with edges (115 epochs), -0.01 without.
    assert r2[True] >= 0.7
    assert r2[False] <= 0.1
    targets = cli.datamodule.train_targets()
    assert targets.shape == (int(cli.datamodule.graph.train_mask.sum()), 1)


def test_a_run_draws_predicted_vs_true_and_residuals_and_logs_its_hparams_metrics():
    cli, tags = fitted_with_events(build("gcn_regression", *TINY, "--data.num_graphs=200", "--trainer.max_epochs=1"))
    assert {"val/predicted_vs_true", "val/residuals"} <= set(tags["images"])
    assert "hp/val/mae_best" in tags["scalars"]
    assert Path(cli.trainer.checkpoint_callback.best_model_path).name.startswith("epoch00-mae")


def test_a_regression_checkpoint_exports_with_its_standardisation(tmp_path):
    cli = build("gcn_regression", *TINY, "--data.num_graphs=200", "--trainer.max_steps=3")
    cli.trainer.fit(cli.model, cli.datamodule)
    out = export(cli.trainer.checkpoint_callback.last_model_path, tmp_path / "model.safetensors")
    fresh = build("gcn_regression", *TINY, "--data.num_graphs=200").model
    load_weights(fresh, out)
    torch.testing.assert_close(fresh.task.mean, cli.model.task.mean)  # the buffers travel with the weights
    torch.testing.assert_close(fresh.task.std, cli.model.task.std)


def test_lr_find_runs_on_a_regression_model(capsys):
    lr_find.main(["--model", "gcn_regression", *TINY, "--data.num_graphs=300", "--num_training=30"])
    assert "LR range test: 30 steps" in capsys.readouterr().out
