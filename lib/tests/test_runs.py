"""`python -m PACKAGE.runs`: a table of the run folders alone, each run's status as its status.json and process say."""

import csv
import json
import subprocess

import pytest
from runkit.callbacks.run_status import read_status

from conftest import TINY, TOY
from toyproject.cli import build
from toyproject.runs import main as runs


def fit(*args: str):
    cli = build(TOY, *TINY, "--trainer.max_epochs=2", *args)
    cli.trainer.fit(cli.model, cli.datamodule)
    return cli


def test_the_table_lists_each_run_with_its_status_what_differs_and_its_metrics(tmp_path, capsys):
    first, second = fit("--model.optimizer.init_args.lr=0.01"), fit("--model.optimizer.init_args.lr=0.001")
    last = [cli.trainer.callback_metrics["val/acc"].item() for cli in (first, second)]
    (tested,) = first.trainer.test(first.model, datamodule=first.datamodule, ckpt_path="best", verbose=False)
    dead = subprocess.Popen(["true"])
    dead.wait()
    killed = tmp_path / "logs" / TOY / "version_1" / "status.json"  # as if SIGKILLed: running, its process gone
    killed.write_text(json.dumps({**read_status(killed.parent), "status": "running", "pid": dead.pid}))
    capsys.readouterr()
    assert runs(["logs", "--csv", "runs.csv"]) == 0
    printed = capsys.readouterr().out
    with open(tmp_path / "runs.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["run"] for r in rows] == [f"{TOY}/version_0", f"{TOY}/version_1"], printed
    assert rows[0]["status"] in ("finished", "early-stopped") and rows[1]["status"] == "killed"
    assert [r["lr"] for r in rows] == ["0.01", "0.001"]  # the one setting that differs, and only it
    assert set(rows[0]) == {
        "run",
        "started",
        "status",
        "epochs",
        "lr",
        "monitor",
        "best",
        "last",
        "test/acc",
        "test/f1",
    }
    assert [r["test/acc"] for r in rows] == [f"{tested['test/acc']:.4f}", ""]  # the second was never tested
    for row, cli, last_acc in zip(rows, (first, second), last, strict=True):
        assert row["monitor"] == "val/acc" and row["epochs"] == str(cli.trainer.current_epoch)
        assert row["best"] == f"{cli.trainer.checkpoint_callback.best_model_score.item():.4f}"
        assert row["last"] == f"{last_acc:.4f}"
    assert "| lr " in printed


def test_a_failed_run_says_failed_with_its_error(tmp_path, capsys):
    cli = build(TOY, *TINY, "--trainer.max_epochs=1", "--model.optimizer.init_args.lr=-1")
    with pytest.raises(ValueError, match="Invalid learning rate"):
        cli.trainer.fit(cli.model, cli.datamodule)
    status = read_status(tmp_path / "logs" / TOY / "version_0")
    assert status["status"] == "failed" and "Invalid learning rate: -1" in status["error"]
    assert runs(["logs"]) == 0 and "| failed " in capsys.readouterr().out
