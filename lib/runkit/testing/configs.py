"""What a config asks is what runs, and what a run saves rebuilds what it built: checks a project's tests run on each
of its models."""

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
import yaml
from torch import nn


def unasked_optimizer_settings(optimizer: torch.optim.Optimizer, config: Path) -> dict[str, tuple[Any, Any]]:
    """The settings of `optimizer` that neither `config`'s `model.init_args.optimizer` nor its class's defaults
    give: `{name: (got, asked)}`. jsonargparse keeps the init_args of the default class (AdamW) when a config
    switches `class_path`: an LSTM's Adam once trained with AdamW's weight_decay 0.01 nobody had asked for."""
    written = yaml.safe_load(config.read_text())["model"]["init_args"]["optimizer"]
    cls = getattr(torch.optim, written["class_path"].rsplit(".", 1)[-1])
    defaults = {k: p.default for k, p in inspect.signature(cls).parameters.items() if k != "params"}
    asked = {key: written.get("init_args", {}).get(key, default) for key, default in defaults.items()}
    return {k: (v, asked[k]) for k, v in optimizer.defaults.items() if k in asked and v != asked[k]}


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
