"""Stacked loggers (configs/loggers/): one run folder for all, a logger stacked twice logs once, and a killed
and resumed run's CSV holds each step once, as an uninterrupted run's does."""

import csv
import subprocess
from pathlib import Path

import pytest
import yaml
from lightning.pytorch.loggers import TensorBoardLogger

from project.cli import build
from project.csv_logger import CSVLogger
from project.registry import CONFIG_DIR
from tests.conftest import FAMILIES, SMALL, TINY
from tests.processes import ENV, fit, fit_command, signal_at

MODEL = FAMILIES[0]
CSV = str(CONFIG_DIR / "loggers" / "csv.yaml")


def rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_stacked_csv_logger_writes_into_the_run_folder_once(tmp_path):
    for version in (0, 1):  # the second run: both loggers take the next number, the same one
        cli = build(MODEL, *TINY, *SMALL[MODEL], "--trainer.max_epochs=2", "--config", CSV, "--config", CSV)
        assert [type(logger) for logger in cli.trainer.loggers] == [TensorBoardLogger, CSVLogger]  # once
        cli.trainer.fit(cli.model, cli.datamodule)
        folder = tmp_path / "logs" / MODEL / f"version_{version}"
        assert cli.trainer.log_dir == f"logs/{MODEL}/version_{version}" and list(folder.glob("events.out.tfevents.*"))
        logged = [r for r in rows(folder / "metrics.csv") if r["val/acc"]]
        assert len(logged) == cli.trainer.current_epoch  # one row per validation
        assert float(logged[-1]["val/acc"]) == pytest.approx(cli.trainer.callback_metrics["val/acc"].item())


@pytest.mark.slow
def test_a_killed_and_resumed_run_logs_each_step_once_in_its_csv(tmp_path):
    config = yaml.safe_load(Path(CSV).read_text())
    config["trainer"]["logger+"][0]["init_args"]["flush_logs_every_n_steps"] = 1  # on disk before the kill
    every_step = tmp_path / "csv_every_step.yaml"
    every_step.write_text(yaml.safe_dump(config))
    args = ["--trainer.max_epochs=3", "--trainer.log_every_n_steps=2", f"--config={every_step}",
            "--early_stopping.stopping_threshold=null", "--data.num_train=512"]  # fmt: skip
    reference, run = tmp_path / "reference", tmp_path / "killed"
    reference.mkdir(), run.mkdir()
    fit(MODEL, reference, *args)
    killed = fit_command(MODEL, run, *args, signal_at(run, 15), every=4)  # SIGKILL at step 15, last.ckpt at 12
    assert subprocess.run(killed, cwd=run, env=ENV, capture_output=True, timeout=240).returncode == -9
    cut = rows(run / "logs" / MODEL / "version_0" / "metrics.csv")
    assert max(int(r["step"]) for r in cut) >= 12  # rows past the checkpoint, which the resumed run logs again
    fit(MODEL, run, *args, "--ckpt_path=last")
    resumed = rows(run / "logs" / MODEL / "version_0" / "metrics.csv")
    whole = rows(reference / "logs" / MODEL / "version_0" / "metrics.csv")
    assert logged(resumed) == logged(whole)  # every step and metric once: none twice, none missing
    # Every value equal, but the epoch-level training metrics of the epoch the kill cut (epoch 1, steps 8-15):
    # their torchmetrics state is not in the checkpoint, so they count the batches after the resume only.
    assert [comparable(r, cut="1") for r in resumed] == [comparable(r, cut="1") for r in whole]


def logged(table: list[dict[str, str]]) -> list[tuple[int, list[str]]]:
    return sorted((int(r["step"]), sorted(k for k, v in r.items() if v)) for r in table)


def comparable(row: dict[str, str], cut: str) -> dict[str, str]:
    aggregates = row["epoch"] == cut and row.get("train/acc")
    return {k: v for k, v in row.items() if not (aggregates and k.startswith("train/"))}
