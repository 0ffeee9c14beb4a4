"""The command line end to end on the toy project: resolved configs, links, a checkpoint tested and predicted from,
real subprocess runs (a saved config that repeats its run, DDP's one run folder, parser errors in one line)."""

import subprocess
import sys
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch
import yaml

from conftest import ENV, TINY, TOY, run
from processes import DDP
from toyproject.cli import build, main


def test_print_config_resolves_stacked_configs_and_overrides(capsys, tmp_path):
    preset = tmp_path / "debug.yaml"
    preset.write_text(yaml.safe_dump({"trainer": {"fast_dev_run": True}}))
    with pytest.raises(SystemExit):
        main(["--model", TOY, "--config", str(preset), "--seed_everything", "7", "--print_config"], subcommand="fit")
    out = capsys.readouterr().out
    assert "class_path: toyproject.model.MLP" in out
    assert "fast_dev_run: true" in out
    assert "seed_everything: 7" in out


def test_a_class_path_model_gets_num_outputs_linked():
    data = ["--data=toyproject.data.BlobsDataModule", "--data.num_classes=3", "--trainer.logger=false"]
    cli = build("toyproject.model.BlobsModel", "--model.net=toyproject.model.MLP", *data)
    assert cli.model.net.head[-1].out_features == 3


class PlainModule(L.LightningModule):
    """A user's own LightningModule: no `num_outputs`, no `net`."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(width, 1)


def test_a_plain_lightning_module_runs_without_links():
    cli = build("test_cli_runs.PlainModule", "--model.width=5", "--data=toyproject.data.BlobsDataModule")
    assert cli.model.layer.in_features == 5


def test_test_and_predict_from_a_checkpoint(build_small):
    cli = build_small("--trainer.max_steps=4", "--trainer.limit_val_batches=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    last = cli.trainer.checkpoint_callback.last_model_path
    tested = main(["test", "--model", TOY, "--ckpt_path", last, *TINY])
    assert 0 <= tested.trainer.callback_metrics["test/acc"] <= 1
    predicted = main(["predict", "--model", TOY, "--ckpt_path", last, *TINY, "--data.num_val=50"])
    batches = predicted.trainer.predict_loop.predictions
    assert sum(len(b["pred"]) for b in batches) == 50
    written = (Path(predicted.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert written[0] == "index\tlabel\tprobability" and len(written) == 51
    assert written[1].split("\t")[1] in ("blob0", "blob1", "blob2", "blob3")


def test_a_fit_refused_before_its_first_step_leaves_no_run_folder(tmp_path):
    from runkit import DataError

    with pytest.raises(DataError, match="the train split is empty"):
        main(["--model", TOY, *TINY, "--data.num_train=0"], subcommand="fit")
    assert not list((tmp_path / "logs").glob("*/version_*"))


@pytest.mark.slow
def test_fast_dev_run_through_the_entry_point_saves_nothing(tmp_path):
    out = run("toyproject.fit", "--model", TOY, "--trainer.fast_dev_run", "1", cwd=tmp_path)
    assert "fast_dev_run finished" in out
    assert not (tmp_path / "logs").exists() and not (tmp_path / "checkpoints").exists()


@pytest.mark.slow
def test_a_run_saves_its_config_and_the_config_repeats_it(tmp_path):
    out = run("toyproject.fit", "--model", TOY, "--trainer.max_epochs=1", "--trainer.enable_progress_bar=false",
              cwd=tmp_path)  # fmt: skip
    first = tmp_path / "logs" / TOY / "version_0"
    assert (first / "config.yaml").is_file() and list(first.glob("events.out.tfevents.*"))
    assert (first / "checkpoints" / "last.ckpt").is_file()
    assert f"logs and config: {Path('logs/toy/version_0')}" in out and "tensorboard --logdir logs/toy/version_0" in out

    run("toyproject", "fit", "--config", str(first / "config.yaml"), cwd=tmp_path)
    second = tmp_path / "logs" / TOY / "version_1"
    weights = [torch.load(d / "checkpoints" / "last.ckpt", weights_only=True)["state_dict"] for d in (first, second)]
    assert weights[0].keys() == weights[1].keys()
    for name in weights[0]:
        assert torch.equal(weights[0][name], weights[1][name]), name


@pytest.mark.slow
def test_ddp_on_two_processes_reports_once_into_one_run_folder(tmp_path):
    out = run("toyproject.fit", "--model", TOY, *DDP, "--trainer.max_epochs=1", cwd=tmp_path)
    assert out.count("Fit finished.") == 1  # rank 0 reports, rank 1 does not
    assert (tmp_path / "logs" / TOY / "version_0" / "checkpoints" / "last.ckpt").is_file()
    assert not (tmp_path / "logs" / TOY / "version_1").exists()  # one run folder, not one per rank


PARSER_ERRORS = {  # what a user mistypes -> the one line they get
    ("--trainer.max_epoch", "1"): "error: --trainer.max_epoch is not an option; did you mean --trainer.max_epochs?",
    ("--model.optimizer.init_args.lrr", "1"): (
        "error: --model.optimizer.init_args.lrr: AdamW takes no 'lrr'; did you mean --model.optimizer.init_args.lr?"
    ),
    ("--trainer.max_epochs", "abc"): "error: --trainer.max_epochs: expected int or null, got 'abc'",
    ("--config", "nosuch.yaml"): "error: --config: File does not exist: ",
    ("--data", "toyproject.data.BlobsDataModul"): (
        "error: --data: toyproject.data has no 'BlobsDataModul'; did you mean BlobsDataModule?"
    ),
    ("--data.root", "my_images"): "error: --data.root: BlobsDataModule takes no 'root' (it takes num_train, num_val,",
}


def test_parser_errors_are_one_line_with_the_closest_valid_name(tmp_path):
    """Through real processes, as a user meets them: exit 2, one line on stderr, no usage block."""
    started = {
        mistake: subprocess.Popen([sys.executable, "-m", "toyproject.fit", "--model", TOY, *mistake], cwd=tmp_path,
                                  env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for mistake in PARSER_ERRORS
    }  # fmt: skip
    for mistake, process in started.items():
        out, err = process.communicate(timeout=300)
        lines = [line for line in err.splitlines() if line.strip()]
        assert process.returncode == 2, err[-2000:]
        assert len(lines) == 1 and lines[0].startswith(PARSER_ERRORS[mistake]), err[-2000:]
        assert "usage:" not in out + err
    assert not (tmp_path / "logs").exists()  # refused before anything was built
