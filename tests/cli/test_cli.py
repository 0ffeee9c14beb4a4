"""The command line on this project's families: what their configs and DataModules must agree on. (The command
line's own logic is runkit's, tested in its own test_cli.py.)"""

import pytest

from project.cli import build
from tests.conftest import FAMILIES, ROOT, SMALL


# part: gcn
def test_only_graph_runs_import_pyg(tmp_path):
    """PyG costs about a second to import: the CLI, the shared core and the other families never load it."""
    from tests.conftest import python

    others = [family for family in FAMILIES if family != "gcn"]
    code = (
        "import sys\n"
        "import runkit.compat\n"
        "from project import cli, doctor, lr_find, export\n"
        f"for family in {others!r}:\n"
        "    cli.build(family, '--trainer.logger=false')\n"
        "print(sorted(m for m in sys.modules if m.startswith('torch_geometric')))\n"
    )
    result = python("-c", code, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout[-500:]


@pytest.mark.parametrize("name", list(SMALL))
def test_the_optimizer_gets_only_what_its_config_says(name):
    # jsonargparse keeps the init_args of the default class (AdamW) when a config switches class_path: the
    # LSTM's Adam once trained with AdamW's weight_decay 0.01 nobody had asked for.
    import inspect

    import torch
    import yaml

    from project.registry import MODELS

    config = yaml.safe_load((ROOT / "configs" / MODELS[name].config).read_text())
    written = config["model"]["init_args"]["optimizer"]
    cls = getattr(torch.optim, written["class_path"].rsplit(".", 1)[-1])
    defaults = {k: p.default for k, p in inspect.signature(cls).parameters.items() if k != "params"}
    optimizer = build(name, *SMALL[name]).model.optimizer([torch.nn.Parameter(torch.zeros(1))])
    for key, value in optimizer.defaults.items():
        if key in defaults:
            assert value == written["init_args"].get(key, defaults[key]), key


def rebuilt_from_its_saved_config(cli, tmp_path):
    """What `--config` builds from the config a run saves (SaveConfigCallback's dump), and the same model
    rebuilt from its hyperparameters as `load_from_checkpoint` rebuilds it."""
    from lightning.pytorch.cli import instantiate_module

    from project.cli import compose

    saved = tmp_path / "config.yaml"
    saved.write_text(cli.parser.dump(cli.config, skip_none=False))
    hparams = {key: value for key, value in cli.model.hparams.items() if key != "_instantiator"}  # as Lightning loads
    return compose(["--config", str(saved)]).model, instantiate_module(type(cli.model), hparams)


def shapes(model):
    return {name: tuple(value.shape) for name, value in model.state_dict().items()}


@pytest.mark.parametrize("name", list(SMALL))
def test_the_saved_config_and_the_hyperparameters_rebuild_what_was_built(name, tmp_path):
    """The data's links (each model class's `data_links`) fill what the data decides; what a run saves must
    rebuild the same network without them being given again, and record nothing its network does not take.
    (One table of links declared for every family would not: a link skipped for one class is still recorded in
    its hyperparameters, and another family's link target is dropped from the saved config.)"""
    cli = build(name, *SMALL[name], "--trainer.logger=false")
    from_config, from_hparams = rebuilt_from_its_saved_config(cli, tmp_path)
    assert shapes(from_config) == shapes(cli.model)
    assert shapes(from_hparams) == shapes(cli.model)


# part: cnn
def test_a_cnn_on_one_channel_saves_its_channel_count(tmp_path):
    """An init argument the user sets is saved, whatever another family links into a network of that name (the
    GCN's `in_channels` is its data's)."""
    cli = build("cnn", *SMALL["cnn"], "--model.net.init_args.in_channels=1", "--trainer.logger=false")
    from_config, from_hparams = rebuilt_from_its_saved_config(cli, tmp_path)
    for model in (cli.model, from_config, from_hparams):
        assert next(m for m in model.net.modules() if hasattr(m, "in_channels")).in_channels == 1


# part: cnn
def test_the_validation_split_again_is_not_reported_as_a_test():
    from project.data.images import ImageFolderDataModule

    assert not ImageFolderDataModule.has_test_split.fget(type("Folder", (), {"roots": ("a", None, None)})())
    assert ImageFolderDataModule.has_test_split.fget(type("Folder", (), {"roots": ("a", None, "test")})())


def data_modules() -> dict[str, list[str]]:
    """Every DataModule this project has (a generated project has fewer), by class path: the arguments it takes."""
    import importlib
    import pkgutil

    from lightning import LightningDataModule
    from runkit.cli.parser_errors import init_arguments

    import project.data

    found = {}
    for info in pkgutil.walk_packages(project.data.__path__, "project.data."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, LightningDataModule) and value.__module__ == info.name:
                found[f"{info.name}.{value.__name__}"] = init_arguments(value)
    return found


def test_every_datamodule_calls_its_training_file_train_path():
    """One name for one file across the DataModules: `train_path` (a folder of images: `root`), `val_path`,
    `test_path`; the other spellings users bring are answered with it, before a name spelled alike."""
    from runkit.cli.parser_errors import SAME_ROLE, refused_option

    modules = data_modules()
    other_names = {name for group in SAME_ROLE for name in group[2:]}
    assert len(modules) >= len(FAMILIES)
    assert {name: set(takes) & other_names for name, takes in modules.items() if set(takes) & other_names} == {}
    for class_path, takes in modules.items():
        if "train_path" in takes:
            assert refused_option("--data.path", "path", class_path).endswith("; did you mean --data.train_path?")
            if "val_path" in takes:  # the old link-prediction name, and not `train_path`, spelled closer
                said = refused_option("--data.val_edges_path", "val_edges_path", class_path)
                assert said.endswith("; did you mean --data.val_path?")
