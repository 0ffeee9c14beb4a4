"""The graph family through the real entry point under DDP: PyG batches, neighbour sampling, and a clear refusal."""

import subprocess
import sys

import pytest

from project.registry import CONFIG_DIR
from tests.conftest import run


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("gcn", ["--data.num_graphs", "200"]),  # PyG Batch objects under DDP
        ("gcn_node", ["--config", "gcn_node.yaml", "--data.loader", "neighbor", "--data.batch_size", "16"]),
    ],
)
def test_cpu_ddp_runs_the_graph_family(tmp_path, name, args):
    configs = CONFIG_DIR
    args = [str(configs / a) if a.endswith(".yaml") else a for a in args]
    preset = str(configs / "presets" / "cpu_ddp.yaml")
    out = run("project.fit", "--model", "gcn", "--config", preset, *args, "--trainer.max_epochs", "1", cwd=tmp_path)
    assert out.count("Fit finished.") == 1
    assert (tmp_path / "logs" / name / "version_0" / "checkpoints" / "last.ckpt").is_file()


@pytest.mark.slow
def test_full_batch_node_training_refuses_ddp(tmp_path):
    configs = CONFIG_DIR
    command = ["--model", "gcn", "--config", str(configs / "gcn_node.yaml")]
    command += ["--config", str(configs / "presets" / "cpu_ddp.yaml"), "--trainer.max_epochs", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "project.fit", *command], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0
    assert "loader 'full' trains on the whole graph in one process" in result.stderr
