"""Exact resume: a run killed with SIGKILL and resumed with `--ckpt_path last` ends with the same weights,
bit for bit, as a run never stopped. Real processes, through `python -m project.fit`."""

import pytest

from project.registry import CONFIG_DIR  # part: lstm, regression
from tests.conftest import FAMILIES, TASK_MODELS
from tests.processes import (
    PRESETS,  # part: gcn, regression, molecules
    differing,
    fit,
    last_checkpoint,
    signal_at,
)
from tests.real_data import write_named

INTERVALS = f"--config={CONFIG_DIR / 'lstm_forecast_intervals.yaml'}"  # part: lstm, regression
# Real molecules (FreeSolv: 16 steps an epoch; killed mid-epoch and just after the first epoch ends), read by gine.
MOLECULES = [
    f"--config={PRESETS.parent / 'gcn_molecules.yaml'}",
    "--data.train_path=freesolv.csv",
    "--data.target_fields=[expt]",
]  # part: gcn, regression, molecules
# Per family: epochs, extra arguments, and the steps at which the run is killed (and resumed each time).
# last.ckpt is written every 2 steps and at each epoch's end. Epochs are 8 (cnn), 3 (lstm) and 3 (gcn)
# steps long: the kills fall mid-epoch, on an epoch's last step, and just after an epoch-end checkpoint.
# Early stopping stays on (its state is in the checkpoint) but without its threshold: a val/acc of 1
# after epoch 2 would end the run before the second kill. The forecaster with its intervals (three quantile heads).
PLAN = {
    "cnn": (3, ["--data.num_train=512"], [5, 13]),  # part: cnn
    "cnn_multilabel": (3, ["--data.num_train=512"], [5, 13]),  # part: cnn, multilabel
    "lstm": (4, [], [4, 9]),  # part: lstm
    "lstm_sequences": (2, ["--data.batch_size=32"], [5, 11]),  # part: lstm
    "lstm_tagger": (2, ["--model.task.init_args.crf=true"], [5, 11]),  # part: lstm
    "lstm_forecast": (3, [INTERVALS], [5, 13]),  # part: lstm, regression
    "gcn": (4, [], [3, 7]),  # part: gcn
    "gcn_regression": (4, [], [3, 7]),  # part: gcn, regression
    "gcn_link": (4, ["--data.loader=neighbor", "--data.sbm_nodes=400", "--data.batch_size=512"], [3, 7]),  # part: gcn
    "gcn_regression:molecules": (2, MOLECULES, [5, 17]),  # part: gcn, regression, molecules
}
CASES = [*FAMILIES, *TASK_MODELS]
CASES.append("gcn_regression:molecules")  # part: gcn, regression, molecules


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_killed_and_resumed_run_equals_an_uninterrupted_one(tmp_path, case):
    (epochs, extra, kills), family = PLAN[case], case.split(":")[0]
    args = [f"--trainer.max_epochs={epochs}", "--early_stopping.stopping_threshold=null", *extra]
    reference, run = tmp_path / "reference", tmp_path / "killed"
    reference.mkdir(), run.mkdir()
    write_named(reference, args), write_named(run, args)
    fit(family, reference, *args)

    for i, step in enumerate(kills):
        resume = ["--ckpt_path=last"] if i else []
        fit(family, run, *args, signal_at(run, step), *resume, expect=-9)  # -9: killed by SIGKILL
        saved = last_checkpoint(run, family)["global_step"]
        assert saved in (step - 1, step), f"killed at step {step}, last.ckpt is at step {saved}"
    fit(family, run, *args, "--ckpt_path=last")

    different = differing(last_checkpoint(reference, family)["state_dict"], last_checkpoint(run, family)["state_dict"])
    assert not different, f"after resuming, these differ from the uninterrupted run: {different}"
    assert [p.name for p in (run / "logs" / family).iterdir()] == ["version_0"]  # one run, continued in place
