"""The command line's bad inputs on the toy project: configs, model names and checkpoints; each fails with an error
that names what is wrong and changes no file, and reaches the command line as one `error:` line."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from runkit.testing.bad_inputs import BadInput, fails_clearly, written

from conftest import TOY, python
from toyproject.cli import main


def cli(*args: str) -> Callable[[], object]:
    return lambda: main(list(args), subcommand="fit")


def cli_cases() -> list[BadInput]:
    """Configs and checkpoints, through the CLI."""
    return [
        BadInput(
            "config: wrong type on the command line",
            lambda tmp: cli("--model", TOY, "--trainer.max_epochs=many"),
            SystemExit,
            r"max_epochs",
        ),
        BadInput(
            "config: wrong type in a file",
            lambda tmp: cli(
                "--model",
                TOY,
                "--config",
                str(written(tmp / "bad.yaml", "data:\n  init_args:\n    batch_size: lots\n")),
                "--trainer.fast_dev_run=1",
            ),
            SystemExit,
            r"batch_size",
        ),
        BadInput(
            "config: unknown key",
            lambda tmp: cli("--model", TOY, "--trainer.max_epoch=3"),
            SystemExit,
            r"max_epoch",
        ),
        BadInput(
            "unknown model family",
            lambda tmp: cli("--model", "transformer"),
            SystemExit,
            r"unknown model 'transformer'",
        ),
        BadInput(
            "a config file given as --model",
            lambda tmp: cli("--model", str(written(tmp / "my_config.yaml", "trainer:\n  max_epochs: 1\n"))),
            SystemExit,
            r"my_config\.yaml' is a file, not a model: pass a config file with --config",
        ),
        BadInput(
            "a --model class path that does not import",
            lambda tmp: cli("--model", "my_project.models.Transformer"),
            SystemExit,
            r"its module 'my_project\.models' does not import .*\n.*Models \(--model NAME",
        ),
        BadInput(
            "checkpoint cut short",
            lambda tmp: cli(
                "--model", TOY, "--ckpt_path", str(written(tmp / "cut.ckpt", b"PK\x03\x04" + b"\x00" * 100))
            ),
            Exception,
            r"cut\.ckpt is incomplete",
        ),
        BadInput(
            "checkpoint missing",
            lambda tmp: cli("--model", TOY, "--ckpt_path", str(tmp / "gone.ckpt")),
            Exception,
            r"gone\.ckpt does not exist",
        ),
        BadInput(
            "checkpoint of another model family",
            lambda tmp: cli("--model", TOY, "--ckpt_path", str(_foreign_checkpoint(tmp))),
            Exception,
            r"foreign\.ckpt holds a \w+ .* but this command builds",
        ),
    ]


def _foreign_checkpoint(tmp: Path) -> Path:
    path = tmp / "foreign.ckpt"
    hparams = {"_class_path": "some.other.Family"}
    torch.save({"state_dict": {}, "hyper_parameters": hparams, "pytorch-lightning_version": "2.6.6"}, path)
    return path


CASES = cli_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_fails_clearly_and_changes_no_file(case, tmp_path, capsys):
    fails_clearly(case, tmp_path, lambda: capsys.readouterr().err)


@pytest.mark.slow
def test_a_refused_checkpoint_is_one_line_and_the_traceback_is_there_when_asked(tmp_path):
    bad = written(tmp_path / "cut.ckpt", b"PK\x03\x04" + b"\x00" * 100)
    result = python("-m", "toyproject", "validate", "--model", TOY, "--ckpt_path", str(bad), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert re.search(r"^error: checkpoint .*cut\.ckpt is incomplete", result.stderr, re.M), result.stderr
    shown = python(
        "-m",
        "toyproject",
        "validate",
        "--model",
        TOY,
        "--ckpt_path",
        str(bad),
        cwd=tmp_path,
        env={"PROJECT_TRACEBACK": "1"},
    )
    assert shown.returncode == 1 and "Traceback" in shown.stderr and "CheckpointError" in shown.stderr
