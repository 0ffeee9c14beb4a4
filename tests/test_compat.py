"""project/compat.py is the one door into Lightning's internals: each private name it uses still exists and
behaves as the workaround assumes, and no other module of the package reaches a private Lightning name."""

import ast
import importlib
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch
from lightning.fabric.loggers.csv_logs import _ExperimentWriter
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.cli import LightningCLI
from lightning.pytorch.loggers import CSVLogger
from lightning.pytorch.loops import _FitLoop

from project import compat
from project.cli import ProjectCLI
from tests.conftest import FAMILIES, SMALL, TINY

PACKAGE = Path(compat.__file__).resolve().parent


@pytest.mark.parametrize("dotted", compat.PRIVATE_NAMES)
def test_every_private_name_the_compat_module_uses_still_exists(dotted, tmp_path):
    owner, _, name = dotted.rpartition(".")
    classes = {"LightningCLI": LightningCLI, "_FitLoop": _FitLoop, "ModelCheckpoint": ModelCheckpoint}
    found = {**classes, "_ExperimentWriter": _ExperimentWriter}.get(owner)
    if found is None:
        found = importlib.import_module(owner)
    if found is _ExperimentWriter:  # instance attributes: look at an instance
        found = CSVLogger(str(tmp_path)).experiment
    elif isinstance(found, type) and not hasattr(found, name):
        trainer = L.Trainer(logger=False, enable_checkpointing=False)
        found = trainer.fit_loop
    assert hasattr(found, name), f"Lightning {L.__version__} has no {dotted}: see project/compat.py"


def test_lightning_cli_still_reads_the_checkpoint_through_the_overridden_method():
    import inspect

    assert "self._parse_ckpt_path()" in inspect.getsource(LightningCLI.__init__), (
        "LightningCLI no longer calls _parse_ckpt_path: check_ckpt_path would never run (project/compat.py)"
    )
    assert ProjectCLI._parse_ckpt_path is compat.CheckpointCheckingCLI._parse_ckpt_path


def test_instantiated_by_cli_is_true_only_under_the_cli():
    from project.cli import build

    cli = build(FAMILIES[0], *TINY, *SMALL[FAMILIES[0]])
    assert "net" in cli.model.hparams and isinstance(cli.model.hparams["net"], dict)  # the config, not objects
    assert not compat.instantiated_by_cli()


def test_the_public_logging_gate_agrees_with_lightnings_private_one():
    seen: list[tuple[bool, bool]] = []

    class Probe(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(2, 1)

        def training_step(self, batch, batch_idx):
            ours, theirs = compat.logs_this_step(self.trainer), self.trainer._logger_connector.should_update_logs
            seen.append((ours, theirs))
            return self.layer(batch[0]).sum()

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(40, 2)), batch_size=4)
    trainer = L.Trainer(
        max_steps=23,
        log_every_n_steps=5,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Probe(), data)
    assert [ours for ours, _ in seen] == [theirs for _, theirs in seen]
    assert sum(ours for ours, _ in seen) == 4  # steps 5, 10, 15, 20


class Stalled(L.LightningModule):
    """Validation reports the same score every epoch: only the first epoch is a "best" one."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)

    def training_step(self, batch, batch_idx):
        return self.layer(batch[0]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        self.log("score", 0.5)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


@pytest.mark.parametrize("with_validation", [True, False])
def test_last_ckpt_holds_the_final_epoch_even_when_the_metric_stalls(tmp_path, with_validation):
    from project.callbacks.checkpoint import Checkpoint

    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(16, 2)), batch_size=4)
    kept = Checkpoint(dirpath=tmp_path, monitor="score" if with_validation else None, mode="max", save_last=True)
    plain = ModelCheckpoint(dirpath=tmp_path / "plain", monitor="score", mode="max", save_last=True)
    trainer = L.Trainer(
        max_epochs=3,
        callbacks=[kept, plain] if with_validation else [kept],
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    trainer.fit(Stalled(), data, data if with_validation else None)
    assert torch.load(tmp_path / "last.ckpt", weights_only=True)["global_step"] == trainer.global_step == 12
    if with_validation:  # the control: Lightning's own callback leaves last.ckpt at the first, best epoch
        assert torch.load(tmp_path / "plain" / "last.ckpt", weights_only=True)["global_step"] == 4


def private_lightning_accesses(path: Path, defined: set[str]) -> list[str]:
    """`x._name` where `_name` is not one of this package's own names, and `from lightning... import _name`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("lightning", "pytorch_lightning")):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.startswith("_")]
            if any(part.startswith("_") for part in (node.module or "").split(".")):
                found.append(f"line {node.lineno}: from {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found += [f"line {node.lineno}: .{node.attr}"] if node.attr not in defined else []
    return found


def test_no_module_but_compat_touches_a_private_lightning_name():
    sources = [p for p in PACKAGE.rglob("*.py") if p.name != "compat.py"]
    defined = set()  # this package's own private names: functions, classes, attributes it assigns
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                defined.add(node.attr)
    offenders = {str(p.relative_to(PACKAGE)): hits for p in sources if (hits := private_lightning_accesses(p, defined))}
    assert offenders == {}, f"private Lightning names outside project/compat.py: {offenders}"
