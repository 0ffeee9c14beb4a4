"""Sweeps end to end, each trial a real `project.fit` process: the results, a kill and a rerun, a failed and
a pruned trial, and two workers sharing a study in a real PostgreSQL server."""

import csv
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
import yaml
from runkit.sweeps.checks import canonical
from runkit.sweeps.spec import load_spec

from project.registry import CONFIG_DIR
from tests.conftest import FAMILIES, ROOT, SMALL, TINY, python_m, run
from tests.processes import ENV

pytestmark = pytest.mark.slow
MODEL = FAMILIES[0]
LR = "model.optimizer.init_args.lr"
FIT = [*TINY, *SMALL[MODEL], "--trainer.deterministic=true"]


def sweep_file(tmp_path, params: dict, **fields) -> str:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({"params": params, **fields}))
    return str(path)


def study(name: str, storage: str):
    return optuna.load_study(study_name=name, storage=storage)


def storage_of(tmp_path, name: str) -> str:
    return f"sqlite:///{tmp_path / 'sweeps' / f'{name}.db'}"


# One family's shipped sweep end to end (the shared driver); every family's sweep file is checked against its
# model in test_sweep_checks.py. (Each further family ran 17-22 s here.)
@pytest.mark.parametrize("model", FAMILIES[:1])
def test_a_shipped_sweep_ends_with_a_table_plots_and_a_best_config_that_reproduces_it(tmp_path, model):
    spec = load_spec(CONFIG_DIR / "sweeps" / f"{model}.yaml")  # the family's own sweep file, on a reduced budget
    searched = {canonical(p.key) for p in spec.params}
    small = [a for a in SMALL[model] if canonical(a.split("=", 1)[0].removeprefix("--")) not in searched]
    out = run("project.sweep", "--model", model, "--n_trials", "2", "--workers", "2", "--trainer.max_epochs=2",
              *TINY, *small, "--trainer.deterministic=true", cwd=tmp_path)  # fmt: skip
    assert re.search(r"2 of 2 trials done", out), out
    folder = tmp_path / "logs" / model / "sweeps" / model
    with open(folder / "trials.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["state"] for r in rows] == ["complete"] * 2 and {r["trial"] for r in rows} == {"0", "1"}
    assert all(1 <= int(r["epochs"]) <= 2 for r in rows)
    for name in ("history.png", "importances.png", "slice.png", "best.yaml"):
        assert (folder / name).stat().st_size > 0, name
    for trial in range(2):  # each trial an ordinary run folder: its config, checkpoints and events
        run_folder = folder / f"trial_{trial}"
        assert (run_folder / "config.yaml").is_file() and (run_folder / "checkpoints" / "last.ckpt").is_file()
        assert list(run_folder.glob("events.out.tfevents.*"))
    best = study(model, storage_of(tmp_path, model)).best_trial
    # The command the report prints: with the trial's thread count (two workers share the cores).
    threads = re.search(r"train it: +OMP_NUM_THREADS=(\d+) python -m project.fit --config (\S+)", out)
    assert threads and threads[2] == f"logs/{model}/sweeps/{model}/best.yaml", out
    refit = python_m("project.fit", "--config", threads[2], *TINY, cwd=tmp_path, env={"OMP_NUM_THREADS": threads[1]})
    assert f"best val/acc: {best.value:.4f}" in refit.stdout, refit.stderr[-3000:]
    # The report as docs/sweeps.md writes it, without the arguments the sweep was started with: it reads the
    # study whatever they were, and prints the same training command.
    report = run("project.sweep", "--model", model, "--report", cwd=tmp_path)
    assert f"Best: trial {best.number}, val/acc {best.value:.4f}" in report and threads[0] in report, report


def test_a_killed_sweep_rerun_resumes_its_trial_from_last_ckpt_to_the_same_value(tmp_path):
    path = sweep_file(tmp_path, {LR: {"type": "categorical", "choices": [0.003]}}, sampler="grid",
                      fixed={"trainer.max_epochs": 4}, pruner="none")  # fmt: skip
    args = ["-m", "project.sweep", "--model", MODEL, "--sweep", path, *FIT]
    run(*args[1:], "--study", "whole", cwd=tmp_path)
    whole = study("whole", storage_of(tmp_path, "whole")).trials[0]

    command = [sys.executable, *args, "--study", "cut"]
    driver = subprocess.Popen(command, cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    epochs = tmp_path / "logs" / MODEL / "sweeps" / "cut" / "trial_0" / "epochs.json"
    deadline = time.time() + 180
    while not (epochs.is_file() and epochs.read_text().count('"val/acc"') >= 1) and time.time() < deadline:
        time.sleep(0.05)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    assert epochs.read_text().count('"val/acc"') < 4, "the trial finished before the kill"
    cut = study("cut", storage_of(tmp_path, "cut"))
    assert [t.state.name for t in cut.trials] == ["RUNNING"]
    out = run(*args[1:], "--study", "cut", cwd=tmp_path)
    assert "trial 0: resuming" in out and "trial 0 started" not in out, out
    assert "resuming" in (epochs.parent / "output.log").read_text()  # from last.ckpt, not from scratch
    resumed = study("cut", storage_of(tmp_path, "cut")).trials
    assert [(t.number, t.state.name) for t in resumed] == [(0, "COMPLETE")]
    assert resumed[0].params == whole.params
    assert resumed[0].value == whole.value and resumed[0].intermediate_values == whole.intermediate_values


def test_a_failed_trial_is_recorded_and_an_unpromising_one_pruned_under_ddp(tmp_path):
    name, storage = "fp", storage_of(tmp_path, "fp")
    (tmp_path / "sweeps").mkdir()
    # A trial that was perfect at every epoch: the median pruner stops any trial below it at epoch 0.
    seeded = optuna.create_study(study_name=name, storage=storage, direction="maximize")
    seeded.add_trial(optuna.trial.create_trial(value=1.0, intermediate_values={0: 1.0, 1: 1.0, 2: 1.0}))
    path = sweep_file(
        tmp_path, {"data.num_train": {"type": "categorical", "choices": [256, 1]}}, sampler="grid",
        fixed={"trainer.max_epochs": 3}, pruner={"name": "median", "n_startup_trials": 1},
    )  # fmt: skip
    ddp = str(ROOT / "configs" / "presets" / "cpu_ddp.yaml")  # rank 0 decides, every rank stops
    fit = [a for a in FIT if not a.startswith("--data.num_train")]  # searched here
    out = run("project.sweep", "--model", MODEL, "--sweep", path, "--study", name, "--n_trials", "3",
              *fit, "--config", ddp, cwd=tmp_path)  # fmt: skip
    trials = {t.params.get("data.num_train"): t for t in study(name, storage).trials}
    failed, pruned = trials[1], trials[256]  # one training sample cannot be shared by 2 processes
    assert failed.state.name == "FAIL" and "fewer than the 2 processes" in failed.user_attrs["error"], out
    assert pruned.state.name == "PRUNED" and pruned.user_attrs["pruned_at_epoch"] == 0, out
    assert list(pruned.intermediate_values) == [0]  # stopped after its first epoch, of 3
    assert "MEMBER: 2/2" in (Path(pruned.user_attrs["folder"]) / "output.log").read_text()  # both DDP ranks
    assert re.search(r"\| fail +\| 1 ", out) and re.search(r"\| pruned +\| 256 ", out), out  # the table


def test_two_workers_share_a_study_in_postgresql(tmp_path, postgres_server):
    path = sweep_file(tmp_path, {LR: {"type": "float", "low": 1e-3, "high": 3e-2, "log": True}},
                      fixed={"trainer.max_epochs": 1}, pruner="none")  # fmt: skip
    command = [sys.executable, "-m", "project.sweep", "--model", MODEL, "--sweep", path, "--study", "pg",
               "--storage", postgres_server, "--n_trials", "4", *FIT]  # fmt: skip
    # Two commands, as on two machines: each its own process, one study.
    workers = [subprocess.Popen(command, cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True) for _ in range(2)]  # fmt: skip
    outputs = [w.communicate(timeout=300)[0] for w in workers]
    for number, out in enumerate(outputs):  # shown whole if an assertion fails (an assertion's text is cut)
        print(f"--- worker {number} ---\n{out}")
    assert [w.returncode for w in workers] == [0, 0], outputs
    trials = study("pg", postgres_server).trials
    assert {t.state.name for t in trials} == {"COMPLETE"} and len(trials) >= 4, outputs
    started = re.findall(r"trial (\d+) started", "".join(outputs))
    assert sorted(map(int, started)) == [t.number for t in trials]  # every trial run once, by one worker
    assert all(re.search(r"trial \d+ started", out) for out in outputs)  # and both workers took some


def test_repeat_over_seeds_prints_mean_std_and_interval(tmp_path):
    out = run("project.repeat", "--model", MODEL, "--seeds", "2", "--trainer.max_epochs=1", *FIT, cwd=tmp_path)
    folder = tmp_path / "logs" / MODEL / "repeats" / "seeds2"
    with open(folder / "runs.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["run"] for r in rows] == ["seed_42", "seed_43"]
    values = [float(r["best val/acc"]) for r in rows]
    mean = sum(values) / 2
    assert re.search(rf"best val/acc +{mean:.4f} ± .*95 % CI", out), out
    again = python_m("project.repeat", "--model", MODEL, "--seeds", "2", "--trainer.max_epochs=1", *FIT, cwd=tmp_path)
    assert "training" not in again.stdout  # finished runs are not run again


def test_a_sweep_over_folds_optimises_the_mean_of_its_folds(tmp_path):
    path = sweep_file(tmp_path, {LR: {"type": "categorical", "choices": [0.003]}}, sampler="grid",
                      fixed={"trainer.max_epochs": 1}, pruner="none")  # fmt: skip
    run("project.sweep", "--model", MODEL, "--sweep", path, "--study", "f", "--folds", "2", *FIT, cwd=tmp_path)
    (trial,) = study("f", storage_of(tmp_path, "f")).trials
    folder = tmp_path / "logs" / MODEL / "sweeps" / "f" / "trial_0"
    folds = [yaml.safe_load((folder / f"fold_{k}" / "epochs.json").read_text())["0"]["val/acc"] for k in (0, 1)]
    assert trial.user_attrs["values"] == folds and trial.value == pytest.approx(sum(folds) / 2, abs=1e-12)
