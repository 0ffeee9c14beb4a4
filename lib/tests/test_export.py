"""`python -m PACKAGE.export` on the toy: the weights as safetensors load into a model built from the same config, and
the ONNX file computes what the checkpoint does at a batch size it was not traced at."""

from typing import ClassVar

import numpy as np
import onnxruntime
import pytest
import torch
from runkit import ConfigError, extras
from runkit.tools.export import load_weights
from runkit.tools.onnx_export import export_onnx, exportable_net

from conftest import TINY, TOY, trained
from toyproject.cli import build
from toyproject.export import main as export
from toyproject.model import BlobsModel


def test_the_exported_weights_and_onnx_file_compute_what_the_checkpoint_does():
    cli, checkpoint = trained()
    export([str(checkpoint)])
    fresh = load_weights(build(TOY, *TINY).model, checkpoint.with_suffix(".safetensors")).eval()
    export([str(checkpoint), "--format", "onnx"])
    session = onnxruntime.InferenceSession(str(checkpoint.with_suffix(".onnx")))
    model = cli.model.eval()
    points = torch.randn(7, 8)  # traced on the validation batches' size
    with torch.no_grad():
        expected = model(points)
        assert torch.equal(fresh(points), expected)
    got, probs, _ = session.run(None, {"points": points.numpy()})  # the scores, their softmax, the top one's
    np.testing.assert_allclose(got, expected.numpy(), atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(probs, expected.softmax(-1).numpy(), atol=1e-5, rtol=1e-5)


def test_a_missing_extra_names_the_pip_command(monkeypatch):
    real = extras.importlib.util.find_spec
    monkeypatch.setattr(extras.importlib.util, "find_spec", lambda n: None if n == "onnxruntime" else real(n))
    with pytest.raises(extras.MissingExtra, match=r"onnxruntime is not installed: pip install onnx onnxscript"):
        export_onnx("no.ckpt")


def test_a_model_that_names_no_inputs_is_refused_and_one_that_does_traces_its_net():
    model = build(TOY, *TINY).model
    assert exportable_net(model) is model.net

    class Unnamed(BlobsModel):
        onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {}

    unnamed = Unnamed(net=model.net, num_outputs=model.hparams.num_outputs)
    with pytest.raises(ConfigError, match="Unnamed names no inputs for ONNX export"):
        exportable_net(unnamed)
