"""The residual network: torchvision's ResNet-18 and -34 names and shapes, their weights files loaded (checked
name by name, the head new for other classes, pickles of anything else refused), blocks that start as the
identity, the receptive field along the main path, a frozen backbone whose BatchNorm stays in eval mode, and
another run's weights as the start (`init_from`)."""

import pickle

import pytest
import torch
from runkit import CheckpointError, ConfigError
from runkit.model import load_net_weights
from runkit.receptive import receptive_field
from torch import nn

from project.models.image import ImageModel
from project.nets.resnet import BasicBlock, ResNet

RESNET18 = {"widths": (64, 128, 256, 512), "blocks": (2, 2, 2, 2), "stem": "standard"}
RESNET34 = {**RESNET18, "blocks": (3, 4, 6, 3)}

# torchvision's resnet18(): every weight of a conv or linear layer by name and shape, as the published
# architecture has them; each BatchNorm named after its conv (conv1 -> bn1, downsample.0 -> downsample.1) holds
# weight, bias, running_mean, running_var of [channels] and num_batches_tracked [].
RESNET18_WEIGHTS = {
    "conv1.weight": [64, 3, 7, 7],
    "layer1.0.conv1.weight": [64, 64, 3, 3],
    "layer1.0.conv2.weight": [64, 64, 3, 3],
    "layer1.1.conv1.weight": [64, 64, 3, 3],
    "layer1.1.conv2.weight": [64, 64, 3, 3],
    "layer2.0.conv1.weight": [128, 64, 3, 3],
    "layer2.0.conv2.weight": [128, 128, 3, 3],
    "layer2.0.downsample.0.weight": [128, 64, 1, 1],
    "layer2.1.conv1.weight": [128, 128, 3, 3],
    "layer2.1.conv2.weight": [128, 128, 3, 3],
    "layer3.0.conv1.weight": [256, 128, 3, 3],
    "layer3.0.conv2.weight": [256, 256, 3, 3],
    "layer3.0.downsample.0.weight": [256, 128, 1, 1],
    "layer3.1.conv1.weight": [256, 256, 3, 3],
    "layer3.1.conv2.weight": [256, 256, 3, 3],
    "layer4.0.conv1.weight": [512, 256, 3, 3],
    "layer4.0.conv2.weight": [512, 512, 3, 3],
    "layer4.0.downsample.0.weight": [512, 256, 1, 1],
    "layer4.1.conv1.weight": [512, 512, 3, 3],
    "layer4.1.conv2.weight": [512, 512, 3, 3],
    "fc.weight": [1000, 512],
    "fc.bias": [1000],
}


def published_resnet18() -> dict[str, list[int]]:
    shapes = dict(RESNET18_WEIGHTS)
    for name, shape in RESNET18_WEIGHTS.items():
        if name.endswith(("conv1.weight", "conv2.weight", "downsample.0.weight")) and name != "fc.weight":
            bn = name.replace("conv", "bn").replace("downsample.0", "downsample.1").removesuffix(".weight")
            shapes.update({f"{bn}.{p}": [shape[0]] for p in ("weight", "bias", "running_mean", "running_var")})
            shapes[f"{bn}.num_batches_tracked"] = []
    return shapes


def test_resnet18_has_torchvisions_names_and_shapes_and_resnet34_its_depth():
    own = {name: list(tensor.shape) for name, tensor in ResNet(1000, **RESNET18).state_dict().items()}
    assert own == published_resnet18()
    deeper = ResNet(1000, **RESNET34).state_dict()
    assert len(deeper) == 218 and list(deeper["layer3.5.conv2.weight"].shape) == [256, 256, 3, 3]
    assert "layer3.6.conv1.weight" not in deeper and "layer4.2.bn2.running_var" in deeper


def test_a_weights_file_loads_whole_or_with_a_new_head_for_other_classes(tmp_path):
    trained = ResNet(1000, **RESNET18).eval()
    with torch.no_grad():  # not the fresh network's values: a load that did nothing would not pass
        for tensor in trained.state_dict().values():
            if tensor.is_floating_point():
                tensor.add_(torch.rand_like(tensor) * 0.1)
    path = tmp_path / "resnet18.pth"
    torch.save(trained.state_dict(), path)
    images = torch.randn(2, 3, 64, 64)

    same = ResNet(1000, **RESNET18, weights=str(path)).eval()
    torch.testing.assert_close(same(images), trained(images), rtol=0, atol=0)

    ten = ResNet(10, **RESNET18, weights=str(path)).eval()  # other classes: the backbone loaded, the head new
    torch.testing.assert_close(ten.features(images), trained.features(images), rtol=0, atol=0)
    assert ten.fc.weight.shape == (10, 512) and not torch.equal(ten.fc.weight, trained.fc.weight[:10])

    from safetensors.torch import save_file

    save_file(
        {name: t.contiguous() for name, t in trained.state_dict().items()}, str(tmp_path / "resnet18.safetensors")
    )
    wrapped = tmp_path / "wrapped.pt"
    torch.save({"state_dict": trained.state_dict(), "epoch": 90}, wrapped)
    for other in (tmp_path / "resnet18.safetensors", wrapped):
        torch.testing.assert_close(ResNet(1000, **RESNET18, weights=str(other)).eval()(images), trained(images))


def test_weights_that_do_not_fit_are_refused_naming_each_difference(tmp_path):
    saved = ResNet(1000, **RESNET18).state_dict()
    del saved["layer4.1.bn2.running_var"]
    saved["layer2.0.conv1.weight"] = torch.zeros(128, 64, 5, 5)
    saved["layer5.0.conv1.weight"] = torch.zeros(1)
    path = tmp_path / "odd.pth"
    torch.save(saved, path)
    with pytest.raises(ConfigError) as refused:
        ResNet(1000, **RESNET18, weights=str(path))
    message = str(refused.value)
    assert "missing from the file (1): layer4.1.bn2.running_var" in message
    assert "not in this network (1): layer5.0.conv1.weight" in message
    assert "of another shape (1): layer2.0.conv1.weight [128, 64, 5, 5] (here [128, 64, 3, 3])" in message
    eighteen = tmp_path / "resnet18.pth"
    torch.save(ResNet(1000, **RESNET18).state_dict(), eighteen)
    with pytest.raises(ConfigError, match=r"resnet18.pth do not fit this ResNet \(96 names\)"):
        ResNet(1000, **RESNET34, weights=str(eighteen))  # ResNet-34's extra blocks are not in the file


class Payload:
    def __reduce__(self):
        return (print, ("this ran",))


def test_a_pickle_of_anything_but_tensors_is_refused_and_never_run(tmp_path, capsys):
    path = tmp_path / "crafted.pth"
    path.write_bytes(pickle.dumps({"conv1.weight": Payload()}, protocol=2))
    saved = tmp_path / "saved.pth"
    torch.save({"conv1.weight": Payload()}, saved)  # a zip archive, as torch writes them
    for crafted in (path, saved):
        with pytest.raises(ConfigError, match=rf"{crafted.name}: refused, it holds Python objects other than tensors"):
            ResNet(10, weights=str(crafted))
    assert "this ran" not in capsys.readouterr().out
    garbage = tmp_path / "garbage.pth"
    garbage.write_bytes(b"garbage")
    with pytest.raises(ConfigError, match="garbage.pth: not a PyTorch file of tensors") as unreadable:
        ResNet(10, weights=str(garbage))
    assert "weights_only=False" not in str(unreadable.value)  # torch's own message advises it


def test_every_block_starts_as_its_shortcut():
    net = ResNet(10, widths=(16, 32, 64, 128), blocks=(2, 2, 2, 2))
    x = torch.rand(4, 16, 8, 8)  # after a ReLU: not negative
    same_shape = net.layer1[1]
    torch.testing.assert_close(same_shape.train()(x), x)
    assert all(not m.bn2.weight.detach().any() for m in net.modules() if isinstance(m, BasicBlock))


def test_the_receptive_field_follows_the_main_path_not_the_shortcuts():
    # ResNet-18's published receptive field is 435 px; counting the projections' strides again would double
    # every later stride.
    assert receptive_field(ResNet(1000, **RESNET18)) == 435
    small = ResNet(10, widths=(16, 32, 64, 128), blocks=(1, 1, 1, 1), image_size=32)
    assert small.stem == "small" and receptive_field(small) == 49
    stems = {size: ResNet(10, image_size=size).stem for size in (63, 64, 127, 128)}
    assert stems == {63: "small", 64: "strided", 127: "strided", 128: "standard"}
    assert receptive_field(ResNet(10, widths=(16, 32, 64, 128), image_size=96)) == 95  # covers 96 px


def test_a_frozen_backbone_keeps_its_batchnorm_in_eval_mode_and_its_statistics():
    model = ImageModel(ResNet(4, widths=(8, 16, 16, 16), blocks=(1, 1, 1, 1)), num_outputs=4, freeze_features=True)
    model.train()
    norms = [m for m in model.net.modules() if isinstance(m, nn.BatchNorm2d)]
    assert norms and not any(m.training for m in norms) and model.net.fc.training
    before = {name: t.clone() for name, t in model.net.state_dict().items() if not name.startswith("fc.")}
    loss = nn.functional.cross_entropy(model(torch.randn(8, 3, 16, 16)), torch.randint(0, 4, (8,)))
    loss.backward()
    assert all(p.grad is None for n, p in model.net.named_parameters() if not n.startswith("fc."))
    assert model.net.fc.weight.grad is not None
    after = model.net.state_dict()
    assert all(torch.equal(before[name], after[name]) for name in before)  # running statistics unmoved


def run_checkpoint(net: nn.Module, path) -> str:
    """A checkpoint as a run of `net` leaves it: the LightningModule's weights, the network's under `net.`."""
    torch.save({"state_dict": {f"net.{name}": t for name, t in net.state_dict().items()}}, path)
    return str(path)


def shuffled(net: nn.Module) -> nn.Module:
    """`net` with every weight and statistic drawn at random: nothing a fresh network could equal by chance."""
    with torch.no_grad():
        for t in net.state_dict().values():
            t.copy_(torch.randint_like(t, 1, 100) if not t.is_floating_point() else torch.randn_like(t))
    return net


def test_init_from_takes_the_features_and_a_new_head_for_other_classes(tmp_path):
    small = {"widths": (8, 16, 16, 16)}
    source = shuffled(ResNet(10, **small))
    target = ResNet(4, **small)
    fresh_head = {name: t.clone() for name, t in target.fc.state_dict().items()}
    load_net_weights(target, run_checkpoint(source, tmp_path / "ten.ckpt"))
    for name, value in target.state_dict().items():
        if name.startswith("fc."):
            assert torch.equal(value, fresh_head[name[3:]])  # 4 classes, not 10: the head starts anew
        else:
            assert torch.equal(value, source.state_dict()[name]), name

    same = ResNet(10, **small)  # the same outputs: the head is taken too
    load_net_weights(same, run_checkpoint(source, tmp_path / "ten.ckpt"))
    assert all(torch.equal(v, source.state_dict()[k]) for k, v in same.state_dict().items())


def test_init_from_refuses_another_network_before_the_head(tmp_path):
    path = run_checkpoint(ResNet(10, widths=(8, 16, 16, 16)), tmp_path / "narrow.ckpt")
    with pytest.raises(CheckpointError, match=r"narrow.ckpt: its network does not fit this one before the head: .*"
                       r"conv1.weight is \(8, 3, 3, 3\) in the checkpoint, \(16, 3, 3, 3\) here"):  # fmt: skip
        load_net_weights(ResNet(10), path)
