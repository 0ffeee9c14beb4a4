"""The tasks (project/tasks/): each loss on its targets, the checks that name a mixed-up task with both shapes,
the statistics learned from the training split, and a mistake made on purpose through a real fit."""

import math

import pytest
import torch
from torch import nn

from project.callbacks.diagnostics import Diagnostics
from project.errors import TrainingProblem
from project.tasks import (
    Multiclass,
    Multilabel,  # part: multilabel
    Regression,  # part: regression
)
from tests.test_diagnostics import FEATURES, Tiny, data, fit


def bound(task, width):
    task.bind(width)
    return task


# part: regression
def test_regression_refuses_the_mse_broadcasting_trap_with_both_shapes():
    task = bound(Regression(), 1)
    output, target = torch.zeros(8, 1), torch.randn(8)
    # What plain MSE does with these shapes, silently: an [8, 8] difference, every output against every target.
    assert (output - target).shape == (8, 8)
    with pytest.raises(TrainingProblem, match=r"outputs have shape \[8, 1\] and targets \[8\].*\[8, 8\].*unsqueeze"):
        task.loss(output, target)
    with pytest.raises(TrainingProblem, match=r"outputs have shape \[8\] and targets \[8, 1\].*squeeze"):
        task.check_batch(torch.zeros(8), torch.zeros(8, 1))


# part: regression
def test_regression_learns_on_standardised_targets_and_scores_in_their_units():
    task = bound(Regression(), 2)
    targets = torch.tensor([[100.0, -1.0], [110.0, 1.0], [120.0, 3.0]])
    task.fit_statistics(targets)
    torch.testing.assert_close(task.mean, torch.tensor([110.0, 1.0]))
    torch.testing.assert_close(task.std, torch.tensor([10.0, 2.0]))
    perfect = (targets - task.mean) / task.std
    assert task.loss(perfect, targets) == 0
    torch.testing.assert_close(task.predict(perfect)["value"], targets)
    # An untrained output of 0 costs the variance of the standardised targets: the doctor expects about 1.
    expected, _ = task.expected_initial_loss(targets)
    assert expected == pytest.approx(float(perfect.pow(2).mean()))
    assert task.loss(torch.zeros(3, 2), targets) == pytest.approx(expected)


# part: regression
@pytest.mark.parametrize(
    ("name", "function"), [("l1", torch.nn.functional.l1_loss), ("huber", torch.nn.functional.huber_loss)]
)
def test_regression_losses_by_name(name, function):
    task = bound(Regression(loss=name, standardize=False), 1)
    output, target = torch.randn(16, 1), 3 * torch.randn(16, 1)
    torch.testing.assert_close(task.loss(output, target), function(output, target))


# part: regression
def test_regression_checks_name_what_looks_wrong():
    task = bound(Regression(), 1)
    with pytest.raises(
        TrainingProblem, match=r"integers with 3 distinct values \(0, 1, 2\).*looks like classification"
    ):
        task.check_batch(torch.zeros(6, 1), torch.tensor([[0], [1], [2], [0], [1], [2]]))
    target = torch.zeros(6, 1)
    target[4] = float("nan")
    with pytest.raises(TrainingProblem, match=r"NaN or inf in 1 row\(s\).*row 4"):
        task.check_batch(torch.zeros(6, 1), target)
    assert "constant" in task.check_targets(torch.ones(10, 1))[0]
    raw = bound(Regression(standardize=False), 1)
    warning = raw.check_targets(torch.tensor([[1000.0], [1200.0], [900.0]]))[0]
    assert "far from standardised (mean [1.03e+03], std [153])" in warning and "standardize true" in warning
    assert Regression().check_targets(torch.tensor([[1000.0], [1200.0]])) == []  # standardised: fine


# part: multilabel
def test_multilabel_weighs_rare_labels_and_expects_ln2_at_the_start():
    task = bound(Multilabel(pos_weight=True), 3)
    targets = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 0, 0], [0, 0, 0]])
    task.fit_statistics(targets)
    torch.testing.assert_close(task.pos_weight, torch.tensor([1 / 3, 3.0, 1.0]))  # negatives/positives; never: 1
    plain = bound(Multilabel(), 3)
    expected, why = plain.expected_initial_loss(targets.float())
    assert expected == pytest.approx(math.log(2)) and "ln(2)" in why
    assert plain.loss(torch.zeros(4, 3), targets) == pytest.approx(math.log(2))
    assert "1 label(s) never occur" in task.check_targets(targets)[0]


# part: multilabel
def test_multilabel_checks_name_class_ids_and_values_that_are_not_labels():
    task = bound(Multilabel(), 4)
    with pytest.raises(TrainingProblem, match=r"targets have shape \[8\] \(class ids\?\), outputs \[8, 4\]"):
        task.check_batch(torch.zeros(8, 4), torch.randint(0, 4, (8,)))
    counts = torch.zeros(8, 4)
    counts[2, 1] = 3
    with pytest.raises(TrainingProblem, match=r"must be 0 or 1; this batch holds 3 \(1 such values\)"):
        task.check_batch(torch.zeros(8, 4), counts)
    assert "after a sigmoid" in task.check_outputs(torch.rand(8, 4))
    assert "softmax across labels" in task.check_outputs(torch.randn(8, 4).softmax(-1))
    assert task.check_outputs(torch.randn(8, 4)) is None


# part: multilabel
def test_multilabel_predicts_label_sets_at_its_threshold_and_tunes_it():
    task = bound(Multilabel(threshold=0.5, tune_threshold=True), 2)
    logits = torch.tensor([[2.0, -2.0], [0.1, 0.3]])
    assert task.predict(logits)["labels"].tolist() == [[True, False], [True, True]]
    # Exactly the labels with a probability >= 0.3 are present: 0.5 misses some, 0.25 adds one.
    probs = torch.tensor([[0.35, 0.1], [0.32, 0.4], [0.1, 0.34], [0.27, 0.2]])
    target = torch.tensor([[1, 0], [1, 1], [0, 1], [0, 0]])
    task.reset_observed()
    task.observe(torch.logit(probs), target)
    logged = task.on_validation_epoch_end({})
    assert float(task.threshold) == pytest.approx(0.30) and logged["val/f1_macro_tuned"] == 1.0
    columns, rows = task.prediction_table([task.predict(torch.logit(probs))], ["cat", "dog"])
    assert columns == ["labels", "p_cat", "p_dog"] and rows[1] == ["cat,dog", "0.3200", "0.4000"]


def test_multiclass_names_one_hot_and_float_targets():
    task = bound(Multiclass(), 3)
    with pytest.raises(TrainingProblem, match=r"the same as the logits.*multilabel"):
        task.check_batch(torch.zeros(4, 3), torch.eye(3)[[0, 1, 2, 0]])
    with pytest.raises(TrainingProblem, match=r"labels are float32, not class ids.*regression"):
        task.check_batch(torch.zeros(4, 3), torch.rand(4))


# part: regression
def test_a_regression_fit_with_flat_targets_stops_on_the_first_batch_with_both_shapes():
    class Regressor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU())
            self.head = nn.Linear(16, 1)

        def forward(self, x):
            return self.head(self.features(x))

    flat = torch.randn(64)  # [N]: the dataset forgot the target column
    model = Tiny(Regressor(), 1, task=Regression(standardize=False))
    with pytest.raises(TrainingProblem, match=r"training batch 0: outputs have shape \[8, 1\] and targets \[8\]"):
        fit(model, train=data(labels=flat), diagnostics=Diagnostics())


# What each task's run leaves in TensorBoard: its pictures, and its metrics in the HParams tab.
TASK_RUNS = {
    "gcn_regression": (
        ["--data.num_graphs=200"], {"val/predicted_vs_true", "val/residuals"}, "hp/val/mae_best"
    ),  # part: gcn, regression
    "cnn_multilabel": (
        ["--data.num_train=128", "--data.num_val=64"], {"val/f1_per_label"}, "hp/val/f1_macro_best"
    ),  # part: cnn, multilabel
}  # fmt: skip


@pytest.mark.parametrize("model", list(TASK_RUNS))
def test_a_task_run_draws_its_pictures_and_logs_its_hparams_metrics(model):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from project.cli import build
    from tests.conftest import TINY

    args, pictures, hparams = TASK_RUNS[model]
    cli = build(model, *TINY, *args, "--trainer.max_epochs=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    events = EventAccumulator(cli.trainer.log_dir, size_guidance={"images": 0})
    events.Reload()
    assert pictures <= set(events.Tags()["images"])
    assert hparams in events.Tags()["scalars"]
    assert cli.trainer.checkpoint_callback.best_model_path.split("/")[-1].startswith("epoch00-")


# part: gcn, regression
def test_a_regression_checkpoint_exports_with_its_standardisation(tmp_path):
    from project.cli import build
    from project.export import export, load_weights
    from tests.conftest import TINY

    cli = build("gcn_regression", *TINY, "--data.num_graphs=200", "--trainer.max_steps=3")
    cli.trainer.fit(cli.model, cli.datamodule)
    out = export(cli.trainer.checkpoint_callback.last_model_path, tmp_path / "model.safetensors")
    fresh = build("gcn_regression", *TINY, "--data.num_graphs=200").model
    load_weights(fresh, out)
    torch.testing.assert_close(fresh.task.mean, cli.model.task.mean)  # the buffers travel with the weights
    torch.testing.assert_close(fresh.task.std, cli.model.task.std)


# part: gcn, regression
def test_lr_find_runs_on_a_regression_model(capsys):
    from project import lr_find
    from tests.conftest import TINY

    lr_find.main(["--model", "gcn_regression", *TINY, "--data.num_graphs=300", "--num_training=30"])
    assert "LR range test: 30 steps" in capsys.readouterr().out
