"""The shared training system, exercised through the CNN family's real config."""

import os

import lightning.pytorch as L
import pytest
import torch

from project.models.image import ImageClassifier
from tests.conftest import TINY


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """One short fit of the CNN config (2 epochs of 8 steps), shared by the tests of this module."""
    from project.cli import build

    root = tmp_path_factory.mktemp("fit")
    cli = build(
        "cnn",
        *TINY,
        f"--trainer.logger.init_args.save_dir={root / 'logs'}",
        f"--data.init_args.data_dir={root / 'data'}",
        "--data.num_train=512",
        "--data.num_val=128",
        "--trainer.max_epochs=2",
        "--trainer.log_every_n_steps=4",  # train/loss is logged on the steps the logger writes
    )
    cli.trainer.fit(cli.model, cli.datamodule)
    return cli


def test_logs_the_documented_metrics(fitted):
    logged = set(fitted.trainer.callback_metrics)
    expected = {"train/loss", "train/acc", "train/f1", "val/loss", "val/acc", "val/f1", "val/acc_best"}
    assert expected <= logged
    history = fitted.model.val_acc_best.compute().item()
    assert history == pytest.approx(fitted.trainer.callback_metrics["val/acc_best"].item())


def test_schedule_steps_once_per_optimizer_step(fitted):
    scheduler = fitted.trainer.lr_scheduler_configs[0].scheduler
    assert fitted.trainer.global_step == 16
    assert scheduler.last_epoch == 16
    assert scheduler.total_steps == 16


def test_gradient_clipping_is_on_in_the_config(fitted):
    assert fitted.trainer.gradient_clip_val == 1.0
    assert fitted.trainer.gradient_clip_algorithm == "norm"


def test_checkpoint_rebuilds_the_model_alone(fitted):
    path = fitted.trainer.checkpoint_callback.best_model_path
    assert os.path.exists(path)
    restored = ImageClassifier.load_from_checkpoint(path, map_location="cpu")
    assert restored.hparams["net"]["class_path"] == "project.nets.cnn.SimpleCNN"
    state = torch.load(path, map_location="cpu", weights_only=True)["state_dict"]
    assert state.keys() == restored.state_dict().keys()
    for name, value in restored.state_dict().items():
        assert torch.equal(value, state[name]), name


def test_a_reloaded_model_saves_checkpoints_that_rebuild_alone(fitted, tmp_path):
    restored = ImageClassifier.load_from_checkpoint(fitted.trainer.checkpoint_callback.last_model_path)
    trainer = L.Trainer(max_steps=1, logger=False, enable_checkpointing=False, enable_progress_bar=False)
    trainer.fit(restored, fitted.datamodule)
    trainer.save_checkpoint(tmp_path / "again.ckpt")
    again = ImageClassifier.load_from_checkpoint(tmp_path / "again.ckpt")
    for name, value in again.state_dict().items():
        assert torch.equal(value, restored.state_dict()[name]), name


def test_last_checkpoint_matches_the_final_weights(fitted):
    last = fitted.trainer.checkpoint_callback.last_model_path
    restored = ImageClassifier.load_from_checkpoint(last, map_location="cpu").eval()
    model = fitted.model.eval()
    images, _ = next(iter(fitted.datamodule.val_dataloader()))
    with torch.no_grad():
        assert torch.allclose(restored(images), model(images), atol=0, rtol=0)


def test_predict_returns_probabilities_and_classes(fitted):
    predictions = fitted.trainer.predict(fitted.model, fitted.datamodule)
    first = predictions[0]
    assert torch.allclose(first["probs"].sum(-1), torch.ones(len(first["pred"])))
    assert torch.equal(first["pred"], first["probs"].argmax(-1))
    assert torch.equal(first["confidence"], first["probs"].max(-1).values)


def test_freeze_features_trains_the_head_only(build_cnn):
    cli = build_cnn("--model.init_args.freeze_features=true", "--trainer.max_steps=3")
    net = cli.model.net
    features_before = {k: v.clone() for k, v in net.features.state_dict().items()}  # BN running stats included
    head_before = {k: v.clone() for k, v in net.head.state_dict().items()}
    cli.trainer.fit(cli.model, cli.datamodule)

    optimized = {id(p) for group in cli.trainer.optimizers[0].param_groups for p in group["params"]}
    assert optimized == {id(p) for p in net.head.parameters()}
    for name, value in net.features.state_dict().items():
        assert torch.equal(value, features_before[name]), f"frozen {name} changed"
    assert any(not torch.equal(v, head_before[k]) for k, v in net.head.state_dict().items())


def test_a_finite_run_is_needed_for_the_schedule(build_cnn):
    cli = build_cnn("--trainer.max_epochs=-1")
    with pytest.raises(ValueError, match="finite run"):
        cli.trainer.fit(cli.model, cli.datamodule)


def test_optimizer_is_configuration(build_cnn):
    cli = build_cnn(
        "--model.optimizer=torch.optim.SGD",
        "--model.optimizer.lr=0.05",
        "--model.optimizer.momentum=0.9",
        "--model.scheduler.warmup_steps=0",
        "--trainer.max_steps=1",
    )
    cli.trainer.fit(cli.model, cli.datamodule)
    optimizer = cli.trainer.optimizers[0]
    assert isinstance(optimizer, torch.optim.SGD)
    assert optimizer.param_groups[0]["momentum"] == 0.9
    assert optimizer.param_groups[0]["initial_lr"] == 0.05


def test_an_image_folder_trains_through_the_config(tmp_path):
    from project.cli import build
    from tests.test_data_images import write_image_folder

    write_image_folder(tmp_path / "pets")  # two classes
    cli = build(
        "cnn",
        *TINY,
        "--data=project.data.images.ImageFolderDataModule",
        f"--data.root={tmp_path / 'pets'}",
        "--data.image_size=24",
        "--data.batch_size=4",
        "--trainer.max_steps=2",
    )
    assert cli.model.net.head[-1].out_features == 2  # linked from the folder's class count
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.global_step == 2


@pytest.mark.slow
def test_compiled_network_keeps_its_checkpoint_keys_and_outputs():
    from project.nets.cnn import SimpleCNN

    torch.manual_seed(0)
    eager = ImageClassifier(SimpleCNN(4), num_classes=4).eval()
    compiled = ImageClassifier(SimpleCNN(4), num_classes=4, compile_net=True).eval()
    compiled.load_state_dict(eager.state_dict())  # same keys: no `_orig_mod.` prefix
    images = torch.randn(8, 3, 32, 32)
    with torch.no_grad():
        torch.testing.assert_close(compiled(images), eager(images), atol=1e-5, rtol=1e-5)
