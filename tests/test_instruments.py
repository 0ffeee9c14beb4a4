"""What a run leaves for the practitioner: train.log, TensorBoard extras, the LR range test, the profiler table."""

import math
import re
from pathlib import Path

import lightning.pytorch as L
import torch
from lightning.pytorch.tuner import Tuner
from PIL import Image
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from torch.utils.data import DataLoader, TensorDataset

from project import lr_find
from project.registry import CONFIG_DIR
from tests.conftest import TINY
from tests.test_diagnostics import MLP, Tiny


def test_a_run_leaves_its_log_histograms_confusion_matrix_and_hparams(build_cnn):
    cli = build_cnn("--trainer.max_epochs=1")
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    run = Path(cli.trainer.log_dir)
    log = (run / "train.log").read_text()
    assert re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ INFO .*Receptive field of the last conv layer", log, re.M)
    events = EventAccumulator(str(run), size_guidance={"images": 0, "histograms": 0})
    events.Reload()
    tags = events.Tags()
    assert "val/confusion_matrix" in tags["images"]
    for kind in ("weights", "grads"):
        assert any(tag.startswith(f"{kind}/net.head.") for tag in tags["histograms"])
    assert {"hp/val/acc_best", "hp/val/loss"} <= set(tags["scalars"])
    assert "_hparams_/session_start_info" in events.PluginTagToContent("hparams")
    image = events.Images("val/confusion_matrix")[0]
    assert image.width > 100 and image.height > 100


def test_lr_find_saves_the_plot_and_prints_the_command(capsys):
    lr_find.main(["--model", "cnn", *TINY, "--data.num_train=512", "--data.num_val=64", "--num_training=40"])
    out = capsys.readouterr().out
    png = Path(re.search(r"loss vs LR plot: (\S+)", out).group(1))
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size[0] > 300
    assert "suggested LR" in out or "no suggestion" in out
    if "suggested LR" in out:
        assert "python -m project.fit --model cnn" in out and "--model.optimizer.init_args.lr" in out


def test_steepest_fall_is_read_per_decade():
    lrs = torch.logspace(-6, 0, 100).tolist()
    # A fall centred on 1e-3, then divergence past 1e-1.
    losses = [2 - 1 / (1 + math.exp(-3 * (math.log10(lr) + 3))) + 5 * max(0.0, math.log10(lr) + 1) for lr in lrs]
    suggestion = lr_find.steepest_fall(lrs, losses)
    assert 0.8e-3 < suggestion < 1.25e-3
    assert lr_find.steepest_fall(lrs, [1.0] * len(lrs)) is None  # flat: nothing to suggest


def test_lightnings_smoothed_curve_is_unbiased_back_to_the_loss():
    # A fixed batch and a negligible LR: every step's loss is the same value, so the curve must be flat.
    x, y = torch.randn(16, 8, generator=torch.Generator().manual_seed(0)), torch.arange(16) % 3
    model = Tiny(MLP(), 3)
    loss = torch.nn.functional.cross_entropy(model(x), y).item()
    trainer = L.Trainer(max_epochs=1000, logger=False, enable_checkpointing=False, enable_progress_bar=False)
    result = Tuner(trainer).lr_find(
        model,
        DataLoader(TensorDataset(x, y), batch_size=16),
        min_lr=1e-12,
        max_lr=1e-11,
        num_training=30,
        update_attr=False,
    )
    raw = result.results["loss"]
    assert raw[0] < 0.6 * loss  # Lightning 2.6's off-by-one; if this fails, Lightning fixed it: drop unbias()
    assert max(abs(v - loss) for v in lr_find.unbias(raw)) < 1e-3 * loss


def test_torch_profile_preset_writes_a_trace_and_prints_operators_by_self_time(build_cnn, capfd, caplog):
    cli = build_cnn(f"--config={CONFIG_DIR / 'presets' / 'torch_profile.yaml'}")
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    assert list(Path(cli.trainer.log_dir).glob("*.pt.trace.json"))
    out = "".join(capfd.readouterr()) + caplog.text  # Lightning logs the table
    self_cpu = [
        float(m) * {"ms": 1e3, "us": 1.0, "s": 1e6}[unit]
        for m, unit in re.findall(r"^\S.*?\s+[\d.]+%\s+([\d.]+)(ms|us|s)\s", out, re.M)
    ][:5]
    assert len(self_cpu) == 5 and self_cpu == sorted(self_cpu, reverse=True)
    assert "Self CPU time total" in out
