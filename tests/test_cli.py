"""The entry points: `--model NAME` expansion, errors that name the problem, and real subprocess runs."""

import subprocess
import sys
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch

from project.cli import build, config_files, expand_model_flag, main
from project.registry import MODELS
from tests.conftest import TINY

CNN_FLAGS = MODELS["cnn"].config_flags


def test_model_name_becomes_the_first_configs():
    args = ["fit", "--config", "preset.yaml", "--model", "cnn", "--trainer.max_epochs", "3"]
    assert expand_model_flag(args) == ["fit", *CNN_FLAGS, "--config", "preset.yaml", *args[5:]]
    assert expand_model_flag(["--model=cnn"]) == CNN_FLAGS


def test_config_files_keep_command_line_order():
    args = ["fit", "--config=a.yaml", "-c", "b.yaml", "--config", "c.yaml", "--model.config_x", "1"]
    assert config_files(args) == ["a.yaml", "b.yaml", "c.yaml"]


def test_class_paths_and_nested_keys_pass_through():
    args = ["fit", "--model", "my.pkg.Model", "--model.lr", "0.1"]
    assert expand_model_flag(args) == args


def test_unknown_model_lists_the_available_ones(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--model", "resnet"], subcommand="fit")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown model 'resnet'" in err
    for name, entry in MODELS.items():
        assert name in err and entry.description in err


def test_help_lists_the_models(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"], subcommand="fit")
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("Models (--model NAME")
    assert "--trainer.max_epochs" in out


@pytest.mark.parametrize(
    ("flag", "named"),
    [
        ("--trainer.max_epoch=3", "trainer.max_epoch"),  # a typo, not an abbreviation to accept
        ("--data.batch_sise=3", "batch_sise"),
        ("--data.batch_size=many", "batch_size"),
    ],
)
def test_bad_config_keys_and_values_are_named(capsys, flag, named):
    with pytest.raises(SystemExit) as exit_:
        main(["--model", "cnn", flag], subcommand="fit")
    assert exit_.value.code != 0
    assert named in capsys.readouterr().err


def test_print_config_resolves_presets_and_overrides(capsys):
    debug = str(MODELS["cnn"].path.parent / "presets" / "debug.yaml")
    with pytest.raises(SystemExit):
        main(["--model", "cnn", "--config", debug, "--seed_everything", "7", "--print_config"], subcommand="fit")
    out = capsys.readouterr().out
    assert "class_path: project.nets.cnn.SimpleCNN" in out
    assert "fast_dev_run: true" in out
    assert "seed_everything: 7" in out


def test_a_class_path_model_gets_num_classes_linked():
    cli = build("project.models.image.ImageClassifier", "--model.net=project.nets.cnn.SimpleCNN", *_shapes_data())
    assert cli.model.net.head[-1].out_features == 4


class PlainModule(L.LightningModule):
    """A user's own LightningModule: no `num_classes`, no `net`."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(width, 1)


def test_a_plain_lightning_module_runs_without_links():
    cli = build("tests.test_cli.PlainModule", "--model.width=5", *_shapes_data())
    assert cli.model.layer.in_features == 5


def _shapes_data() -> list[str]:
    return ["--data=project.data.images.ShapesDataModule", "--data.num_train=64", "--trainer.logger=false"]


def test_test_and_predict_from_a_checkpoint(build_cnn):
    cli = build_cnn("--trainer.max_steps=4", "--trainer.limit_val_batches=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    last = cli.trainer.checkpoint_callback.last_model_path
    small = ["--data.num_train=512", "--data.num_val=256", "--data.num_test=256", *TINY]
    tested = main(["test", "--model", "cnn", "--ckpt_path", last, *small])
    assert 0 <= tested.trainer.callback_metrics["test/acc"] <= 1
    predicted = main(["predict", "--model", "cnn", "--ckpt_path", last, *small])
    batches = predicted.trainer.predict_loop.predictions
    assert sum(len(b["pred"]) for b in batches) == 256
    written = (Path(predicted.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert written[0] == "index\tlabel\tprobability" and len(written) == 257
    assert written[1].split("\t")[1] in ("circle", "square", "triangle", "cross")


# ---- through the real entry point, in subprocesses ---------------------------------------------


def run(*args: str, cwd: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_fast_dev_run_through_the_entry_point_saves_nothing(tmp_path):
    out = run("project.fit", "--model", "cnn", "--trainer.fast_dev_run", "1", cwd=tmp_path)
    assert "fast_dev_run finished" in out
    assert not (tmp_path / "logs").exists() and not (tmp_path / "checkpoints").exists()


@pytest.mark.slow
def test_a_run_saves_its_config_and_the_config_repeats_it(tmp_path):
    small = ["--data.num_train", "256", "--data.num_val", "64", "--trainer.max_epochs", "1"]
    out = run("project.fit", "--model", "cnn", *small, "--trainer.enable_progress_bar", "false", cwd=tmp_path)
    first = tmp_path / "logs" / "cnn" / "version_0"
    assert (first / "config.yaml").is_file()
    assert list(first.glob("events.out.tfevents.*"))
    assert (first / "checkpoints" / "last.ckpt").is_file()
    assert f"logs and config: {Path('logs/cnn/version_0')}" in out
    assert "tensorboard --logdir logs/cnn/version_0" in out

    run("project", "fit", "--config", str(first / "config.yaml"), cwd=tmp_path)
    second = tmp_path / "logs" / "cnn" / "version_1"
    weights = [torch.load(d / "checkpoints" / "last.ckpt", weights_only=True)["state_dict"] for d in (first, second)]
    assert weights[0].keys() == weights[1].keys()
    for name in weights[0]:
        assert torch.equal(weights[0][name], weights[1][name]), name


@pytest.mark.slow
def test_cpu_ddp_preset_trains_with_two_processes(tmp_path):
    preset = str(MODELS["cnn"].path.parent / "presets" / "cpu_ddp.yaml")
    small = ["--data.num_train", "256", "--data.num_val", "64", "--trainer.max_epochs", "1"]
    out = run("project.fit", "--model", "cnn", "--config", preset, *small, cwd=tmp_path)
    assert out.count("Fit finished.") == 1  # rank 0 reports, rank 1 does not
    assert (tmp_path / "logs" / "cnn" / "version_0" / "checkpoints" / "last.ckpt").is_file()
    assert not (tmp_path / "logs" / "cnn" / "version_1").exists()  # one run folder, not one per rank


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("gcn", ["--data.num_graphs", "200"]),  # PyG Batch objects under DDP
        ("gcn_node", ["--config", "gcn_node.yaml", "--data.loader", "neighbor", "--data.batch_size", "16"]),
    ],
)
def test_cpu_ddp_runs_the_graph_family(tmp_path, name, args):
    configs = MODELS["gcn"].path.parent
    args = [str(configs / a) if a.endswith(".yaml") else a for a in args]
    preset = str(configs / "presets" / "cpu_ddp.yaml")
    out = run("project.fit", "--model", "gcn", "--config", preset, *args, "--trainer.max_epochs", "1", cwd=tmp_path)
    assert out.count("Fit finished.") == 1
    assert (tmp_path / "logs" / name / "version_0" / "checkpoints" / "last.ckpt").is_file()


@pytest.mark.slow
def test_full_batch_node_training_refuses_ddp(tmp_path):
    configs = MODELS["gcn"].path.parent
    command = ["--model", "gcn", "--config", str(configs / "gcn_node.yaml")]
    command += ["--config", str(configs / "presets" / "cpu_ddp.yaml"), "--trainer.max_epochs", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "project.fit", *command], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0
    assert "loader 'full' trains on the whole graph in one process" in result.stderr
