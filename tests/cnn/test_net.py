import math

import pytest
import torch
from runkit.receptive import receptive_field, receptive_fields
from torch import nn

from project.nets.cnn import SimpleCNN


@pytest.mark.parametrize("conv", ["standard", "grouped", "depthwise_separable"])
@pytest.mark.parametrize("size", [(32, 32), (45, 61)])
def test_any_input_size_gives_logits_per_class(conv, size):
    net = SimpleCNN(num_outputs=5, conv=conv, channels=(16, 32, 64)).eval()
    out = net(torch.randn(3, 3, *size))
    assert out.shape == (3, 5)
    # Logits, not probabilities: rows do not sum to 1.
    assert not torch.allclose(out.softmax(-1).sum(-1), out.sum(-1))


def test_conv_kinds_build_the_layers_they_name():
    grouped = SimpleCNN(4, channels=(16, 32), conv="grouped", groups=4)
    separable = SimpleCNN(4, channels=(16, 32), conv="depthwise_separable")
    standard = SimpleCNN(4, channels=(16, 32))
    grouped_conv = grouped.features[1][0]
    depthwise, pointwise = separable.features[1][0]
    assert grouped_conv.groups == 4
    assert depthwise.groups == 16 and depthwise.kernel_size == (3, 3)
    assert pointwise.kernel_size == (1, 1)

    def params(net):
        return sum(p.numel() for p in net.features[1][0].parameters())

    assert params(standard) == 16 * 32 * 9
    assert params(grouped) == 16 * 32 * 9 // 4
    assert params(separable) == 16 * 9 + 16 * 32


def test_grouped_conv_rejects_channels_that_do_not_divide():
    with pytest.raises(ValueError, match="divisible by groups=3"):
        SimpleCNN(4, channels=(16, 32), conv="grouped", groups=3)


def test_bn_momentum_is_configurable():
    net = SimpleCNN(4, bn_momentum=0.01)
    momenta = {m.momentum for m in net.modules() if isinstance(m, nn.BatchNorm2d)}
    assert momenta == {0.01}


def test_weight_init():
    net = SimpleCNN(10, channels=(64, 128, 256))
    conv = net.features[2][0]  # 128 -> 256, 3x3
    fan_out = conv.out_channels * 9
    assert conv.weight.std().item() == pytest.approx(math.sqrt(2 / fan_out), rel=0.05)
    linear = net.head[1]
    bound = math.sqrt(6 / (linear.in_features + linear.out_features))  # Xavier uniform
    assert linear.weight.abs().max().item() <= bound
    assert linear.weight.std().item() == pytest.approx(bound / math.sqrt(3), rel=0.1)
    assert torch.all(linear.bias == 0)
    for bn in (m for m in net.modules() if isinstance(m, nn.BatchNorm2d)):
        assert torch.all(bn.weight == 1) and torch.all(bn.bias == 0)


def test_receptive_field_known_case():
    net = nn.Sequential(
        nn.Conv2d(3, 8, 3, stride=1, padding=1),
        nn.Conv2d(8, 8, 3, stride=2, padding=1),
        nn.Conv2d(8, 8, 3, stride=2, padding=1),
    )
    assert [f.receptive_field for f in receptive_fields(net)] == [3, 5, 9]
    assert [f.jump for f in receptive_fields(net)] == [1, 2, 4]


def test_receptive_field_counts_dilation_and_pooling():
    net = nn.Sequential(nn.Conv2d(1, 1, 3, dilation=2), nn.MaxPool2d(2), nn.Conv2d(1, 1, 3))
    # 1 + 2*2 = 5; pool: 5 + 1*1 = 6, jump 2; conv: 6 + 2*2 = 10
    assert receptive_field(net) == 10


def test_receptive_field_of_our_cnn_grows_with_stages():
    assert receptive_field(SimpleCNN(4, channels=(16, 32, 64))) == 9
    assert receptive_field(SimpleCNN(4, channels=(16, 32, 64, 128))) == 17
    # The 1x1 of a separable conv adds nothing.
    assert receptive_field(SimpleCNN(4, channels=(16, 32, 64), conv="depthwise_separable")) == 9


@pytest.mark.parametrize("size", [32, 64, 128, 224])
def test_auto_depth_covers_the_input_side(size):
    rf = receptive_field(SimpleCNN(10, image_size=size))
    assert size <= rf < 2 * size  # covers it, with no stage more than that takes


def test_a_fixed_depth_takes_the_first_stages():
    net = SimpleCNN(4, depth=3, image_size=224)
    assert receptive_field(net) == 9 and net.head[-1].in_features == 64


def test_the_receptive_field_check_warns_below_half_the_image_and_names_the_fix():
    from types import SimpleNamespace

    from runkit import DataOffers
    from runkit.callbacks.checks import ReceptiveField, Report

    class Images64(DataOffers):
        image_size = 64

    warnings: list[str] = []
    trainer = SimpleNamespace(datamodule=Images64())
    for depth, warned in ((3, True), ("auto", False)):
        report = Report(warn_to=lambda check, message: warnings.append(message))
        ReceptiveField().on_fit_start(report, trainer, SimpleCNN(4, depth=depth, image_size=64))
        assert "receptive field" in report.checked
        assert bool(report.findings) == warned
    assert "9x9 pixels of 64x64" in warnings[0] and "Add stages" in warnings[0]
