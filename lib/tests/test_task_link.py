"""The link-prediction task: its loss weighs a link like all its negatives, its ranks count ties half, its checks."""

import math

import pytest
import torch
import torch.nn.functional as F
from runkit import TrainingProblem
from runkit.tasks import LinkPrediction
from runkit.tasks.link import PositiveRank


def test_the_loss_weighs_a_link_like_all_its_negatives_and_ranks_count_ties_half():
    task = LinkPrediction()
    task.bind(1)
    scores = torch.tensor([[3.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 2.0, 0.0]])
    target = torch.tensor([[1.0, 0, 0]] * 3)
    expected = 0.5 * (
        F.binary_cross_entropy_with_logits(scores[:, 0], target[:, 0])
        + F.binary_cross_entropy_with_logits(scores[:, 1:], target[:, 1:])
    )
    torch.testing.assert_close(task.loss(scores, target), expected)
    mrr, hits = PositiveRank(), PositiveRank(k=2)
    mrr.update(scores, target), hits.update(scores, target)
    # Ranks 1, 3 and 1.5 (a tie with one negative costs half a place).
    assert math.isclose(mrr.compute().item(), (1 + 1 / 3 + 1 / 1.5) / 3, rel_tol=1e-6)
    assert math.isclose(hits.compute().item(), 2 / 3, rel_tol=1e-6)
    assert task.expected_initial_loss(target)[0] == pytest.approx(math.log(2))
    untrained = torch.tensor([[0.3, -0.2, 0.1], [0.05, 0.4, -0.6]])
    assert task.check_outputs(untrained) is None
    assert "as a sigmoid of untrained scores does" in task.check_outputs(untrained.sigmoid())
    with pytest.raises(TrainingProblem, match=r"1 in column 0.*1 positives not 1"):
        task.check_batch(scores, torch.tensor([[0.0, 0, 0], [1, 0, 0], [1, 0, 0]]))
