"""`python -m PACKAGE.export` on the toy: the weights as safetensors load into a model built from the same config, and
the ONNX file computes what the checkpoint does at a batch size it was not traced at."""

import numpy as np
import onnxruntime
import pytest
import torch
from runkit import extras
from runkit.tools.export import load_weights
from runkit.tools.onnx_export import export_onnx

from conftest import TINY, TOY, trained
from toyproject.cli import build
from toyproject.export import main as export


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
