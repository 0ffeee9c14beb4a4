"""What a run leaves for the practitioner: train.log, TensorBoard extras, the LR range test. (The profiler's table:
the template's tests/test_presets.py, with the preset that turns it on.)"""

import re
from pathlib import Path

import pytest
import torch
from PIL import Image
from runkit.callbacks.histograms import add_histogram
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from torch.utils.tensorboard import SummaryWriter

from conftest import TINY, TOY


def test_a_run_leaves_its_log_histograms_confusion_matrix_and_hparams(build_small):
    cli = build_small("--trainer.max_epochs=1")
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    run = Path(cli.trainer.log_dir)
    log = (run / "train.log").read_text()
    assert re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ INFO ", log, re.M)  # timestamped lines
    events = EventAccumulator(str(run), size_guidance={"images": 0, "histograms": 0})
    events.Reload()
    tags = events.Tags()
    assert "val/confusion_matrix" in tags["images"]
    in_head = {id(p) for p in cli.model.net.head.parameters()}
    head = [name for name, p in cli.model.named_parameters() if id(p) in in_head]  # net.head.*, ResNet's net.fc.*
    for kind in ("weights", "grads"):
        assert head and all(f"{kind}/{name}" in tags["histograms"] for name in head)
    assert {"hp/val/acc_best", "hp/val/loss"} <= set(tags["scalars"])
    assert "_hparams_/session_start_info" in events.PluginTagToContent("hparams")
    image = events.Images("val/confusion_matrix")[0]
    assert image.width > 100 and image.height > 100


def test_histograms_count_every_finite_value_into_equal_buckets(tmp_path):
    writer = SummaryWriter(str(tmp_path))
    values = torch.tensor([0.0, 0.1, 0.6, 0.9, 1.0, float("nan"), float("inf")])
    add_histogram(writer, "spread", values, 1, bins=4)  # buckets (0, 0.25], (0.25, 0.5], (0.5, 0.75], (0.75, 1]
    add_histogram(writer, "constant", torch.zeros(3, 5), 1, bins=4)
    writer.close()
    events = EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})
    events.Reload()
    spread = events.Histograms("spread")[0].histogram_value
    assert (spread.min, spread.max, spread.num) == (0.0, 1.0, 5)
    assert spread.bucket_limit == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert spread.bucket == [2, 0, 1, 2]
    assert spread.sum == pytest.approx(2.6) and spread.sum_squares == pytest.approx(0.01 + 0.36 + 0.81 + 1)
    constant = events.Histograms("constant")[0].histogram_value
    assert (constant.num, list(constant.bucket)) == (15, [15])


def test_lr_find_saves_the_plot_and_prints_the_command(capsys):
    from toyproject.lr_find import main

    main(["--model", TOY, *TINY, "--num_training=40"])
    out = capsys.readouterr().out
    png = Path(re.search(r"loss vs LR plot: (\S+)", out).group(1))
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size[0] > 300
    assert "suggested LR" in out or "no suggestion" in out
    if "suggested LR" in out:
        assert f"python -m toyproject.fit --model {TOY}" in out and "--model.optimizer.init_args.lr" in out


def test_console_messages_follow_the_current_stderr(capsys):
    """The handler is installed once per process; each test (or notebook cell) swaps sys.stderr under it. runkit's
    messages (a resume's "resuming from ...") reach it as the project's do."""
    import logging

    from runkit.callbacks.log_file import log_to_console

    log_to_console()
    logging.getLogger("project.test").warning("where does this go?")
    logging.getLogger("runkit.checkpoints.last").info("and this?")
    said = capsys.readouterr().err
    assert "where does this go?" in said and "and this?" in said


def test_the_doctor_overfits_a_sound_model_and_finds_its_initial_loss_as_expected(capsys):
    """The deterministic rows of its verdict (the data-starvation check times the toy's microsecond steps: noisy)."""
    from toyproject.doctor import main

    main(["--model", TOY, *TINY])
    out = capsys.readouterr().out
    assert re.search(r"^\| overfit +\| ok +\| loss on \d+ fixed batch", out, re.M), out
    assert re.search(r"^\| initial loss +\| ok +\|", out, re.M) and "Verdict: " in out, out
