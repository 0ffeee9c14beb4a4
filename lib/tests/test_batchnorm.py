"""BatchNorm's statistics recomputed at the current weights (runkit/batchnorm.py)."""

import torch
from runkit.batchnorm import recompute_statistics, trained_batchnorms
from torch import nn


def test_the_statistics_are_the_mean_over_the_batches_and_the_layers_are_left_as_they_were():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4, momentum=0.1), nn.Dropout(0.5)).eval()
    batches = [torch.randn(8, 3, 6, 6) * (i + 1) + i for i in range(3)]
    assert recompute_statistics(trained_batchnorms(net), net, batches) == 3

    with torch.no_grad():
        outputs = [net[0](x) for x in batches]
    norm = net[1]
    mean = torch.stack([o.mean((0, 2, 3)) for o in outputs]).mean(0)
    var = torch.stack([o.transpose(0, 1).flatten(1).var(1) for o in outputs]).mean(0)  # unbiased, as BatchNorm's
    torch.testing.assert_close(norm.running_mean, mean)
    torch.testing.assert_close(norm.running_var, var)
    assert norm.momentum == 0.1 and not norm.training and not net[2].training


def test_a_frozen_batchnorm_keeps_its_statistics():
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.BatchNorm2d(4))
    net[1].requires_grad_(False)  # frozen (freeze_features): its statistics are the pretrained ones
    assert trained_batchnorms(net) == [net[2]]
