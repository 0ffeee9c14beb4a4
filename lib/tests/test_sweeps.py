"""Sweeps and repeats on the toy project: a sweep's mistakes found before its first trial (the sweep file's fields,
each searched key and value as the fit command parses them, the objective among the metrics the model logs), then
end to end, each trial a real fit process: a kill and a rerun, a failed and a pruned trial, two workers sharing a
study in a real PostgreSQL server, repeats over seeds, a sweep over folds."""

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
from runkit import ConfigError
from runkit.sweeps.spec import load_spec

from conftest import ENV, TINY, TOY, python, run
from processes import DDP
from toyproject.sweep import main as sweep

LR = "model.optimizer.init_args.lr"
FIT = [*TINY, "--trainer.deterministic=true"]


def write(tmp_path, text: str):
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    return path


def sweep_file(tmp_path, params: dict, **fields) -> str:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({"params": params, **fields}))
    return str(path)


def study(name: str, storage: str):
    return optuna.load_study(study_name=name, storage=storage)


def storage_of(tmp_path, name: str) -> str:
    return f"sqlite:///{tmp_path / 'sweeps' / f'{name}.db'}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("params: {x: {type: float, low: 0, high: 1}}\nsampler: bayes", "sampler.name must be one of"),
        ("params: {x: {type: float, low: 1, high: 0}}", r"params.x: low \(1\) must be below high"),
        ("params: {x: {type: float, low: 0, high: 1, log: true}}", "a log scale needs low > 0"),
        ("params: {x: {type: real, low: 0, high: 1}}", "params.x.type must be one of"),
        ("params: {x: {type: categorical, choices: []}}", "params.x.choices must be a non-empty list"),
        ("params: {x: {type: int, low: 0.5, high: 3}}", "params.x.low must be a whole number"),
        ("params: {x: {type: float, low: 0, high: 1}}\nsampler: grid", "grid sampler needs `choices`"),
        ("params: {x: {type: categorical, choices: [1]}}\ntrials: 3", "unknown field 'trials'"),
        ("params: {x: {type: categorical, choices: [1]}}\nfixed: {x: 2}", "x is both in `fixed` and in `params`"),
        ("objective: val/acc", "`params` must map"),
    ],
)
def test_sweep_file_mistakes_name_the_file_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_spec(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("model.optimizer.init_args.lrr: {type: float, low: 1.0e-4, high: 0.1}", "lrr.*Option 'lrr' is not accepted"),
        (f"{LR}: {{type: categorical, choices: [0.01, fast]}}", f"{LR} = 'fast' is refused"),
        ("trainer.max_epoch: {type: int, low: 1, high: 3}", "trainer.max_epoch.*unrecognized"),
    ],
)
def test_a_misspelled_key_or_a_wrong_value_fails_before_any_trial(tmp_path, params, message):
    path = write(tmp_path, f"params:\n  {params}\n")
    with pytest.raises(ConfigError, match=message):
        sweep(
            [
                "--model",
                TOY,
                "--sweep",
                str(path),
            ]
        )
    assert not (tmp_path / "sweeps").exists() and not (tmp_path / "logs").exists()  # no study, no trial


def test_an_objective_the_model_does_not_log_lists_the_ones_it_does(tmp_path):
    path = write(tmp_path, f"objective: val/accuracy\nparams:\n  {LR}: {{type: float, low: 1.0e-4, high: 0.1}}\n")
    with pytest.raises(ConfigError, match=r"'val/accuracy' is not a metric .* it logs train/loss, .*val/loss"):
        sweep(
            [
                "--model",
                TOY,
                "--sweep",
                str(path),
            ]
        )


def test_a_searched_key_given_on_the_command_line_too_is_refused(tmp_path):
    path = write(tmp_path, f"params:\n  {LR}: {{type: float, low: 1.0e-4, high: 0.1}}\n")
    with pytest.raises(ConfigError, match=f"--{LR} is searched by"):
        sweep(["--model", TOY, "--sweep", str(path), f"--{LR}=0.1"])
    with pytest.raises(ConfigError, match="--model.optimizer.lr is searched by"):  # the same key, shorter
        sweep(["--model", TOY, "--sweep", str(path), "--model.optimizer.lr=0.1"])


def test_a_report_of_a_study_that_was_never_run_says_so(tmp_path):
    path = write(tmp_path, f"params:\n  {LR}: {{type: float, low: 1.0e-4, high: 0.1}}\n")
    with pytest.raises(ConfigError, match="no study 'nothing' in sqlite:///.*run the sweep first"):
        sweep(
            [
                "--model",
                TOY,
                "--sweep",
                str(path),
                "--study",
                "nothing",
                "--report",
            ]
        )


@pytest.mark.slow
def test_a_killed_sweep_rerun_resumes_its_trial_from_last_ckpt_to_the_same_value(tmp_path):
    path = sweep_file(tmp_path, {LR: {"type": "categorical", "choices": [0.003]}}, sampler="grid",
                      fixed={"trainer.max_epochs": 4, "data.num_train": 2048}, pruner="none")  # fmt: skip
    args = ["-m", "toyproject.sweep", "--model", TOY, "--sweep", path, *FIT]
    run(*args[1:], "--study", "whole", cwd=tmp_path)
    whole = study("whole", storage_of(tmp_path, "whole")).trials[0]

    command = [sys.executable, *args, "--study", "cut"]
    driver = subprocess.Popen(command, cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    epochs = tmp_path / "logs" / TOY / "sweeps" / "cut" / "trial_0" / "epochs.json"
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


@pytest.mark.slow
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
    fit = [a for a in FIT if not a.startswith("--data.num_train")]  # searched here
    out = run("toyproject.sweep", "--model", TOY, "--sweep", path, "--study", name, "--n_trials", "3",
              *fit, *DDP, cwd=tmp_path)  # rank 0 decides, every rank stops  # fmt: skip
    trials = {t.params.get("data.num_train"): t for t in study(name, storage).trials}
    failed, pruned = trials[1], trials[256]  # one training sample cannot be shared by 2 processes
    assert failed.state.name == "FAIL" and "fewer than the 2 processes" in failed.user_attrs["error"], out
    assert pruned.state.name == "PRUNED" and pruned.user_attrs["pruned_at_epoch"] == 0, out
    assert list(pruned.intermediate_values) == [0]  # stopped after its first epoch, of 3
    assert "MEMBER: 2/2" in (Path(pruned.user_attrs["folder"]) / "output.log").read_text()  # both DDP ranks
    assert re.search(r"\| fail +\| 1 ", out) and re.search(r"\| pruned +\| 256 ", out), out  # the table


@pytest.mark.slow
def test_two_workers_share_a_study_in_postgresql(tmp_path, postgres_server):
    path = sweep_file(tmp_path, {LR: {"type": "float", "low": 1e-3, "high": 3e-2, "log": True}},
                      fixed={"trainer.max_epochs": 1}, pruner="none")  # fmt: skip
    command = [sys.executable, "-m", "toyproject.sweep", "--model", TOY, "--sweep", path, "--study", "pg",
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


@pytest.mark.slow
def test_repeat_over_seeds_prints_mean_std_and_interval(tmp_path):
    out = run("toyproject.repeat", "--model", TOY, "--seeds", "2", "--trainer.max_epochs=1", *FIT, cwd=tmp_path)
    folder = tmp_path / "logs" / TOY / "repeats" / "seeds2"
    with open(folder / "runs.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["run"] for r in rows] == ["seed_42", "seed_43"]
    values = [float(r["best val/acc"]) for r in rows]
    mean = sum(values) / 2
    assert re.search(rf"best val/acc +{mean:.4f} ± .*95 % CI", out), out
    again = python("-m", "toyproject.repeat", "--model", TOY, "--seeds", "2", "--trainer.max_epochs=1", *FIT,
                   cwd=tmp_path)  # fmt: skip
    assert "training" not in again.stdout  # finished runs are not run again


@pytest.mark.slow
def test_a_sweep_over_folds_optimises_the_mean_of_its_folds(tmp_path):
    path = sweep_file(tmp_path, {LR: {"type": "categorical", "choices": [0.003]}}, sampler="grid",
                      fixed={"trainer.max_epochs": 1}, pruner="none")  # fmt: skip
    run("toyproject.sweep", "--model", TOY, "--sweep", path, "--study", "f", "--folds", "2", *FIT, cwd=tmp_path)
    (trial,) = study("f", storage_of(tmp_path, "f")).trials
    folder = tmp_path / "logs" / TOY / "sweeps" / "f" / "trial_0"
    folds = [yaml.safe_load((folder / f"fold_{k}" / "epochs.json").read_text())["0"]["val/acc"] for k in (0, 1)]
    assert trial.user_attrs["values"] == folds and trial.value == pytest.approx(sum(folds) / 2, abs=1e-12)
