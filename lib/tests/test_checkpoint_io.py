"""A checkpoint cut short never replaces the last good one, and is never loaded: resuming from `last`
falls back to the newest complete checkpoint, an explicit path gets an error that names it."""

import errno
import logging
from pathlib import Path

import pytest
import torch
from runkit.checkpoints.io import AtomicCheckpointIO, CheckpointError, check_complete, read_checkpoint

from conftest import TINY, TOY
from toyproject.cli import main

RUN = Path("logs") / TOY / "version_0" / "checkpoints"


def cut_short(path: Path) -> None:
    """What a kill during a plain write, or a full disk, leaves: the first half of the file."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_a_failed_write_leaves_the_previous_checkpoint_whole(tmp_path, monkeypatch):
    path = tmp_path / "last.ckpt"
    io = AtomicCheckpointIO()
    io.save_checkpoint({"step": torch.tensor(1)}, path)

    def disk_full(checkpoint, filepath):  # writes half, then the disk is full
        Path(filepath).write_bytes(b"PK\x03\x04 half a checkpoint")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("lightning.fabric.plugins.io.torch_io._atomic_save", disk_full)
    with pytest.raises(OSError, match="No space left"):
        io.save_checkpoint({"step": torch.tensor(2)}, path)
    assert read_checkpoint(path)["step"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]  # the partial file is gone


def test_a_cut_short_file_is_named_not_unpickled(tmp_path):
    path = tmp_path / "epoch03.ckpt"
    torch.save({"state_dict": {"w": torch.ones(1000)}}, path)
    cut_short(path)
    with pytest.raises(CheckpointError, match=r"epoch03\.ckpt is incomplete .* cut short"):
        check_complete(path)
    with pytest.raises(CheckpointError, match="does not exist"):
        read_checkpoint(tmp_path / "missing.ckpt")


@pytest.mark.slow
def test_resuming_from_a_cut_short_last_uses_the_newest_complete_checkpoint(tmp_path, caplog):
    args = ["--model", TOY, *TINY]
    main([*args, "--trainer.max_epochs=1"], subcommand="fit")
    good = next(p for p in RUN.iterdir() if p.name != "last.ckpt")  # the epoch checkpoint
    cut_short(RUN / "last.ckpt")
    size = (RUN / "last.ckpt").stat().st_size

    with pytest.raises(CheckpointError, match=r"last\.ckpt is incomplete.*--ckpt_path .*epoch"):
        main([*args, "--ckpt_path", str(RUN / "last.ckpt")], subcommand="fit")
    assert (RUN / "last.ckpt").stat().st_size == size  # the failed start wrote nothing over it

    with caplog.at_level(logging.WARNING, logger="runkit.checkpoints.last"):
        cli = main([*args, "--trainer.max_epochs=2", "--ckpt_path", "last"], subcommand="fit")
    assert f"Resuming from {good} instead" in caplog.text
    assert cli.trainer.current_epoch == 2 and cli.trainer.global_step > read_checkpoint(good)["global_step"]
    assert check_complete(RUN / "last.ckpt")  # replaced, whole, by the resumed run

    for path in RUN.glob("*.ckpt"):
        cut_short(path)
    with pytest.raises(CheckpointError, match=r"last\.ckpt is incomplete"):
        main([*args, "--trainer.max_epochs=3", "--ckpt_path", "last"], subcommand="fit")
