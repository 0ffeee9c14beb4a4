"""runkit/compat.py is the one door into Lightning's internals: each private name it uses still exists and
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
from runkit import compat
from runkit.cli.lightning_cli import RunCLI

from conftest import TINY, TOY

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
    assert hasattr(found, name), f"Lightning {L.__version__} has no {dotted}: see runkit/compat.py"


def test_lightning_cli_still_reads_the_checkpoint_through_the_overridden_method():
    import inspect

    assert "self._parse_ckpt_path()" in inspect.getsource(LightningCLI.__init__), (
        "LightningCLI no longer calls _parse_ckpt_path: before_ckpt_path_read would never run (runkit/compat.py)"
    )
    assert RunCLI._parse_ckpt_path is compat.CheckpointCheckingCLI._parse_ckpt_path


def test_instantiated_by_cli_is_true_only_under_the_cli():
    from toyproject.cli import build

    cli = build(
        TOY,
        *TINY,
    )
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
    from runkit.checkpoints.callback import Checkpoint

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


# Underscored names of Python's own that a forked command ends with as the interpreter's exit does (os._exit, a
# documented function; threading's and atexit's exit steps: runkit/testing/preloaded.py).
NOT_LIGHTNING = {"_exit", "_shutdown", "_run_exitfuncs"}


def private_lightning_accesses(path: Path, defined: set[str]) -> list[str]:
    """`x._name` where `_name` is not one of this package's own names, and `from lightning... import _name`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("lightning", "pytorch_lightning")):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.startswith("_")]
            if any(part.startswith("_") for part in (node.module or "").split(".")):
                found.append(f"line {node.lineno}: from {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found += [f"line {node.lineno}: .{node.attr}"] if node.attr not in defined | NOT_LIGHTNING else []
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
    assert offenders == {}, f"private Lightning names outside runkit/compat.py: {offenders}"


# Each workaround below: Lightning's behaviour is checked first, so an upgrade that changes it fails with the
# name of the workaround to revisit.


def tiny_fit(tmp_path, **trainer) -> L.Trainer:
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(16, 2)), batch_size=4)
    settings = {"logger": False, "enable_progress_bar": False, "enable_model_summary": False, **trainer}
    fit = L.Trainer(default_root_dir=tmp_path, **settings)
    fit.fit(Stalled(), data)
    return fit


def test_under_fast_dev_run_lightning_writes_last_ckpt_and_our_checkpoint_does_not(tmp_path):
    from runkit.checkpoints.callback import Checkpoint

    theirs = ModelCheckpoint(dirpath=tmp_path / "theirs", save_last=True)
    tiny_fit(tmp_path, fast_dev_run=True, callbacks=[theirs])
    assert (tmp_path / "theirs" / "last.ckpt").is_file(), (
        "Lightning no longer writes last.ckpt under fast_dev_run: drop LastAfterEveryEpoch.on_train_end (compat.py)"
    )
    tiny_fit(tmp_path, fast_dev_run=True, callbacks=[Checkpoint(dirpath=tmp_path / "ours", save_last=True)])
    assert not (tmp_path / "ours").exists()


def test_without_a_logger_lightnings_log_dir_is_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # SaveConfigCallback writes config.yaml into trainer.log_dir: without a logger that is where the command ran.
    assert L.Trainer(logger=False).log_dir in (None, str(tmp_path), "."), (
        "Lightning's log_dir without a logger changed: revisit SaveConfigToRunFolder (compat.py)"
    )


def test_lightnings_own_stop_line_and_tips_are_dropped_from_the_console(tmp_path, caplog):
    import logging

    logger = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    for ours in [f for f in logger.filters if getattr(f, "_project_quiet", False)]:  # any CLI built in this process
        logger.removeFilter(ours)
    caplog.set_level("INFO", logger="lightning.pytorch.utilities.rank_zero")
    tiny_fit(tmp_path, max_epochs=1, limit_val_batches=0)
    assert "`Trainer.fit` stopped: `max_epochs=1` reached." in caplog.text, (
        "Lightning's fit loop no longer logs its stop line: revisit compat.QUIETED"
    )
    compat.quiet_lightning_console()
    caplog.clear()
    tiny_fit(tmp_path, max_epochs=1, limit_val_batches=0)
    assert "`Trainer.fit` stopped" not in caplog.text


def test_lightning_leaves_the_process_group_open_and_close_process_group_closes_it(tmp_path):
    import os

    # Lightning's DDP sets LOCAL_RANK, NODE_RANK, MASTER_* and OMP_NUM_THREADS in this process and leaves them:
    # a DDP run this test process starts later would then take itself for a launched rank and wait for the other.
    environment, threads = dict(os.environ), torch.get_num_threads()
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29_500 + os.getpid() % 1_000))
    try:
        tiny_fit(tmp_path, max_epochs=1, accelerator="cpu", strategy="ddp", devices=1)
        assert torch.distributed.is_initialized(), (
            "Lightning now closes its process group after a run: drop compat.close_process_group"
        )
        compat.close_process_group()
        assert not torch.distributed.is_initialized()
    finally:
        os.environ.clear()
        os.environ.update(environment)
        torch.set_num_threads(threads)


def test_lightnings_lr_suggestion_still_favours_the_smallest_rates():
    import math

    from lightning.pytorch.tuner.lr_finder import _LRFinder

    lrs = torch.logspace(-6, 0, 100).tolist()
    losses = [2 - 1 / (1 + math.exp(-3 * (math.log10(lr) + 3))) + 5 * max(0.0, math.log10(lr) + 1) for lr in lrs]
    finder = _LRFinder("exponential", 1e-6, 1.0, 100)
    finder.results = {"lr": lrs, "loss": losses}
    theirs, ours = finder.suggestion(), compat.steepest_fall(lrs, losses)
    assert 0.8e-3 < ours < 1.25e-3  # the loss falls fastest per decade at 1e-3
    assert theirs is None or theirs < 0.3 * ours, (
        "Lightning's suggestion() now finds the steepest fall (Lightning-AI/pytorch-lightning#21141 fixed?): "
        "consider dropping compat.steepest_fall"
    )


def test_lightnings_csv_logger_still_deletes_an_existing_metrics_file(tmp_path):
    folder = tmp_path / "run" / "version_0"
    folder.mkdir(parents=True)
    (folder / "metrics.csv").write_text("epoch,step,loss\n0,1,0.5\n")
    from lightning.pytorch.loggers import CSVLogger as Theirs

    Theirs(str(tmp_path), name="run", version=0).experiment  # noqa: B018 (starts the writer)
    assert not (folder / "metrics.csv").exists() or "0.5" not in (folder / "metrics.csv").read_text(), (
        "Lightning's CSV writer keeps an existing metrics.csv now: trackers/csv_run.py may not need to"
    )


@pytest.mark.parametrize(("mode", "kept"), [("max", 1.0), ("min", 0.5)])
def test_a_later_epoch_that_ties_the_best_checkpoint_replaces_it(mode, kept):
    # Lightning keeps the first of equal scores; on a small validation set many epochs tie at a perfect score,
    # the first reached at a high learning rate.
    from types import SimpleNamespace

    from runkit.checkpoints.callback import Checkpoint

    checkpoint = Checkpoint(monitor="val/acc", mode=mode, save_top_k=1)
    checkpoint.best_k_models, checkpoint.kth_best_model_path = {"best.ckpt": torch.tensor(kept)}, "best.ckpt"
    trainer = SimpleNamespace(strategy=SimpleNamespace(reduce_boolean_decision=bool))
    better = kept + (0.1 if mode == "max" else -0.1)
    worse = kept - (0.1 if mode == "max" else -0.1)
    decided = tuple(checkpoint.check_monitor_top_k(trainer, torch.tensor(v)) for v in (better, kept, worse))
    assert decided == (True, True, False)
