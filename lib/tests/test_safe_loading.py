"""Checkpoints load as plain data only: a pickle crafted to run code is refused, and runs nothing; weights
travel as safetensors, which need no pickle at all."""

import pickle
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch
from runkit.checkpoints.io import AtomicCheckpointIO, CheckpointError, read_checkpoint
from runkit.tools.export import export, load_weights

from conftest import TINY, TOY
from toyproject.cli import build, main


class Payload:
    """Unpickling this creates a file: the harmless stand-in for "runs the sender's code"."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.fixture
def crafted(tmp_path) -> tuple[Path, Path]:
    marker, path = tmp_path / "code-ran", tmp_path / "crafted.ckpt"
    torch.save({"state_dict": {}, "payload": Payload(marker)}, path)
    return path, marker


def test_a_crafted_checkpoint_is_refused_and_runs_nothing(crafted):
    path, marker = crafted
    with pytest.raises(CheckpointError, match=r"refused to load .*crafted\.ckpt.*could run code"):
        read_checkpoint(path)
    with pytest.raises(CheckpointError, match="refused to load"):
        main(["predict", "--model", TOY, "--ckpt_path", str(path)])
    with pytest.raises(pickle.UnpicklingError):  # Lightning's own loader too, in torch's safe mode by default
        L.LightningModule.load_from_checkpoint(path)
    assert not marker.exists()


def test_the_payload_would_run_if_loaded_unsafely(crafted):
    """The control: the same file with `weights_only=False` does run the code, so the test above means something."""
    path, marker = crafted
    torch.load(path, weights_only=False)
    assert marker.exists()


def test_exported_weights_load_without_pickle_into_a_fresh_model(tmp_path):

    args = [*TINY, "--trainer.max_steps=2", "--trainer.limit_val_batches=0"]
    cli = build(TOY, *args)
    cli.trainer.fit(cli.model, cli.datamodule)
    ckpt = tmp_path / "model.ckpt"
    cli.trainer.save_checkpoint(ckpt)
    out = export(ckpt)
    assert out == tmp_path / "model.safetensors" and b"hyper_parameters" in out.read_bytes()[:4096]

    fresh = build(TOY, *args).model.eval()
    inputs, _, _ = cli.model.unpack(next(iter(cli.datamodule.val_dataloader())))
    trained = cli.model.eval()(*inputs)
    assert not torch.equal(fresh(*inputs), trained)
    load_weights(fresh, out)
    torch.testing.assert_close(fresh(*inputs), trained, rtol=0, atol=0)


def test_the_refusal_never_advises_unsafe_loading_and_the_io_refuses_weights_only_false(crafted):
    path, marker = crafted
    with pytest.raises(CheckpointError) as refused:
        read_checkpoint(path)
    assert "weights_only=False" not in str(refused.value) and "(getattr)" in str(refused.value)  # the culprit named
    with pytest.raises(CheckpointError, match="weights_only=False"):
        AtomicCheckpointIO().load_checkpoint(path, weights_only=False)
    assert not marker.exists()


def test_a_crafted_checkpoint_is_refused_before_the_server_starts_and_runs_nothing(tmp_path):
    from toyproject.serve import main as serve

    crafted = tmp_path / "crafted.ckpt"
    torch.save({"state_dict": {}, "payload": Payload(tmp_path / "code-ran")}, crafted)
    with pytest.raises(CheckpointError, match=r"refused to load .*crafted\.ckpt.*could run code"):
        serve([str(crafted)])
    assert not (tmp_path / "code-ran").exists()
