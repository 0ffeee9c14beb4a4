"""A checkpoint as an ONNX file, checked against the checkpoint on validation batches with onnxruntime.

The file holds the network then the task's predictions (`runkit/tasks/`): outputs `output` (the raw
outputs: logits, standardised values) and the task's float predictions (`probs`, `value`, `probability`),
inputs named as the model unpacks its batch, with the axes that vary (batch, sequence length, nodes,
edges) left free. It is traced by `torch.export` (torch's exporter, `dynamo=True`), so Python control flow
is fixed at export: each model's `exportable_net()` refuses what would not export exactly.
"""

import itertools
import json
import logging
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from torch import nn

from runkit import ConfigError, TaskModule, UserError, offers
from runkit.checkpoints.io import read_checkpoint
from runkit.extras import require_extra

FIT_ONLY = ("ckpt_path", "weights_only")  # keys of a saved fit config that building the model does not take
ATOL, RTOL = 1e-4, 1e-4  # float32 kernels of two libraries summing in different orders (docs/export.md)


class ExportMismatch(UserError):
    """The ONNX file computes other numbers than the checkpoint: a failed export, exit status 1."""

    exit_code = 1


class Predictor(nn.Module):
    """The network, then the task's float predictions: what `predictions.tsv` is made of, in one graph."""

    def __init__(self, net: nn.Module, task: nn.Module, keys: list[str]) -> None:
        super().__init__()
        self.net, self.task, self.keys = net, task, keys

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        output = self.net(*inputs)
        if not self.keys:  # a task whose predictions are all ids (tagging's Viterbi): the outputs alone
            return (output,)
        predicted = self.task.predict(output)
        return (output, *(predicted[key] for key in self.keys))


@dataclass
class Verdict:
    rows: list[int]  # the first input's length in each batch compared
    axis: str  # what that length counts: batch, nodes
    difference: float  # the largest |onnxruntime - PyTorch| over every output
    atol: float
    rtol: float
    matches: bool

    def __str__(self) -> str:
        word = "match" if self.matches else "DIFFER"
        sizes = " and ".join(map(str, self.rows))
        batches = "a validation batch" if len(self.rows) == 1 else f"{len(self.rows)} validation batches"
        return (
            f"onnxruntime vs the checkpoint in PyTorch on {batches} ({self.axis} {sizes}): max "
            f"|difference| {self.difference:.2e}, tolerance {self.atol:.0e} + {self.rtol:.0e} x |value|: {word}"
        )


def exportable_net(model: TaskModule) -> nn.Module:
    """The network as export traces it, for a model that names its inputs (`onnx_inputs`: in `unpack` order, each
    with the axes that vary): its own `exportable_net()` where tracing `net` would fix a choice made from the data
    (or refuses with the reason), else `net`."""
    if not getattr(model, "onnx_inputs", None):
        raise ConfigError(f"{type(model).__name__} names no inputs for ONNX export (its onnx_inputs)")
    own = getattr(model, "exportable_net", None)
    return own() if callable(own) else model.net


def export_onnx(
    checkpoint: str | Path,
    out: str | Path | None = None,
    config: str | Path | None = None,
    overrides: list[str] | None = None,
    atol: float = ATOL,
    rtol: float = RTOL,
) -> tuple[Path, Verdict]:
    """Export `checkpoint` to `out` (default: beside it, .onnx), run it with onnxruntime on two validation
    batches and compare with the checkpoint's outputs; raise ExportMismatch when they differ."""
    require_extra("onnx", "onnxscript", "onnxruntime", extra="onnx")
    # torch's exporter warns once per torchvision operator that torchvision is missing: this project uses none.
    logging.getLogger("torch.onnx._internal.exporter._registration").addFilter(
        lambda record: not record.getMessage().startswith("torchvision is not installed")
    )
    checkpoint = Path(checkpoint)
    out = Path(out) if out is not None else checkpoint.with_suffix(".onnx")
    model, datamodule = rebuild(checkpoint, config, overrides or [])
    keys = float_predictions(model)
    predictor = Predictor(exportable_net(model), model.task, keys).eval()
    batches = validation_batches(model, datamodule)
    names, example = named_inputs(model, batches[0])
    started = time.perf_counter()
    with torch.no_grad():
        torch.onnx.export(
            predictor,
            tuple(example.values()),
            str(out),
            input_names=names,
            output_names=["output", *predictor.keys],
            dynamic_shapes=(tuple(model.onnx_inputs[name] for name in names),),  # forward(*inputs): one tuple
            dynamo=True,
            external_data=False,  # one file, weights inside (ONNX's limit for that: 2 GB)
            verbose=False,
        )
    describe(out, model, datamodule, names, checkpoint, time.perf_counter() - started)
    # Against the checkpoint's network as it runs in PyTorch, not the traced copy.
    verdict = compare(out, Predictor(model.net, model.task, keys).eval(), model, batches, atol, rtol)
    if not verdict.matches:
        raise ExportMismatch(f"{verdict}. {out} is kept for inspection; do not ship it.")
    return out, verdict


def rebuild(
    checkpoint: Path, config: str | Path | None, overrides: list[str], serving: bool = False
) -> tuple[Any, Any]:
    """The model and DataModule of `checkpoint`'s run (its config.yaml, or `config`), with its weights.

    `serving`: the DataModule built from the state the checkpoint saved (its vocabulary, scaling, labels), as
    `predict` builds it, and no logger: nothing of the run is read again or written."""
    from runkit.cli.lightning_cli import SAVED_RUN

    config = Path(config) if config is not None else checkpoint.parent.parent / "config.yaml"
    if not config.is_file():
        raise ConfigError(
            f"no config for {checkpoint}: looked for {config} (a run folder's config.yaml, which project.fit "
            "writes). Pass the run's config with --config FILE."
        )
    saved = read_checkpoint(checkpoint)
    settings = yaml.safe_load(config.read_text()) or {}
    for key in FIT_ONLY:
        settings.pop(key, None)
    if serving:
        settings.setdefault("trainer", {})["logger"] = False
        data = settings.get("data") or {}
        state = saved.get(str(data.get("class_path", "")).rsplit(".", 1)[-1], {})
        data.setdefault("init_args", {}).update(state)  # as the CLI does for predict (restore_data_state)
    with tempfile.TemporaryDirectory() as folder:
        composed = Path(folder) / "config.yaml"
        composed.write_text(yaml.safe_dump(settings))
        cli = SAVED_RUN.compose(["--config", str(composed), *overrides])
    model, datamodule = cli.model, cli.datamodule
    model.trainer = cli.trainer  # unpack asks the trainer its stage (node masks); nothing runs
    model.load_state_dict(saved["state_dict"])  # strict; a mismatch is the model's CheckpointError
    if (state := saved.get(type(datamodule).__qualname__)) is not None:
        datamodule.load_state_dict(state)  # the vocabulary and labels it was trained with, or a clear refusal
    return model.eval(), datamodule


def validation_batches(model: Any, datamodule: Any) -> list[Any]:
    """The first validation batch and the last of the first 64 (bounded time): two sizes where the split ends within
    them (its last batch is usually smaller), two lengths."""
    datamodule.setup("validate")
    first = last = None
    for batch in itertools.islice(datamodule.val_dataloader(), 64):  # the last of at most 64: bounded time
        first, last = first if first is not None else batch, batch
    if first is None:
        raise ConfigError("the validation split is empty: there is nothing to check the export on")
    return [first, last] if last is not first else [first]


def named_inputs(model: Any, batch: Any) -> tuple[list[str], dict[str, torch.Tensor]]:
    """The network's inputs from `batch`, by the names the model gives them; an absent optional one (no edge
    weights) is left out of the graph."""
    inputs, _, _ = model.unpack(batch)
    named = given_inputs(list(model.onnx_inputs), inputs)
    return list(named), named


def given_inputs(names: list[str], inputs: Sequence[Any]) -> dict[str, Any]:
    """The network's inputs by name, in order; an absent optional one (None) left out, as the graph leaves it."""
    return {name: value for name, value in zip(names, inputs, strict=False) if value is not None}


def float_predictions(model: Any) -> list[str]:
    """The float keys of the task's predictions (`probs`, `value`...): the class ids and label sets are their
    argmax and threshold, one line for the user."""
    probe = model.task.predict(torch.zeros(2, model.task.output_width))
    return [key for key, value in probe.items() if value.is_floating_point()]


def compare(out: Path, predictor: Predictor, model: Any, batches: list[Any], atol: float, rtol: float) -> Verdict:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    worst, matches, rows = 0.0, True, []
    axis = next(iter(model.onnx_inputs.values()))[0]  # what the first input's length counts: batch, nodes
    for batch in batches:
        names, inputs = named_inputs(model, batch)
        with torch.no_grad():
            expected = [t.numpy() for t in predictor(*inputs.values())]
        got = session.run(None, {name: t.numpy() for name, t in inputs.items()})
        for want, have in zip(expected, got, strict=True):
            if want.shape != have.shape:
                return Verdict([*rows, len(inputs[names[0]])], axis, float("inf"), atol, rtol, False)
            gap = np.abs(have.astype(np.float64) - want.astype(np.float64))
            worst = max(worst, float(gap.max(initial=0.0)))
            matches &= bool((gap <= atol + rtol * np.abs(want)).all())
        rows.append(len(inputs[names[0]]))
    return Verdict(rows, axis, worst, atol, rtol, matches)


def describe(out: Path, model: Any, datamodule: Any, names: list[str], checkpoint: Path, seconds: float) -> None:
    """What the receiver needs beside the graph, in the file's metadata: the label names, the vocabulary, the
    hyperparameters. (Readable with `onnx.load(path).metadata_props`.)"""
    import onnx

    proto = onnx.load(str(out))
    # The exporter's shape notes on intermediate values fix the LSTM's time axis at the example's length;
    # onnxruntime infers them anyway, and warns at every run where a note disagrees.
    del proto.graph.value_info[:]
    metadata = {
        "source": checkpoint.name,
        "task": model.task.name,
        "inputs": json.dumps({name: model.onnx_inputs[name] for name in names}),
        "output_names": json.dumps(offers(datamodule).output_names),
        "hyper_parameters": json.dumps(dict(model.hparams), default=str),
    }
    if (vocabulary := offers(datamodule).vocabulary) is not None:
        metadata["vocabulary"] = json.dumps(vocabulary.tokens)  # token id = position; 0 is the padding
    if (alphabet := getattr(datamodule, "alphabet", None)) is not None:  # a tagger's tokens carry their characters
        metadata["alphabet"] = json.dumps(alphabet)  # character id = position; 0 the padding, 1 unknown
    onnx.helper.set_model_props(proto, metadata)
    onnx.save(proto, str(out))
    print(f"exported {out} in {seconds:.1f} s")
