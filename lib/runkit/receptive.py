"""Receptive field of a conv net, computed by walking its conv and pool layers in order."""

from dataclasses import dataclass

from torch import nn

SHORTCUT = "downsample"  # the module name of a residual block's 1×1 projection (project/nets/resnet.py)


@dataclass(frozen=True)
class LayerField:
    name: str
    receptive_field: int  # pixels of the input that one output unit sees
    jump: int  # input pixels between two neighbouring output units (product of strides)


def _pair_first(value: int | tuple[int, ...]) -> int:
    # Our nets use square kernels; the first entry stands for both.
    return value[0] if isinstance(value, tuple) else value


def receptive_fields(net: nn.Module) -> list[LayerField]:
    """Receptive field after each conv or pooling layer, in the order the layers were registered.

    r grows by (kernel - 1) * dilation * jump, and jump multiplies by the stride. Adaptive
    (global) pooling is skipped: it sees the whole input by construction, and so are a residual block's
    shortcut projections (`downsample`, torchvision's name): their stride is the block's first conv's again.
    """
    rf, jump, fields = 1, 1, []
    for name, layer in net.named_modules():
        if SHORTCUT in name.split("."):  # a residual block's projection runs beside its convs, not after them
            continue
        if isinstance(layer, nn.Conv1d | nn.Conv2d | nn.Conv3d | nn.MaxPool2d | nn.AvgPool2d):
            kernel = _pair_first(layer.kernel_size)
            stride = _pair_first(layer.stride)
            dilation = _pair_first(getattr(layer, "dilation", 1))
            rf += (kernel - 1) * dilation * jump
            jump *= stride
            fields.append(LayerField(name, rf, jump))
    return fields


def receptive_field(net: nn.Module) -> int:
    """Receptive field of the last conv or pooling layer, in input pixels (1 when there is none)."""
    fields = receptive_fields(net)
    return fields[-1].receptive_field if fields else 1
