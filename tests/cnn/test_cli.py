"""The CLI end to end, with the CNN as the vehicle: resolved configs, links, checkpoints, real subprocess runs."""

from pathlib import Path

import lightning.pytorch as L
import pytest
import torch

from project.cli import build, main
from project.registry import CONFIG_DIR
from tests.conftest import TINY, run


def test_print_config_resolves_presets_and_overrides(capsys):
    debug = str(CONFIG_DIR / "presets" / "debug.yaml")
    with pytest.raises(SystemExit):
        main(["--model", "cnn", "--config", debug, "--seed_everything", "7", "--print_config"], subcommand="fit")
    out = capsys.readouterr().out
    assert "class_path: project.nets.resnet.ResNet" in out
    assert "fast_dev_run: true" in out
    assert "seed_everything: 7" in out


def test_a_class_path_model_gets_num_classes_linked():
    cli = build("project.models.image.ImageModel", "--model.net=project.nets.cnn.SimpleCNN", *_shapes_data())
    assert cli.model.net.head[-1].out_features == 4


class PlainModule(L.LightningModule):
    """A user's own LightningModule: no `num_classes`, no `net`."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(width, 1)


def test_a_plain_lightning_module_runs_without_links():
    cli = build("tests.cnn.test_cli.PlainModule", "--model.width=5", *_shapes_data())
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
    preset = str(CONFIG_DIR / "presets" / "cpu_ddp.yaml")
    small = ["--data.num_train", "256", "--data.num_val", "64", "--trainer.max_epochs", "1"]
    out = run("project.fit", "--model", "cnn", "--config", preset, *small, cwd=tmp_path)
    assert out.count("Fit finished.") == 1  # rank 0 reports, rank 1 does not
    assert (tmp_path / "logs" / "cnn" / "version_0" / "checkpoints" / "last.ckpt").is_file()
    assert not (tmp_path / "logs" / "cnn" / "version_1").exists()  # one run folder, not one per rank


PARSER_ERRORS = {  # what a user mistypes -> the one line they get
    ("--trainer.max_epoch", "1"): "error: --trainer.max_epoch is not an option; did you mean --trainer.max_epochs?",
    ("--model.optimizer.init_args.lrr", "1"): (
        "error: --model.optimizer.init_args.lrr: AdamW takes no 'lrr'; did you mean --model.optimizer.init_args.lr?"
    ),
    ("--trainer.max_epochs", "abc"): "error: --trainer.max_epochs: expected int or null, got 'abc'",
    ("--config", "nosuch.yaml"): "error: --config: File does not exist: ",
    ("--data", "project.data.images.ShapesDataModul"): (
        "error: --data: project.data.images has no 'ShapesDataModul'; did you mean ShapesDataModule?"
    ),
    ("--data.root", "my_images"): "error: --data.root: ShapesDataModule takes no 'root' (it takes data_dir, num_train,",
}


def test_parser_errors_are_one_line_with_the_closest_valid_name(tmp_path):
    """Through real processes, as a user meets them: exit 2, one line on stderr, no usage block."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    started = {
        mistake: subprocess.Popen(
            [sys.executable, "-m", "project.fit", "--model", "cnn", *mistake],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for mistake in PARSER_ERRORS
    }
    for mistake, process in started.items():
        out, err = process.communicate(timeout=300)
        lines = [line for line in err.splitlines() if line.strip()]
        assert process.returncode == 2, err[-2000:]
        assert len(lines) == 1 and lines[0].startswith(PARSER_ERRORS[mistake]), err[-2000:]
        assert "usage:" not in out + err
    assert "; ImageFolderDataModule takes it: --data project.data.images.ImageFolderDataModule" in lines[0]
    assert not (tmp_path / "logs").exists()  # refused before anything was built


def test_a_fit_refused_before_its_first_step_leaves_no_run_folder(tmp_path):
    from runkit import DataError

    with pytest.raises(DataError, match="the train split is empty"):
        main(["--model", "cnn", *TINY, "--data.num_train=0", "--data.num_val=8"], subcommand="fit")
    assert not list((tmp_path / "logs").glob("*/version_*"))
