"""What a run saves rebuilds what it built: a project's tests run this on each of its models."""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from torch import nn


def rebuilt(cli: Any, compose: Callable[[Sequence[str]], Any], folder: Path) -> list[nn.Module]:
    """The model `--config` builds from the config `cli`'s run would save (SaveConfigCallback's dump), and the same
    model rebuilt from its hyperparameters as `load_from_checkpoint` rebuilds it. Each must equal `cli.model` in
    shape with nothing given again: what the data decides (the links) comes from the data each time."""
    from lightning.pytorch.cli import instantiate_module

    saved = folder / "config.yaml"
    saved.write_text(cli.parser.dump(cli.config, skip_none=False))
    hparams = {key: value for key, value in cli.model.hparams.items() if key != "_instantiator"}  # as Lightning
    return [compose(["--config", str(saved)]).model, instantiate_module(type(cli.model), hparams)]


def shapes(model: nn.Module) -> dict[str, tuple[int, ...]]:
    """Every weight's and buffer's shape, by name."""
    return {name: tuple(value.shape) for name, value in model.state_dict().items()}
