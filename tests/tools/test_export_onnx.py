"""ONNX export: every model exports, and the file computes what its checkpoint computes, at sizes it was not
traced at (batch, sequence length, graph size); what cannot export says why."""

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
import torch
from runkit.tools.onnx_export import ExportMismatch, export_onnx, named_inputs, rebuild

from project import registry
from project.cli import build
from project.export import main as export_main
from tests.conftest import SMALL, TINY, run

# Each model's runs (its SMALL data) and, for the comparison, a DataModule whose validation batches differ in
# size from those the file was traced on.
RUNS = {name: [name, *SMALL[name]] for name in registry.MODELS}
RUNS["gcn_node"] = ["gcn", f"--config={registry.CONFIG_DIR / 'gcn_node.yaml'}"]  # part: gcn
RUNS["lstm_forecast_intervals"] = [  # part: lstm, regression
    *RUNS["lstm_forecast"],  # part: lstm, regression
    f"--config={registry.CONFIG_DIR / 'lstm_forecast_intervals.yaml'}",  # part: lstm, regression
]  # part: lstm, regression
OTHER_SIZES = {
    "cnn": ["--data.batch_size=3"],  # part: cnn
    "cnn_multilabel": ["--data.batch_size=3"],  # part: cnn, multilabel
    "lstm": ["--data.batch_size=4"],  # part: lstm
    "lstm_sequences": ["--data.batch_size=4"],  # part: lstm
    "lstm_tagger": ["--data.batch_size=4"],  # part: lstm
    "lstm_forecast": ["--data.batch_size=5"],  # part: lstm, regression
    "lstm_forecast_intervals": ["--data.batch_size=5"],  # part: lstm, regression
    "gcn": ["--data.batch_size=3"],  # part: gcn
    "gcn_regression": ["--data.batch_size=3"],  # part: gcn, regression
    "gcn_node": ["--data.loader=neighbor", "--data.batch_size=16"],  # part: gcn
    "gcn_link": ["--data.loader=neighbor", "--data.batch_size=4", "--data.num_neighbors=[2,2]"],  # part: gcn
}


# torch 2.13's exporter keeps state between exports in one process: once a padded bidirectional LSTM (the text
# model's) has been exported, the next one's aten.lstm is decomposed step by step, which fixes its time axis. The
# command exports one model per process, as these do here.
OWN_PROCESS = {"lstm_sequences", "lstm_tagger"}


def trained_checkpoint(name: str, *args: str) -> Path:
    """A few steps of `name`, saved in its run folder beside the config.yaml project.fit writes."""
    model, *run = RUNS[name]
    cli = build(model, *TINY, *run, "--trainer.max_steps=3", "--trainer.limit_val_batches=1", *args)
    cli.trainer.fit(cli.model, cli.datamodule)
    path = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RUNS))
def test_the_onnx_file_computes_what_the_checkpoint_does_at_other_sizes(name):
    checkpoint = trained_checkpoint(name)
    if name in OWN_PROCESS:
        out = checkpoint.with_suffix(".onnx")
        assert ": match\n" in run("project.export", str(checkpoint), "--format", "onnx", cwd=Path.cwd())
    else:
        out, verdict = export_onnx(checkpoint)
        assert out == checkpoint.with_suffix(".onnx") and verdict.matches and verdict.difference < 1e-4
    assert sorted(p.name for p in out.parent.glob("*.onnx*")) == [out.name]  # one file, the weights inside

    model, datamodule = rebuild(checkpoint, None, OTHER_SIZES[name])
    datamodule.setup("validate")
    session = onnxruntime.InferenceSession(str(out))
    sizes: dict[int, set[int]] = {axis: set() for axis in model.onnx_inputs[session.get_inputs()[0].name]}
    for batch in [b for _, b in zip(range(32), datamodule.val_dataloader(), strict=False)]:
        names, inputs = named_inputs(model, batch)
        assert names == [i.name for i in session.get_inputs()]
        for axis, seen in sizes.items():
            seen.add(inputs[names[0]].shape[axis])
        with torch.no_grad():
            output = model(*inputs.values())
            expected = [output, *(model.task.predict(output)[o.name] for o in session.get_outputs()[1:])]
        got = session.run(None, {k: v.numpy() for k, v in inputs.items()})
        for want, have in zip(expected, got, strict=True):
            np.testing.assert_allclose(have, want.numpy(), atol=1e-4, rtol=1e-4)
    assert all(len(seen) >= 2 for seen in sizes.values()), sizes  # each varying axis at two sizes at least

    # The varying axes by name in the graph; beside it, what a receiver needs to feed it and read it.
    proto = onnx.load(str(out))
    axes = {
        i.name: {k: d.dim_param for k, d in enumerate(i.type.tensor_type.shape.dim) if d.dim_param}
        for i in proto.graph.input
    }
    assert axes == {name: model.onnx_inputs[name] for name in axes}
    metadata = {p.key: p.value for p in proto.metadata_props}
    assert metadata["task"] == model.task.name and json.loads(metadata["output_names"]) == datamodule.output_names
    if datamodule.vocabulary is not None:
        assert json.loads(metadata["vocabulary"]) == datamodule.vocabulary.tokens
    if name == "lstm_tagger":  # part: lstm
        assert json.loads(metadata["alphabet"]) == datamodule.alphabet and len(datamodule.alphabet) > 20  # part: lstm


def test_a_difference_beyond_the_tolerance_fails_the_export_with_exit_status_1():
    checkpoint = trained_checkpoint(next(iter(OTHER_SIZES)))
    with pytest.raises(ExportMismatch, match="DIFFER") as failed:
        export_main([str(checkpoint), "--format", "onnx", "--atol", "0", "--rtol", "0"])  # kernels differ by ~1e-7
    assert failed.value.exit_code == 1 and "do not ship it" in str(failed.value)
    assert checkpoint.with_suffix(".onnx").is_file()  # kept, to look into


# part: gcn
def test_a_gat_network_cannot_be_exported_and_says_why():
    from runkit import ConfigError

    model = build("gcn", *TINY, *SMALL["gcn"], "--model.net.conv=gat").model
    with pytest.raises(ConfigError, match="GATConv .* torch.export cannot trace"):
        model.exportable_net()
