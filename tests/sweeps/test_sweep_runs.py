"""A shipped sweep end to end, each trial a real `project.fit` process: the table, the plots and a best config that
reproduces its trial. (A sweep's kills, failures, pruning, shared studies and folds: runkit's own tests.)"""

import csv
import re

import optuna
import pytest
from runkit.sweeps.checks import canonical
from runkit.sweeps.spec import load_spec

from project.registry import CONFIG_DIR
from tests.conftest import FAMILIES, SMALL, TINY, python_m, run

pytestmark = pytest.mark.slow


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
    # The report as lib/docs/sweeps.md writes it, without the arguments the sweep was started with: it reads the
    # study whatever they were, and prints the same training command.
    report = run("project.sweep", "--model", model, "--report", cwd=tmp_path)
    assert f"Best: trial {best.number}, val/acc {best.value:.4f}" in report and threads[0] in report, report
