"""The multiclass task's checks; the other tasks have their own files (test_task_multilabel.py,
test_task_regression.py), and each task model's run its family's tests."""

import pytest
import torch
from runkit import TrainingProblem
from runkit.tasks import Multiclass


def bound(task, width):
    task.bind(width)
    return task


def test_multiclass_names_one_hot_and_float_targets():
    task = bound(Multiclass(), 3)
    with pytest.raises(TrainingProblem, match=r"the same as the logits.*multilabel"):
        task.check_batch(torch.zeros(4, 3), torch.eye(3)[[0, 1, 2, 0]])
    with pytest.raises(TrainingProblem, match=r"labels are float32, not class ids.*regression"):
        task.check_batch(torch.zeros(4, 3), torch.rand(4))
