"""The shared training system (runkit/model.py), through the toy family's config."""

import os

import lightning.pytorch as L
import pytest
import torch
from runkit.model import TaskModule

from conftest import TINY, TOY


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """One short fit of the toy's config (2 epochs), shared by the tests of this module."""
    from toyproject.cli import build

    root = tmp_path_factory.mktemp("fit")
    cli = build(
        TOY,
        *TINY,
        f"--trainer.logger.init_args.save_dir={root / 'logs'}",
        "--trainer.max_epochs=2",
        "--trainer.log_every_n_steps=4",  # train/loss is logged on the steps the logger writes
    )
    cli.trainer.fit(cli.model, cli.datamodule)
    return cli


def test_logs_the_documented_metrics(fitted):
    logged = set(fitted.trainer.callback_metrics)
    expected = {"train/loss", "train/acc", "train/f1", "val/loss", "val/acc", "val/f1", "val/acc_best"}
    assert expected <= logged
    history = fitted.model.val_best.compute().item()
    assert history == pytest.approx(fitted.trainer.callback_metrics["val/acc_best"].item())


def test_schedule_steps_once_per_optimizer_step(fitted):
    scheduler = fitted.trainer.lr_scheduler_configs[0].scheduler
    steps = 2 * fitted.trainer.num_training_batches
    assert fitted.trainer.global_step == steps
    assert scheduler.last_epoch == steps
    assert scheduler.total_steps == steps


def test_gradient_clipping_is_on_in_the_config(fitted):
    assert fitted.trainer.gradient_clip_val == 1.0
    assert fitted.trainer.gradient_clip_algorithm == "norm"


def test_checkpoint_rebuilds_the_model_alone(fitted):
    path = fitted.trainer.checkpoint_callback.best_model_path
    assert os.path.exists(path)
    restored = type(fitted.model).load_from_checkpoint(path, map_location="cpu")
    net = type(fitted.model.net)
    assert restored.hparams["net"]["class_path"] == f"{net.__module__}.{net.__name__}"
    state = torch.load(path, map_location="cpu", weights_only=True)["state_dict"]
    assert state.keys() == restored.state_dict().keys()
    for name, value in restored.state_dict().items():
        assert torch.equal(value, state[name]), name


def test_a_reloaded_model_saves_checkpoints_that_rebuild_alone(fitted, tmp_path):
    restored = type(fitted.model).load_from_checkpoint(fitted.trainer.checkpoint_callback.last_model_path)
    trainer = L.Trainer(max_steps=1, logger=False, enable_checkpointing=False, enable_progress_bar=False)
    trainer.fit(restored, fitted.datamodule)
    trainer.save_checkpoint(tmp_path / "again.ckpt")
    again = type(fitted.model).load_from_checkpoint(tmp_path / "again.ckpt")
    for name, value in again.state_dict().items():
        assert torch.equal(value, restored.state_dict()[name]), name


def test_last_checkpoint_matches_the_final_weights(fitted):
    last = fitted.trainer.checkpoint_callback.last_model_path
    restored = type(fitted.model).load_from_checkpoint(last, map_location="cpu").eval()
    model = fitted.model.eval()
    inputs, _, _ = model.unpack(next(iter(fitted.datamodule.val_dataloader())))
    with torch.no_grad():
        assert torch.allclose(restored(*inputs), model(*inputs), atol=0, rtol=0)


def test_predict_returns_probabilities_and_classes(fitted):
    # A fresh Trainer, on the validation batches: a DataModule's predict split may need a file of its own (text).
    trainer = L.Trainer(logger=False, enable_progress_bar=False, enable_model_summary=False)
    predictions = trainer.predict(fitted.model, fitted.datamodule.val_dataloader())
    first = predictions[0]
    assert torch.allclose(first["probs"].sum(-1), torch.ones(len(first["pred"])))
    assert torch.equal(first["pred"], first["probs"].argmax(-1))
    assert torch.equal(first["confidence"], first["probs"].max(-1).values)


def test_freeze_features_trains_the_head_only(build_small):
    cli = build_small("--model.init_args.freeze_features=true", "--trainer.max_steps=3")
    net = cli.model.net
    features_before = {k: v.clone() for k, v in net.features.state_dict().items()}  # BN running stats included
    head_before = {k: v.clone() for k, v in net.head.state_dict().items()}
    cli.trainer.fit(cli.model, cli.datamodule)

    optimized = {id(p) for group in cli.trainer.optimizers[0].param_groups for p in group["params"]}
    assert optimized == {id(p) for p in net.head.parameters()}
    for name, value in net.features.state_dict().items():
        assert torch.equal(value, features_before[name]), f"frozen {name} changed"
    assert any(not torch.equal(v, head_before[k]) for k, v in net.head.state_dict().items())


class FeaturesPerEpoch(L.Callback):
    """Per epoch: whether the features' layers were in training mode and had gradients, and their state after it."""

    def __init__(self) -> None:
        self.training, self.grads, self.after = [], [], []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if batch_idx == 0:
            features = pl_module.net.features
            # The layers that own weights (a network's `features` may be a fresh container around them).
            layers = [m for m in features.modules() if next(m.parameters(recurse=False), None) is not None]
            self.training.append(any(m.training for m in layers))
            self.grads.append(all(p.requires_grad for p in features.parameters()))

    def on_train_epoch_end(self, trainer, pl_module):
        self.after.append({k: v.clone() for k, v in pl_module.net.features.state_dict().items()})


def test_gradual_unfreezing_trains_the_features_from_their_epoch_at_their_rate(build_small):
    cli = build_small(
        "--model.init_args.freeze_features=true",
        "--model.init_args.unfreeze_at_epoch=1",
        "--model.init_args.features_lr=0.1",
        "--trainer.max_epochs=2",
        "--early_stopping.stopping_threshold=null",
    )
    before = {k: v.clone() for k, v in cli.model.net.features.state_dict().items()}
    seen = FeaturesPerEpoch()
    cli.trainer.callbacks.append(seen)
    cli.trainer.fit(cli.model, cli.datamodule)

    head, features = cli.trainer.optimizers[0].param_groups
    assert {id(p) for p in features["params"]} == {id(p) for p in cli.model.net.features.parameters()}
    assert features["initial_lr"] == pytest.approx(0.1 * head["initial_lr"])
    assert seen.training == [False, True] and seen.grads == [False, True]
    for name, value in seen.after[0].items():  # BatchNorm's running statistics too
        assert torch.equal(value, before[name]), f"{name} moved while frozen"
    assert any(not torch.equal(v, seen.after[0][k]) for k, v in seen.after[1].items() if v.is_floating_point())


def test_unfreezing_needs_a_frozen_start(build_small):
    with pytest.raises(ValueError, match="set --model.freeze_features true too"):
        build_small("--model.init_args.unfreeze_at_epoch=1")


def test_init_from_starts_from_another_run_and_a_resumed_run_does_not_read_it(fitted, build_small, tmp_path):
    source = fitted.trainer.checkpoint_callback.last_model_path
    saved = torch.load(source, map_location="cpu", weights_only=True)["state_dict"]
    cli = build_small(
        f"--model.init_args.init_from={source}",
        "--model.init_args.freeze_features=true",
        "--trainer.max_steps=2",
        f"--trainer.logger.init_args.save_dir={tmp_path / 'logs'}",
    )
    net = cli.model.net
    in_features = {id(t) for t in net.features.state_dict(keep_vars=True).values()}
    features = [name for name, t in net.state_dict(keep_vars=True).items() if id(t) in in_features]
    assert any(not torch.equal(net.state_dict()[name], saved[f"net.{name}"]) for name in features)
    cli.trainer.fit(cli.model, cli.datamodule)
    for name in features:  # frozen: still the source's weights
        assert torch.equal(net.state_dict()[name], saved[f"net.{name}"]), name

    # Resuming restores the run's own weights; the file it started from may be gone by then.
    resumed = build_small(
        f"--model.init_args.init_from={tmp_path / 'gone.ckpt'}",
        "--model.init_args.freeze_features=true",
        "--trainer.max_steps=3",
        f"--trainer.logger.init_args.save_dir={tmp_path / 'logs'}",
    )
    resumed.trainer.fit(resumed.model, resumed.datamodule, ckpt_path=cli.trainer.checkpoint_callback.last_model_path)
    assert resumed.trainer.global_step == 3


def test_a_finite_run_is_needed_for_the_schedule(build_small):
    cli = build_small("--trainer.max_epochs=-1")
    with pytest.raises(ValueError, match="finite run"):
        cli.trainer.fit(cli.model, cli.datamodule)


def test_optimizer_is_configuration(build_small):
    cli = build_small(
        "--model.optimizer=torch.optim.SGD",
        "--model.optimizer.lr=0.05",
        "--model.optimizer.momentum=0.9",
        "--trainer.max_steps=1",
    )
    cli.trainer.fit(cli.model, cli.datamodule)
    optimizer = cli.trainer.optimizers[0]
    assert isinstance(optimizer, torch.optim.SGD)
    assert optimizer.param_groups[0]["momentum"] == 0.9
    assert optimizer.param_groups[0]["initial_lr"] == 0.05


def test_gradual_unfreezing_is_refused_under_ddp(build_small):
    # DDP registers the parameters that train when it wraps the model: features unfrozen later would not be
    # synchronised. The check runs in on_fit_start, after the wrap, where the world size is known.
    from types import SimpleNamespace

    cli = build_small("--model.init_args.freeze_features=true", "--model.init_args.unfreeze_at_epoch=1")
    cli.model._trainer = SimpleNamespace(world_size=2, ckpt_path=None)
    with pytest.raises(ValueError, match="unfreeze_at_epoch under DDP"):
        TaskModule.on_fit_start(cli.model)
