"""The regression task: the loss refuses the MSE broadcasting trap with both shapes, standardised targets and
scores in their units, the losses by name, the checks made by making the mistake, a real fit stopped; the pinball
loss and its quantiles."""

import pytest
import torch
from runkit import ConfigError, TrainingProblem
from runkit.callbacks.diagnostics import Diagnostics
from runkit.tasks import Regression
from runkit.tasks.regression import pinball
from torch import nn

from test_diagnostics import FEATURES, Tiny, data, fit
from test_tasks import bound


def test_regression_refuses_the_mse_broadcasting_trap_with_both_shapes():
    task = bound(Regression(), 1)
    output, target = torch.zeros(8, 1), torch.randn(8)
    # What plain MSE does with these shapes, silently: an [8, 8] difference, every output against every target.
    assert (output - target).shape == (8, 8)
    with pytest.raises(TrainingProblem, match=r"outputs have shape \[8, 1\] and targets \[8\].*\[8, 8\].*unsqueeze"):
        task.loss(output, target)
    with pytest.raises(TrainingProblem, match=r"outputs have shape \[8\] and targets \[8, 1\].*squeeze"):
        task.check_batch(torch.zeros(8), torch.zeros(8, 1))


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


@pytest.mark.parametrize(
    ("name", "function"), [("l1", torch.nn.functional.l1_loss), ("huber", torch.nn.functional.huber_loss)]
)
def test_regression_losses_by_name(name, function):
    task = bound(Regression(loss=name, standardize=False), 1)
    output, target = torch.randn(16, 1), 3 * torch.randn(16, 1)
    torch.testing.assert_close(task.loss(output, target), function(output, target))


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


@pytest.mark.parametrize("level", [0.1, 0.5, 0.9])
def test_the_pinball_loss_is_least_at_the_quantile_of_its_level(level):
    values = torch.randn(2000, generator=torch.Generator().manual_seed(0)).exp()  # skewed: mean, median apart
    grid = torch.linspace(0, 5, 2001)
    constant = [c.view(1, 1, 1).expand(len(values), 1, 1) for c in grid]
    losses = torch.stack([pinball(c, values.unsqueeze(1), [level]) for c in constant])
    assert float(grid[losses.argmin()]) == pytest.approx(float(values.quantile(level)), abs=0.01)


def test_quantiles_are_checked_and_go_with_the_pinball_loss():
    for wrong in ([0.9, 0.1], [0.0, 0.5], [0.5, 1.2], [0.5, 0.5], []):
        with pytest.raises(ConfigError, match=r"strictly between 0 and 1, in increasing order"):
            Regression(loss="pinball", quantiles=wrong)
    with pytest.raises(ConfigError, match=r"quantiles and loss: pinball go together"):
        Regression(quantiles=[0.1, 0.9])
    with pytest.raises(ConfigError, match=r"quantiles and loss: pinball go together"):
        Regression(loss="pinball")
    task = Regression(loss="pinball", quantiles=[0.1, 0.5, 0.9])
    task.bind(2)
    output = torch.arange(12.0).view(2, 6)  # 2 rows, 2 targets × 3 quantiles, the quantile last
    torch.testing.assert_close(task.scored(output), torch.tensor([[1.0, 4.0], [7.0, 10.0]]))
    low, high = task.interval(output)
    assert low.tolist() == [[0.0, 3.0], [6.0, 9.0]] and high.tolist() == [[2.0, 5.0], [8.0, 11.0]]
