"""Weight initialisation applied with `Module.apply`, so every layer type is handled in one place."""

from torch import nn


def init_weights(module: nn.Module) -> None:
    """Kaiming for convolutions followed by ReLU, Xavier for linear layers, identity BatchNorm / GroupNorm."""
    if isinstance(module, nn.Conv1d | nn.Conv2d | nn.Conv3d):
        # fan_out keeps the variance of the backward pass stable, as in torchvision's ResNets.
        nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.BatchNorm1d | nn.BatchNorm2d | nn.BatchNorm3d | nn.GroupNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)
