"""The multilabel task: label weights from the training split, ln 2 at the start, the checks made by making
the mistake, label sets at a threshold and the threshold tuned on validation."""

import math

import pytest
import torch
from runkit import TrainingProblem
from runkit.tasks import Multilabel

from test_tasks import bound


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


def test_multilabel_checks_name_class_ids_and_values_that_are_not_labels():
    task = bound(Multilabel(), 4)
    with pytest.raises(TrainingProblem, match=r"targets have shape \[8\] \(class ids\?\), outputs \[8, 4\]"):
        task.check_batch(torch.zeros(8, 4), torch.randint(0, 4, (8,)))
    counts = torch.zeros(8, 4)
    counts[2, 1] = 3
    with pytest.raises(TrainingProblem, match=r"0 or 1 \(-1: not known\); this batch holds 3 \(1 such values\)"):
        task.check_batch(torch.zeros(8, 4), counts)
    assert "after a sigmoid" in task.check_outputs(torch.rand(8, 4))
    assert "softmax across labels" in task.check_outputs(torch.randn(8, 4).softmax(-1))
    assert task.check_outputs(torch.randn(8, 4)) is None


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


def test_labels_not_known_are_left_out_of_the_loss_and_every_metric():
    from torchmetrics.classification import BinaryF1Score

    task = bound(Multilabel(), 3)
    torch.manual_seed(0)
    logits = torch.randn(16, 3) * 3
    target = (torch.rand(16, 3) > 0.5).long()
    target[torch.rand(16, 3) < 0.3] = -1  # not measured
    known = target != -1
    expected = torch.nn.functional.binary_cross_entropy_with_logits(logits[known], target[known].float())
    torch.testing.assert_close(task.loss(logits, target), expected)
    # What a wrong guess for the unknown labels would change: filled with 0 or with 1, the metric moves.
    metrics = task.metrics()
    metrics.update(logits, target)
    f1_micro = float(metrics.compute()["f1_micro"])
    assert f1_micro == pytest.approx(float(BinaryF1Score()(logits[known].sigmoid(), target[known])))
    for fill in (0, 1):
        filled = task.metrics()
        filled.update(logits, target.masked_fill(~known, fill))
        assert float(filled.compute()["f1_micro"]) != pytest.approx(f1_micro)
    task.check_batch(logits, target)  # -1 is a label value, not a mistake
    assert task.expected_initial_loss(target.float())[0] == pytest.approx(math.log(2))
    weighted = bound(Multilabel(pos_weight=True), 3)
    weighted.fit_statistics(target)
    positives, negatives = (target == 1).sum(dim=0).float(), (target == 0).sum(dim=0).float()
    torch.testing.assert_close(weighted.pos_weight, negatives / positives)
