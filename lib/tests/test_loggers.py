"""Stacked loggers (configs/loggers/): one run folder for all, and a logger stacked twice logs once. (A killed and
resumed run's CSV, beside its MLflow run: test_trackers.py.)"""

import csv

import pytest
from lightning.pytorch.loggers import TensorBoardLogger
from runkit.trackers.csv_run import CSVLogger

from conftest import TINY, TOY
from toyproject.cli import build
from toyproject.registry import CONFIG_DIR

CSV = str(CONFIG_DIR / "loggers" / "csv.yaml")


def rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_stacked_csv_logger_writes_into_the_run_folder_once(tmp_path):
    for version in (0, 1):  # the second run: both loggers take the next number, the same one
        cli = build(TOY, *TINY, "--trainer.max_epochs=2", "--config", CSV, "--config", CSV)
        assert [type(logger) for logger in cli.trainer.loggers] == [TensorBoardLogger, CSVLogger]  # once
        cli.trainer.fit(cli.model, cli.datamodule)
        folder = tmp_path / "logs" / TOY / f"version_{version}"
        assert cli.trainer.log_dir == f"logs/{TOY}/version_{version}" and list(folder.glob("events.out.tfevents.*"))
        logged = [r for r in rows(folder / "metrics.csv") if r["val/acc"]]
        assert len(logged) == cli.trainer.current_epoch  # one row per validation
        assert float(logged[-1]["val/acc"]) == pytest.approx(cli.trainer.callback_metrics["val/acc"].item())
