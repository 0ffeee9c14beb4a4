"""CSV, MLflow and W&B (a project's configs/loggers/), read back through their own records: a killed and resumed run
continues the same tracker runs with each step once; an unreachable tracking URI stops the fit before it starts."""

import csv
import subprocess
import time
from pathlib import Path

import pytest
import wandb
import yaml
from mlflow.tracking import MlflowClient
from runkit import ConfigError, extras, user_error
from runkit.testing import signal_at
from runkit.trackers.wandb_run import STEP_KEY, WandbLogger, history

from conftest import ENV, TINY, TOY
from processes import fit, fit_command
from toyproject.cli import build
from toyproject.registry import CONFIG_DIR

MLFLOW, WANDB = (f"--config={CONFIG_DIR / 'loggers' / name}" for name in ("mlflow.yaml", "wandb_offline.yaml"))


def mlflow_runs(cwd: Path) -> tuple[MlflowClient, list]:
    client = MlflowClient(f"sqlite:///{cwd}/logs/mlflow.db")
    experiment = client.get_experiment_by_name(TOY)
    return client, client.search_runs([experiment.experiment_id])


def mlflow_points(client: MlflowClient, run) -> dict[str, list[tuple[int, float]]]:
    """Every metric's (step, value) points in the run, as MLflow's client returns them."""
    return {
        key: sorted((m.step, m.value) for m in client.get_metric_history(run.info.run_id, key))
        for key in run.data.metrics
    }


def wandb_rows(cwd: Path) -> tuple[list[Path], list[dict]]:
    """The run's offline W&B folders, and the rows `run.log` wrote in them, in order."""
    folders = sorted((cwd / "logs" / TOY / "version_0" / "wandb").glob("offline-run-*"))
    rows = [row for folder in folders for row in history(run_file(folder))]
    return folders, rows


def run_file(folder: Path, wait: float = 30.0) -> Path:
    """The folder's run file. W&B's service is a process of its own: on a busy CPU it may still be writing the file
    after the fit that logged to it has exited (seen in the full suite, never alone)."""
    deadline = time.monotonic() + wait
    while not (found := sorted(folder.glob("run-*.wandb"))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert found, f"{folder} holds no run file after {wait:.0f} s: {sorted(p.name for p in folder.iterdir())}"
    return found[0]


def steps_by_metric(rows: list[dict]) -> dict[str, list[int]]:
    steps: dict[str, list[int]] = {}
    for row in rows:
        for key in row:
            if key != STEP_KEY and not key.startswith("_"):
                steps.setdefault(key, []).append(int(row[STEP_KEY]))
    return steps


def csv_rows(cwd: Path) -> list[dict[str, str]]:
    with open(cwd / "logs" / TOY / "version_0" / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def csv_logged(rows: list[dict[str, str]]) -> list[tuple[int, list[str]]]:
    """Each row's step and the metrics it holds."""
    return sorted((int(r["step"]), sorted(k for k, v in r.items() if v)) for r in rows)


def csv_comparable(row: dict[str, str], cut: str) -> dict[str, str]:
    """A row less the epoch-level training metrics of the epoch `cut`."""
    aggregates = row["epoch"] == cut and row.get("train/acc")
    return {k: v for k, v in row.items() if not (aggregates and k.startswith("train/"))}


@pytest.fixture(scope="module")
def csv_every_step(tmp_path_factory) -> str:
    """configs/loggers/csv.yaml, its rows on disk at every step (before the kill)."""
    config = yaml.safe_load((CONFIG_DIR / "loggers" / "csv.yaml").read_text())
    config["trainer"]["logger+"][0]["init_args"]["flush_logs_every_n_steps"] = 1
    path = tmp_path_factory.mktemp("configs") / "csv_every_step.yaml"
    path.write_text(yaml.safe_dump(config))
    return f"--config={path}"


ARGS = ["--trainer.max_epochs=3", "--trainer.log_every_n_steps=2", MLFLOW, WANDB, MLFLOW,  # mlflow twice: once
        "--early_stopping.stopping_threshold=null", "--data.num_train=256"]  # 8 steps an epoch  # fmt: skip


@pytest.fixture(scope="module")
def reference(tmp_path_factory, csv_every_step) -> Path:
    """An uninterrupted run with the three trackers stacked."""
    cwd = tmp_path_factory.mktemp("reference")
    fit(cwd, *ARGS, csv_every_step)
    return cwd


def stopped_and_resumed(cwd: Path, signal: str, code: int, step: int, *args: str) -> None:
    """The run stopped by `signal` at the end of `step` (last.ckpt every 4 steps), then `--ckpt_path last`."""
    stopped = fit_command(cwd, *ARGS, *args, signal_at(cwd, step, signal), every=4)
    assert subprocess.run(stopped, cwd=cwd, env=ENV, capture_output=True, timeout=240).returncode == code
    if signal == "SIGKILL":
        client, cut = mlflow_runs(cwd)
        assert max(step for step, _ in mlflow_points(client, cut[0])["train/loss"]) > 12  # past last.ckpt at 12
        # CSV rows past the checkpoint, which the resumed run logs again
        assert max(int(r["step"]) for r in csv_rows(cwd)) >= 12
    fit(cwd, *ARGS, *args, "--ckpt_path=last")


@pytest.mark.slow
def test_a_killed_and_resumed_run_continues_its_mlflow_run_and_csv_with_each_step_once(
    tmp_path, reference, csv_every_step
):
    stopped_and_resumed(tmp_path, "SIGKILL", -9, 15, csv_every_step)
    # The CSV: every step and metric once, none twice, none missing; every value equal, but the epoch-level
    # training metrics of the epoch the kill cut (epoch 1, steps 8-15): their torchmetrics state is not in
    # the checkpoint, so they count the batches after the resume only.
    resumed_rows, whole_rows = csv_rows(tmp_path), csv_rows(reference)
    assert csv_logged(resumed_rows) == csv_logged(whole_rows)
    assert [csv_comparable(r, cut="1") for r in resumed_rows] == [csv_comparable(r, cut="1") for r in whole_rows]
    # One run, FINISHED, every metric at the steps of the uninterrupted run, each once, with the same values
    # (but the epoch-level training metrics of the epoch the kill cut: their state is not in the checkpoint).
    client, runs = mlflow_runs(tmp_path)
    reference_client, whole = mlflow_runs(reference)
    assert len(runs) == 1 and runs[0].info.status == "FINISHED" and runs[0].info.run_name == "version_0"
    resumed, expected = mlflow_points(client, runs[0]), mlflow_points(reference_client, whole[0])
    assert {k: [s for s, _ in v] for k, v in resumed.items()} == {k: [s for s, _ in v] for k, v in expected.items()}
    cut_epoch = {"train/acc", "train/f1"}
    assert {k: v for k, v in resumed.items() if k not in cut_epoch} == {
        k: v for k, v in expected.items() if k not in cut_epoch
    }
    assert runs[0].data.params["optimizer/class_path"] == "torch.optim.AdamW"
    best = next((tmp_path / "logs" / TOY / "version_0" / "checkpoints").glob("epoch*.ckpt"))
    artifacts = [a.path for a in client.list_artifacts(runs[0].info.run_id, best.stem)]
    assert f"{best.stem}/{best.name}" in artifacts  # the best checkpoint, as an artifact


@pytest.mark.slow
@pytest.mark.parametrize("step", [13, 15])  # mid-epoch, at a step that logs; the last step of epoch 1
def test_a_run_stopped_by_sigterm_and_resumed_continues_its_wandb_run(tmp_path, reference, step):
    # SIGTERM: what a scheduler sends first, and W&B writes its offline log out on the way. (A SIGKILL loses
    # what W&B's writer still held: up to a 32 KiB block of records. docs/trackers.md.)
    stopped_and_resumed(tmp_path, "SIGTERM", 143, step=step)
    folders, rows = wandb_rows(tmp_path)
    _, whole = wandb_rows(reference)
    assert len(folders) == 2 and len({f.name.rsplit("-", 1)[-1] for f in folders}) == 1  # one run id, continued
    assert steps_by_metric(rows) == steps_by_metric(whole)  # no step twice, none missing
    assert [r["val/acc"] for r in rows if "val/acc" in r] == [r["val/acc"] for r in whole if "val/acc" in r]
    _, runs = mlflow_runs(tmp_path)
    assert len(runs) == 1 and runs[0].info.status == "FINISHED"


def test_a_continued_wandb_run_skips_the_steps_its_earlier_folders_hold(tmp_path):
    """The resumed run logs again from its checkpoint; what an earlier folder of the run holds is not repeated."""
    first = WandbLogger(name=TOY, version=0, save_dir=str(tmp_path))
    for step in (1, 3, 5):
        first.log_metrics({"train/loss": 1.0 / step}, step=step)
    first.experiment.finish()
    wandb.teardown()  # its service out of the way: the run file written whole, as when a resumed fit starts
    # W&B names an offline folder by the second it starts and the run id: two starts within one second
    # would share a folder. (A resumed run starts seconds to days after the run it continues.)
    time.sleep(1.1)
    again = WandbLogger(name=TOY, version=0, save_dir=str(tmp_path), id=first.resume_value)
    for step in (3, 5, 7):  # 3 and 5 again, as after a resume from a checkpoint at step 2
        again.log_metrics({"train/loss": 1.0 / step}, step=step)
    again.experiment.finish()
    wandb.teardown()  # finish() can return before the service has written the last rows (seen on a busy CPU)
    folder = tmp_path / TOY / "version_0" / "wandb"
    rows = [row for run in sorted(folder.glob("offline-run-*")) for row in history(next(run.glob("*.wandb")))]
    assert [(r[STEP_KEY], r["train/loss"]) for r in rows if "train/loss" in r] == [(s, 1.0 / s) for s in (1, 3, 5, 7)]


def test_an_unreachable_tracking_uri_fails_before_the_fit_and_names_it(tmp_path):
    config = yaml.safe_load((CONFIG_DIR / "loggers" / "mlflow.yaml").read_text())
    config["trainer"]["logger+"][0]["init_args"]["tracking_uri"] = "http://127.0.0.1:9"  # nothing listens there
    server = tmp_path / "mlflow_server.yaml"
    server.write_text(yaml.safe_dump(config))
    with pytest.raises(Exception) as failed:
        build(TOY, *TINY, f"--config={server}")
    error = user_error(failed.value)
    assert isinstance(error, ConfigError) and "http://127.0.0.1:9 cannot be reached" in str(error)
    assert not (tmp_path / "logs" / TOY).exists()  # no run folder, no checkpoint


@pytest.mark.parametrize(
    ("config", "module", "package"), [(MLFLOW, "mlflow", "mlflow-skinny"), (WANDB, "wandb", "wandb")]
)
def test_a_missing_tracker_fails_before_the_fit_with_the_pip_command(monkeypatch, config, module, package):
    real = extras.importlib.util.find_spec
    monkeypatch.setattr(extras.importlib.util, "find_spec", lambda n: None if n == module else real(n))
    with pytest.raises(Exception) as failed:
        build(TOY, *TINY, config)
    error = user_error(failed.value)
    assert isinstance(error, extras.MissingExtra) and f"{module} is not installed: pip install {package}" in str(error)
