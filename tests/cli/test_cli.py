"""The command line on this project's families: what their configs and DataModules must agree on. (The command
line's own logic is runkit's, tested in its own test_cli.py.)"""

import pytest
import torch
from runkit.testing.configs import rebuilt, shapes, unasked_optimizer_settings

from project.cli import build, compose
from project.registry import MODELS
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
    optimizer = build(name, *SMALL[name]).model.optimizer([torch.nn.Parameter(torch.zeros(1))])
    assert unasked_optimizer_settings(optimizer, ROOT / "configs" / MODELS[name].config) == {}


@pytest.mark.parametrize("name", list(SMALL))
def test_the_saved_config_and_the_hyperparameters_rebuild_what_was_built(name, tmp_path):
    """Each model class links what its data decides (`data_links`); one table of links for every class would
    record links skipped for this one in its hyperparameters, and drop another family's link targets (a CNN's
    `in_channels`, the GCN's) from the saved config."""
    channels = ["--model.net.init_args.in_channels=1"] if name == "cnn" else []  # set by the user: saved
    cli = build(name, *SMALL[name], *channels, "--trainer.logger=false")
    for model in rebuilt(cli, compose, tmp_path):
        assert shapes(model) == shapes(cli.model)


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
